"""The figures, one module per sweep: each names the benchmarks it draws (BENCHES), the parameters
it places on an axis, a panel or a line of its own (DRAWN: any other one a file varies splits its
series), and draw(plt, series, note) -> a figure, or None with a note naming each file and what it
lacks. These are overrides: every other benchmark of the input gets generic.py's figure, made from
its points alone (a panel per metric against the axis it varies most), so a benchmark added in C is
drawn without a line of Python. A user kernel's points (smembench --kernel: a file with a kernel
record) are kernel.py's alone, a figure per function; the modules of the built-in benchmarks never
see them, whatever the function is called."""
from smembench import reader
from smembench import series as series_mod
from smembench.figures import bandwidth, bank, carveout, cluster, generations, generic, kernel, memory, occupancy, staging, swizzle, tile

MODULES = (carveout, occupancy, bank, bandwidth, tile, memory, cluster, staging, swizzle)
# figures across GPU models, drawn from every series at once (never per sweep: the report's sections
# split the files by sweep) and only where the series span two or more models
ACROSS = (generations,)


def builtin(s):
    """The series without its user kernel's points (the same series where the file has none)."""
    if reader.kernel(s.doc) is None:
        return s
    return s.only(lambda r: not reader.user_point(s.doc, r))


def drawn_benches():
    """The benchmarks the per-sweep modules draw (each module's BENCHES)."""
    return {b for m in MODULES for b in m.BENCHES}


def across_models(plt, series, note=None):
    """[(name, figure, the benchmarks it draws)] of the ACROSS figures, from every series at once
    (the runs of one unit aggregated, a user kernel's points left out); none where the series hold
    fewer than two GPU models."""
    plain = series_mod.aggregate([builtin(s) for s in series])
    out = []
    for m in ACROSS:
        have = [s for s in plain if any(s.points(b) for b in m.BENCHES)]
        fig = m.draw(plt, series_mod.relabel(series_mod.split(have, m.DRAWN)), note or (lambda text: None))
        if fig is not None:
            out.append((m.NAME, fig, [b for b in m.BENCHES if any(s.points(b) for s in have)]))
    return out


def module_figure(plt, m, series, note=None):
    """The figure of one per-sweep module (a member of MODULES) from the series (the runs of one unit
    aggregated, a user kernel's points left out), or None where none has its points."""
    plain = series_mod.aggregate([builtin(s) for s in series])
    have = [s for s in plain if any(s.points(b) for b in m.BENCHES)]
    if not have:
        return None
    return m.draw(plt, series_mod.relabel(series_mod.split(have, m.DRAWN)), note or (lambda text: None))


def input_benches(series):
    """Every benchmark of the series' files, in the order their points first name them."""
    return list(dict.fromkeys(r["bench"] for s in series for r in s.doc["results"]))


def figures(plt, series, note=None, drew=None, across=False):
    """[(name, figure)] of every figure the series have points for; note(text) hears, once each, why
    a file gave a figure nothing; drew, a dict, is given each figure's name -> the benchmarks it
    draws; across: the ACROSS figures too (plot draws them, the report has a section of its own)."""
    told = []

    def once(text):
        if text not in told:
            told.append(text)
    out = []
    # the runs of one unit and build past a handful: one series each, a median and a band
    plain = series_mod.aggregate([builtin(s) for s in series])
    for m in MODULES:
        have = [s for s in plain if any(s.points(b) for b in m.BENCHES)]
        if not have:
            continue
        fig = m.draw(plt, series_mod.relabel(series_mod.split(have, m.DRAWN)), once)
        if fig is not None:
            out.append((m.NAME, fig))
            if drew is not None:
                drew[m.NAME] = [b for b in m.BENCHES if any(s.points(b) for s in have)]
    for name, fig, benches in (across_models(plt, series, once) if across else ()):
        out.append((name, fig))
        if drew is not None:
            drew[name] = benches
    overridden = drawn_benches()
    for b in input_benches(plain):
        have = [s for s in plain if s.points(b)]
        if b in overridden or not have:
            continue
        fig = generic.draw(plt, b, series_mod.relabel(have), once)
        if fig is not None:
            out.append((generic.name(b), fig))
            if drew is not None:
                drew[generic.name(b)] = [b]
    for name, fig in kernel.figures(plt, series, once):
        out.append((name, fig))
        if drew is not None:
            drew[name] = list(dict.fromkeys(r["bench"] for s in series for r in s.doc["results"]
                                            if reader.user_point(s.doc, r) and kernel.file_name(r["bench"]) == name))
    if note:
        for text in told:
            note(text)
    return out
