#!/usr/bin/env python3
"""The launch description's JSON Schema (results/launch.schema.json) as TAP: it is a valid draft
2020-12 schema with a description on every property and no unlisted keys anywhere; the
description of SPEC34 and a minimal one are valid; each planted mistake is rejected; and its keys,
types and reserved names are the ones bench/user_desc.c reads, so the two cannot drift apart.
Skipped (TAP "1..0 # SKIP", which Meson counts as skipped; a TAP test's nonzero exit is an error
there) only where jsonschema is not installed.

  test_launch_schema.py [SOURCE_ROOT]
"""
import copy
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".."))
SCHEMA_PATH = os.path.join(ROOT, "results", "launch.schema.json")
READER = os.path.join(ROOT, "bench", "user_desc.c")

# the description of SPEC34 ("What a user does")
SOFTMAX = {
    "schema": "smembench-launch/1",
    "kernel": "row_softmax",
    "summary": "row softmax, one block per row, a shared-memory max and sum reduction",
    "axes": {"rows": [16384], "cols": {"values": [1024, 4096], "unit": "elements"}},
    "launch": {"grid": "rows", "block": "block", "cluster": "cluster",
               "dynamic_smem": "max(dyn_smem_bytes, block / 32 * 4)"},
    "defaults": {"block": 256, "dyn_smem_bytes": 0, "carveout_pct": -1, "cluster": 0},
    "args": [
        {"name": "x", "type": "f32*", "count": "rows * cols", "access": "in", "fill": "random"},
        {"name": "y", "type": "f32*", "count": "rows * cols", "access": "out"},
        {"name": "cols", "type": "i32", "value": "cols"},
    ],
    "check": {"tolerance": {"abs": 1e-6, "rel": 1e-5},
              "reference": {"arg": "y", "file": "softmax_ref.bin"}},
    "seed": 1,
}

jsonschema = None
SCHEMA = None


def validator():
    return jsonschema.Draft202012Validator(SCHEMA)


def errors(doc):
    return sorted(validator().iter_errors(doc), key=lambda e: list(e.absolute_path))


def changed(edit):
    """A copy of SOFTMAX after edit(doc)."""
    doc = copy.deepcopy(SOFTMAX)
    edit(doc)
    return doc


@test
def the_schema_is_a_valid_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema", SCHEMA.get("$schema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def objects(node, where="#"):
    """Every (pointer, schema) in node that lists properties."""
    if isinstance(node, dict):
        if "properties" in node:
            yield where, node
        for k, v in node.items():
            yield from objects(v, f"{where}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from objects(v, f"{where}/{i}")


@test
def every_property_has_a_description_and_no_object_takes_other_keys():
    seen = 0
    for where, obj in objects(SCHEMA):
        if where.endswith(("/if", "/then", "/else")) or "/allOf/" in where:
            continue   # conditions on properties listed elsewhere
        assert obj.get("additionalProperties") is False, f"{where}: additionalProperties is not false"
        for name, prop in obj["properties"].items():
            seen += 1
            assert isinstance(prop.get("description"), str) and prop["description"], f"{where}/{name}: no description"
    for name, d in SCHEMA["$defs"].items():
        assert d.get("description"), f"#/$defs/{name}: no description"
    assert seen >= 37, f"only {seen} properties: the walk missed some"


@test
def the_spec_example_is_valid():
    assert errors(SOFTMAX) == [], [e.message for e in errors(SOFTMAX)]


@test
def a_minimal_description_and_every_fill_are_valid():
    minimal = {"kernel": "_Z4stepPf", "launch": {"grid": 128}}
    assert errors(minimal) == [], [e.message for e in errors(minimal)]
    doc = changed(lambda d: d["args"][:1].clear() or d["args"].extend([
        {"name": "a", "type": "u8*", "count": 64},
        {"name": "b", "type": "i32*", "count": "n", "fill": "zeros"},
        {"name": "c", "type": "f64*", "count": "n", "access": "inout", "fill": {"random": {"min": 2, "max": 3}},
         "tolerance": {"rel": 1e-9}},
        {"name": "d", "type": "i16*", "count": "n", "fill": {"constant": -7}},
        {"name": "e", "type": "u8*", "count": 16, "fill": {"file": "x.bin"}},
        {"name": "f", "type": "f32", "value": 0.5},
        {"name": "g", "type": "u64", "value": "round_up(n * sm_count, 32) % 7"},
    ]))
    assert errors(doc) == [], [e.message for e in errors(doc)]


# each planted mistake and the JSON path the schema names it at
MISTAKES = [
    ("unknown key in launch", lambda d: d["launch"].update(grdi="rows"), ["launch"]),
    ("unknown top-level key", lambda d: d.update(seeds=2), []),
    ("missing kernel", lambda d: d.pop("kernel"), []),
    ("empty kernel", lambda d: d.update(kernel=""), ["kernel"]),
    ("missing launch", lambda d: d.pop("launch"), []),
    ("missing grid", lambda d: d["launch"].pop("grid"), ["launch"]),
    ("grid not an expression", lambda d: d["launch"].update(grid=None), ["launch", "grid"]),
    ("a character no expression has", lambda d: d["launch"].update(grid="rows; 1"), ["launch", "grid"]),
    ("bad type", lambda d: d["args"][1].update(type="float*"), ["args", 1, "type"]),
    ("bad access", lambda d: d["args"][0].update(access="read"), ["args", 0, "access"]),
    ("bad fill", lambda d: d["args"][0].update(fill="ones"), ["args", 0, "fill"]),
    ("two fills at once", lambda d: d["args"][0].update(fill={"constant": 1, "file": "x.bin"}), ["args", 0, "fill"]),
    ("an out buffer filled", lambda d: d["args"][1].update(fill="zeros"), ["args", 1]),
    ("a buffer without count", lambda d: d["args"][0].pop("count"), ["args", 0]),
    ("a buffer with a value", lambda d: d["args"][0].update(value=1), ["args", 0]),
    ("a scalar with a count", lambda d: d["args"][2].update(count=4), ["args", 2]),
    ("a scalar without value", lambda d: d["args"][2].pop("value"), ["args", 2]),
    ("a tolerance on an in buffer", lambda d: d["args"][0].update(tolerance={"abs": 1}), ["args", 0]),
    ("a tolerance on an integer output", lambda d: d["args"][1].update(type="i32*", tolerance={"abs": 1}),
     ["args", 1]),
    ("an arg without a name", lambda d: d["args"][0].pop("name"), ["args", 0]),
    ("an arg name that is no C name", lambda d: d["args"][0].update(name="2x"), ["args", 0, "name"]),
    ("33 args", lambda d: d.update(args=[{"name": f"a{i}", "type": "i32", "value": i} for i in range(33)]), ["args"]),
    ("a built-in axis name", lambda d: d["axes"].update(block=[64]), ["axes"]),
    ("a device variable as axis", lambda d: d["axes"].update(sm_count=[1]), ["axes"]),
    ("an axis name with capitals", lambda d: d["axes"].update(Rows=[1]), ["axes"]),
    ("five axes", lambda d: d["axes"].update(a=[1], b=[2], c=[3]), ["axes"]),
    ("an empty axis", lambda d: d["axes"].update(rows=[]), ["axes", "rows"]),
    ("a repeated axis value", lambda d: d["axes"].update(rows=[4, 4]), ["axes", "rows"]),
    ("a fractional axis value", lambda d: d["axes"].update(rows=[1.5]), ["axes", "rows"]),
    ("an axis object without values", lambda d: d["axes"].update(cols={"unit": "elements"}), ["axes", "cols"]),
    ("defaults.block 2048", lambda d: d["defaults"].update(block=2048), ["defaults", "block"]),
    ("defaults.cluster 17", lambda d: d["defaults"].update(cluster=17), ["defaults", "cluster"]),
    ("defaults.carveout_pct -2", lambda d: d["defaults"].update(carveout_pct=-2), ["defaults", "carveout_pct"]),
    ("defaults.dyn_smem_bytes -1", lambda d: d["defaults"].update(dyn_smem_bytes=-1), ["defaults", "dyn_smem_bytes"]),
    ("another schema", lambda d: d.update(schema="smembench/1"), ["schema"]),
    ("a negative tolerance", lambda d: d["check"]["tolerance"].update(abs=-1), ["check", "tolerance", "abs"]),
    ("a reference without its file", lambda d: d["check"]["reference"].pop("file"), ["check", "reference"]),
    ("a negative seed", lambda d: d.update(seed=-1), ["seed"]),
]


@test
def every_planted_mistake_is_rejected_where_it_is():
    for what, edit, path in MISTAKES:
        errs = errors(changed(edit))
        assert errs, f"{what}: accepted"
        # at the path, or under it (a buffer's wrong access is its access's error); top-level ones exactly
        assert any(list(e.absolute_path) == path or (path and list(e.absolute_path)[:len(path)] == path)
                   for e in errs), \
            f"{what}: rejected at {[list(e.absolute_path) for e in errs]}, not at {path}"


def c_list(text, start, name):
    """The strings of `name[] = { ... }` in the function of user_desc.c that begins at start."""
    m = re.compile(r"\b" + re.escape(name) + r"\[\]\s*=\s*\{(.*?)\};", re.S).search(text, start)
    assert m, f"no {name}[] after offset {start}"
    return re.findall(r'"([^"]*)"', m.group(1))


def c_function(text, fn):
    m = re.search(r"^static int " + re.escape(fn) + r"\(", text, re.M)
    assert m, f"user_desc.c has no {fn}()"
    return m.start()


@test
def its_keys_are_the_ones_the_reader_knows():
    with open(READER, encoding="utf-8") as f:
        src = f.read()
    props = SCHEMA["properties"]
    d = SCHEMA["$defs"]
    pairs = [
        ("parse_owned", "known", props),
        ("parse_launch", "known", props["launch"]["properties"]),
        ("parse_defaults", "known", props["defaults"]["properties"]),
        ("parse_arg", "known", d["arg"]["properties"]),
        ("parse_axis", "known", d["axis"]["oneOf"][1]["properties"]),
        ("parse_tolerance", "known", d["tolerance"]["properties"]),
        ("parse_check", "known", props["check"]["properties"]),
        ("parse_reference", "known", props["check"]["properties"]["reference"]["properties"]),
        ("parse_fill", "range_keys", d["fill"]["oneOf"][1]["properties"]["random"]["properties"]),
    ]
    for fn, name, schema_props in pairs:
        keys = c_list(src, c_function(src, fn), name)
        assert keys == list(schema_props), f"{fn}: the reader knows {keys}, the schema {list(schema_props)}"
    fills = [o["required"][0] for o in d["fill"]["oneOf"][1:]] + d["fill"]["oneOf"][0]["enum"]
    assert sorted(fills) == ["constant", "file", "random", "random", "zeros"], fills


@test
def its_types_and_reserved_names_are_the_readers():
    with open(READER, encoding="utf-8") as f:
        src = f.read()
    types = re.search(r'#define TYPE_LIST "([^"]*)"', src).group(1).split()
    pattern = SCHEMA["$defs"]["arg"]["properties"]["type"]["pattern"]
    assert pattern == "^(" + "|".join(types) + ")\\*?$", (pattern, types)
    builtins = re.findall(r'"([^"]*)"', re.search(r"builtin_axes\[\]\s*=\s*\{(.*?)\};", src, re.S).group(1))
    device = re.findall(r'"([^"]*)"', re.search(r"smem_user_device_vars\[\]\s*=\s*\{(.*?)\};", src, re.S).group(1))
    funcs = re.findall(r'\{\s*"(\w+)",\s*\d', re.search(r"\} funcs\[\]\s*=\s*\{(.*?)\};", src, re.S).group(1))
    reserved = SCHEMA["properties"]["axes"]["propertyNames"]["not"]["enum"]
    assert reserved == builtins + device + funcs, (reserved, builtins + device + funcs)
    assert builtins == ["carveout_pct", "dyn_smem_bytes", "block", "cluster"], builtins
    assert len(funcs) == 7 and len(device) == 7, (funcs, device)


def main():
    global jsonschema, SCHEMA
    try:
        import jsonschema as js
    except ImportError:
        print("1..0 # SKIP jsonschema not installed (Debian: python3-jsonschema; scripts/setup.sh installs it)")
        return 0
    jsonschema = js
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        SCHEMA = json.load(f)
    return tap.run()


if __name__ == "__main__":
    sys.exit(main())
