"""The Lessons page's parts: one step's predict → run → reveal → explore and the lesson's end (lesson_steps.py),
the printable handouts' buttons (lesson_handout.py), and class mode on that page: a student's join and seat, the
teacher's class creation (class_mode.py), the teacher's live view, roster and grades (class_teacher.py), and who is
asking, a browser or a visitor (class_identity.py, also read by ui/runs/visitors.py). The lessons' engine is
core/studies/lessons/; class records are core/classroom/."""
