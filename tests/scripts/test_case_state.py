#!/usr/bin/env python3
"""Who owns a case's private state, as TAP. The driver does (bench/bench.h): smem_case_open allocates
c->priv, zeroed, priv_size bytes, before the benchmark's setup, and smem_case_close frees it after its
teardown; both live in bench/bench.c. So no benchmark source (bench/ and tests/fault/, the test-only
benchmark; bench/bench.c aside) assigns a case's priv, takes its address (cudaMalloc(&c->priv, ...))
or frees it, directly or through a variable of the same function that holds it. Comments and string
literals do not count; any member called priv is taken for a case's (the only one these sources have).
Then the same check on made-up sources: a clean one passes, and each planted
violation is caught.

usage: test_case_state.py SOURCE_ROOT"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

FOLDERS = ["bench", "tests/fault"]
FRAMEWORK = "bench/bench.c"     # smem_case_open and smem_case_close: the one place that may

# comments become as many newlines (the line numbers stay), string and character literals empty ones
LEXEMES = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
PRIV = r"(?:->|\.)\s*priv\b"                  # c->priv, m_case.priv; not priv_size
CAST = r"(?:\(\s*[\w\s*]+\)\s*)?"             # (void *), (struct smem_gemm *)
FREE = r"\b\w*[Ff]ree\w*\s*\(\s*"             # free, cudaFree, cudaFreeHost, my_free
ASSIGN = re.compile(PRIV + r"\s*=(?!=)")
ADDRESS = re.compile(r"&\s*\(?\s*\w+\s*" + PRIV)
FREE_PRIV = re.compile(FREE + CAST + r"\w+\s*" + PRIV + r"\s*\)")
ALIAS = re.compile(r"\b(\w+)\s*=\s*" + CAST + r"\w+\s*" + PRIV + r"(?!\s*(?:->|\.|\[))")


def strip(text):
    """text without its comments and literals, line for line."""
    return LEXEMES.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else '""', text)


def blocks(text):
    """(start, end) of every top-level brace block: a function's body, an initializer."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
            if depth == 1:
                start = i
        elif ch == "}" and depth:
            depth -= 1
            if not depth:
                out.append((start, i + 1))
    return out


def problems_of(rel, text):
    """What rel does to a case's priv that only the driver may, one line each; and how often it reads it."""
    code = strip(text)
    line = lambda pos: code.count("\n", 0, pos) + 1
    found = []
    for m in ASSIGN.finditer(code):
        found.append(f"{rel}:{line(m.start())}: assigns a case's priv; the driver allocates it (priv_size)")
    for m in ADDRESS.finditer(code):
        found.append(f"{rel}:{line(m.start())}: takes the address of a case's priv (an allocation into it); "
                     "keep the buffer in the private state instead")
    for m in FREE_PRIV.finditer(code):
        found.append(f"{rel}:{line(m.start())}: frees a case's priv; the driver frees it after teardown")
    for begin, end in blocks(code):
        body = code[begin:end]
        for name in sorted({m.group(1) for m in ALIAS.finditer(body)}):
            for m in re.finditer(FREE + CAST + re.escape(name) + r"\s*\)", body):
                found.append(f"{rel}:{line(begin + m.start())}: frees {name}, which holds a case's priv; the "
                             "driver frees it after teardown")
    found.sort(key=lambda p: int(p.split(":")[1]))
    return found, len(re.findall(PRIV, code))


def sources(root):
    """{relative path: text} of the benchmark sources."""
    return tap.source_files(root, FOLDERS)


def check(root):
    """(problems, files read, reads of a case's priv outside the framework, the framework's own problems)."""
    problems, reads, framework = [], 0, []
    files = sources(root)
    for rel, text in files.items():
        found, n = problems_of(rel, text)
        if rel == FRAMEWORK:
            framework = found
            continue
        problems += found
        reads += n
    return problems, len(files), reads, framework


def fake_tree(files):
    return tap.fake_tree(files, "smemstate")


CLEAN = {
    FRAMEWORK: "int smem_case_open(struct smem_case *c)\n{\n    c->priv = calloc(1, c->bench->priv_size);\n"
               "    return c->bench->setup(c);\n}\n\nvoid smem_case_close(struct smem_case *c)\n{\n"
               "    free(c->priv);\n    c->priv = NULL;\n}\n",
    "bench/x.c": "/* setup fills c->priv; it never says c->priv = calloc(...) or free(c->priv) */\n"
                 "struct x_state {\n    float *out, *h_out;\n};\n\n"
                 "static int x_setup(struct smem_case *c)\n{\n    struct x_state *s = c->priv;\n\n"
                 "    s->h_out = malloc(64);\n"
                 "    return cudaMalloc((void **)&s->out, 64);\n}\n\n"
                 "static void x_teardown(struct smem_case *c)\n{\n    struct x_state *s = c->priv;\n\n"
                 "    cudaFree(s->out);\n    free(s->h_out);\n    smem_fmt(c->reason, 8, \"free(c->priv)\");\n}\n\n"
                 "static void x_other(struct smem_case *c)\n{\n    float *s = malloc(4);\n\n    free(s);\n}\n\n"
                 "const struct smem_bench smem_x_bench = {\n    .name = \"x\",\n"
                 "    SMEM_GPU_OPS(.priv_size = sizeof(struct x_state), .setup = x_setup,\n"
                 "                 .teardown = x_teardown)\n};\n",
    "bench/x.h": "#define X_LAUNCH(type, var) type *var = c->priv;\n",
}

PLANTED = [
    ("a setup that allocates its own state",
     {"bench/y.c": "static int y_setup(struct smem_case *c)\n{\n    struct y *s = calloc(1, sizeof(*s));\n\n"
                   "    if (!(c->priv = s))\n        return SMEM_ENOMEM;\n    return 0;\n}\n"},
     "bench/y.c:5: assigns a case's priv"),
    ("a teardown that clears priv", {"bench/y.c": "static void y_teardown(struct smem_case *c)\n{\n"
                                                  "    c -> priv = NULL;\n}\n"},
     "bench/y.c:3: assigns a case's priv"),
    ("a teardown that frees the state it read", {"bench/y.c": "static void y_teardown(struct smem_case *c)\n{\n"
                                                              "    struct y *s = c->priv;\n\n    cudaFree(s->out);\n"
                                                              "    free(s);\n}\n"},
     "bench/y.c:6: frees s, which holds a case's priv"),
    ("a teardown that frees priv itself", {"bench/y.c": "static void y_teardown(struct smem_case *c)\n{\n"
                                                        "    free( (void *)c->priv );\n}\n"},
     "bench/y.c:3: frees a case's priv"),
    ("a state freed through a cast alias", {"bench/y.c": "void y_teardown(struct smem_case *c)\n{\n"
                                                         "    struct smem_gemm *g;\n\n"
                                                         "    g = (struct smem_gemm *)c->priv;\n    free(g);\n}\n"},
     "bench/y.c:6: frees g, which holds a case's priv"),
    ("the test-only benchmark allocating into priv", {"tests/fault/fault.c": "static int fault_setup(struct smem_case "
                                                                           "*c)\n{\n    return cudaMalloc(&c->priv, "
                                                                           "128);\n}\n"},
     "tests/fault/fault.c:3: takes the address of a case's priv"),
    ("a header's inline function freeing priv", {"bench/y.h": "static inline void y_free(struct smem_case *c)\n{\n"
                                                              "    cudaFreeHost(c->priv);\n}\n"},
     "bench/y.h:3: frees a case's priv"),
    ("the framework's code outside bench/bench.c", {"bench/z.c": CLEAN[FRAMEWORK]},
     "bench/z.c:3: assigns a case's priv"),
]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    results = []

    problems, n_files, reads, framework = check(root)
    results.append(("the real tree: no benchmark source assigns, takes the address of or frees a case's priv",
                    problems))
    results.append((f"the real tree was read: {n_files} files, {reads} uses of a case's priv outside {FRAMEWORK}",
                    [] if n_files > 50 and reads > 50 else ["too few files or uses: wrong root?"]))
    # the one exemption is where the ownership lives: stale if the allocation moved elsewhere
    results.append((f"{FRAMEWORK}, the one exemption, is where the driver allocates and frees priv",
                    [] if any("assigns" in p for p in framework) and any("frees" in p for p in framework)
                    else [f"{FRAMEWORK} neither assigns nor frees a case's priv: the exemption is stale"]))

    problems, _, reads, _ = check(fake_tree(CLEAN))
    results.append(("a clean made-up tree passes (comments, strings, priv_size, the state's members freed, "
                    "another function's free)",
                    problems + ([] if reads == 3 else [f"{reads} uses of priv read, 3 written"])))
    for what, extra, expect in PLANTED:
        problems, _, _, _ = check(fake_tree({**CLEAN, **extra}))
        caught = [p for p in problems if p.startswith(expect)]
        planted_file = expect.split(":")[0]
        results.append((f"a planted violation is caught: {what}",
                        [] if caught and all(p.startswith(planted_file + ":") for p in problems)
                        else [f"expected {expect!r}, and nothing outside {planted_file}; saw {problems}"]))

    return tap.report(results)


if __name__ == "__main__":
    sys.exit(main())
