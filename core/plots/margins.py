"""Room for a chart's side axes, reserved before the browser draws it, so that Plotly draws it once.

The lab's template (plotly_white) turns ``automargin`` on for every axis. When the tick labels and title of a y
axis do not fit in the figure's side margin, Plotly finds out only once it has drawn them: it widens the margin
and draws the whole chart again (``Plots.doAutoMargin`` calls ``_doPlot`` once more). With the lab's base margin
of 60 px, nearly every chart was drawn twice: in Streamlit's font (Source Sans, 12 px ticks, 14 px titles) a y
axis with ticks such as "100%" and a title beside it needs 67–83 px, one with category names up to 232 px
(measured in Chromium: ``gd._fullLayout._size`` against ``gd._fullLayout.margin``). The second pass cost a
chart's first draw in a fresh page 15–80 ms (median of 12–15 cold draws of each lab's first chart; 40–80 ms for
Decision game, Synthetic data and ML models), and every chart of a page paid it again.

:func:`reserve_side_margins` sets each outer y axis's margin to what its labels and title will need, estimated
from the figure alone: ``AXIS_PX`` for the ticks' padding, the title's standoff and its line, plus the widest
tick label — ``NUMERIC_LABEL_PX`` for numbers (the lab's widest, "100%" or "0.025", are 27–28 px), or
``CHAR_PX`` per character of the longest category name (Source Sans at 12 px: 4.8–4.9 px a character measured
on the lab's quasi-identifier names, rounded up). The estimate errs wide, so the first draw is the last;
``automargin`` stays on, so a label wider than the estimate still fits (at the old cost of a second pass).
The bottom margin likewise gets room for the x axis's tick labels and title (``X_AXIS_PX``: 67 px measured):
a legend below the plot already pushes the bottom margin before the first pass, but a chart without one was
drawn twice for want of those 7 px. And a number centred on a tick at the x axis's right end reaches past the
plot by half its width: a chart with no right margin was drawn twice for 4 px (``X_OVERHANG_PX``).
"""
from __future__ import annotations

import math

import plotly.graph_objects as go

from core.plots.common import strip_markup

AXIS_PX = 60  # ticks' padding, title standoff (15 px) and the title's line (14 px font), with a little to spare
NUMERIC_LABEL_PX = 30  # the widest numeric tick label the lab's axes show, in Streamlit's 12 px chart font
CHAR_PX = 5.2  # a character of a category name in that font (4.8–4.9 px measured)
X_AXIS_PX = (40, 70)  # below the plot: one row of horizontal tick labels; with the axis's title under it
X_OVERHANG_PX = 16  # right of the plot: half the widest number centred on a tick at the x axis's end
MAX_SIDE_PX = 320  # never give a side more than this: Plotly's automargin decides beyond it
# A margin the figure leaves unset is drawn at Streamlit's chart theme's (0 px left and right) or Plotly's default
# (80 px at the bottom): only a need beyond that is set.
_UNSET = {"l": 0, "r": 0, "b": 80}
_EDGE = 0.02  # an axis whose plot starts this close to the figure's edge draws its labels in the margin
_SAMPLE = 2000  # category names looked at per trace (enough to find the longest of any axis the lab draws)


def _numeric(value) -> bool:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    try:
        float(str(value).replace("−", "-"))
        return True
    except ValueError:
        return False


def _first(values) -> list:
    """At most ``_SAMPLE`` of a trace's values, without copying the rest (plotly keeps them as arrays or tuples)."""
    return list(values[:_SAMPLE]) if hasattr(values, "__getitem__") else list(values)[:_SAMPLE]


def _values_on(fig: go.Figure, ref: str):
    """The values each trace drawn on the axis ``ref`` (``"y"``, ``"x2"``) puts on it: its x or y values."""
    letter = ref[0]
    for trace in fig.data:
        values = getattr(trace, letter, None)
        if values is not None and (getattr(trace, letter + "axis", None) or letter) == ref:
            yield values


def _category_names(fig: go.Figure, axis, ref: str) -> list[str] | None:
    """The tick labels of a category axis (its ``ticktext``, or the text values its traces put on it), or None
    when the axis shows numbers. ``ref`` names the axis as traces do (``"y"``, ``"x2"``)."""
    if axis.ticktext:
        return [strip_markup(t) for t in axis.ticktext]
    on_axis = list(_values_on(fig, ref))
    names = [strip_markup(v) for values in on_axis
             if getattr(getattr(values, "dtype", None), "kind", "O") not in "biuf"  # a numeric array: no names
             for v in _first(values) if v is not None and not _numeric(v)]
    if axis.type == "category" and not names:  # numbers shown as categories
        names = [str(v) for values in on_axis for v in _first(values)]
    return names or None


def _side_need(fig: go.Figure, axis) -> tuple[str, int] | None:
    """(``"l"`` or ``"r"``, pixels) an outer y axis needs beside its plot, or None for an axis inside the figure
    (a panel's axis beside another panel) or one without labels or title."""
    if axis.visible is False:
        return None
    name = axis.plotly_name
    ref = "y" + name[len("yaxis"):]
    side = "r" if axis.side == "right" else "l"
    anchor = axis.anchor if axis.anchor not in (None, "free") else ("x" if axis.overlaying is None else None)
    if axis.anchor == "free":
        position = axis.position if axis.position is not None else 0.0
        if (side == "l" and position > _EDGE) or (side == "r" and position < 1 - _EDGE):
            return None
    elif anchor is not None:
        domain = fig.layout["xaxis" + anchor[1:]].domain or (0.0, 1.0)
        if (side == "l" and domain[0] > _EDGE) or (side == "r" and domain[1] < 1 - _EDGE):
            return None
    has_title = bool(axis.title and axis.title.text)
    if axis.showticklabels is False:
        labels = 0
    else:
        names = _category_names(fig, axis, ref)
        affixes = len(axis.tickprefix or "") + len(axis.ticksuffix or "")
        labels = (round(CHAR_PX * (max(map(len, names)) + affixes)) if names
                  else NUMERIC_LABEL_PX + round(CHAR_PX * affixes))
    if not labels and not has_title:
        return None
    return side, min(MAX_SIDE_PX, AXIS_PX + labels)


def _bottom_need(fig: go.Figure, axis, names: list[str] | None) -> int:
    """Pixels an x axis at the figure's foot needs under its plot: its tick labels (a level row, or slanted
    category names as deep as the longest reaches) and its title under them. Axes above or inside the figure
    are left to Plotly. ``names``: the axis's category names (None for numbers)."""
    if axis.visible is False or axis.side == "top":
        return 0
    anchor = axis.anchor if axis.anchor not in (None, "free") else ("y" if axis.overlaying is None else None)
    if anchor is not None and (fig.layout["yaxis" + anchor[1:]].domain or (0.0, 1.0))[0] > _EDGE:
        return 0
    has_title = bool(axis.title and axis.title.text)
    if axis.showticklabels is False:
        return X_AXIS_PX[1] - X_AXIS_PX[0] if has_title else 0
    depth = X_AXIS_PX[1] if has_title else X_AXIS_PX[0]
    if axis.tickangle not in (None, 0):  # a slanted name reaches down by its length times the angle's sine
        longest = max(map(len, names)) if names else 6
        depth += round(CHAR_PX * longest * abs(math.sin(math.radians(axis.tickangle))))
    return min(MAX_SIDE_PX, depth)


def reserve_side_margins(fig: go.Figure) -> go.Figure:
    """``fig`` (changed in place) with left, right and bottom margins at least as wide as its outer axes' labels
    and titles need (module docstring), so that Plotly's automargin has nothing to widen after the first draw."""
    need = {"l": 0, "r": 0, "b": 0}
    for axis in fig.select_yaxes():
        found = _side_need(fig, axis)
        if found is not None:
            need[found[0]] = max(need[found[0]], found[1])
    for axis in fig.select_xaxes():
        names = _category_names(fig, axis, "x" + axis.plotly_name[len("xaxis"):])
        depth = _bottom_need(fig, axis, names)
        need["b"] = max(need["b"], depth)
        if depth and axis.showticklabels is not False and axis.type != "category" and not names:
            need["r"] = max(need["r"], X_OVERHANG_PX)
    margin = fig.layout.margin
    wider = {side: px for side, px in need.items()
             if px > (getattr(margin, side) if getattr(margin, side) is not None else _UNSET[side])}
    if wider:
        fig.update_layout(margin=wider)
    return fig
