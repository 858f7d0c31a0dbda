"""The lab's chart template, set without plotly re-validating it (core.plots.common.with_template): the same
figure as the validated way, and no figure shares its template with another or with plotly's registry."""
import json

import plotly.graph_objects as go
import plotly.io as pio
import streamlit.elements.plotly_chart  # noqa: F401  (as in the app: Streamlit's template is plotly's default)

from core.plots.common import TEMPLATE, base_layout, with_template


def _figure() -> go.Figure:
    return go.Figure([go.Scatter(x=[0, 1, 2], y=[0.2, 0.5, 0.9], name="attack"),
                      go.Bar(x=["a", "b"], y=[3, 4], name="counts")])


def _as_data(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


def test_the_template_set_without_validation_gives_the_validated_figure():
    assert pio.templates.default != TEMPLATE  # the figure starts with another template, which must be replaced
    fast = base_layout(_figure(), "t", "x", "y")
    slow = _figure().update_layout(template=TEMPLATE, title=dict(text="t", x=0.0, xanchor="left"), height=420,
                                   xaxis_title="x", yaxis_title="y", legend=dict(orientation="h", y=-0.2),
                                   margin=dict(l=60, r=20, t=60, b=60))
    assert _as_data(fast) == _as_data(slow)
    assert fast.layout.template.layout.plot_bgcolor == "white"
    assert fast.layout.template.to_plotly_json() == pio.templates[TEMPLATE].to_plotly_json()
    # later updates go through plotly's validators as before: a misspelt property is still refused
    try:
        fast.update_layout(xaxis_titel="oops")
    except ValueError:
        pass
    else:
        raise AssertionError("an invalid layout property was accepted")


def test_a_figure_owns_its_copy_of_the_template():
    registered = pio.templates[TEMPLATE].to_plotly_json()
    a, b = with_template(_figure()), with_template(_figure())
    a.layout.template.layout.plot_bgcolor = "black"
    a.update_layout(template_layout_xaxis_gridcolor="red")
    assert b.layout.template.layout.plot_bgcolor == "white"
    assert b.layout.template.layout.xaxis.gridcolor != "red"
    assert pio.templates[TEMPLATE].to_plotly_json() == registered
