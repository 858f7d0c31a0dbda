"""Playing a scenario: seeding and the runner, sweeps, worker processes, the result store, server limits and small in-process caches."""
