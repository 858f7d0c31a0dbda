"""Ready-made multi-run studies: the paper presets and the ε ladder."""
