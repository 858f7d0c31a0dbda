"""What a lab page shows under a finished run, besides its own plots: the per-run tools (run_tools.py: the audit
banner, the f-DP panel, the report downloads), the "Who is exposed" panel (exposure_panel.py) and the pinned runs
the Compare page reads (pins.py). Numbers come from the run's Result; nothing here computes one."""
