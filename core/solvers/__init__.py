"""Numerical solvers the attacks share (dense LP interior point)."""
