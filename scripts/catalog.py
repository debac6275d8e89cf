#!/usr/bin/env python3
"""smembench-catalog from a checkout: the code is the smembench package's catalog module (python/smembench/)."""
# Ctrl-C before the tool sets its own handler (while Python imports the package): one line and 130,
# not a traceback from inside an import; _signal, the built-in module, because importing signal takes
# 10 ms (enum)
import _signal
import os
import sys

if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, lambda signo, frame: (os.write(2, b"smembench: interrupted by SIGINT\n"),
                                                         os._exit(130)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
from smembench import startup  # noqa: E402

startup.matplotlib_dirs()
from smembench.catalog import main  # noqa: E402

sys.exit(main())
