"""The figures, one module per sweep: each names the benchmarks it draws (BENCHES), the parameters
it places on an axis, a panel or a line of its own (DRAWN: any other one a file varies splits its
series), and draw(plt, series, note) -> a figure, or None with a note naming each file and what it
lacks. A user kernel's points (smembench --kernel: a file with a kernel record) are kernel.py's
alone, a figure per function; the modules of the built-in benchmarks never see them, whatever the
function is called."""
from smembench import reader
from smembench import series as series_mod
from smembench.figures import bandwidth, bank, carveout, cluster, kernel, memory, occupancy, staging, swizzle, tile

MODULES = (carveout, occupancy, bank, bandwidth, tile, memory, cluster, staging, swizzle)


def builtin(s):
    """The series without its user kernel's points (the same series where the file has none)."""
    if reader.kernel(s.doc) is None:
        return s
    return s.only(lambda r: not reader.user_point(s.doc, r))


def figures(plt, series, note=None):
    """[(name, figure)] of every figure the series have points for; note(text) hears, once each, why
    a file gave a figure nothing."""
    told = []

    def once(text):
        if text not in told:
            told.append(text)
    out = []
    plain = [builtin(s) for s in series]
    for m in MODULES:
        have = [s for s in plain if any(s.points(b) for b in m.BENCHES)]
        if not have:
            continue
        fig = m.draw(plt, series_mod.relabel(series_mod.split(have, m.DRAWN)), once)
        if fig is not None:
            out.append((m.NAME, fig))
    out += kernel.figures(plt, series, once)
    if note:
        for text in told:
            note(text)
    return out
