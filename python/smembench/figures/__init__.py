"""The figures, one module per sweep: each names the benchmarks it draws (BENCHES), the parameters
it places on an axis, a panel or a line of its own (DRAWN: any other one a file varies splits its
series), and draw(plt, series, note) -> a figure, or None with a note naming each file and what it
lacks."""
from smembench import series as series_mod
from smembench.figures import bandwidth, bank, carveout, cluster, memory, occupancy, staging, swizzle, tile

MODULES = (carveout, occupancy, bank, bandwidth, tile, memory, cluster, staging, swizzle)


def figures(plt, series, note=None):
    """[(name, figure)] of every figure the series have points for; note(text) hears, once each, why
    a file gave a figure nothing."""
    told = []

    def once(text):
        if text not in told:
            told.append(text)
    out = []
    for m in MODULES:
        have = [s for s in series if any(s.points(b) for b in m.BENCHES)]
        if not have:
            continue
        fig = m.draw(plt, series_mod.relabel(series_mod.split(have, m.DRAWN)), once)
        if fig is not None:
            out.append((m.NAME, fig))
    if note:
        for text in told:
            note(text)
    return out
