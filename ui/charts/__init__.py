"""How a chart reaches the browser, sooner: plotly.js's partial bundles drawn in the page (plotly_view.py, the
bundles and their licence in static/, served by a Streamlit component's file route), and a new tab's first view
ending at its first chart (first_view.py). The figures themselves are built in core/plots/; a page draws one with
``ui.widgets.page_widgets.chart``."""
