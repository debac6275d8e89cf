"""The one reader of smembench result files (schema smembench/1).

load() checks the schema version, refuses unknown major versions, and checks the structure
against results/schema.json: with python3-jsonschema when it is installed, otherwise with the
reader's own walk of the same schema (_Fallback: the keywords the schema uses, the same messages),
so the plotting, comparison and export scripts never meet a malformed file, with or without it.
The raw sample arrays, nearly all of a big file, are checked by type in one pass instead of by the
schema validator (which took minutes on a 200 MB file); everything else goes through the schema.
"""
import json
import math
import os
import re
import stat
import statistics

try:
    import numpy as _np
except ImportError:
    _np = None

SCHEMA_MAJOR = 1
_HERE = os.path.dirname(os.path.abspath(__file__))
# installed, the schema lies beside this module (the package's folder); in the source tree, in results/
_TREE_SCHEMA = os.path.join(_HERE, "..", "..", "results", "schema.json")
SCHEMA_FILE = next((p for p in (os.path.join(_HERE, "schema.json"), _TREE_SCHEMA) if os.path.exists(p)), _TREE_SCHEMA)
# nanoseconds and counts are written as 64-bit integers; anything larger is not from smembench
INT_MAX = 2 ** 63 - 1


class ResultError(ValueError):
    """A result file (or document) that cannot be used: one line that names the file and the
    problem. A ValueError; smembench.InvalidResult is its public name."""


def _require(cond, path, what):
    if not cond:
        raise ResultError(f"{path}: {what}")


def _is_int_list(raw):
    """True for a list of ints only (a raw sample array as the driver writes it)."""
    return set(map(type, raw)) <= {int}


def _check_raw(raw, path, where):
    """A raw sample array: non-negative integers (nanoseconds), checked in C-speed passes."""
    if not raw:
        return
    if set(map(type, raw)) == {int} and min(raw) >= 0 and max(raw) <= INT_MAX:
        return
    for k, v in enumerate(raw):
        if type(v) is not int or not 0 <= v <= INT_MAX:
            shown = repr(v) if type(v) is not int else (str(v) if v < 0 else f"an integer of {len(str(v))} digits")
            raise ResultError(f"{path}: {where}: time_ns.raw[{k}] is {shown[:40]}; expected a non-negative "
                              f"64-bit integer of nanoseconds")


def _structure(doc, path):
    _require(isinstance(doc, dict), path, "the top level is not an object")
    for key in ("tool", "run", "device", "results"):
        _require(key in doc, path, f'missing field "{key}"')
    _require(isinstance(doc["results"], list), path, '"results" is not a list')
    if "devices" in doc:
        _require(isinstance(doc["devices"], list) and doc["devices"], path, '"devices" is not a non-empty list')
        for i, r in enumerate(doc["results"]):
            _require(isinstance(r, dict) and isinstance(r.get("device_index"), int) and
                     0 <= r["device_index"] < len(doc["devices"]), path, f"result {i} has no valid device_index")
    _require(isinstance(doc["device"], dict) and "name" in doc["device"] and "sm_count" in doc["device"],
             path, '"device" lacks "name" or "sm_count"')
    for dev in [doc["device"]] + (doc["devices"] if "devices" in doc else []):
        _require(isinstance(dev, dict), path, "a device record is not an object")
        _check_published(dev.get("published"), path)
    check_run = is_check_run(doc)
    for i, r in enumerate(doc["results"]):
        where = f"result {i}"
        _require(isinstance(r, dict), path, f"{where} is not an object")
        for key in ("bench", "params", "status", "time_ns", "metrics", "occupancy"):
            _require(key in r, path, f'{where} is missing "{key}"')
        _require(isinstance(r["params"], dict) and isinstance(r["metrics"], dict), path,
                 f"{where}: params and metrics must be objects")
        # what identifies a point, checked even without the schema validator (a GPU host may lack it)
        _require(isinstance(r["bench"], str) and isinstance(r["status"], str) and
                 all(type(v) is int for v in r["params"].values()), path,
                 f"{where}: bench and status must be strings and params integers")
        stats = r["time_ns"].get("stats") if isinstance(r["time_ns"], dict) else None
        # a median of another type is the schema's to word; null (or no statistics) is no time at all
        if r["status"] == "ok" and not check_run and (stats is None or (isinstance(stats, dict) and
                                                                        stats.get("median") is None)):
            raise ResultError(f"{path}: results[{i}].time_ns.stats{'' if stats is None else '.median'}: null for an ok "
                              "point; a point that ran and passed has its median time (only a --check run's points "
                              "have none)")
        _require(isinstance(stats, dict) and "median" in stats, path, f"{where} has no time_ns.stats.median")
        _require(isinstance(r["time_ns"].get("raw"), list), path, f"{where} has no time_ns.raw list")
        _check_raw(r["time_ns"]["raw"], path, where)


def is_check_run(doc):
    """True for a file of smembench --check (every point launched and verified once, nothing timed:
    its ok points have no statistics), as its run.argv records it."""
    run = doc.get("run") if isinstance(doc, dict) else None
    argv = run.get("argv") if isinstance(run, dict) else None
    return isinstance(argv, list) and "--check" in argv


def _check_published(pub, path):
    """device.published: {name: {value, unit, source}}, the published figures of the generation."""
    if pub is None:
        return
    _require(isinstance(pub, dict), path, 'device "published" is not an object')
    for name, e in pub.items():
        _require(isinstance(e, dict) and "value" in e, path, f'published "{name}" has no "value"')
        v = e["value"]
        ok = v is None or _is_number(v) or isinstance(v, str) or (isinstance(v, list) and
                                                                 all(_is_number(x) or isinstance(x, str) for x in v))
        _require(ok, path, f'published "{name}" value is not a number, a text or a list of them')
        for key in ("unit", "source"):
            _require(isinstance(e.get(key, ""), str), path, f'published "{name}" {key} is not a string')


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _without_raw(doc):
    """A shallow copy of the document with every raw sample array empty: what the schema validator
    walks (the arrays were checked by _check_raw)."""
    light = dict(doc)
    results = []
    for r in doc["results"]:
        if isinstance(r, dict) and isinstance(r.get("time_ns"), dict) and r["time_ns"].get("raw"):
            r = dict(r)
            r["time_ns"] = dict(r["time_ns"], raw=[])
        results.append(r)
    light["results"] = results
    return light


def _check_numbers(doc, path):
    """Every integer fits 64 bits (a 4000-digit integer is valid JSON but no count or time)."""
    stack = [(doc, "")]
    while stack:
        v, where = stack.pop()
        if isinstance(v, dict):
            stack.extend((x, f"{where}/{k}") for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, f"{where}/{k}") for k, x in enumerate(v))
        elif type(v) is int and not -INT_MAX - 1 <= v <= INT_MAX:
            raise ResultError(f"{path}: {where[1:] or 'top level'}: an integer of {len(str(abs(v)))} digits; "
                              f"the format writes 64-bit integers")


# What a point's validity under the schema ($defs/result) depends on: its keys, each value's type, a
# number's place among the bounds the schema sets (below 0, 0, up to 100, above 100), a short
# string's text (the enums, bench's minLength 1; a long string is in no enum). Points alike in all of
# that are valid or invalid together, so the validator walks one point of each kind: 6 of a 65,424
# points predict file, which it took 17 s to walk point by point. (test_scripts.py checks that the
# schema's result uses nothing more.)
_INT = {c: object() for c in "-0+^"}
_FLOAT = {c: object() for c in "-0+^"}
_LONG_TEXT = object()
SHORT_TEXT = 16


class _TooLarge(Exception):
    pass


def _leaf_kind(x, t):
    if t is int:
        if not -INT_MAX - 1 <= x <= INT_MAX:
            raise _TooLarge
        return _INT["-" if x < 0 else "0" if x == 0 else "+" if x <= 100 else "^"]
    if t is float:
        return _FLOAT["-" if x < 0 else "0" if x == 0 else "+" if x <= 100 else "^"]
    if t is str:
        return x if len(x) <= SHORT_TEXT else _LONG_TEXT
    if t is list:
        return (list, tuple([_kind(y) for y in x]))
    return x        # None, True, False


def _kind(v):
    """The point's kind, as above; _TooLarge for an integer past 64 bits. The common leaves are taken
    in the loop: a call per value is most of the time."""
    t = type(v)
    if t is not dict:
        return _leaf_kind(v, t)
    out = []
    for k, x in v.items():
        t = type(x)
        if t is dict:
            out.append((k, _kind(x)))
        elif x is None or t is bool:
            out.append((k, x))
        elif t is int and 0 < x <= 100:
            out.append((k, _INT["+"]))
        else:
            out.append((k, _leaf_kind(x, t)))
    return tuple(out)


def _point_kinds(light, path):
    """The index of the first point of each kind; checks every integer of the points on the way."""
    firsts, seen = [], set()
    try:
        for i, r in enumerate(light["results"]):
            kind = _kind(r)
            if kind not in seen:
                seen.add(kind)
                firsts.append(i)
    except _TooLarge:
        _check_numbers(light, path)     # which one, for the message
    return firsts


_validators = None
_schema = None
# the kinds of point (_kind) already found valid in this process: a tool reading 15 files of one
# driver checks each kind once, not once per file (4 of 5 s of reading 15 --sweep all files)
_valid_kinds = set()


def _load_schema():
    global _schema
    if _schema is None:
        with open(SCHEMA_FILE) as f:
            _schema = json.load(f)
    return _schema


def _jsonschema_check(doc, path, firsts):
    """The document against the schema: the top level without its results, then the points at
    firsts (one of each kind) against the result definition, with python3-jsonschema where it is
    installed and with the fallback below where it is not: the same schema either way."""
    global _validators
    schema = _load_schema()
    kinds = {i: _kind(doc["results"][i]) for i in firsts}
    firsts = [i for i in firsts if kinds[i] not in _valid_kinds]
    checks = [(schema, dict(doc, results=[]), [])] + [(schema["$defs"]["result"], doc["results"][i], ["results", i])
                                                      for i in firsts]
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is None:
        for node, part, prefix in checks:
            error = _Fallback(schema).first_error(node, part, list(prefix))
            if error is not None:
                where, message = error
                raise ResultError(f"{path}: {'/'.join(str(p) for p in where) or 'top level'}: {message[:300]}")
        _valid_kinds.update(kinds[i] for i in firsts)
        return True
    if _validators is None:
        point = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "$ref": "#/$defs/result"}
        _validators = (jsonschema.Draft202012Validator(schema), jsonschema.Draft202012Validator(point))
    whole, point = _validators
    for (_, part, prefix), validator in zip(checks, [whole] + [point] * len(firsts)):
        error = jsonschema.exceptions.best_match(validator.iter_errors(part))
        if error is not None:
            where = "/".join(str(p) for p in prefix + list(error.absolute_path)) or "top level"
            raise ResultError(f"{path}: {where}: {error.message[:300]}")
    _valid_kinds.update(kinds[i] for i in firsts)
    return True


class _Fallback:
    """The schema's own rules without python3-jsonschema (a GPU host may lack it): the keywords
    results/schema.json uses, with JSON Schema 2020-12's meaning, so that a file it refuses with the
    validator (run.started null, device.name null) is refused without it too; the first error in
    document order, worded as jsonschema words it. A keyword it does not know is an error of its
    own (test_scripts.py checks that the schema uses none)."""

    KNOWN = {"type", "required", "properties", "additionalProperties", "items", "$ref", "enum", "const",
             "pattern", "minimum", "maximum", "minLength", "minItems", "oneOf", "propertyNames"}
    NOTES = {"$schema", "$defs", "title", "description"}
    TYPES = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
             "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
             "null": lambda v: v is None}

    def __init__(self, root):
        self.root = root

    @staticmethod
    def _type_ok(v, t):
        if t == "number":
            return _is_number(v)
        if t == "integer":
            return _is_number(v) and (type(v) is int or float(v).is_integer())
        return _Fallback.TYPES[t](v)

    def first_error(self, node, v, where):
        """(path as a list, message) of the first rule v breaks, or None."""
        if node is True:
            return None
        if node is False:
            return where, f"{_short(v)} is not allowed here"
        unknown = set(node) - self.KNOWN - self.NOTES
        if unknown:
            return where, f"the schema uses {sorted(unknown)[0]!r}, which the reader's fallback does not check; " \
                          "install python3-jsonschema"
        if "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/$defs/"):
                return where, f"the schema's reference {ref!r} is not one of its $defs"
            e = self.first_error(self.root["$defs"][ref[len("#/$defs/"):]], v, where)
            if e:
                return e
        if "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(self._type_ok(v, t) for t in types):
                shown = ", ".join(repr(t) for t in types)
                return where, f"{_short(v)} is not of type {shown}"
        if "const" in node and not _json_equal(v, node["const"]):
            return where, f"{node['const']!r} was expected"
        if "enum" in node and not any(_json_equal(v, e) for e in node["enum"]):
            return where, f"{_short(v)} is not one of {node['enum']!r}"[:300]
        if _is_number(v):
            if "minimum" in node and v < node["minimum"]:
                return where, f"{v!r} is less than the minimum of {node['minimum']!r}"
            if "maximum" in node and v > node["maximum"]:
                return where, f"{v!r} is greater than the maximum of {node['maximum']!r}"
        if isinstance(v, str):
            if "minLength" in node and len(v) < node["minLength"]:
                return where, f"{_short(v)} is too short"
            if "pattern" in node and not re.search(node["pattern"], v):
                return where, f"{_short(v)} does not match {node['pattern']!r}"
        if isinstance(v, list):
            if "minItems" in node and len(v) < node["minItems"]:
                return where, f"{_short(v)} should be non-empty" if node["minItems"] == 1 else \
                    f"{_short(v)} is too short"
            if "items" in node:
                for i, x in enumerate(v):
                    e = self.first_error(node["items"], x, where + [i])
                    if e:
                        return e
        if isinstance(v, dict):
            for k in node.get("required", ()):
                if k not in v:
                    return where, f"{k!r} is a required property"
            props = node.get("properties", {})
            extra = node.get("additionalProperties", True)
            for k, x in v.items():
                if "propertyNames" in node:
                    e = self.first_error(node["propertyNames"], k, where)
                    if e:
                        return where, f"{k!r} is not a valid property name ({e[1]})"
                sub = props.get(k, extra)
                if sub is False:
                    return where, f"Additional properties are not allowed ({k!r} was unexpected)"
                e = self.first_error(sub, x, where + [k])
                if e:
                    return e
        if "oneOf" in node:
            ok = [self.first_error(sub, v, where) is None for sub in node["oneOf"]]
            if sum(ok) != 1:
                return where, f"{_short(v)} is {'not valid under any' if not any(ok) else 'valid under more than one'} " \
                              "of the given schemas"
        return None


def _short(v):
    text = repr(v)
    return text if len(text) <= 80 else text[:60] + " ... " + text[-10:]


def _json_equal(a, b):
    """Equality as JSON Schema has it: 1 == 1.0, but True is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _finite_float(text, path):
    v = float(text)
    if not math.isfinite(v):
        raise ResultError(f"{path}: {text[:40]} is too large for a JSON number of the format")
    return v


# set by the installed launcher (scripts/launcher.py.in): the command's name and meson's project version
COMMAND = None
VERSION = None


def command(script):
    """The name a script goes by: smembench-plot installed, plot.py in the tree."""
    return COMMAND or script


def version():
    """smembench's version: the launcher's (meson's project version), else the one meson install or
    pip install wrote beside the package (_version.py), else meson.build's of this tree."""
    if VERSION:
        return VERSION
    try:
        from smembench._version import version as installed
        return installed
    except ImportError:
        pass
    try:
        with open(os.path.join(_HERE, "..", "..", "meson.build")) as f:
            text = f.read(4096)
    except OSError:
        return "unknown"
    m = re.search(r"^project\([^)]*?\bversion: *'([^']+)'", text, re.M)
    return m.group(1) if m else "unknown"


def add_version(parser):
    """--version: "smembench-plot 0.1.0" installed, "plot.py 0.1.0" from the tree."""
    parser.add_argument("--version", action="version", version=f"{parser.prog} {version()}",
                        help="print the command's name and smembench's version, then exit")


def parse(text, path="<input>"):
    """Parses and checks the text of a result file."""
    try:
        doc = json.loads(text, parse_constant=lambda c: _reject_constant(c, path),
                         parse_float=lambda t: _finite_float(t, path))
    except json.JSONDecodeError as e:
        raise ResultError(f"{path}: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise ResultError(f"{path}: nested too deeply to be a result file") from None
    except MemoryError:
        raise ResultError(f"{path}: too large to read into memory") from None
    except ResultError:       # a ValueError too: NaN, or a float too large, said by the hooks above
        raise
    except ValueError as e:   # Python refuses integers of more than 4300 digits
        raise ResultError(f"{path}: not a result file ({str(e).split(';')[0]})") from None
    return check(doc, path)


def check(doc, path="<document>"):
    """Checks a document already parsed (a dict, as load() returns it or as a program built it)
    as load() checks a file, and returns it; ResultError otherwise. Older files' implied axis values
    are filled in, in place."""
    _require(isinstance(doc, dict), path, "the top level is not an object")
    schema = doc.get("schema")
    _require(isinstance(schema, str), path, 'missing field "schema"; not a smembench result file')
    name, _, version = schema.partition("/")
    _require(name == "smembench", path, f'schema "{schema[:60]}" is not a smembench schema')
    try:
        major = int(version.split(".")[0])
    except ValueError:
        raise ResultError(f'{path}: schema "{schema[:60]}" has no version number') from None
    _require(major == SCHEMA_MAJOR, path,
             f'schema "{schema[:60]}" is not supported; this reader knows smembench/{SCHEMA_MAJOR}')
    _structure(doc, path)
    light = _without_raw(doc)
    try:
        _check_numbers(dict(light, results=[]), path)
        _jsonschema_check(light, path, _point_kinds(light, path))
    except RecursionError:
        raise ResultError(f"{path}: nested too deeply to be a result file") from None
    _fill_added_axes(doc)
    return doc


# Axes a benchmark gained after files were written, with the value its one kernel had before: a point
# of an older file reads (and keys, and compares) as the same point of a newer one, so a CI baseline
# survives the new axis. The values are the descriptors' (an axis's "before", bench/bench.h), which
# smembench --list --json gives; older_axes.json, beside this module, is their snapshot (installed with
# it, so that reading a file needs no smembench program; checked against the program by
# tests/scripts/test_fig_generic.py): {bench: {axis: value}}.
OLDER_AXES_FILE = os.path.join(_HERE, "older_axes.json")


def _older_axes():
    with open(OLDER_AXES_FILE, encoding="utf-8") as f:
        benches = json.load(f)["benches"]
    return {b: {k: int(v) for k, v in axes.items()} for b, axes in benches.items()}


ADDED_AXES = _older_axes()


def _fill_added_axes(doc):
    for r in doc["results"]:
        for name, value in ADDED_AXES.get(r["bench"], {}).items():
            r["params"].setdefault(name, value)


def _reject_constant(c, path):
    raise ResultError(f"{path}: {c} is not a JSON number (the format writes null)")


def _file_kind(mode):
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def open_regular(path, what="a result file", encoding="utf-8"):
    """path opened for reading (text in encoding, or bytes where encoding is None) when it is a
    regular file through its links; ResultError in one line naming it otherwise. The file is opened
    without waiting (O_NONBLOCK) and checked by fstat before a byte is read: a FIFO named directly
    would otherwise wait for a writer for ever (open() blocks until one comes), and a device or a
    folder is no file of results. OSError as open() gives it (no such file, permission)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ResultError(f"{os.fsdecode(path)}: {_file_kind(st.st_mode)}, not a regular file; expected {what}")
        os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb" if encoding is None else "r", **({} if encoding is None else {"encoding": encoding}))
    except BaseException:
        os.close(fd)
        raise
    return f


def not_results(path):
    """True when path holds JSON that is not a result file at all (a schema, a job's own record): the
    tools skip it with a note rather than refuse it."""
    try:
        with open_regular(path) as f:
            doc = json.load(f)
    except (OSError, ValueError, RecursionError):     # a ResultError too: the reader says what is wrong
        return False
    return not isinstance(doc, dict) or "schema" not in doc


def load(path):
    """Reads and checks one result file: path is a str, bytes or os.PathLike (a file descriptor is
    not taken: load(0) would read and close stdin). ResultError (a ValueError) for a file that cannot
    be read or is no valid result file, TypeError for anything but a path."""
    if isinstance(path, (bool, int)) or not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"load takes the path of a result file (str, bytes or os.PathLike), not "
                        f"{type(path).__name__}")
    name = os.fsdecode(path)
    try:
        with open_regular(path) as f:
            text = f.read()
    except OSError as e:
        raise ResultError(f"{name}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ResultError(f"{name}: not text") from None
    except MemoryError:
        raise ResultError(f"{name}: too large to read into memory") from None
    return parse(text, name)


def point_key(r):
    """What identifies a point across runs: benchmark, parameters, and in a several-device run the
    device's position (so node A's GPU 3 is compared with node B's GPU 3)."""
    return (r["bench"], tuple(sorted(r["params"].items())), r.get("device_index", 0))


def point_name(r):
    params = ",".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
    name = f"{r['bench']}/{params}" if params else r["bench"]
    return name + (f"@gpu{r['device_index']}" if "device_index" in r else "")


def split_devices(doc):
    """A several-device document as one document per device (each with its own "device" and
    results, labelled by host and ordinal); a one-device document unchanged, in a list."""
    if "devices" not in doc:
        return [doc]
    out = []
    for i, dev in enumerate(doc["devices"]):
        d = dict(doc)
        d["device"] = dict(dev)
        d["device"]["name"] = f"{dev['name']} #{dev.get('ordinal')} on {doc['run'].get('host', '?')}"
        d["results"] = [r for r in doc["results"] if r.get("device_index") == i]
        del d["devices"]
        out.append(d)
    return out


def devices(doc):
    """Every device record of a file, in the order of device_index."""
    return doc["devices"] if "devices" in doc else [doc["device"]]


def device_of(doc, r):
    """The device record a point ran on."""
    return doc["devices"][r["device_index"]] if "devices" in doc else doc["device"]


def ok(doc):
    """Points that ran and passed verification."""
    return [r for r in doc["results"] if r["status"] == "ok"]


def stats(r):
    """The point's time statistics (time_ns.stats: min, q1, median, q3, max, mean, stdev, robust_spread,
    count; ns per launch), {} where the record has none: the one place that reads the record's layout
    of them."""
    t = r.get("time_ns")
    s = t.get("stats") if isinstance(t, dict) else None
    return s if isinstance(s, dict) else {}


def median_ns(r):
    return stats(r)["median"]


def timed(r):
    """A point that ran and has a median time (an ok point of a --check run has no statistics; the
    reader refuses one without them in any other file)."""
    m = stats(r).get("median")
    return r["status"] == "ok" and _is_number(m) and m > 0


def timed_points(doc):
    return [r for r in doc["results"] if timed(r)]


def samples(r):
    """The raw samples, one per timed sample, in nanoseconds per launch."""
    return r["time_ns"]["raw"]


def trials(r, clock=False):
    """The point's trials as (median_ns, robust_spread) pairs, in the order they are listed (each a
    fresh setup, warm-up and sampling of one process: src/stats.h, Trials); [] for a file written
    before trials, or a point not timed. clock: (median_ns, robust_spread, clock_mhz or None)."""
    t = r.get("trials")
    runs = t.get("runs") if isinstance(t, dict) else None
    if not isinstance(runs, list):
        return []
    out = []
    for x in runs:
        m = x.get("median_ns") if isinstance(x, dict) else None
        s = x.get("robust_spread") if isinstance(x, dict) else None
        c = x.get("clock_mhz") if isinstance(x, dict) else None
        if _is_number(m) and m > 0:
            one = (float(m), float(s) if _is_number(s) and s >= 0 else None)
            out.append(one + ((float(c) if _is_number(c) and c > 0 else None),) if clock else one)
    return out


# a trial whose SM clock is further than this below the point's highest trial clock ran while the
# clock dipped (on the H200, single trials at 1850-1920 MHz in runs at 1979, 2-7 % slower): the
# clock explains it, and it says nothing about the levels a setup lands on
TRIAL_CLOCK_AGREE = 0.01


def at_top_clock(clocks):
    """Which of these trial clocks are within TRIAL_CLOCK_AGREE of the highest (a trial without a
    clock counts as at it)."""
    known = [c for c in clocks if c is not None]
    top = max(known) if known else None
    return [c is None or top is None or c >= top * (1 - TRIAL_CLOCK_AGREE) for c in clocks]


def trial_range(r):
    """The range of the point's trial medians over their median (a fraction), or None under two
    trials: the setup-to-setup variation one process measured, among the trials that ran at the
    point's top clock (TRIAL_CLOCK_AGREE), the trials steady() takes."""
    t = trials(r, clock=True)
    at_top = at_top_clock([c for _, _, c in t])
    m = sorted(x for (x, _, _), kept in zip(t, at_top) if kept)
    if len(m) < 2:
        return None
    mid = m[len(m) // 2] if len(m) % 2 else (m[len(m) // 2 - 1] + m[len(m) // 2]) / 2
    return (m[-1] - m[0]) / mid if mid > 0 else None


def _top_clock_samples(r):
    """The raw samples of the point's trials at its top SM clock, or None where that is every sample
    (every trial agrees, a trial has no clock or sample count, or the file has no trials)."""
    raw = r["time_ns"]["raw"]
    t = r.get("trials")
    runs = t.get("runs") if isinstance(t, dict) else None
    if not (isinstance(runs, list) and len(runs) > 1 and all(isinstance(x, dict) for x in runs)):
        return None
    clocks = [x.get("clock_mhz") for x in runs]
    counts = [x.get("samples") for x in runs]
    if not (all(_is_number(c) and c > 0 for c in clocks) and all(isinstance(k, int) and k >= 0 for k in counts)
            and sum(counts) == len(raw)):
        return None
    keep = at_top_clock(clocks)
    if all(keep):
        return None
    sel, at = [], 0
    for k, kept in zip(counts, keep):
        if kept:
            sel.extend(raw[at:at + k])
        at += k
    return sel or None


def steady(r):
    """(median_ns, raw samples, robust spread) of the point among its trials that ran at its top SM
    clock (within TRIAL_CLOCK_AGREE of the highest trial clock): what the code takes when the clock
    does not dip. A trial at a dipped clock is slower by the dip on an on-chip point (on the H200, a
    bank point's trials at 1888 and 1873 MHz took 638.6 and 643.7 us, its trial at 1978 MHz 610.7;
    the run after it, 610.5 at 1978): pooled, the dip moved its median 4.6 %, and the gate would have
    called the code slower. The file's own median and samples when every trial agrees, when a trial
    has no clock, or in a file without trials."""
    sel = _top_clock_samples(r)
    if sel is None:
        return median_ns(r), r["time_ns"]["raw"], robust_spread(r)
    med, spread = _median_spread(sel)
    return med, sel, spread


def steady_median(r):
    sel = _top_clock_samples(r)
    return median_ns(r) if sel is None else statistics.median(sel)


def robust_spread(r, values=None):
    """The point's relative noise: 1.4826 x MAD / median of its raw samples (a fraction; the same
    as stdev/mean for normal samples, but not moved by a few outliers). The file's own
    time_ns.stats.robust_spread where it has one; None without samples. values: the raw samples
    already in a NumPy array, to spare converting them again."""
    s = stats(r).get("robust_spread")
    if _is_number(s) and s >= 0:
        return float(s)
    raw = r["time_ns"]["raw"]
    if not raw:
        return None
    return _median_spread(raw, values)[1]


def _median_spread(raw, values=None):
    """(median, 1.4826 x MAD / median or None) of samples; values: them already in a NumPy array."""
    if _np is not None:    # the same medians, 30 times faster on 100 000 samples
        a = _np.asarray(raw, dtype=_np.int64) if values is None else values
        med = float(_np.median(a))
        mad = float(_np.median(_np.abs(a - med))) if med > 0 else 0.0
    else:
        med = statistics.median(raw)
        mad = statistics.median([abs(v - med) for v in raw]) if med > 0 else 0.0
    return med, (1.4826 * mad / med if med > 0 else None)


def metric(r, name):
    m = r["metrics"].get(name)
    v = m.get("value") if isinstance(m, dict) else None
    return float(v) if _is_number(v) and math.isfinite(v) else None


def counters_run(doc):
    """(status, reason) of the file's run.counters (smembench --counters): ("ok", None), or
    ("unavailable", why); (None, None) for a file that did not ask for counters."""
    c = doc["run"].get("counters")
    if not isinstance(c, dict):
        return None, None
    st = c.get("status")
    reason = c.get("reason")
    return (st if isinstance(st, str) else "unavailable"), (reason if isinstance(reason, str) else None)


def counters(r):
    """{name: {"value": float or None, "unit": str, "kind": str}} of a point's counters where they
    were collected (counters.status "ok"); {} for a point without them. A value that is not a finite
    number is None."""
    c = r.get("counters")
    if not isinstance(c, dict) or c.get("status") != "ok" or not isinstance(c.get("values"), dict):
        return {}
    out = {}
    for name, e in c["values"].items():
        if not isinstance(e, dict):
            continue
        v = e.get("value")
        out[name] = {"value": float(v) if _is_number(v) and math.isfinite(v) else None,
                     "unit": e.get("unit") if isinstance(e.get("unit"), str) else "",
                     "kind": e.get("kind") if isinstance(e.get("kind"), str) else None}
    return out


def counter(r, name):
    """One counter's value (per launch) at the point, None where it is missing or null."""
    e = counters(r).get(name)
    return e["value"] if e else None


def counter_status(r):
    """(status, reason) of a point's counters: ("ok", None), ("failed", why), ...; (None, None)
    where the point has none."""
    c = r.get("counters")
    if not isinstance(c, dict):
        return None, None
    return c.get("status"), c.get("reason")


# Which way is better, for files written before each metric carried "better" (the benchmark
# descriptors' directions, bench/*.c): by metric name first, then by unit. Rates and shares of a
# ceiling or reference are better higher, and so is uninit's stale share (what the benchmark looks
# for); times, cycles, slowdowns, conflict passes and the allocation a point spends lower.
BETTER_BY_NAME = {"stale_pct": "higher", "alloc_bytes": "lower", "predicted_slowdown": "lower",
                  "slowdown": "lower", "wavefronts": "lower"}
BETTER_BY_UNIT = {"ns": "lower", "us": "lower", "ms": "lower", "s": "lower", "cycles": "lower", "x": "lower",
                  "passes/request": "lower", "B": "lower",
                  "B/clk/SM": "higher", "GB/s": "higher", "MB/s": "higher", "B/s": "higher", "GFLOP/s": "higher",
                  "TFLOP/s": "higher", "G/s": "higher", "%": "higher"}


def better(r, name):
    """"higher" or "lower": which way the metric is better (the file's "better" field, else the
    tables above); None for a metric nothing says."""
    m = r["metrics"].get(name)
    if not isinstance(m, dict):
        return None
    b = m.get("better")
    if b in ("higher", "lower"):
        return b
    return BETTER_BY_NAME.get(name) or BETTER_BY_UNIT.get(m.get("unit"))


def unit(r, name):
    m = r["metrics"].get(name)
    u = m.get("unit") if isinstance(m, dict) else None
    return u if isinstance(u, str) else ""


# What a dashboard tracks: how fast a point ran. A metric is performance when its unit is a time
# (ns ... s, cycles) or a rate (per second, per clock), or when it is a dimensionless ratio of
# measured times or rates: a share of a ceiling or of a reference kernel (pct_of_*), the measured
# slowdown against the conflict-free load, the spread between clusters' bandwidth. Everything else
# describes the point rather than measures its speed: sizes (alloc_bytes), counts (sms, reading_sms,
# clusters_*, stages), the bank model's prediction (predicted_slowdown, wavefronts) and what uninit
# finds in a new block (stale_pct).
TIME_UNITS = ("ns", "us", "ms", "s", "cycles")
MEASURED_RATIOS = ("slowdown", "cluster_spread")


def performance(r, name):
    """True for a metric that measures how fast the point ran (the rule above); the median time
    itself always is."""
    if name == "time":
        return True
    u = unit(r, name)
    if u in TIME_UNITS or u.endswith("/s") or "/clk" in u:
        return True
    return u in ("%", "x") and (name.startswith("pct_of_") or name in MEASURED_RATIOS)


def published(dev):
    """The published reference figures of a device's generation: {name: {value, unit, source}}."""
    pub = dev.get("published")
    return pub if isinstance(pub, dict) else {}


def device_label(doc):
    return doc["device"]["name"]


def unit_label(device):
    """The GPU unit a device record names, short: its uuid's first 12 characters ("GPU-53e5ebc9"), as
    nvidia-smi -L prints a unit; "" for a record without one (a model's prediction)."""
    u = device.get("uuid")
    return u[:12] if isinstance(u, str) and u else ""


def run_date(doc):
    return doc["run"]["started"][:10]


# How a device ran the built-in kernels (device.kernel_code), in words.
CODE_PATHS = {"sass": "its cubin", "ptx_jit": "PTX JIT-compiled by the driver", "none": "no code for it",
              "unknown": "a native build's code"}


def build(doc):
    """The build that wrote the file (tool.build: gpu_code, ptx_only, nvcc, buildtype), or None for a
    file written before builds were recorded."""
    b = doc["tool"].get("build")
    return b if isinstance(b, dict) else None


def build_text(doc, device=None):
    """The build and how the device ran it, for a header: "sm_90, nvcc 13.0.88, release; ran its
    cubin", "compute_80 (PTX only), ...; ran PTX JIT-compiled by the driver", or "not recorded"."""
    b = build(doc)
    if not b:
        return "not recorded (a file before 2026-12-02)"
    code = ", ".join(b.get("gpu_code") or []) or "no device code"
    parts = [code + (" (PTX only)" if b.get("ptx_only") else "")]
    if b.get("nvcc"):
        parts.append(f"nvcc {b['nvcc']}")
    parts.append(str(b.get("buildtype")))
    path = (device or doc["device"]).get("kernel_code")
    return ", ".join(parts) + (f"; ran {CODE_PATHS.get(path, path)}" if path else "")


def code_label(doc, device=None):
    """A short label of how the device ran the kernels, for series that differ by it: "PTX JIT
    (compute_80)", "cubin (sm_90)"; "" for a model or a file that does not say."""
    b, path = build(doc), (device or doc["device"]).get("kernel_code")
    if not b or not path:
        return ""
    ptx = [c for c in b.get("gpu_code") or [] if c.startswith("compute_")]
    sass = [c for c in b.get("gpu_code") or [] if c.startswith("sm_")]
    if path == "ptx_jit":
        return "PTX JIT" + (f" ({', '.join(ptx)})" if ptx else "")
    if path == "sass":
        return "cubin" + (f" ({', '.join(sass)})" if sass else "")
    return path


# A user kernel's built-in axes (smembench --kernel), in the order its points list them; the launch
# description's own axes follow them in params.
KERNEL_AXES = ("carveout_pct", "dyn_smem_bytes", "block", "cluster")


def kernel(doc):
    """The file's user kernel record (top-level "kernel": smembench --kernel, libsmembench), or None
    for a run of the built-in benchmarks."""
    k = doc.get("kernel")
    return k if isinstance(k, dict) and isinstance(k.get("function"), str) else None


def user_point(doc, r):
    """True for a point of the file's user kernel: its bench is the kernel's function."""
    k = kernel(doc)
    return k is not None and r["bench"] == k["function"]


STAGING_BENCHES = ("staging_plain", "staging_cp_async", "staging_bulk")


def staging_smallest(doc, pct=90.0):
    """The smallest transfer_bytes at which each staging benchmark (and access width, None for the
    bulk copy, which has none) reaches pct % of the same run's global read bandwidth (the pct_of_read
    metric): {(bench, width_bytes): bytes, or None where no transfer does}."""
    best = {}
    for r in ok(doc):
        if r["bench"] not in STAGING_BENCHES:
            continue
        key = (r["bench"], r["params"].get("width_bytes"))
        best.setdefault(key, None)
        v = metric(r, "pct_of_read")
        t = r["params"].get("transfer_bytes")    # a point without its size says nothing of one
        if t is not None and v is not None and v >= pct and (best[key] is None or t < best[key]):
            best[key] = t
    return best


def per_sm_per_clock(doc, r, value):
    """A throughput normalized per SM and per clock, so GPU generations compare."""
    clock = r.get("clock_mhz") or doc["device"].get("measured_clock_mhz")
    if not clock:
        return None
    return value / (doc["device"]["sm_count"] * clock * 1e6)
