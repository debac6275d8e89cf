"""What a command sets up before the heavy modules are imported (the launchers, scripts/*.py and
the installed smembench-* commands, call it first).

- matplotlib's config and cache folder: where the default (~/.config/matplotlib, ~/.cache/matplotlib,
  or under $XDG_CONFIG_HOME and $XDG_CACHE_HOME) cannot be written (a user without a home, a
  read-only home, a service account) and MPLCONFIGDIR is not set, a temporary folder of this
  process, removed at exit: matplotlib would make one too, but with a warning of three lines on
  stderr that is no fault of the input.
"""
import atexit
import os
import shutil
import tempfile


def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def matplotlib_dirs():
    """Sets MPLCONFIGDIR to a temporary folder where matplotlib's own folders cannot be written."""
    if os.environ.get("MPLCONFIGDIR"):
        return
    home = os.path.expanduser("~")
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    if all(_writable(os.path.join(d, "matplotlib")) for d in (config, cache)):
        return
    try:
        d = tempfile.mkdtemp(prefix="smembench-matplotlib-")
    except OSError:
        return          # no temporary folder either: matplotlib says so itself
    atexit.register(shutil.rmtree, d, True)
    os.environ["MPLCONFIGDIR"] = d
