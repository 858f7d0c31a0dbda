"""A k-anonymous mechanism that leaks a secret (CS208 lecture 2, slide "k-anonymity across all attributes?").

The slide's mechanism ("Privacy concerns?"):

    A(x): if Salil is in x and has tuberculosis, generalise starting with the rightmost attribute;
          else generalise starting on the left.

Both branches end in a table that is **k-anonymous across all attributes** (every published row
occurs ≥ k times; names are dropped, ``T_i = {all strings} × …``), so every single output passes
the syntactic test. Yet an observer who knows ``A`` (Kerckhoffs) reads Salil's diagnosis off
*which columns were generalised*: a suffix of generalised columns means "TB", a prefix means
"no TB". Message of the slide: **privacy is a property of the input–output relationship** (of
the mechanism, over all inputs), not of one output.

Concretely, :func:`tb_mechanism` is a greedy column-by-column full-domain generaliser over the
hierarchies of :mod:`core.reid.hierarchies`: take the columns in the chosen order; raise the
current column one hierarchy level at a time, and move on to the next column once it is fully
suppressed; stop as soon as :func:`core.reid.k_anonymity.check` passes on all published columns.
Because the all-``*`` table is k-anonymous whenever ``n ≥ k``, it always stops.
:func:`two_worlds` runs ``A`` on the two neighbouring inputs that differ only in Salil's
diagnosis and :func:`decode` is the observer's one-line attack.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..errors import DataError, ParameterError
from .hierarchies import Hierarchy, IntervalHierarchy, SuppressionHierarchy, ZipHierarchy, default_hierarchy
from .k_anonymity import KAnonymityReport, check

SECRET = "tuberculosis"
MAX_ROWS = 5_000


def slide_table() -> pd.DataFrame:
    """A small clinic table; Salil is the first row (his diagnosis is set per world by :func:`two_worlds`)."""
    return pd.DataFrame({
        "Name": ["Salil", "Ana", "Ben", "Chen", "Dana", "Eli", "Fay", "Gus"],
        "ZIP": ["02138", "02139", "02138", "02139", "02134", "02134", "02135", "02135"],
        "Age": [45, 41, 47, 43, 33, 36, 31, 38],
        "Sex": ["M", "F", "M", "F", "M", "F", "M", "F"],
        "Diagnosis": [SECRET, "flu", "flu", "tuberculosis", "asthma", "diabetes", "asthma", "diabetes"],
    })


def slide_hierarchies() -> dict[str, Hierarchy]:
    """ZIP digit suppression, 10-year age bands, sex suppression, diagnosis → infectious / chronic → *."""
    groups = {"tuberculosis": "infectious", "flu": "infectious", "asthma": "chronic", "diabetes": "chronic"}
    return {"ZIP": ZipHierarchy(5), "Age": IntervalHierarchy([list(range(0, 101, 10))]),
            "Sex": SuppressionHierarchy(), "Diagnosis": SuppressionHierarchy(groups=groups)}


@dataclass
class MechanismOutput:
    """One run of ``A``: the published table, the height used per column, and the order of the walk."""

    has_tb: bool
    order: list[str]
    heights: dict[str, int]
    table: pd.DataFrame
    report: KAnonymityReport
    n_steps: int
    tops: dict[str, int]

    @property
    def generalised(self) -> list[str]:
        return [c for c, h in self.heights.items() if h > 0]


def _validate(table: pd.DataFrame, k, name_col: str, target: str, sensitive: str):
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise DataError("the table has no rows")
    if len(table) > MAX_ROWS:
        raise DataError(f"the table has {len(table):,} rows; this demo takes at most {MAX_ROWS:,}")
    for col, what in ((name_col, "name_column"), (sensitive, "sensitive")):
        if col not in table.columns:
            raise ParameterError(what, f"unknown column {col!r}")
    if int(k) != k or int(k) < 1:
        raise ParameterError("k", "must be a positive integer")
    if int(k) > len(table):
        raise ParameterError("k", f"the table has {len(table)} rows, fewer than k = {int(k)}")
    if (table[name_col].astype(str) == target).sum() > 1:
        raise DataError(f"{target!r} occurs more than once in column {name_col!r}")
    if len([c for c in table.columns if c != name_col]) < 2:
        raise DataError("need at least two published attributes (besides the name)")


def tb_mechanism(table: pd.DataFrame, k: int = 2, hierarchies: dict | None = None, *, target: str = "Salil",
                 name_col: str = "Name", sensitive: str = "Diagnosis", secret: str = SECRET) -> MechanismOutput:
    """The slide's ``A(x)``: right-to-left if ``target`` is in ``x`` with ``sensitive == secret``, else left-to-right."""
    _validate(table, k, name_col, target, sensitive)
    k = int(k)
    cols = [c for c in table.columns if c != name_col]  # names are dropped: T = {all strings}
    hier = {c: (hierarchies or {}).get(c) or default_hierarchy(c, table[c]) for c in cols}
    who = table[name_col].astype(str) == target
    has_tb = bool((table.loc[who, sensitive].astype(str) == secret).any())
    order = cols[::-1] if has_tb else list(cols)
    labels = {c: [hier[c].generalise(table[c], h) for h in range(hier[c].height + 1)] for c in cols}
    heights = dict.fromkeys(cols, 0)

    def publish() -> pd.DataFrame:
        return pd.DataFrame({c: labels[c][heights[c]] for c in cols})

    steps, pub = 0, publish()
    rep = check(pub, cols, k)
    for c in order:
        while not rep.passes and heights[c] < hier[c].height:
            heights[c] += 1
            steps += 1
            pub = publish()
            rep = check(pub, cols, k)
        if rep.passes:
            break
    return MechanismOutput(has_tb, order, heights, pub, rep, steps, {c: hier[c].height for c in cols})


def _is_walk(h: list[int], tops: list[int]) -> bool:
    """Heights reachable by a left-to-right walk: fully suppressed prefix, one partial column, exact rest."""
    j = next((i for i, (a, t) in enumerate(zip(h, tops)) if a < t), len(h))
    return all(a == 0 for a in h[j + 1:])


def decode(heights: dict[str, int], tops: dict[str, int]) -> bool | None:
    """The observer's attack on an output of ``A``: True = "has TB", False = "no TB", None = cannot tell.

    A left-to-right walk leaves heights ``(top, …, top, h_j, 0, …, 0)``; a right-to-left walk the
    mirror image. An output that only the right-to-left walk can produce reveals the TB branch and
    vice versa; outputs both walks can produce (nothing or everything generalised) reveal nothing.
    """
    h, t = list(heights.values()), [tops[c] for c in heights]
    left, right = _is_walk(h, t), _is_walk(h[::-1], t[::-1])
    if right and not left:
        return True
    if left and not right:
        return False
    return None


@dataclass
class TwoWorlds:
    """``A`` on two neighbouring tables that differ only in the target's diagnosis."""

    k: int
    columns: list[str]
    worlds: dict[bool, MechanismOutput]   # True: target has TB; False: target does not
    inputs: dict[bool, pd.DataFrame]

    @property
    def both_k_anonymous(self) -> bool:
        return all(o.report.passes for o in self.worlds.values())

    @property
    def outputs_differ(self) -> bool:
        return self.worlds[True].heights != self.worlds[False].heights

    @property
    def attack_correct(self) -> bool:
        """The observer decodes the right bit in both worlds."""
        return all(decode(o.heights, o.tops) is tb for tb, o in self.worlds.items())

    def heights_table(self) -> pd.DataFrame:
        """One row per world: the hierarchy height per column (0 = exact), the decoded bit, min class size."""
        rows = []
        for tb in (True, False):
            o = self.worlds[tb]
            guess = decode(o.heights, o.tops)
            rows.append({"world": "Salil has TB" if tb else "Salil has no TB", **o.heights,
                         "min_class_size": o.report.min_class_size, "k_anonymous": o.report.passes,
                         "observer_guesses": {True: "TB", False: "no TB", None: "cannot tell"}[guess]})
        return pd.DataFrame(rows)


def two_worlds(table: pd.DataFrame | None = None, k: int = 2, hierarchies: dict | None = None, *,
               target: str = "Salil", name_col: str = "Name", sensitive: str = "Diagnosis", secret: str = SECRET,
               other_value: str = "flu") -> TwoWorlds:
    """Run the slide's mechanism on x (target has ``secret``) and x' (target has ``other_value``)."""
    if table is None:
        table, hierarchies = slide_table(), slide_hierarchies() if hierarchies is None else hierarchies
    _validate(table, k, name_col, target, sensitive)
    who = (table[name_col].astype(str) == target).to_numpy()
    if not who.any():
        raise DataError(f"{target!r} is not in column {name_col!r}")
    if str(other_value) == secret:
        raise ParameterError("other_value", "the other world must give the target a different diagnosis")
    inputs, worlds = {}, {}
    for tb in (True, False):
        x = table.copy()
        x[sensitive] = x[sensitive].astype(object)
        x.loc[who, sensitive] = secret if tb else other_value
        inputs[tb] = x
        worlds[tb] = tb_mechanism(x, k, hierarchies, target=target, name_col=name_col, sensitive=sensitive,
                                  secret=secret)
    return TwoWorlds(int(k), [c for c in table.columns if c != name_col], worlds, inputs)

