"""How every smembench command takes its arguments and reports a usage error (the library side
of the commands: compare, export, fleet, ab, trend, report and plot build their parsers here).

A usage error is Usage: one line on stderr from tool.run_tool, "smembench: problem; see PROG
--help", and exit 2. PROG is the name the command goes by (reader.COMMAND: smembench-compare
installed, compare.py from the tree), and --version prints it with smembench's version.
"""
import argparse
import os
import sys

from smembench import reader


class Usage(Exception):
    """Unusable input or a bad option: one line on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are Usage (one line, status 2) pointing at the command's own --help."""

    def error(self, message):
        raise Usage(f"{message}; see {self.prog} --help")


def parser(script, doc, parser_class=Parser):
    """The command's ArgumentParser: prog the name it goes by (reader.command(script)), its module's
    docstring as the description, --version."""
    ap = parser_class(prog=reader.command(script), description=doc,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    reader.add_version(ap)
    return ap


def prog():
    """The command's name as the user typed it (its messages' prefix): smembench-report installed,
    report.py in the tree."""
    return os.path.basename(sys.argv[0]) or "plot.py"
