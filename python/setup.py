"""pip install ./python (pyproject.toml holds the metadata): the one thing a static file cannot do
is read the version from meson.build's project(), the single source meson install uses too, and
put results/schema.json beside the reader as meson install does. Both are written into the build
only; the checkout is left as it is."""
import os
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)


def version():
    """meson.build's project() version; from an sdist (no meson.build beside it) its PKG-INFO's."""
    try:
        with open(os.path.join(TREE, "meson.build")) as f:
            m = re.search(r"^project\([^)]*?\bversion: *'([^']+)'", f.read(4096), re.M)
        if m:
            return m.group(1)
    except OSError:
        pass
    try:
        with open(os.path.join(HERE, "PKG-INFO")) as f:
            return re.search(r"^Version: *(\S+)", f.read(), re.M).group(1)
    except (OSError, AttributeError):
        raise SystemExit("smembench: no version: build from a checkout (meson.build beside python/)") from None


class BuildPy(build_py):
    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "smembench")
        with open(os.path.join(pkg, "_version.py"), "w") as f:
            f.write(f'"""Written by pip install from meson.build\'s project()."""\nversion = "{version()}"\n')
        schema = os.path.join(TREE, "results", "schema.json")
        if os.path.exists(schema):
            shutil.copyfile(schema, os.path.join(pkg, "schema.json"))


setup(version=version(), cmdclass={"build_py": BuildPy})
