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
