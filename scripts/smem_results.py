"""The one reader of smembench result files (schema smembench/1).

load() checks the schema version, refuses unknown major versions, and checks the structure
(against results/schema.json with python3-jsonschema when it is installed, otherwise with the
checks below), so the plotting, comparison and export scripts never meet a malformed file.
"""
import json
import math
import os

SCHEMA_MAJOR = 1
_HERE = os.path.dirname(os.path.abspath(__file__))
# installed, the schema lies beside this module (share/smembench); in the source tree, in results/
SCHEMA_FILE = next((p for p in (os.path.join(_HERE, "schema.json"), os.path.join(_HERE, "..", "results", "schema.json"))
                    if os.path.exists(p)), os.path.join(_HERE, "..", "results", "schema.json"))


class ResultError(Exception):
    """A result file that cannot be used; the message names the file and the problem."""


def _require(cond, path, what):
    if not cond:
        raise ResultError(f"{path}: {what}")


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
    for i, r in enumerate(doc["results"]):
        where = f"result {i}"
        _require(isinstance(r, dict), path, f"{where} is not an object")
        for key in ("bench", "params", "status", "time_ns", "metrics", "occupancy"):
            _require(key in r, path, f'{where} is missing "{key}"')
        stats = r["time_ns"].get("stats") if isinstance(r["time_ns"], dict) else None
        _require(isinstance(stats, dict) and "median" in stats, path, f"{where} has no time_ns.stats.median")
        _require(isinstance(r["time_ns"].get("raw"), list), path, f"{where} has no time_ns.raw list")


def _jsonschema_check(doc, path):
    try:
        import jsonschema
    except ImportError:
        return False
    with open(SCHEMA_FILE) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "top level"
        raise ResultError(f"{path}: {where}: {e.message}") from None
    return True


def parse(text, path="<input>"):
    """Parses and checks the text of a result file."""
    try:
        doc = json.loads(text, parse_constant=lambda c: _reject_constant(c, path))
    except json.JSONDecodeError as e:
        raise ResultError(f"{path}: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    _require(isinstance(doc, dict), path, "the top level is not an object")
    schema = doc.get("schema")
    _require(isinstance(schema, str), path, 'missing field "schema"; not a smembench result file')
    name, _, version = schema.partition("/")
    _require(name == "smembench", path, f'schema "{schema}" is not a smembench schema')
    try:
        major = int(version.split(".")[0])
    except ValueError:
        raise ResultError(f'{path}: schema "{schema}" has no version number') from None
    _require(major == SCHEMA_MAJOR, path,
             f'schema "{schema}" is not supported; this reader knows smembench/{SCHEMA_MAJOR}')
    _structure(doc, path)
    _jsonschema_check(doc, path)
    return doc


def _reject_constant(c, path):
    raise ResultError(f"{path}: {c} is not a JSON number (the format writes null)")


def load(path):
    """Reads and checks one result file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ResultError(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ResultError(f"{path}: not text") from None
    return parse(text, path)


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


def ok(doc):
    """Points that ran and passed verification."""
    return [r for r in doc["results"] if r["status"] == "ok"]


def median_ns(r):
    return r["time_ns"]["stats"]["median"]


def metric(r, name):
    m = r["metrics"].get(name)
    v = m["value"] if m else None
    return v if isinstance(v, (int, float)) and math.isfinite(v) else None


def better(r, name):
    """Which way metric name of result r improves: "higher", "lower", or None for a file written
    before metrics recorded their direction."""
    m = r["metrics"].get(name)
    return m.get("better") if m else None


def device_label(doc):
    return doc["device"]["name"]


def run_date(doc):
    return doc["run"]["started"][:10]


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
        t = r["params"]["transfer_bytes"]
        if v is not None and v >= pct and (best[key] is None or t < best[key]):
            best[key] = t
    return best


def per_sm_per_clock(doc, r, value):
    """A throughput normalized per SM and per clock, so GPU generations compare."""
    clock = r.get("clock_mhz") or doc["device"].get("measured_clock_mhz")
    if not clock:
        return None
    return value / (doc["device"]["sm_count"] * clock * 1e6)
