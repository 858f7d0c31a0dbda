"""What a shared link may carry: only values a lab page's own widgets can set.

A link (Compare's pinned runs, a preset's shareable address, a lab's parameters) is written by whoever sends it,
so the server never takes more from it than a visitor could set by hand on the lab page:

* parameters the page shows as widgets (``Param.ui``), and the column a page lets the visitor pick from the data
  (``COLUMN_PARAMS``), each validated by its :class:`~core.params.Param` like a widget's value;
* never a parameter that names a file on the server (``data_path``, ``trace_file``): a run on an uploaded file
  travels as the marker :data:`UPLOADED`, and whoever opens the link is asked to upload the file again;
* every other engine-only parameter (solver internals, batch sizes) is dropped, and the page says so, when it
  differs from its default — the lab page could not have set it either.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..data.dataset import check_input_file
from ..errors import DataError, ParameterError
from ..scenario import Scenario, all_scenarios

UPLOADED = "(uploaded file)"  # what a link holds instead of an upload's server path
# Engine-only parameters that a lab page nevertheless sets through a widget of its own: a column picked from
# the dataset's columns (the engine checks the name against the data, as it does for the page).
COLUMN_PARAMS = frozenset({"secret", "sensitive_column"})
MAX_SEED = 2**31 - 1


def is_file_param(sc: Scenario, name: str) -> bool:
    """Whether ``name`` is a parameter naming a file on the server (never taken from a link)."""
    try:
        p = sc.param(name)
    except KeyError:
        return False
    return not p.ui and p.kind == "str" and name.endswith(("_path", "_file"))


def check_file_params(sc: Scenario, params: dict) -> None:
    """Every file parameter set in ``params`` (``data_path``, ``trace_file``…) must name a readable regular file;
    :class:`ParameterError` (one line) otherwise. The command line checks this before it estimates or starts
    anything, so a mistyped path is one line and exit 2, not a cost note and a failure later."""
    for name, value in params.items():
        if value and is_file_param(sc, name):
            try:
                check_input_file(str(value), name)
            except DataError as exc:
                raise ParameterError(name, str(exc).split(": ", 1)[1]) from None


def linkable(sc: Scenario, name: str) -> bool:
    """Whether a link may set parameter ``name`` of ``sc``: a widget on its lab page can."""
    try:
        p = sc.param(name)
    except KeyError:
        return False
    return (p.ui or name in COLUMN_PARAMS) and not is_file_param(sc, name)


@dataclass
class LinkedRun:
    """A run named by a link, reduced to what a lab page could set."""

    scenario: str
    params: dict[str, Any]
    seed: int
    dropped: list[str] = field(default_factory=list)  # engine-only parameters the link tried to set
    uploads: list[str] = field(default_factory=list)  # file parameters: the run needs the visitor's upload

    @property
    def needs_upload(self) -> bool:
        return bool(self.uploads)


def from_link(scenario: str, params: Any, seed: Any) -> LinkedRun:
    """The run a link names, keeping only what a lab page's widgets can set.

    Raises :class:`ParameterError` for an unknown scenario, a malformed parameter list, a value a widget would
    refuse, or a seed out of range (the message quotes the link's text, to be shown as inert text)."""
    scenarios = all_scenarios()
    if not isinstance(scenario, str) or scenario not in scenarios:
        raise ParameterError("scenario", f"{str(scenario)[:60]!r} is not a lab of this build")
    sc = scenarios[scenario]
    if not isinstance(params, dict):
        raise ParameterError("params", "expected a mapping of parameter names to values")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ParameterError("seed", f"expected int in [0, {MAX_SEED}], got {str(seed)[:40]!r}")
    defaults = sc.defaults()
    out, dropped, uploads = {}, [], []
    for name, value in params.items():
        name = str(name)
        if is_file_param(sc, name):
            if value:
                uploads.append(name)
            continue
        if name not in defaults:
            dropped.append(name)
            continue
        if not linkable(sc, name):
            if value != defaults[name]:
                dropped.append(name)
            continue
        out[name] = sc.param(name).validate(value)
    if not uploads:
        sc.resolve(out)  # the combination must be one a page can run
    return LinkedRun(scenario, out, seed, dropped, uploads)


def for_link(scenario: str, params: dict) -> dict:
    """The parameters of a run as a link carries them: a file parameter becomes :data:`UPLOADED` (never a server
    path) and engine-only parameters at their defaults are left out."""
    sc = all_scenarios().get(scenario)
    if sc is None:
        return {}
    defaults = sc.defaults()
    out = {}
    for name, value in params.items():
        if is_file_param(sc, name):
            if value:
                out[name] = UPLOADED
        elif linkable(sc, name) or (name in defaults and value != defaults[name]):
            out[name] = value
    return out
