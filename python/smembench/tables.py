"""Text and Markdown tables as every command prints them (compare, ab, fleet, report's verdicts),
the numbers in them, and the cap on a pull-request comment.
"""

def fmt(v):
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return "{...}" if isinstance(v, dict) else "[...]"
    return str(v)[:60]


def table(headers, rows, right, md):
    """Lines of an aligned text table or a Markdown table; right: the right-aligned columns."""
    if md:
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
        return lines + ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]

    def line(cells):
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def pct(x, signed=True):
    if x is None:
        return "-"
    return f"{100 * x:+.2f} %" if signed else f"{100 * x:.2f} %"


def number(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


# a pull-request comment GitHub accepts (it takes 65,536 characters), with room for what CI adds
MARKDOWN_CAP = 60000


def cap_markdown(lines, limit=None):
    """The Markdown lines within limit characters: every table keeps its header, the smallest tables
    and bulleted lists stay whole, and the rows (items) that do not fit are folded into a line under
    their table (list) saying how many were left out; every other line (headings, verdicts) is kept.
    compare, ab and fleet --markdown all go through it."""
    limit = MARKDOWN_CAP if limit is None else limit
    if sum(len(line) + 1 for line in lines) <= limit:
        return lines
    tables = []     # (first foldable line, end, what) of each table's rows after its header and rule, each list
    for mark, skip, what in (("|", 2, "rows"), ("- ", 0, "items")):
        start = None
        for i, line in enumerate(lines + [""]):
            if line.startswith(mark) and start is None:
                start = i
            elif not line.startswith(mark) and start is not None:
                if i - start > max(skip, 1):
                    tables.append((start + skip, i, what))
                start = None
    fold = ("", "*{} more {} left out: the comment is capped at {:,} characters (GitHub takes 65,536); "
                "without --markdown every row is listed*", "")
    reserve = sum(len(f) + 1 for f in fold) + 10
    rows = {i for a, b, _ in tables for i in range(a, b)}
    budget = limit - sum(len(line) + 1 for i, line in enumerate(lines) if i not in rows) - reserve * len(tables)
    keep = set()
    for a, b, _ in sorted(tables, key=lambda t: sum(len(lines[i]) + 1 for i in range(t[0], t[1]))):
        for i in range(a, b):
            if len(lines[i]) + 1 > budget:
                break
            budget -= len(lines[i]) + 1
            keep.add(i)
    out = []
    for i, line in enumerate(lines):
        if i not in rows or i in keep:
            out.append(line)
        for a, b, what in tables:
            if i == b - 1 and any(j not in keep for j in range(a, b)):
                left = sum(1 for j in range(a, b) if j not in keep)
                out += [fold[0], fold[1].format(left, what, limit), fold[2]]
    if sum(len(line) + 1 for line in out) > limit:
        # more files than tables can make room for: the text itself is cut, and says so
        text = "\n".join(out)[:limit - 200]
        out = text[:text.rfind("\n")].split("\n") + ["", f"*the rest is left out: the comment is capped at "
                                                         f"{limit:,} characters (GitHub takes 65,536)*"]
    return out
