"""How every smembench command takes its arguments and reports an error: compare, export, fleet,
ab, trend, report and plot each build their one parser here (parser()) and raise Usage.

An error is one line on stderr starting with PREFIX, as the driver's are, written by tool.run_tool:
"smembench: problem; see PROG --help" and exit 2 for a usage error (Usage, or argparse's own),
the documented statuses otherwise (1 stdout, 3 a missing module, 70 a bug, 128 + N a signal).
PROG is the name the command goes by (reader.COMMAND: smembench-compare installed, compare.py from
the tree), and --version prints it with smembench's version.
"""
import argparse

from smembench import reader

# what every message of every command starts with (the driver's too)
PREFIX = "smembench"


class Usage(Exception):
    """Unusable input or a bad option: one line on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are Usage (one line, status 2) pointing at the command's own --help."""

    def error(self, message):
        raise Usage(f"{message}; see {self.prog} --help")


def parser(script, doc):
    """The command's ArgumentParser: prog the name it goes by (reader.command(script)), its module's
    docstring as the description, --version."""
    ap = Parser(prog=reader.command(script), description=doc,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    reader.add_version(ap)
    return ap

