"""What a page draws its controls and its output with, shared by every page: the page preamble, parameter widgets,
charts with their text alternative and downloads (page_widgets.py), error lines (feedback.py), the server's limits
on a widget (widget_limits.py), the address-bar guard (address_guard.py), keyboard focus (focus.py), the WCAG
styles and chart text (accessibility.py), and the CSV import step with its private upload files (import_step.py,
uploads.py). A control that one lab alone needs belongs to that lab (ui/lab_parts/); a run's machinery to ui/runs/."""
