"""matplotlib for the commands that draw (plot, report, fleet, trend): pyplot on the Agg backend in
the figures' deterministic style or MissingModule naming the Debian package, the result files a
figure is drawn from, a figure as inline SVG or as the texts it shows, and the figures' directory.
"""
import io

from smembench import inputs
from smembench import tool
from smembench.figures.common import STYLE
from smembench.series import time_us


class MissingModule(Exception):
    """A Python module the plots need is not installed."""

    def __init__(self, module, package):
        super().__init__(f"needs the Python module {module}: install the Debian package {package}")


def pyplot():
    """matplotlib's pyplot on the Agg backend with the deterministic style, or MissingModule."""
    try:
        import matplotlib
    except ImportError:
        raise MissingModule("matplotlib", "python3-matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams.update(STYLE)
    return plt


def load(paths, note):
    """[(path, doc)] of the result files among paths (files and folders, by the scanner's rules:
    smembench.inputs); note(text) is told what was skipped and why. Raises reader.ResultError for an
    argument refused, or a file that is (or claims to be) a result file but is unusable."""
    loaded = []
    for p in inputs.paths(paths, "the inputs", note):
        doc = inputs.load(p)
        untimed = sum(1 for r in doc["results"] if r["status"] == "ok" and time_us(r) is None)
        if untimed:
            note(f"{inputs.shown(p)}: {untimed} point{'s' if untimed > 1 else ''} ran without a time (a --check run?): "
                 "left out of the time plots")
        loaded.append((p, doc))
    return loaded


def svg_text(fig, salt):
    """The figure as an SVG element to inline in HTML (ids made unique by salt)."""
    import matplotlib
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def texts(fig):
    """Every text the figure shows (titles, labels, ticks, legends, notes), one a line, in drawing
    order: the PNG's Description, for readers that cannot see it and for comparing figures made by
    different matplotlib versions (whose pixels differ by a little everywhere)."""
    from matplotlib.text import Text
    # laid out and its texts set (ticks, legends) without drawing: the image is drawn when it is
    # saved, and drawing it here as well took a third of plot's time
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    else:
        fig.draw_without_rendering()
    return tool.printable("\n".join(t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()))


def check_outdir(path):
    """The figures' directory, made where missing (tool.output_dir)."""
    return tool.output_dir(path, "the figures")
