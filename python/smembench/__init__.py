"""smembench's Python side: the reader of result files and the tools built on it.

    import smembench
    doc = smembench.load("nvidia-h200_20261130_all_abc1234.json")
    df = smembench.to_dataframe(["a.json", "b.json"])      # pandas, where it is installed
    df = smembench.to_dataframe(Path("results"))           # a folder, a document, an iterable too

Errors: smembench.InvalidResult (a ValueError, one line naming the file) for a file that is no
valid result file; TypeError for an input of another kind (load(0) is not stdin).

Modules: reader (the one reader, schema smembench/1), series (a file and the axes it varies), plot
and figures (one module per sweep), compare (the gate), export, report, fleet, ab, trend, tool (how
every command writes its files and ends). Each command-line tool is the main() of its module; the
installed smembench-<tool> commands and scripts/<tool>.py in a checkout only call it.
"""
import os
from collections.abc import Mapping

from smembench.reader import ResultError, load  # noqa: F401

# the public name of the reader's error: a ValueError whose one-line message names the file
InvalidResult = ResultError

__all__ = ["InvalidResult", "ResultError", "load", "to_dataframe"]


def _rows(path, doc):
    """One flat row per point of one document: identity, parameters, time and every metric."""
    from smembench import reader
    for sub in reader.split_devices(doc):
        dev = sub["device"]
        for r in sub["results"]:
            row = {"file": path, "device": dev.get("name"), "cc": dev.get("cc"), "uuid": dev.get("uuid"),
                   "commit": doc["tool"].get("git"), "started": doc["run"].get("started"),
                   "bench": r["bench"], "point": reader.point_name(r), "status": r.get("status"),
                   "median_ns": reader.median_ns(r) if reader.timed(r) else None,
                   "robust_spread": reader.robust_spread(r) if reader.timed(r) else None}
            row.update({f"param.{k}": v for k, v in r["params"].items()})
            for name in r.get("metrics", {}):
                row[f"{name} [{reader.unit(r, name) or '-'}]"] = reader.metric(r, name)
            yield row


def _is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))


def _documents(item, top=True):
    """(file name or None, checked document) for one input of to_dataframe: a path, a folder (its
    result files, sorted; other JSON skipped), a document, a (path, document) pair, or at the top
    an iterable of those."""
    from smembench import reader
    if _is_path(item):
        name = os.fsdecode(item)
        if os.path.isdir(item):
            for f in sorted(os.listdir(name)):
                p = os.path.join(name, f)
                if f.endswith(".json") and os.path.isfile(p) and not reader.not_results(p):
                    yield p, reader.load(p)
            return
        yield name, reader.load(item)
    elif isinstance(item, Mapping):
        yield None, reader.check(dict(item) if not isinstance(item, dict) else item)
    elif isinstance(item, tuple) and len(item) == 2 and _is_path(item[0]) and isinstance(item[1], Mapping):
        name = os.fsdecode(item[0])
        yield name, reader.check(item[1], name)
    elif top and not isinstance(item, (bool, int, float)) and hasattr(item, "__iter__"):
        for x in item:
            yield from _documents(x, top=False)
    else:
        raise TypeError(f"to_dataframe takes a result file's path, a folder of them, a loaded document, a (path, "
                        f"document) pair or an iterable of those; got {type(item).__name__}")


def to_dataframe(files):
    """A pandas DataFrame with one row per point of the given results: files is a path (str, bytes or
    os.PathLike), a folder (its result files; other JSON is skipped), a document (load()'s dict), a
    (path, document) pair, or an iterable of any of those (a tuple of two paths is two files).
    Columns: file (None for a document given without its path), device, cc, uuid, commit, started,
    bench, point, status, median_ns, robust_spread (a fraction, 1.4826 MAD / median), param.<axis>
    for each parameter and "<metric> [<unit>]" for each metric. Raises InvalidResult (a ValueError)
    for a file or document that is no valid result, TypeError for an input of another kind, and
    ImportError with the package to install where pandas is missing."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas: apt install python3-pandas") from None
    rows = []
    for path, doc in _documents(files):
        rows.extend(_rows(path, doc))
    return pandas.DataFrame(rows)
