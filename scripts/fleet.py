#!/usr/bin/env python3
"""smembench-fleet from a checkout: the code is the smembench package's fleet module (python/smembench/)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
from smembench.fleet import main  # noqa: E402

sys.exit(main())
