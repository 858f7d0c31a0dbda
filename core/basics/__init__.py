"""The lowest layer above :mod:`core.errors`: small helpers every other layer may use, importing nothing of the
project but ``core.errors``.

* :mod:`.words` — a count with its noun, a percentage, a value cut to a length (the page, the CLI, the runner's
  messages and the plots all word numbers the same way);
* :mod:`.settings` — the lab's settings (``lab_settings.toml``): server limits, the run pool, the store, upload
  limits.

A helper belongs here only if it needs nothing above ``core.errors``; sentences about a result live in
:mod:`core.output.plain_language`, which uses these.
"""
