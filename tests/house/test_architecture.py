"""The house rules of docs/ARCHITECTURE.md, kept honest: imports point down only (no cycle among core/ and ui/
modules, eager or lazy), the engine never imports Streamlit, the core/ root holds only the scenario contract and
entry points, no module grows past 800 lines (past 500 it is listed with the reason its docstring gives), no
code is dead (vulture), every file path the README and docs/ name exists, and a
scenario written by following "How to add a scenario" plays through the runner."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from lab_paths import ROOT

WARN_LINES = 500  # past this a module is listed, with its reason, as a warning
MAX_LINES = 800  # past this the build fails
MAX_ROOT_MODULES = 8


def _modules() -> dict[str, Path]:
    out = {}
    for top in ("core", "ui"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every project module ``name`` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                target = f"{module}.{alias.name}"
                out.add(target if target in known else module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in known and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in state and (found := visit(v)):
                return found
        stack.pop()
        state[u] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_cycle_finder_finds_a_planted_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_core_and_ui():
    known = _modules()
    graph = {name: _imports(name, path, known) for name, path in known.items()}
    assert _cycle(graph) is None, " → ".join(_cycle(graph))


def _lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``lint-imports`` of the interpreter running the tests (its console script sits beside sys.executable)."""
    tool = Path(sys.executable).parent / "lint-imports"
    return subprocess.run([str(tool), "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"PATH": str(tool.parent), "PYTHONPATH": str(cwd)})


def test_core_keeps_the_layer_order_and_never_imports_streamlit():
    """The contracts of pyproject.toml ([tool.importlinter]): core's packages import only the layers below them,
    and nothing in core imports Streamlit."""
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout


def test_the_layer_check_fails_on_an_upward_import(tmp_path):
    """The same tool on a two-layer toy whose lower module imports the upper one: the contract is broken."""
    pkg = tmp_path / "toy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "high.py").write_text("VALUE = 1\n")
    (pkg / "low.py").write_text("from toy.high import VALUE\n")
    (tmp_path / ".importlinter").write_text("[importlinter]\nroot_package = toy\n\n[importlinter:contract:1]\n"
                                            "name = toy layers\ntype = layers\nlayers =\n    toy.high\n"
                                            "    toy.low\n")
    done = _lint_imports(tmp_path)
    assert done.returncode != 0 and "toy.low -> toy.high" in done.stdout


def test_no_dead_code_beyond_the_allowlist():
    """vulture over the project, tests and benchmarks included (a name a test uses is alive); what it cannot see
    used is listed, with the reason, in tests/house/vulture_allowlist.py."""
    tool = Path(sys.executable).parent / "vulture"
    done = subprocess.run([str(tool), "core", "ui", "pages", "app.py", "serve.py", "tests", "benchmarks",
                           "--min-confidence", "60"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]


def _unexplained_lazy_imports(root: Path) -> list[str]:
    """Imports inside a function with no comment on their line or within the two lines above (where a ``try:``
    line's comment often sits) saying why they are not at the module's top."""
    found = []
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    near = lines[max(0, inner.lineno - 3):inner.lineno]
                    if not any("#" in line for line in near):
                        found.append(f"{path.relative_to(root.parent)}:{inner.lineno}: {lines[inner.lineno - 1].strip()}")
    return found


def test_imports_sit_at_the_top_unless_a_comment_says_why(tmp_path):
    """A module's top shows what it needs: an import inside a function carries a comment (start-up time, an
    optional dependency, an import cycle) — checked on a planted module first, so the check itself can fail."""
    planted = tmp_path / "core"
    planted.mkdir()
    (planted / "m.py").write_text("def f():\n    import json\n    return json\n\n\ndef g():\n"
                                  "    import csv  # only for the rare export\n    return csv\n")
    assert [line.split(": ", 1)[1] for line in _unexplained_lazy_imports(planted)] == ["import json"]
    assert _unexplained_lazy_imports(ROOT / "core") == []


def test_core_never_imports_streamlit():
    offenders = []
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "streamlit" or n.startswith("streamlit.") for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


def test_core_root_holds_only_the_contract_and_entry_points():
    root = sorted(p.name for p in (ROOT / "core").glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    assert {"errors.py", "params.py", "scenario.py", "cost.py", "cancel.py"} <= set(root)


def _module_lines() -> dict[str, tuple[int, Path]]:
    out = {str(p.relative_to(ROOT)): p for p in ROOT.glob("[!.]*/**/*.py")}
    out.update({p.name: p for p in ROOT.glob("*.py")})
    return {name: (len(p.read_text(encoding="utf-8").splitlines()), p) for name, p in out.items()}


def _why_one_module(path: Path) -> str:
    """The reason a long module gives for staying whole: the sentence of its docstring that starts "One module:",
    else its first line (what its one job is)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    said = re.search(r"One module:\s*(.+?)(?:\n\n|$)", doc, re.S)
    if said:
        return " ".join(said.group(1).split())
    first = doc.strip().split("\n", 1)[0] if doc.strip() else "(no docstring)"
    return f"{first} [no reason given: say 'One module: …' in the docstring, or split it at a seam]"


def test_ui_and_studies_say_by_name_and_docstring_what_they_hold():
    """A module of ui/ or core/studies/ shares its name with no other module of the repository (three records.py
    doing three things sent a reader to the wrong one), and every package there says in its docstring what belongs
    in it."""
    by_name: dict[str, list[str]] = {}
    for path in [*(ROOT / "core").rglob("*.py"), *(ROOT / "ui").rglob("*.py")]:
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    shared = {name: paths for name, paths in by_name.items() if len(paths) > 1
              and any(p.startswith(("ui/", "core/studies/")) for p in paths)}
    assert not shared, f"modules of ui/ or core/studies/ that share a name: {shared}"
    packages = [init for top in ("ui", "core/studies") for init in (ROOT / top).rglob("__init__.py")]
    assert len(packages) >= 3
    bare = [str(init.relative_to(ROOT)) for init in packages
            if len(ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "") < 80]
    assert not bare, f"packages whose docstring does not say what belongs in them: {bare}"


def test_no_module_over_800_lines_and_a_warning_past_500():
    """A module past WARN_LINES is listed as a warning with the reason its docstring gives for staying whole (a
    seam to split at is better than a squeeze to fit a count); only past MAX_LINES does the build fail."""
    lines = _module_lines()
    for name, (n, path) in sorted(lines.items()):
        if WARN_LINES < n <= MAX_LINES:
            warnings.warn(f"{name}: {n} lines — {_why_one_module(path)}", stacklevel=1)
    too_long = {name: n for name, (n, _) in lines.items() if n > MAX_LINES}
    assert not too_long


_PATH = re.compile(r"(?<![\w/.-])((?:core|ui|pages|tests|benchmarks|content|docs)/[\w./-]*[\w/])")


_DOCS = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("doc", _DOCS)
def test_every_path_a_document_names_exists(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    paths = {m.rstrip("/.") for m in _PATH.findall(text)}
    paths = {p for p in paths if "<" not in p and "*" not in p and "NN_" not in p}
    assert paths, "the pattern found no path: the test would pass vacuously"
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing


def test_a_scenario_added_by_the_documented_steps_plays():
    """Steps 2–5 and 7 of "How to add a scenario", on a coin-guessing toy (step 1's discovery is what registers
    every module in core/scenarios/, checked at the end)."""
    from core import scenario as registry
    from core.errors import ParameterError
    from core.params import Param
    from core.runtime.games import run

    @registry.register
    class CoinGuess(registry.Scenario):
        name = "toy-coin-guess"
        title = "Toy: guess a fair coin"
        summary = "An attacker guesses each of n fair coins; accuracy stays near one half."
        paper = "none (architecture test)"
        params = (Param("n", "int", 200, "coins per game", low=1, high=10_000),
                  Param("games", "int", 4, "games", low=1, high=100))

        def check(self, config):
            if config["n"] == 13:
                raise ParameterError("n", "unlucky")

        def n_games(self, config):
            return config["games"]

        def play(self, config, context, index, rng):
            coins = rng.integers(0, 2, config["n"])
            return {"correct": int(np.sum(coins == 1))}

        def summarize(self, config, context, records):
            right = sum(r["correct"] for r in records)
            return {"accuracy": right / (config["n"] * len(records))}, {}

    try:
        assert "toy-coin-guess" in registry.all_scenarios()
        with pytest.raises(ParameterError):
            CoinGuess().resolve({"n": 13})
        first = run("toy-coin-guess", {"n": 500}, seed=3)
        again = run("toy-coin-guess", {"n": 500}, seed=3)
        assert first.metrics == again.metrics
        assert abs(first.metrics["accuracy"] - 0.5) < 0.05
        assert first.config["n"] == 500 and first.config["seed"] == 3
    finally:
        registry._REGISTRY.pop("toy-coin-guess", None)
    for path in (ROOT / "core" / "scenarios").iterdir():
        if path.name.startswith("_") or path.suffix not in ("", ".py") or path.name == "__pycache__":
            continue
        source = (path / "scenario.py") if path.is_dir() else path
        names = re.findall(r'^\s+name = "([\w-]+)"', source.read_text(encoding="utf-8"), re.M)
        assert names and set(names) <= set(registry.all_scenarios()), path.name


def test_a_lesson_written_by_the_documented_steps_loads(tmp_path):
    """Steps 1–3 of "How to add a lesson", on a five-step lesson written from scratch; a field the steps name
    wrongly is reported by file, step and field."""
    from core.studies.lessons.lesson_files import LessonError, load_lesson

    step = """
[[step]]
title = "Exact answers, m/n = {ratio}"
context = "n = 40 people, each with a secret bit; the attacker asks {ratio} × n exact subset counts."
scenario = "reconstruction"
metric = "accuracy"
plot = "accuracy_vs_ratio"
reveal = "The attack recovered {{measured:.0%}} of the bits."
[step.params]
n = 40
query_ratio = {ratio}
trials = 2
[step.predict]
kind = "slider"
prompt = "What share of the bits does the attack recover?"
low = 0.5
high = 1.0
step = 0.05
tolerance = 0.1
"""
    head = ('title = "Toy reconstruction"\npaper = "Dinur & Nissim (2003)"\nsection = "Theorem 2"\n'
            'summary = "Exact answers and the number of questions."\nseed = 1\norder = 50\n')
    path = tmp_path / "toy-reconstruction.toml"
    path.write_text(head + "".join(step.format(ratio=r) for r in (0.5, 1.0, 1.5, 2.0, 3.0)), encoding="utf-8")
    lesson = load_lesson(path)
    assert lesson.id == "toy-reconstruction" and len(lesson.steps) == 5 and lesson.seed == 1
    assert lesson.steps[2].params["query_ratio"] == 1.5
    path.write_text(path.read_text().replace('kind = "slider"', 'kind = "guess"', 1), encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(path)
    assert "step 1: predict.kind" in str(err.value)


def test_a_generator_added_by_the_documented_steps_fits_and_samples():
    """Steps 1–2 of "How to add a synthetic-data generator": a toy that draws every column uniformly."""
    from core.data.dataset import Dataset
    from core.releases.synthesizers import SYNTHESIZERS, get_synthesizer
    from core.releases.synthesizers.base import Synthesizer, register_synthesizer

    @register_synthesizer
    class UniformToy(Synthesizer):
        name = "toy-uniform"
        title = "Toy: every column uniform"

        def _fit(self, codes, rng):
            self._cards = codes.max(axis=0) + 1

        def _sample(self, m, rng):
            return np.stack([rng.integers(0, c, m) for c in self._cards], axis=1)

    try:
        codes = np.random.default_rng(0).integers(0, [2, 3, 4], size=(200, 3))
        data = Dataset.from_codes(codes, {"a": ["0", "1"], "b": ["0", "1", "2"], "c": list("0123")})
        gen = get_synthesizer("toy-uniform").fit(data, np.random.default_rng(1))
        sample = gen.sample(500, np.random.default_rng(2))
        assert sample.shape == (500, 3) and (sample.max(axis=0) == [1, 2, 3]).all() and sample.min() == 0
        assert gen.privacy == (float("inf"), 0.0)
    finally:
        SYNTHESIZERS.pop("toy-uniform", None)


def test_an_attack_added_by_the_documented_steps_plays(capsys):
    """Steps 3–4 of "How to add an attack", on a toy that always guesses 1: its one declaration puts it in the
    CLI list, the page's choices and "all", its cost term in the estimate, its labels on the page and the plot,
    and its player into every game."""
    from core import cli
    from core.attacks import declaration
    from core.plots import synthetic as plots
    from core.runtime.games import run
    from core.scenario import all_scenarios
    from core.scenarios.synthetic.views import attack_metric_names

    def guess_one(S, x_u, rng):
        return 1, 1.0

    declaration.declare(declaration.Attack(key="toy", scenario="synthetic", name="Adv_toy",
                                           long="Adv_toy (always guesses 1)", player=guess_one,
                                           seconds_per_row=1e-3))
    try:
        sc = all_scenarios()["synthetic"]
        choice = sc.param("attack")
        assert choice.choices == ("recon", "dcr", "infer", "toy", "all")
        assert choice.choice_labels["toy"] == "Adv_toy (always guesses 1)"
        assert choice.choice_labels["all"] == "all four (Acc_max)"
        assert cli.main(["list"]) == 0
        assert "one of recon|dcr|infer|toy|all" in capsys.readouterr().out
        small = {"games": 4, "synth_size": 100, "n": 200, "query_sweep": False}
        rows = 10 + 100  # the size ladder 10, 100
        toy = sc.estimate_cost(sc.resolve({**small, "attack": "toy"})).seconds
        dcr = sc.estimate_cost(sc.resolve({**small, "attack": "dcr"})).seconds
        assert toy - dcr == pytest.approx(4 * (1e-3 - 1e-6) * rows)
        assert "toy" in sc.attacks(sc.resolve({**small, "attack": "all"}))
        result = run("synthetic", {**small, "attack": "all"}, seed=5)
        assert result.series["roc"]["toy"]["auc"] == pytest.approx(0.5)  # one score for everyone: chance
        assert result.metrics["accuracy_toy"] in (0.0, 0.25, 0.5, 0.75, 1.0)  # the share of games whose secret is 1
        assert attack_metric_names()["accuracy_toy"] == "Adv_toy"
        assert any(trace.name.startswith("Adv_toy · ") for trace in plots.roc(result.series).data)
    finally:
        declaration._DECLARED["synthetic"].pop("toy", None)
    assert all_scenarios()["synthetic"].param("attack").choice_labels["all"] == "all three (Acc_max)"
