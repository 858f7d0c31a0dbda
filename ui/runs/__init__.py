"""A page's runs while they happen: the server's one worker pool, the visible queue, progress, Stop and abandoned
tabs (page_runs.py: ``run_scenario``, ``pool_run``), a page's parameter sweeps (sweeps.py), the limit of long runs
per visitor (visitors.py) and finished results as the pages get them, memory first, then the shared store
(stored.py). What a page shows of a finished run is ui/results/; the runner itself is core/runtime/."""
