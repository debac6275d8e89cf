#!/usr/bin/env python3
"""Writes the headers nvbench's CMake would generate (nvbench/CMakeLists.txt): the help text of
docs/cli_help*.md as strings (cmake/FileToString.cmake), the version of its project() line and
the git revision (rapids-cmake's version and git_revision files), so its library builds without
CMake >= 3.30 and rapids-cmake, which download at configure time."""
import argparse
import pathlib
import re
import subprocess
import sys


def help_header(md: pathlib.Path, name: str) -> str:
    # the anonymous namespace is FileToString's: file_to_string(... "" name)
    return ('#include <string>\nnamespace  {\nconst std::string %s =\nR"expected(%s)expected";\n}\n'
            % (name, md.read_text()))


def version_header(cmakelists: pathlib.Path) -> str:
    m = re.search(r'project\(\s*NVBench[^)]*?VERSION\s+(\d+)\.(\d+)\.(\d+)', cmakelists.read_text(), re.S)
    if not m:
        raise SystemExit('nvbench_headers: no project(NVBench ... VERSION x.y.z) in %s' % cmakelists)
    return ('#pragma once\n#define NVBENCH_VERSION_MAJOR %s\n#define NVBENCH_VERSION_MINOR %s\n'
            '#define NVBENCH_VERSION_PATCH %s\n' % m.groups())


def git_header(src: pathlib.Path) -> str:
    def git(*args):
        try:
            r = subprocess.run(['git', '-C', str(src)] + list(args), capture_output=True, text=True)
        except OSError:   # no git on the host: the revision is unknown, the build goes on
            return ''
        return r.stdout.strip() if r.returncode == 0 else ''
    sha = git('rev-parse', 'HEAD') or 'unknown'
    text = ('#pragma once\n#define NVBENCH_GIT_BRANCH "%s"\n#define NVBENCH_GIT_SHA1 "%s"\n'
            '#define NVBENCH_GIT_VERSION "%s"\n' % (git('rev-parse', '--abbrev-ref', 'HEAD') or 'HEAD', sha,
                                                   git('describe', '--tags', '--always') or sha[:12]))
    if git('status', '--porcelain', '--untracked-files=no'):
        text += '#define NVBENCH_GIT_IS_DIRTY\n'
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('src', type=pathlib.Path, help='nvbench source tree')
    ap.add_argument('out', type=pathlib.Path, help='folder that receives nvbench/...')
    a = ap.parse_args()
    files = {
        'nvbench/internal/cli_help.cuh': help_header(a.src / 'docs/cli_help.md', 'cli_help_text'),
        'nvbench/internal/cli_help_axis.cuh': help_header(a.src / 'docs/cli_help_axis.md', 'cli_help_axis_text'),
        'nvbench/detail/version.cuh': version_header(a.src / 'CMakeLists.txt'),
        'nvbench/detail/git_revision.cuh': git_header(a.src),
    }
    for rel, text in files.items():
        path = a.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
