"""Lessons, predict → run → reveal, read from one TOML file per lesson under content/lessons/: the lesson files'
model and loader (lesson_files.py), playing a step through the shared store and the CI check (lesson_runs.py),
grading a prediction (lesson_grading.py), the runs a step can make besides the registered games
(lesson_demos.py), a step's plot (lesson_plots.py) and the printable handouts (handout.py). Class records and
grades are core/classroom/; the page is ui/lesson_page/."""
