#!/bin/sh
# a smembench-* command's --help and --version for help2man (run by meson, never installed): argparse's
# "usage:" paragraph becomes one "Usage:" line, the form help2man turns into the SYNOPSIS
"$@" | awk '
    usage && /^ +[^ ]/ { sub(/^ +/, ""); line = line " " $0; next }
    usage { print line; usage = 0 }
    /^usage: / { usage = 1; line = "Usage: " substr($0, 8); next }
    { print }
    END { if (usage) print line }'
