"""One lab page's part that outgrew its page: the Synthetic data lab's release sidebar (synthetic_release.py), the
Aggregate statistics lab's data sidebar (aggregates_data.py), the Reidentification lecture's people
(reid_people.py), and the ε explorer's ladder section (epsilon_ladder.py) and its odds, deployments and
accuracy-first sections (epsilon_panels.py). A part two pages share goes to ui/widgets/ or ui/results/ instead."""
