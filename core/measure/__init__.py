"""Pure scoring over records and results: ROC/AUC and intervals, utility errors, the empirical-ε audit, headline numbers and comparisons."""
