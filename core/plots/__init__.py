"""Plotly figure builders shared by pages, the CLI and reports (one module per area)."""
