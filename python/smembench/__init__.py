"""smembench's Python side: the reader of result files and the tools built on it.

    import smembench
    doc = smembench.load("nvidia-h200_20261130_all_abc1234.json")
    df = smembench.to_dataframe(["a.json", "b.json"])      # pandas, where it is installed

Modules: reader (the one reader, schema smembench/1), series (a file and the axes it varies), plot
and figures (one module per sweep), compare (the gate), export, report, fleet, ab, trend, tool (how
every command writes its files and ends). Each command-line tool is the main() of its module; the
installed smembench-<tool> commands and scripts/<tool>.py in a checkout only call it.
"""
from smembench.reader import ResultError, load  # noqa: F401

__all__ = ["ResultError", "load", "to_dataframe"]


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


def to_dataframe(files):
    """A pandas DataFrame with one row per point of the given result files (paths, or (path, doc)
    pairs already loaded): columns file, device, cc, uuid, commit, started, bench, point, status,
    median_ns, robust_spread (a fraction, 1.4826 MAD / median), param.<axis> for each parameter and "<metric> [<unit>]" for each
    metric. Raises ImportError with the package to install where pandas is missing."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas: apt install python3-pandas") from None
    rows = []
    for f in ([files] if isinstance(files, (str, tuple)) else files):
        path, doc = f if isinstance(f, tuple) else (f, load(f))
        rows.extend(_rows(path, doc))
    return pandas.DataFrame(rows)
