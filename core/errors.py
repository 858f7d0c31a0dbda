"""Typed exceptions of the engine.

Every error a user can provoke (a bad parameter, an unreadable file, a solver that
gave up) is one of these, so the UI can show a one-line message instead of a
traceback and the CLI can exit with status 2.
"""
from __future__ import annotations
import signal


class LabError(Exception):
    """Base class of every error the engine raises on purpose.

    Engine errors travel from the worker processes that run a server's jobs back to the page
    (:mod:`core.runtime.workers`), so each one is rebuilt there with its class, message and attributes even when its
    ``__init__`` takes other arguments than its message (``ParameterError(param, message)``).
    """

    def __reduce__(self):
        return _rebuild, (type(self), self.args, dict(self.__dict__))


class ParameterError(LabError, ValueError):
    """A parameter is missing, of the wrong type or out of its allowed range."""

    def __init__(self, param: str, message: str):
        self.param = param
        self.message = message
        super().__init__(f"{param}: {message}")


class DataError(LabError, ValueError):
    """A dataset (uploaded file, generated table, trace) cannot be used as given."""


class ReleaseMismatch(DataError):
    """A synthetic release to audit does not fit its original: other columns, or values the original never
    takes."""


class SolverError(LabError, RuntimeError):
    """An optimisation solver failed or returned an unusable status."""


class Cancelled(LabError):
    """A run was stopped by the user before it finished."""


class WorkerCrashed(LabError):
    """The worker process running a job ended without an answer (killed, out of memory, a crash in C code)."""


class Interrupted(KeyboardInterrupt):
    """A stop signal (SIGINT or SIGTERM) reached a command-line run.

    The command line turns both signals into this exception in its main thread, so a blocking wait inside
    joblib unwinds at once and joblib ends its worker processes on the way out; the runner
    (:func:`core.runtime.games.run`, :func:`core.runtime.sweep.sweep`) catches it and returns the games or
    grid points finished so far as a stopped result. It derives from :class:`KeyboardInterrupt`, not from
    :class:`Exception`, so no ``except Exception`` in engine code can swallow a stop.
    """

    def __init__(self, signum: int):

        self.signum = int(signum)
        try:
            self.name = signal.Signals(self.signum).name
        except ValueError:
            self.name = f"signal {self.signum}"
        super().__init__(self.name)


def _rebuild(cls: type, args: tuple, state: dict) -> "LabError":
    """An engine error rebuilt in another process without calling its ``__init__``."""
    exc = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(state)
    return exc
