"""Choosing ε, across labs (docs/CHOOSING_EPSILON.md): the ε ladder, one scenario measured at a list of ε values
(ladder.py), and what its rows can and cannot say (ladder_reading.py); which ε for a table release
(table_epsilon.py) and the board's report on it (board_report.py); the decision game (decision_game.py); and one ε
in context: the odds in words and the real deployments near it (epsilon_context.py), read from the deployments
registry (deployment_registry.py). The figures are core/plots/; the pages are the ε explorer, the Decision game
and Choose ε for tables."""
