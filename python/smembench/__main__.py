"""python3 -m smembench TOOL [ARGS...]: the smembench-TOOL command, the same main() as the installed
command's (_commands), under the same name; without a TOOL, or with one it does not know, a line
naming the tools and exit 2."""
import sys

from smembench import _commands
from smembench import cli
from smembench import startup

USAGE = f"usage: python3 -m smembench TOOL [ARGS...], TOOL one of {', '.join(_commands.TOOLS)}"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if not argv or argv[0] not in _commands.TOOLS:
        what = f'unknown tool "{argv[0]}"' if argv else "no tool given"
        print(f"{cli.PREFIX}: {what}; {USAGE}", file=sys.stderr)
        return 2
    startup.matplotlib_dirs()
    sys.argv = [f"smembench-{argv[0]}"] + argv[1:]
    return getattr(_commands, argv[0])()


if __name__ == "__main__":
    sys.exit(main())
