"""Work built on several labs that is not one lab's game: the paper presets (and ``--preset``), the ε ladder and
the decision game, the lessons (model and loader, grading, runs, demos, plots, handout) and class mode, ε in
context and the deployments registry, and what a shared link may carry. A new game goes to core/scenarios/."""
