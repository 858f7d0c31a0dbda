"""Work built on several labs that is not one lab's game. What belongs here:

* presets.py — the paper presets (content/presets.toml, also ``--preset``) and the gallery of known bugs;
* link_rules.py — what a shared link may carry: only values a lab page's own widgets can set;
* lessons/ — the lessons' engine: lesson files, their runs, grading, demos, plots and handouts;
* choosing_epsilon/ — the ε ladder and its reading, which ε for a table release and the board's report, the
  decision game, ε in context and the deployments registry.

A new game goes to core/scenarios/; class records to core/classroom/; a figure to core/plots/.
"""
