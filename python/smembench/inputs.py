"""The one scanner of the result-file tools' file and folder arguments (compare --history, trend,
fleet, plot, report, export, ab --history), and how a path is shown in a message or an output line.

The rules, the same in every tool:

- A file named on the command line is read when it is a regular file (through any symbolic links).
  Anything else is refused, one line and status 2, and never opened: a name that does not exist, a
  symbolic link to nothing, a link to itself or a loop of links, a FIFO (reading one would wait for
  a writer for ever), a socket or a device, a file or folder without read permission.
- A folder stands for its *.json entries, in the order of their names (not its subfolders: one
  level). Entries that cannot be result files are skipped: links to nothing, loops of links, FIFOs,
  sockets, devices, folders named *.json; so is a folder without *.json entries. An entry that is a
  regular file is read as if it had been named (so an unreadable one is refused). A folder without
  read permission is refused.
- JSON that is not a result file at all (no top-level "schema": results/schema.json, a job's own
  record) is skipped, named or in a folder, so that `plot.py results/*.json` works; a file that
  claims to be one (a "schema" field, or text that is not JSON) and is unusable is refused by the
  reader. Whatever a scan skipped is one warning line on stderr, naming how many and the first;
  where nothing is left the scan is refused instead, in one line naming the first skipped input.
- The same file (or folder) given twice, by another name, a link or a hard link, is read once (by
  device and inode), where it was first met.
- Names are taken as the system gives them (a byte that is not UTF-8 stays a surrogate escape, as
  os.fsencode() takes it back); shown() writes one in messages and output lines with such bytes as
  \\xNN and control characters (a newline) as escapes, so that every message stays one line and
  every output encodes.
"""
import errno
import json
import os
import re
import stat
import sys

from smembench import reader
from smembench import tool

# a result file starts with its schema (the driver writes it first; a reformatted one within 4 KiB)
_RESULT_HEAD = re.compile(rb'"schema"\s*:\s*"smembench/')


class InputError(reader.ResultError):
    """An argument that cannot be read as the tool needs: one line, status 2 (every tool already
    refuses a reader.ResultError so)."""


def shown(path):
    """path as it can be printed on one line (tool.shown: the one rule every tool writes names by)."""
    return tool.shown(path)


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def _stat(path):
    """(os.stat of path through its links, None) or (None, what is wrong with it)."""
    try:
        return os.stat(path), None
    except FileNotFoundError:
        if os.path.islink(path):
            return None, "a symbolic link to nothing"
        return None, os.strerror(errno.ENOENT)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return None, "a loop of symbolic links"
        return None, e.strerror or str(e)


def _head_kind(path):
    """"result" for a file that is (or claims to be) a result file, else the reason it is not one
    (JSON without a top-level "schema"); reading a file whose head shows its schema costs 4 KiB."""
    try:
        with reader.open_regular(path, encoding=None) as f:
            head = f.read(4096)
            if _RESULT_HEAD.search(head):
                return "result"
            text = head + f.read()
    except (OSError, reader.ResultError):
        return "result"           # the reader says what is wrong with it
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return "result"           # not JSON: refused by the reader as a broken file
    if isinstance(doc, dict) and "schema" in doc:
        return "result"
    return "not a smembench result file"


class Scan:
    """The result files among the arguments: paths (names to open, in order, each file once),
    skipped [(path, why)]."""

    def __init__(self, paths, skipped, total):
        self.paths, self.skipped, self.total = paths, skipped, total

    def note(self):
        """The warning line of what was skipped, or None."""
        if not self.skipped:
            return None
        p, why = self.skipped[0]
        n = len(self.skipped)
        return (f"skipping {shown(p)}: {why}" if n == 1 else
                f"skipping {n} of {self.total} inputs, the first {shown(p)}: {why}")


def scan(specs, what="the inputs", note=None):
    """The result files among specs (files and folders) by the rules above: a Scan whose warning
    note(text) is told. InputError for an argument refused, or where no result file is left."""
    paths, skipped, seen, total = [], [], set(), 0

    def add(path, st):
        nonlocal total
        ident = (st.st_dev, st.st_ino)
        if ident in seen:
            return
        seen.add(ident)
        total += 1
        if not os.access(path, os.R_OK):
            raise InputError(f"{shown(path)}: {os.strerror(errno.EACCES)}; expected a readable result file")
        why = _head_kind(path)
        if why != "result":
            skipped.append((path, why))
            return
        paths.append(path)

    for spec in specs:
        st, why = _stat(spec)
        if st is None:
            raise InputError(f"{shown(spec)}: {why}; expected a result file or a folder of them for {what}")
        if stat.S_ISREG(st.st_mode):
            add(spec, st)
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise InputError(f"{shown(spec)}: {_kind(st.st_mode)}, not a regular file; expected a result file or a "
                             f"folder of them for {what}")
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        try:
            with os.scandir(spec) as it:
                names = sorted(e.name for e in it if e.name.endswith(".json"))
        except OSError as e:
            raise InputError(f"{shown(spec)}: cannot read the folder: {e.strerror or e}; expected a "
                             f"readable folder of result files for {what}") from None
        for name in names:
            path = os.path.join(spec, name)
            est, why = _stat(path)
            if est is not None and not stat.S_ISREG(est.st_mode):
                why = f"{_kind(est.st_mode)}, not a regular file"
            if why is not None:
                if why == os.strerror(errno.EACCES):
                    raise InputError(f"{shown(path)}: {os.strerror(errno.EACCES)}; expected a readable result file")
                total += 1
                skipped.append((path, why))
                continue
            add(path, est)
        if not names:
            total += 1
            skipped.append((spec, "a folder without *.json files"))
    result = Scan(paths, skipped, total)
    if not paths:
        first = f" (skipped {shown(skipped[0][0])}: {skipped[0][1]})" if skipped else ""
        raise InputError(f"no result file among {what}{first}; expected smembench result files or folders of them")
    if note is not None and result.note():
        note(result.note())
    return result


def load(path):
    """reader.load(path), its message naming the file as shown() does."""
    try:
        return reader.load(path)
    except reader.ResultError as e:
        text = str(e)
        if text.startswith(f"{path}: "):
            text = shown(path) + text[len(path):]
        raise reader.ResultError(text) from None


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _top_fields(text):
    """The top-level fields of a JSON object before its "results", or None where text ends first
    (or is not such an object)."""
    i = _SPACE.match(text, 0).end()
    if text[i:i + 1] != "{":
        return None
    out, i = {}, i + 1
    while True:
        i = _SPACE.match(text, i).end()
        if text[i:i + 1] != '"':
            return None
        key, i = _DECODER.raw_decode(text, i)
        i = _SPACE.match(text, i).end()
        if text[i:i + 1] != ":":
            return None
        i = _SPACE.match(text, i + 1).end()
        if key == "results":
            return out
        out[key], i = _DECODER.raw_decode(text, i)
        i = _SPACE.match(text, i).end()
        if text[i:i + 1] != ",":
            return None
        i += 1


def header(path, limit=4 << 20):
    """The result file's top-level fields before its points (schema, tool, run, device: the driver
    writes "results" last, src/report_json.c), with "results" an empty list, read from the first
    KiB of the file instead of its whole text; None where they are not there within limit bytes or
    the file is not a result file of this reader's schema (reader.load() then says why)."""
    size = 16384
    try:
        with reader.open_regular(path, encoding=None) as f:
            data = f.read(size)
            while True:
                try:
                    fields = _top_fields(data.decode("utf-8", "ignore"))
                except (ValueError, IndexError, RecursionError):
                    fields = None
                if fields is not None or len(data) < size or size >= limit:
                    break
                data += f.read(size)
                size *= 2
    except (OSError, reader.ResultError):
        return None
    if not fields:
        return None
    schema, run, dev = fields.get("schema"), fields.get("run"), fields.get("device")
    if not (isinstance(schema, str) and schema.split(".")[0] == f"smembench/{reader.SCHEMA_MAJOR}" and
            isinstance(run, dict) and isinstance(run.get("started"), str) and isinstance(dev, dict)):
        return None
    fields["results"] = []
    return fields


def load_named(path, what="a result file"):
    """The one result file an argument names (compare's BASE and NEW, report's --baseline): refused
    as scan() refuses a named file, and where it is no result file at all."""
    st, why = _stat(path)
    if st is None:
        raise InputError(f"{shown(path)}: {why}; expected {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{shown(path)}: {_kind(st.st_mode)}, not a regular file; expected {what}")
    return load(path)


def paths(specs, what="the inputs", note=None):
    """scan(specs, what, note).paths."""
    return scan(specs, what, note).paths


def warn(prog="smembench"):
    """A note() that writes one line on stderr, prefixed by the tool's name."""
    return lambda text: print(f"{prog}: {text}", file=sys.stderr)
