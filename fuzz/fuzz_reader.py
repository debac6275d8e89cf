#!/usr/bin/env python3
"""libFuzzer target (through atheris) for scripts/reader.py, the one reader of result files
that plot.py, compare.py and export.py share: any input either loads or raises ResultError with a
message; any other exception is a bug.

  python3 fuzz/fuzz_reader.py -max_total_time=60 CORPUS_DIR
"""
import os
import sys

import atheris

with atheris.instrument_imports():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from smembench import reader


def test_one_input(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    try:
        doc = reader.parse(text, "fuzz.json")
    except reader.ResultError:
        return
    # a document the reader accepted must be usable by the tools
    for r in doc["results"]:
        reader.point_key(r)
        reader.point_name(r)
        reader.median_ns(r)
        for name in r["metrics"]:
            reader.metric(r, name)
    reader.device_label(doc)
    reader.run_date(doc)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
