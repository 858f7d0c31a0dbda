"""Target models attacked by the ML-model scenarios (black-box interfaces)."""
