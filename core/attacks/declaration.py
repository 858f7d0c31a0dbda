"""One declaration per attack: its key, the paper's name for it, its labels, the game it plays in, its player,
its cost terms and whether "all" runs it — the way :class:`core.params.Param` declares a parameter.

Everything else reads these declarations instead of keeping a table of its own: the scenario's ``attack``
parameter (its choices, its choice labels and the "all" choice, so the CLI list and the page's radio buttons),
what ``attack=all`` plays, the cost estimate's per-attack terms, the plots' legend labels and the pages' metric
labels. A game declares its attacks in its package ``core/attacks/<scenario name>/__init__.py``, in the order
the choices, legends and tables show them::

    declare(Attack(key="dcr", scenario="synthetic", name="Adv_dcr", long="Adv_dcr (closest record)",
                   paper="Annamalai et al. 2024, §4.3", player=dcr_attack, seconds_per_row=1e-6))

Adding an attack is then one file (the algorithm) plus one ``declare`` (docs/ARCHITECTURE.md, "How to add an
attack"; tests/house/test_architecture.py performs those steps on a toy attack).
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Callable

from ..params import Param

_DECLARED: dict[str, dict[str, "Attack"]] = {}  # scenario name → attack key → declaration, in declaration order
_discovered: set[str] = set()  # scenarios whose attack package was imported
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class Attack:
    """One attack of one game.

    * ``key`` — the value of the scenario's ``attack`` parameter, and (with ``-`` as ``_``, :attr:`metric`) the
      suffix of its metrics and the key of its ROC curve (``accuracy_dcr``, ``auc_cip_rand``);
    * ``scenario`` — the registered scenario it plays in;
    * ``name`` — the paper's name for it (``Adv_dcr``, ``CIP``); ``short`` (default ``name``) labels its numbers
      on a page, ``long`` (default ``short``) is its choice in the sidebar and the CLI, ``plot`` (default
      ``short``) its legend entry;
    * ``paper`` — where it comes from (paper and section);
    * ``player`` — the function the scenario calls to play it, where the game plays its attacks alike (the
      synthetic-data game: ``player(S, x_u, rng) -> (guess, score)``); None where the scenario plays it itself;
    * ``seconds_per_row`` / ``seconds_per_release`` — its cost terms: CPU seconds per attacked row and per
      attacked release, on one core of the lab machine (the scenario's ``estimate_cost`` adds them up);
    * ``in_all`` — whether ``attack=all`` plays it (an optional, slow or oracle attack can stay out).
    """

    key: str
    scenario: str
    name: str
    short: str = ""
    long: str = ""
    plot: str = ""
    paper: str = ""
    player: Callable | None = None
    seconds_per_row: float = 0.0
    seconds_per_release: float = 0.0
    in_all: bool = True

    def __post_init__(self):
        if not self.key or self.key == "all":
            raise ValueError(f"an attack needs a key other than {self.key!r} ('all' is every attack)")
        # the defaults chain name → short → long / plot, so a declaration names only the labels that differ
        object.__setattr__(self, "short", self.short or self.name)
        object.__setattr__(self, "long", self.long or self.short)
        object.__setattr__(self, "plot", self.plot or self.short)

    @property
    def metric(self) -> str:
        """The key as it appears in metric names (``cip-rand`` → ``auc_cip_rand``)."""
        return self.key.replace("-", "_")


def declare(*attacks: Attack) -> tuple[Attack, ...]:
    """Register ``attacks`` for their scenarios (after those already declared); a key declared twice for one
    scenario is a programming error and fails at import."""
    for attack in attacks:
        table = _DECLARED.setdefault(attack.scenario, {})
        if attack.key in table:
            raise ValueError(f"attack {attack.key!r} is declared twice for scenario {attack.scenario!r}")
        table[attack.key] = attack
    return attacks


def _discover(scenario: str) -> None:
    """Import the package that declares ``scenario``'s attacks, ``core/attacks/<scenario>/`` (with ``-`` as
    ``_``), so its declarations are made before anyone reads them; only that game's modules are imported."""
    if scenario in _discovered:
        return
    _discovered.add(scenario)
    name = f"{__package__}.{scenario.replace('-', '_')}"
    if importlib.util.find_spec(name) is not None:
        importlib.import_module(name)


def attacks_of(scenario: str) -> tuple[Attack, ...]:
    """The attacks declared for ``scenario``, in declaration order (the order of choices, legends, tables)."""
    _discover(scenario)
    return tuple(_DECLARED.get(scenario, {}).values())


def attack_of(scenario: str, key: str) -> Attack:
    """The declaration of one attack (KeyError for an unknown key)."""
    _discover(scenario)
    return _DECLARED[scenario][key]


def in_all(scenario: str) -> list[str]:
    """The keys ``attack=all`` plays, in declaration order."""
    return [a.key for a in attacks_of(scenario) if a.in_all]


def labels(scenario: str, kind: str = "plot") -> dict[str, str]:
    """Key → label for every declared attack; ``kind`` is ``short``, ``long`` or ``plot``."""
    return {a.key: getattr(a, kind) for a in attacks_of(scenario)}


def metric_labels(scenario: str, prefix: str) -> dict[str, str]:
    """``{prefix}_{metric}`` → short label, e.g. ``{"accuracy_dcr": "Adv_dcr"}`` for a page's metric row."""
    return {f"{prefix}_{a.metric}": a.short for a in attacks_of(scenario)}


def count_words(n: int) -> str:
    """A small count in words for a choice label ("all three"), digits past ten."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def attack_param(scenario: str, default: str, help: str, *, all_label: str | None = None,
                 label: str = "Attack") -> Param:
    """The scenario's ``attack`` parameter built from the declarations: one choice per declared attack with its
    long label, and an ``all`` choice when ``all_label`` is given (``{n}`` in it becomes the number of attacks
    "all" plays, in words: ``"all {n} (Acc_max)"`` → "all three (Acc_max)")."""
    declared = attacks_of(scenario)
    choices = tuple(a.key for a in declared)
    names = {a.key: a.long for a in declared}
    if all_label is not None:
        choices += ("all",)
        names["all"] = all_label.format(n=count_words(len(in_all(scenario))))
    return Param("attack", "str", default, help, label=label, choices=choices, choice_labels=names)
