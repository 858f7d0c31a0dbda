"""First views that show their point: presets cite what ships, the two-worlds verdict reads plainly."""
import re

from core.output import plain_language as say
from core.studies.presets import load_presets
from lab_paths import ROOT


def test_presets_cite_the_paper_or_a_file_that_ships():
    presets = load_presets()
    assert presets
    for name, p in presets.items():
        text = f"{p['source']} {p.get('paper_value_note', '')} {p.get('explanation', '')}"
        assert "shared/" not in text and not re.search(r"\bspec\b", text.lower()), (name, text)
        for path in re.findall(r"[\w./-]+/[\w.-]+\.(?:md|py|toml|csv)", text):
            assert (ROOT / path).exists(), (name, path)
        # a section, figure or table of the paper, or the paper itself by its arXiv number
        assert re.search(r"§|Fig\.|Table|Theorem|Algorithm \d|slides|arXiv \d", p["source"]), (name, p["source"])


def test_two_worlds_verdict_says_both_pass_plainly():
    s = say.relational_status(2, True, 2, True, 4, "Salil has TB", "he has none")
    assert s == ("The release (the world where Salil has TB) is 2-anonymous (its smallest group of identical-looking "
                 "records has 2 people). The release the other world (where he has none) would produce is also "
                 "2-anonymous (its smallest group of identical-looking records has 4 people): both pass the test.")
    s = say.relational_status(3, False, 1, True, 3, "a", "b")
    assert "is NOT 3-anonymous (its smallest group of identical-looking records has 1 person)" in s
    assert "would produce is 3-anonymous (" in s and "both pass" not in s
