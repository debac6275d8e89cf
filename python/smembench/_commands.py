"""The smembench-* commands of pip install ./python (pyproject.toml's project.scripts): each sets
the name the command goes by, as meson's launcher (scripts/launcher.py.in) does, and calls its
module's main(); the console script exits with main()'s status. python3 -m smembench TOOL calls the
same (__main__.py)."""
import importlib

from smembench import reader


def _tool(name):
    def command():
        reader.COMMAND = f"smembench-{name}"
        return importlib.import_module(f"smembench.{name}").main()
    command.__name__ = name
    command.__doc__ = f"smembench-{name}: smembench.{name}.main()"
    return command


# the commands, each a module of this package with a main()
TOOLS = ("plot", "compare", "export", "report", "fleet", "ab", "trend", "catalog")
plot, compare, export, report, fleet, ab, trend, catalog = (_tool(t) for t in TOOLS)
