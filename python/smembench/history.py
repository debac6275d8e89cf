"""The gate's history (compare --history, trend): which earlier result files can judge a NEW file
(the same GPU model, driver and settings; measured), the newest --window of them read past their
header only when taken, and the base and per-point history they give gate.compare_points.
"""
from smembench import inputs
from smembench import reader
from smembench.cli import Usage
from smembench.gate import HISTORY_MIN, layout_of, mismatches, uuid_of

def history_paths(specs, note=None):
    """The result files named by --history, by the scanner's rules (smembench.inputs: files as given,
    folders' *.json by name, each file once, what is no result file skipped with one line)."""
    try:
        return inputs.paths(specs, "--history", note if note is not None else inputs.warn())
    except inputs.InputError as e:
        raise Usage(str(e)) from None


def left_out(doc, new, opt, timed=True):
    """Why a history file cannot judge NEW (another GPU model, driver or settings; not measured; with
    timed, no timed point), or None."""
    if doc["run"].get("mode") != "measure" or (timed and not reader.timed_points(doc)):
        return f"no timed point ({doc['run'].get('mode')} mode)"
    found = [(k, t) for k, t in mismatches(doc, new, opt) if k in ("device", "driver", "settings")]
    return f"{found[0][0]} mismatch: {found[0][1]}" if found else None


def windowed_history(paths, new, opt, loaded):
    """The newest opt.window history files that can judge NEW, newest first by their recorded date
    (run.started) as (path, doc), and the lines of the files left out on the way. Each file's header
    is read (inputs.header(): the fields before its points) to order and sift them; only the files
    taken are read whole (loaded: path -> document, shared between NEW files), so a window of 8 over
    2,000 files reads 8 and a few headers' KiB of the rest. A file whose header cannot be read so is
    read whole; a header's date that is not its document's falls back to reading every file."""
    heads = []
    for p in paths:
        h = loaded.get(p) or inputs.header(p)
        if h is None:
            h = loaded[p] = inputs.load(p)
        heads.append((h["run"].get("started") or "", p, h))
    heads.sort(key=lambda x: x[0])      # stable: files of one date in the order given, as without --window
    # the header's first device against NEW's first: never stricter than left_out() on the whole files
    # (the driver writes "devices" after the points; "device" is the first of them)
    new0 = dict(new, device=reader.devices(new)[0], results=[])
    new0.pop("devices", None)
    taken, lines = [], []
    for k, (started, p, h) in enumerate(reversed(heads)):
        if len(taken) == opt.window:
            if len(heads) > k:
                lines.append(f"history: {len(heads) - k} older file{'s' if len(heads) - k != 1 else ''} not read "
                             f"(--window {opt.window})")
            break
        light = dict(h, results=[])
        light.pop("devices", None)
        why = left_out(light, new0, opt, timed=False)
        if why is None:
            doc = loaded.get(p) or inputs.load(p)
            loaded[p] = doc
            if (doc["run"].get("started") or "") != started:
                return None, []
            why = left_out(doc, new, opt)
            if why is None:
                taken.append((p, doc))
                continue
        lines.append(f"history: {inputs.shown(p)} left out: {why}")
    return taken[::-1], lines


def history_base(new, hist, opt):
    """The history files that can judge NEW (same GPU model, driver, settings; measured), the newest
    --window of them, as (base, {key: [(uuid, record)]}, lines). base is a document holding the newest
    record of every point of the history, for what is missing, new or stopped. Usage when none fits."""
    lines, fit = [], []
    for path, doc in hist:
        why = left_out(doc, new, opt)
        if why is not None:
            lines.append(f"history: {inputs.shown(path)} left out: {why}")
            continue
        fit.append((doc["run"].get("started") or "", path, doc))
    if not fit:
        raise Usage("no history file has the GPU model, driver and settings of the new file: "
                    + "; ".join(line.split(": ", 1)[1] for line in lines[:3]))
    fit.sort(key=lambda x: x[0])
    if opt.window:
        fit = fit[-opt.window:]
    points, newest = {}, {}
    for _, path, doc in fit:
        for r in doc["results"]:
            key = reader.point_key(r)
            if key in newest and newest[key][0] is doc:
                raise Usage(f"{inputs.shown(path)}: point {reader.point_name(r)} appears twice; the comparison needs each "
                            "point once")
            newest[key] = (doc, r)
            if reader.timed(r) and r.get("verified", True):
                points.setdefault(key, []).append((uuid_of(doc, r), layout_of(doc, r), r))
    base = dict(fit[-1][2])
    base["results"] = [r for _, r in newest.values()]
    units = {u for v in points.values() for u, _, _ in v if u}
    nunits = f"{len(units)} GPU unit{'s' if len(units) != 1 else ''}" if units else "GPU units not recorded"
    lines.insert(0, f"history: {len(fit)} files from {fit[0][0][:10]} to {fit[-1][0][:10]}, {nunits}; each point against the median of its history, with "
                    f"its between-run spread measured there ({HISTORY_MIN} files at least, else the newest file "
                    "is its base)")
    return base, points, lines
