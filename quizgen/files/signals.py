"""Temporaries that must not outlive quizgen: the list of those being written, removed at exit,
and signals that end quizgen the way Ctrl-C does (every `finally` runs)."""

from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: Temporaries being written right now; removed at exit if a writer never got to.
TEMPORARIES: set[str] = set()


_HELD = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
              if hasattr(signal, name))


@contextmanager
def signals_held() -> Iterator[None]:
    """Signals wait while a temporary is made and listed (so that none is ever left unlisted)."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    except (AttributeError, ValueError, OSError):
        old = None
    try:
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


@atexit.register
def _remove_leftovers() -> None:
    for name in list(TEMPORARIES):
        try:
            os.unlink(name)
        except OSError:
            pass
        TEMPORARIES.discard(name)


def _stop(signum: int, frame: object) -> None:
    # Unwinds like Ctrl-C: every `finally` runs, so temporaries go and old files stay.
    raise SystemExit(128 + signum)


def install_signal_handlers() -> None:
    """SIGTERM and SIGHUP end quizgen the way Ctrl-C does (temporaries removed)."""
    if sys.platform == "win32":
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _stop)
        except (ValueError, OSError):    # not the main thread
            pass
