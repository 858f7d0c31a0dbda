"""Training-time defenses against attacks on ML models."""
