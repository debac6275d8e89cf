"""Renders a Markdown file (the gate's --markdown comment) to a standalone HTML page the way a code
host folds it (<details>, tables), for a headless Chromium screenshot: python3 lab/render_md.py IN.md
OUT.html (needs python3-markdown). Made the gate comment images of results/figures_35/."""
import sys, re, markdown
src, dst = sys.argv[1], sys.argv[2]
text = open(src).read()
text = re.sub(r"<details( open)?>", lambda m: f'<details{m.group(1) or ""} markdown="1">', text)
text = re.sub(r"<summary>(.*?)</summary>", lambda m: f'<summary markdown="span">{m.group(1)}</summary>', text)
html = markdown.markdown(text, extensions=["tables", "md_in_html"])
css = ("body{font:14px -apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:16px;max-width:1180px}"
       "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d0d7de;padding:3px 8px;font-size:12px}"
       "details{margin:6px 0}summary{cursor:pointer}")
open(dst, "w").write(f"<!doctype html><meta charset=utf-8><style>{css}</style>{html}")
