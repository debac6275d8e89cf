"""smembench's Python side: the reader of result files and the tools built on it.

    import smembench
    doc = smembench.load("results/nvidia-h200_20261130_all.json")   # one file: its checked document
    df = smembench.to_dataframe("results/nvidia-h200_*.json")       # a row per point, typed columns
    df = smembench.to_dataframe(Path("results"), long=True)          # the rows of export --format csv
    s = smembench.samples(doc)                                       # a row per raw sample (seaborn)

Inputs (load, to_dataframe, samples): a path (str, bytes or os.PathLike), a folder (its result
files, sorted; other JSON skipped), a glob pattern ("results/**/*.json"), a loaded document, a
(path, document) pair, or an iterable of those.

Errors: smembench.InvalidResult (a ValueError, one line naming the file) for a file that is no
valid result file, or a pattern that matches nothing; TypeError for an input of another kind
(load(0) is not stdin); ImportError naming the package where pandas is missing.

Modules: the library, then the commands over it. Library: reader (the one reader, schema
smembench/1), frame (the DataFrames), series (a file and the axes it varies), figures (one module
per sweep), canvas (matplotlib for the commands that draw), gate (the comparison gate's rules and
decisions), history (the files a history judges with), gate_format and tables (the gate's text and
Markdown), ab_rule (the A/B's paired rule), fleet_units (units against their fleet), dashboards
(the export formats), counters (hardware counters' directions and per-request quantities), explain
(the steps in time and the counters that moved), inputs (the arguments as files), cli (every command's parser and error
convention), tool (how every command writes its files and ends), assets/ (the report's style and
script). Commands: plot, compare, export, report, fleet, ab, trend, catalog, each a main() over the library
that no other module imports; the installed smembench-<tool> commands, python3 -m smembench <tool>
and scripts/<tool>.py in a checkout only call it.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Union

from smembench import frame as _frame
from smembench import reader as _reader
from smembench.reader import ResultError

if TYPE_CHECKING:
    import pandas

# the public name of the reader's error: a ValueError whose one-line message names the file
InvalidResult = ResultError

# meson.build's project() version: written beside the package by meson install and pip install
# (_version.py), read from meson.build in a checkout
__version__: str = _reader.version()

__all__ = ["InvalidResult", "ResultError", "__version__", "load", "samples", "to_dataframe"]


def load(path: _frame.Sources) -> Union[dict[str, Any], list[dict[str, Any]]]:
    """Reads and checks result files. One file (a str, bytes or os.PathLike path): its document, a
    dict as in the JSON, older files' implied axis values filled in. A folder, a glob pattern or
    an iterable of paths: a list of documents, in order (a folder's and a pattern's sorted).
    Raises InvalidResult for a file that cannot be read or is no valid result file (or a pattern
    that matches nothing), TypeError for anything else (a file descriptor is not taken: load(0)
    would read and close stdin)."""
    if isinstance(path, (str, bytes, os.PathLike)):
        name = os.fsdecode(path)
        if os.path.isdir(name) or (not os.path.lexists(name) and _frame.is_glob(name)):
            return [doc for _, doc in _frame.documents(path, what="load")]
        return _reader.load(path)
    if isinstance(path, (bool, int, float)) or not hasattr(path, "__iter__") or hasattr(path, "keys"):
        return _reader.load(path)       # its TypeError
    return [doc for _, doc in _frame.documents(list(path), what="load")]


def to_dataframe(files: _frame.Sources, long: bool = False) -> "pandas.DataFrame":
    """A pandas DataFrame of the given results (a path, folder, glob pattern, document, (path,
    document) pair, or an iterable of those; a tuple of two paths is two files).

    Wide (the default): one row per point and device (a several-device file's devices are rows
    with their device_index, not one name). Columns, snake_case, units never in a name:
      file (None for a document given without its path), host, commit, version, started (UTC
      datetime), mode, sweep, device, device_index (the CUDA index), cc, uuid, pci_bus_id,
      build_gpu_code, build_ptx_only, build_nvcc, build_type (tool.build: the binary's device code,
      "sm_90,compute_80", PTX only or not, nvcc, the build type), kernel_code (how the device ran it:
      sass, ptx_jit, none, unknown; the build columns are missing for a file before 2026-12-02),
      bench, point, status, reason, verified;
      time_min, time_q1, time_median, time_q3, time_max, time_mean, time_stdev (ns per launch,
      empty for a point without a timing), robust_spread (a fraction: 1.4826 MAD / median),
      samples (their count), batch (launches per sample), throttled (samples left out under the
      clock threshold), clock (the measured SM clock), trials (their count), trial_spread;
      param_<axis> per parameter (e.g. param_carveout_pct), launch_<field> per launch field
      (launch_grid, launch_dynamic_smem, ...), occupancy_<field> per occupancy field
      (occupancy_api, occupancy_measured, occupancy_limiter, occupancy_effective_carveout, ... and
      occupancy_pct), then one column per metric by its name (metric_<name> where the name is
      taken by a column above); where the file has hardware counters (smembench --counters),
      counters_status, counters_passes and one column per counter after every metric, counter_ and
      its metric name with "." as "_" (counter_l1tex__t_sector_hit_rate_pct), per launch, missing
      where the point has no value; df.attrs["counters"] maps each to its metric name and kind.
    dtypes: Int64 (nullable) for integers and counts, boolean for flags, datetime64[ns, UTC] for
    started, category for mode, sweep, device, cc, build_gpu_code, build_type, kernel_code, bench,
    status and occupancy_limiter, float64
    for other numbers. df.attrs["units"] maps a column to its unit ("ns", "GB/s", "%", ...),
    df.attrs["better"] a metric to "higher" or "lower".

    long=True: exactly the rows and columns of `export.py FILES --format csv` (one row per timed
    point and performance metric, "time" the median in ns), typed as above (date UTC, value and
    noise float64, q1, q3, samples and device_index Int64, empty fields missing); a file without
    a timed point adds no row.

    Raises InvalidResult (a ValueError) for a file or document that is no valid result, TypeError
    for an input of another kind, and ImportError with the package to install where pandas is
    missing."""
    return _frame.long(files) if long else _frame.wide(files)


def samples(files: _frame.Sources) -> "pandas.DataFrame":
    """A pandas DataFrame with one row per raw sample of every point that has samples, for seaborn
    (sns.boxplot(data=smembench.samples(f), x="param_carveout_pct", y="time_ns", hue="bench")).
    Columns: file, host, commit, started (UTC), sweep, device, device_index, uuid, bench, point,
    trial (the sample's trial, its index in the point's trials; missing where the file records
    none), sample (its index among the point's samples), time_ns (ns per launch, int64) and
    param_<axis> per parameter (int64 where every row has it, nullable Int64 where some lack it:
    seaborn 0.12 cannot draw an Int64 axis). What names the point (file, host, commit, sweep,
    device, uuid, bench, point) is a category, sample int32, trial and device_index Int16, so that
    a 200 MB file's 25 million samples fit in memory. Inputs and errors as to_dataframe's."""
    return _frame.samples(files)
