/* The launch description of a user kernel (bench/user_desc.c): the expression language value by
 * value, a valid description field by field, and every mistake with the one line it gets. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "smem.h"
#include "user_desc.h"

/* ---- expressions ---------------------------------------------------------------------------- */

static const char *const var_names[] = { "n", "rows", "cols", "block", "zero" };
static const double var_values[] = { 1000, 16384, 4096, 256, 0 };
static const struct smem_user_vars vars = { var_names, var_values, SMEM_ARRAY_LEN(var_names) };

/* expr's value with the variables above; the test fails with the reason when it does not evaluate. */
static double eval(const char *expr)
{
    char why[1024] = "";
    double v = NAN;

    cr_assert_eq(smem_user_eval(expr, &vars, &v, why, sizeof(why)), SMEM_OK, "\"%s\": %s", expr, why);
    return v;
}

/* The one-line reason expr is rejected with; it must contain needle. */
static void eval_fails(const char *expr, const char *needle)
{
    char why[1024] = "";
    double v;

    cr_assert_eq(smem_user_eval(expr, &vars, &v, why, sizeof(why)), SMEM_EINVAL, "\"%s\" should fail", expr);
    cr_assert_null(strchr(why, '\n'), "one line: %s", why);
    cr_assert_not_null(strstr(why, needle), "\"%s\": expected \"%s\" in: %s", expr, needle, why);
}

Test(user_expr, precedence_and_associativity)
{
    cr_assert_eq(eval("2 + 3 * 4"), 14);
    cr_assert_eq(eval("(2 + 3) * 4"), 20);
    cr_assert_eq(eval("10 - 4 - 3"), 3);
    cr_assert_eq(eval("100 / 10 / 5"), 2);
    cr_assert_eq(eval("1 + 7 % 4"), 4);
    cr_assert_eq(eval("2 * 3 % 4"), 2);   /* (2 * 3) % 4: * and % are one level, left to right */
    cr_assert_eq(eval("((((7))))"), 7);
}

Test(user_expr, unary_minus)
{
    cr_assert_eq(eval("-3 + 5"), 2);
    cr_assert_eq(eval("--2"), 2);
    cr_assert_eq(eval("-(2 + 3) * 2"), -10);
    cr_assert_eq(eval("2 * -3"), -6);
    cr_assert_eq(eval("4 - -n"), 1004);
    cr_assert_eq(eval("+5"), 5);
}

Test(user_expr, numbers_and_variables)
{
    cr_assert_eq(eval("1e-3 * 1000"), 1);
    cr_assert_eq(eval("1.5e3"), 1500);
    cr_assert_eq(eval("2E+2"), 200);
    cr_assert_eq(eval(".5 * 4"), 2);
    cr_assert_eq(eval("rows * cols"), 16384.0 * 4096);
    cr_assert_eq(eval("\tn\t+  1 "), 1001);
}

Test(user_expr, real_division_and_ceil_floor)
{
    cr_assert_eq(eval("n / 256"), 1000.0 / 256);
    cr_assert_eq(eval("ceil(n / 256)"), 4);
    cr_assert_eq(eval("floor(n / 256)"), 3);
    cr_assert_eq(eval("ceil(1024 / 256)"), 4);
    cr_assert_eq(eval("ceil(-1.5)"), -1);
    cr_assert_eq(eval("floor(-1.5)"), -2);
}

Test(user_expr, round_up_min_max)
{
    cr_assert_eq(eval("round_up(n, 256)"), 1024);
    cr_assert_eq(eval("round_up(1024, 256)"), 1024);
    cr_assert_eq(eval("round_up(0, 32)"), 0);
    cr_assert_eq(eval("round_up(1, 32)"), 32);
    cr_assert_eq(eval("min(rows, cols)"), 4096);
    cr_assert_eq(eval("max(rows, cols)"), 16384);
    cr_assert_eq(eval("max(0, block / 32 * 4)"), 32);
    cr_assert_eq(eval("min(max(1, 2), 3) + max(min(5, 4), 1)"), 6);
}

Test(user_expr, log2_pow_and_modulo)
{
    cr_assert_eq(eval("log2(1024)"), 10);
    cr_assert_eq(eval("log2(block)"), 8);
    cr_assert_eq(eval("pow(2, 10)"), 1024);
    cr_assert_float_eq(eval("pow(2, 0.5)"), sqrt(2.0), 1e-15);
    cr_assert_eq(eval("17 % 5"), 2);
    cr_assert_eq(eval("n % 256"), 232);
    cr_assert_eq(eval("-7 % 3"), -1);   /* C's sign: the dividend's */
}

Test(user_expr, exact_to_2_pow_53)
{
    char why[512];
    int64_t v = 0;

    cr_assert_eq(smem_user_eval_int("pow(2, 53)", "count", &vars, 0, INT64_MAX, &v, why, sizeof(why)), SMEM_OK, "%s",
                 why);
    cr_assert_eq(v, 9007199254740992LL);
    cr_assert_eq(smem_user_eval_int("pow(2, 53) - 1", "count", &vars, 0, INT64_MAX, &v, why, sizeof(why)), SMEM_OK);
    cr_assert_eq(v, 9007199254740991LL);
    cr_assert_eq(smem_user_eval_int("ceil(n / 256)", "grid", &vars, 1, 2147483647, &v, why, sizeof(why)), SMEM_OK);
    cr_assert_eq(v, 4);
}

Test(user_expr, no_variables_still_evaluates)
{
    char why[512];
    double d = 0;
    int64_t v = 0;

    cr_assert_eq(smem_user_eval("6 * 7", NULL, &d, why, sizeof(why)), SMEM_OK);
    cr_assert_eq(d, 42);
    cr_assert_eq(smem_user_eval_int("6 * 7", "grid", NULL, 1, 100, &v, why, sizeof(why)), SMEM_OK);
    cr_assert_eq(v, 42);
}

Test(user_expr, unknown_variable_lists_the_known)
{
    eval_fails("rowz * 2", "unknown variable \"rowz\" at column 1; known variables: n, rows, cols, block, zero");
    eval_fails("rows * colz", "expression \"rows * colz\": unknown variable \"colz\" at column 8");
    eval_fails("ceil + 1", "ceil at column 1 is a function: call it as ceil(x)");
    eval_fails("sqrt(4)", "unknown function \"sqrt\" at column 1; functions: ceil(x), floor(x)");
}

Test(user_expr, division_by_zero_with_its_column)
{
    eval_fails("n / zero", "division by zero at column 3");
    eval_fails("n / (rows - rows)", "division by zero at column 3");
    eval_fails("n % zero", "division by zero at column 3");
    eval_fails("1 + 2 / 0", "division by zero at column 7");
}

Test(user_expr, syntax_error_column)
{
    eval_fails("rows * (cols + 1", "syntax error at column 17: expected \")\", found the end");
    eval_fails("rows * * 2", "syntax error at column 8: expected a number, a variable, a function call or \"(\", "
                             "found \"*\"");
    eval_fails("2n", "syntax error at column 2: expected an operator or the end, found \"n\"");
    eval_fails("rows)", "syntax error at column 5: expected an operator or the end, found \")\"");
    eval_fails("1e", "syntax error at column 3: expected the exponent's digits");
    eval_fails("min(1 2)", "syntax error at column 7: expected \",\" or \")\", found \"2\"");
    eval_fails("n $ 2", "syntax error at column 3");
    eval_fails("n\n+ 2", "expression \"n\\n+ 2\": syntax error at column 2: expected an operator or the end, found byte 0x0a");
    eval_fails("", "is empty; expected an expression");
    eval_fails("   ", "is empty");
}

Test(user_expr, wrong_argument_count)
{
    eval_fails("min(1)", "min takes 2 arguments, not 1, at column 1: min(a, b)");
    eval_fails("n + ceil(1, 2)", "ceil takes 1 argument, not 2, at column 5: ceil(x)");
    eval_fails("pow()", "pow takes 2 arguments, not 0");
    eval_fails("round_up(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", "round_up takes 2 arguments, not 10");
}

Test(user_expr, domain_errors)
{
    eval_fails("log2(zero)", "log2(0) at column 1 is not defined: log2 needs x > 0");
    eval_fails("log2(-8)", "log2(-8)");
    eval_fails("round_up(n, 0)", "round_up(x, m) at column 1 needs m > 0, not 0");
    eval_fails("5.5 % 2", "% at column 5 is on integers, not 5.50 % 2: wrap its operands in ceil() or floor()");
    eval_fails("pow(-1, 0.5)", "pow(-1, 0.50) at column 1 is not a finite number");
    eval_fails("1e308 * 10", "the value overflows at column 7");
    eval_fails("1e999", "the number 1e999 at column 1 is too large");
}

Test(user_expr, nesting_is_bounded)
{
    char deep[1024] = "";

    for (int i = 0; i < 100; i++)
        smem_append(deep, sizeof(deep), "", "(");
    smem_append(deep, sizeof(deep), "", "1");
    for (int i = 0; i < 100; i++)
        smem_append(deep, sizeof(deep), "", ")");
    eval_fails(deep, "nested more than 64 deep at column 65");
    deep[0] = '\0';
    for (int i = 0; i < 100; i++)
        smem_append(deep, sizeof(deep), "", "ceil(");
    eval_fails(deep, "nested more than 64 deep at column 321");
    memset(deep, '-', 200);
    deep[200] = '1';
    deep[201] = '\0';
    eval_fails(deep, "nested more than 64 deep");
    cr_assert_eq(eval("((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))"), 1);
}

Test(user_expr, integer_values_and_their_ranges)
{
    char why[512];
    int64_t v;

    cr_assert_eq(smem_user_eval_int("n / 3", "grid", &vars, 1, 2147483647, &v, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_str_eq(why, "grid = n / 3 is 333.33, not an integer: wrap it in ceil() or floor()");
    cr_assert_eq(smem_user_eval_int("n + 0.001", "grid", &vars, 1, 2147483647, &v, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_not_null(strstr(why, "is 1000.001, not an integer"), "%s", why);
    cr_assert_eq(smem_user_eval_int("block * 8", "block", &vars, 1, 1024, &v, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_str_eq(why, "block = block * 8 is 2048; expected an integer 1..1024");
    cr_assert_eq(smem_user_eval_int("n - 2000", "count", &vars, 0, INT64_MAX, &v, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_str_eq(why, "count = n - 2000 is -1000; expected an integer of at least 0");
    cr_assert_eq(smem_user_eval_int("pow(2, 60)", "count", &vars, 0, INT64_MAX, &v, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_not_null(strstr(why, "past 2^53 where doubles stop being exact"), "%s", why);
    cr_assert_eq(smem_user_eval_int("n / zero", "grid", &vars, 1, 100, &v, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_str_eq(why, "grid \"n / zero\": division by zero at column 3");
}

Test(user_expr, check_needs_names_not_values)
{
    static const char *const names[] = { "n", "m" };
    char why[512] = "";

    cr_assert_eq(smem_user_expr_check("ceil(n / m) % 4 + log2(m)", "launch.grid", names, 2, why, sizeof(why)), SMEM_OK,
                 "%s", why);
    cr_assert_eq(smem_user_expr_check("n / k", "launch.grid", names, 2, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_str_eq(why, "launch.grid \"n / k\": unknown variable \"k\" at column 5; known variables: n, m");
    /* a constant is still evaluated: its mistakes are found before a device is known */
    cr_assert_eq(smem_user_expr_check("n / 0", "launch.grid", names, 2, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_not_null(strstr(why, "division by zero at column 3"), "%s", why);
    cr_assert_eq(smem_user_expr_check("min(n)", "args[0].count", names, 2, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_not_null(strstr(why, "args[0].count \"min(n)\": min takes 2 arguments, not 1"), "%s", why);
}

Test(user_types, names_sizes_and_floats)
{
    cr_assert_str_eq(smem_user_type_name(SMEM_USER_F32), "f32");
    cr_assert_str_eq(smem_user_type_name(SMEM_USER_U64), "u64");
    cr_assert_eq(smem_user_type_size(SMEM_USER_I8), 1);
    cr_assert_eq(smem_user_type_size(SMEM_USER_U16), 2);
    cr_assert_eq(smem_user_type_size(SMEM_USER_I32), 4);
    cr_assert_eq(smem_user_type_size(SMEM_USER_F64), 8);
    cr_assert(smem_user_type_is_float(SMEM_USER_F32));
    cr_assert(smem_user_type_is_float(SMEM_USER_F64));
    cr_assert_not(smem_user_type_is_float(SMEM_USER_I64));
}

/* ---- descriptions --------------------------------------------------------------------------- */

static char dir[64];

static void write_file(const char *name, size_t bytes)
{
    char path[256];
    FILE *f;

    smem_fmt(path, sizeof(path), "%s/%s", dir, name);
    cr_assert_not_null(f = fopen(path, "wb"));
    for (size_t i = 0; i < bytes; i++)
        fputc((int)(i & 0xff), f);
    cr_assert_eq(fclose(f), 0);
}

/* A folder with the files the descriptions name: softmax_ref.bin and x.bin. */
static void make_dir(void)
{
    strcpy(dir, "/tmp/smemudXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    write_file("softmax_ref.bin", 64);
    write_file("x.bin", 16);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st, (void)type, (void)f;
    return remove(path);
}

static void remove_dir(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The description of SPEC34 ("What a user does"). */
static const char softmax[] =
    "{\n"
    "  \"schema\": \"smembench-launch/1\",\n"
    "  \"kernel\": \"row_softmax\",\n"
    "  \"summary\": \"row softmax, one block per row, a shared-memory max and sum reduction\",\n"
    "  \"axes\": { \"rows\": [16384], \"cols\": { \"values\": [1024, 4096], \"unit\": \"elements\" } },\n"
    "  \"launch\": { \"grid\": \"rows\", \"block\": \"block\", \"cluster\": \"cluster\",\n"
    "              \"dynamic_smem\": \"max(dyn_smem_bytes, block / 32 * 4)\" },\n"
    "  \"defaults\": { \"block\": 256, \"dyn_smem_bytes\": 0, \"carveout_pct\": -1, \"cluster\": 0 },\n"
    "  \"args\": [\n"
    "    { \"name\": \"x\", \"type\": \"f32*\", \"count\": \"rows * cols\", \"access\": \"in\",  \"fill\": \"random\" },\n"
    "    { \"name\": \"y\", \"type\": \"f32*\", \"count\": \"rows * cols\", \"access\": \"out\" },\n"
    "    { \"name\": \"cols\", \"type\": \"i32\", \"value\": \"cols\" }\n"
    "  ],\n"
    "  \"check\": { \"tolerance\": { \"abs\": 1e-6, \"rel\": 1e-5 },\n"
    "             \"reference\": { \"arg\": \"y\", \"file\": \"softmax_ref.bin\" } },\n"
    "  \"seed\": 1\n"
    "}\n";

static struct smem_user_desc *parse_in_dir(const char *text, char *why, size_t len, int *rc)
{
    struct smem_user_desc *d = calloc(1, sizeof(*d));
    char path[128];

    cr_assert_not_null(d);
    smem_fmt(path, sizeof(path), "%s/t.json", dir);
    *rc = smem_user_desc_parse(text, path, d, why, len);
    return d;
}

/* text must parse; the caller frees the result with done(). */
static struct smem_user_desc *parses(const char *text)
{
    char why[1024] = "";
    int rc;
    struct smem_user_desc *d = parse_in_dir(text, why, sizeof(why), &rc);

    cr_assert_eq(rc, SMEM_OK, "should parse: %s", why);
    return d;
}

static void done(struct smem_user_desc *d)
{
    smem_user_desc_free(d);
    cr_assert_null(d->json);
    free(d);
}

/* text must be rejected with one line that names the file and contains needle. */
static void rejects(const char *text, const char *needle)
{
    char why[1024] = "", prefix[128];
    int rc;
    struct smem_user_desc *d = parse_in_dir(text, why, sizeof(why), &rc);

    cr_assert_eq(rc, SMEM_EINVAL, "should be rejected (expected \"%s\"): %s", needle, text);
    smem_fmt(prefix, sizeof(prefix), "%s/t.json: ", dir);
    cr_assert_eq(strncmp(why, prefix, strlen(prefix)), 0, "names the file first: %s", why);
    cr_assert_null(strchr(why, '\n'), "one line: %s", why);
    cr_assert_not_null(strstr(why, needle), "expected \"%s\" in: %s", needle, why);
    cr_assert_null(d->json, "a rejected description holds nothing");
    free(d);
}

/* A minimal description with more members at the top level (or "" for none): an axis n, unless extra
 * gives the axes. */
static char *with(const char *extra)
{
    static char buf[8192];
    bool axes = strstr(extra, "\"axes\"") != NULL;

    smem_fmt(buf, sizeof(buf), "{\"kernel\": \"k\", \"launch\": {\"grid\": \"%s\"}%s%s%s}", axes ? "1" : "n",
             axes ? "" : ", \"axes\": {\"n\": [64]}", extra[0] ? ", " : "", extra);
    return buf;
}

/* A minimal description whose args are args_json. */
static char *with_args(const char *args_json)
{
    static char buf[8192];

    smem_fmt(buf, sizeof(buf), "\"args\": [%s]", args_json);
    return with(buf);
}

TestSuite(user_desc, .init = make_dir, .fini = remove_dir);

Test(user_desc, the_spec_example_field_by_field)
{
    struct smem_user_desc *d = parses(softmax);
    char ref[128];

    cr_assert_str_eq(d->function, "row_softmax");
    cr_assert_str_eq(d->summary, "row softmax, one block per row, a shared-memory max and sum reduction");
    cr_assert_eq(d->n_axes, 2);
    cr_assert_str_eq(d->axes[0].name, "rows");
    cr_assert_str_eq(d->axes[0].unit, "");
    cr_assert_eq(d->axes[0].n, 1);
    cr_assert_eq(d->axes[0].values[0], 16384);
    cr_assert_str_eq(d->axes[1].name, "cols");
    cr_assert_str_eq(d->axes[1].unit, "elements");
    cr_assert_eq(d->axes[1].n, 2);
    cr_assert_eq(d->axes[1].values[0], 1024);
    cr_assert_eq(d->axes[1].values[1], 4096);
    cr_assert_str_eq(d->grid, "rows");
    cr_assert_str_eq(d->block, "block");
    cr_assert_str_eq(d->cluster, "cluster");
    cr_assert_str_eq(d->dynamic_smem, "max(dyn_smem_bytes, block / 32 * 4)");
    cr_assert_eq(d->def_block, 256);
    cr_assert_eq(d->def_dyn_smem, 0);
    cr_assert_eq(d->def_carveout, -1);
    cr_assert_eq(d->def_cluster, 0);
    cr_assert_eq(d->n_args, 3);

    cr_assert_str_eq(d->args[0].name, "x");
    cr_assert_eq(d->args[0].type, SMEM_USER_F32);
    cr_assert(d->args[0].pointer);
    cr_assert_str_eq(d->args[0].count, "rows * cols");
    cr_assert_eq(d->args[0].access, SMEM_USER_IN);
    cr_assert_eq(d->args[0].fill, SMEM_USER_FILL_RANDOM);
    cr_assert_eq(d->args[0].lo, -1.0);
    cr_assert_eq(d->args[0].hi, 1.0);

    cr_assert_str_eq(d->args[1].name, "y");
    cr_assert(d->args[1].pointer);
    cr_assert_eq(d->args[1].access, SMEM_USER_OUT);
    cr_assert_eq(d->args[1].tol_abs, 1e-6);
    cr_assert_eq(d->args[1].tol_rel, 1e-5);

    cr_assert_str_eq(d->args[2].name, "cols");
    cr_assert_eq(d->args[2].type, SMEM_USER_I32);
    cr_assert_not(d->args[2].pointer);
    cr_assert_str_eq(d->args[2].value, "cols");

    cr_assert_eq(d->tol_abs, 1e-6);
    cr_assert_eq(d->tol_rel, 1e-5);
    cr_assert_eq(d->reference_arg, 1);
    smem_fmt(ref, sizeof(ref), "%s/softmax_ref.bin", dir);
    cr_assert_str_eq(d->reference_file, ref);
    cr_assert_eq(d->seed, 1);
    cr_assert_str_eq(d->json, softmax);
    smem_fmt(ref, sizeof(ref), "%s/t.json", dir);
    cr_assert_str_eq(d->path, ref);
    cr_assert_str_eq(d->dir, dir);
    done(d);
}

Test(user_desc, load_reads_the_file)
{
    struct smem_user_desc *d = calloc(1, sizeof(*d));
    char path[128], why[1024] = "";
    FILE *f;

    smem_fmt(path, sizeof(path), "%s/softmax.json", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs(softmax, f);
    fclose(f);
    cr_assert_eq(smem_user_desc_load(path, d, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_str_eq(d->path, path);
    cr_assert_str_eq(d->dir, dir);
    cr_assert_str_eq(d->json, softmax);
    cr_assert_eq(d->reference_arg, 1);
    done(d);

    d = calloc(1, sizeof(*d));
    smem_fmt(path, sizeof(path), "%s/none.json", dir);
    cr_assert_eq(smem_user_desc_load(path, d, why, sizeof(why)), SMEM_EINVAL);
    cr_assert_not_null(strstr(why, "cannot open"), "%s", why);
    cr_assert_not_null(strstr(why, "none.json: No such file or directory"), "%s", why);
    cr_assert_null(d->json);
    free(d);
}

Test(user_desc, the_defaults_of_what_is_left_out)
{
    struct smem_user_desc *d = parses("{\"kernel\": \"_Z4stepPf\", \"launch\": {\"grid\": 128}}");

    cr_assert_str_eq(d->function, "_Z4stepPf");
    cr_assert_str_eq(d->summary, "");
    cr_assert_eq(d->n_axes, 0);
    cr_assert_str_eq(d->grid, "128");
    cr_assert_str_eq(d->block, "block");
    cr_assert_str_eq(d->cluster, "cluster");
    cr_assert_str_eq(d->dynamic_smem, "dyn_smem_bytes");
    cr_assert_eq(d->def_block, 256);
    cr_assert_eq(d->def_dyn_smem, 0);
    cr_assert_eq(d->def_carveout, -1);
    cr_assert_eq(d->def_cluster, 0);
    cr_assert_eq(d->n_args, 0);
    cr_assert_eq(d->tol_abs, 0);
    cr_assert_eq(d->tol_rel, 0);
    cr_assert_eq(d->reference_arg, -1);
    cr_assert_eq(d->seed, 1);
    done(d);
}

Test(user_desc, fills_scalars_and_tolerances)
{
    struct smem_user_desc *d = parses(with(
        "\"check\": {\"tolerance\": {\"abs\": 0.5}}, \"seed\": 42, \"defaults\": {\"block\": 1024, \"cluster\": 2, "
        "\"carveout_pct\": 100, \"dyn_smem_bytes\": 49152}, \"args\": ["
        "{\"name\": \"a\", \"type\": \"u8*\", \"count\": \"n\"},"
        "{\"name\": \"b\", \"type\": \"i32*\", \"count\": 64, \"fill\": \"random\"},"
        "{\"name\": \"c\", \"type\": \"f64*\", \"count\": \"n\", \"access\": \"inout\", \"fill\": {\"random\": {\"min\": 2, \"max\": 3}},"
        " \"tolerance\": {\"rel\": 1e-9}},"
        "{\"name\": \"d\", \"type\": \"i16*\", \"count\": \"n\", \"fill\": {\"constant\": -7}},"
        "{\"name\": \"e\", \"type\": \"u8*\", \"count\": 16, \"fill\": {\"file\": \"x.bin\"}},"
        "{\"name\": \"f\", \"type\": \"f32\", \"value\": 0.5},"
        "{\"name\": \"g\", \"type\": \"u64\", \"value\": \"n * sm_count\"},"
        "{\"name\": \"h\", \"type\": \"i8\", \"value\": -128}]"));
    char file[128];

    cr_assert_eq(d->seed, 42);
    cr_assert_eq(d->def_block, 1024);
    cr_assert_eq(d->def_cluster, 2);
    cr_assert_eq(d->def_carveout, 100);
    cr_assert_eq(d->def_dyn_smem, 49152);
    cr_assert_eq(d->n_args, 8);
    cr_assert_eq(d->args[0].type, SMEM_USER_U8);
    cr_assert_eq(d->args[0].fill, SMEM_USER_FILL_ZEROS);   /* an in buffer without fill: zeros */
    cr_assert_eq(d->args[0].access, SMEM_USER_IN);
    cr_assert_eq(d->args[1].fill, SMEM_USER_FILL_RANDOM);
    cr_assert_str_eq(d->args[1].count, "64");
    cr_assert_eq(d->args[1].lo, 0);
    cr_assert_eq(d->args[1].hi, 256);
    cr_assert_eq(d->args[2].access, SMEM_USER_INOUT);
    cr_assert_eq(d->args[2].fill, SMEM_USER_FILL_RANDOM);
    cr_assert_eq(d->args[2].lo, 2);
    cr_assert_eq(d->args[2].hi, 3);
    cr_assert_eq(d->args[2].tol_abs, 0.5);   /* the check's, where the arg does not say */
    cr_assert_eq(d->args[2].tol_rel, 1e-9);
    cr_assert_eq(d->args[3].fill, SMEM_USER_FILL_CONSTANT);
    cr_assert_eq(d->args[3].constant, -7);
    cr_assert_eq(d->args[4].fill, SMEM_USER_FILL_FILE);
    smem_fmt(file, sizeof(file), "%s/x.bin", dir);
    cr_assert_str_eq(d->args[4].file, file);
    cr_assert_str_eq(d->args[5].value, "0.5");
    cr_assert_eq(d->args[5].type, SMEM_USER_F32);
    cr_assert_str_eq(d->args[6].value, "n * sm_count");
    cr_assert_str_eq(d->args[7].value, "-128");
    cr_assert_eq(d->tol_abs, 0.5);
    cr_assert_eq(d->tol_rel, 0);
    done(d);
}

Test(user_desc, a_relative_file_is_the_descriptions_folders)
{
    struct smem_user_desc *d = calloc(1, sizeof(*d));
    char why[1024] = "", cwd_rel[64];

    /* a description named without a folder: its files are relative to the current folder */
    cr_assert_eq(chdir(dir), 0);
    smem_fmt(cwd_rel, sizeof(cwd_rel), "t.json");
    cr_assert_eq(smem_user_desc_parse(with_args("{\"name\": \"e\", \"type\": \"u8*\", \"count\": 16, "
                                                "\"fill\": {\"file\": \"x.bin\"}}"),
                                      cwd_rel, d, why, sizeof(why)),
                 SMEM_OK, "%s", why);
    cr_assert_str_eq(d->dir, ".");
    cr_assert_str_eq(d->args[0].file, "x.bin");
    done(d);
}

Test(user_desc, bad_type_names_the_types)
{
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\"}, {\"name\": \"y\", \"type\": \"float*\", "
                      "\"count\": \"n\"}"),
            "args[1].type \"float*\" is not a type; types: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64, with * for a buffer "
            "(float* is f32*)");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32**\", \"count\": \"n\"}"), "args[0].type \"f32**\" is not a type");
    rejects(with_args("{\"name\": \"x\", \"type\": \"half*\", \"count\": \"n\"}"), "(16-bit floats: pass them as u16*)");
    rejects(with_args("{\"name\": \"x\", \"type\": 4, \"count\": \"n\"}"), "args[0].type is 4; expected a string");
    rejects(with_args("{\"name\": \"x\", \"count\": \"n\"}"), "args[0].type is missing");
    rejects(with_args("{\"type\": \"i32\", \"value\": 1}"), "args[0].name is missing");
    /* a newline in the text stays out of the one line */
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32\\n\", \"value\": 1}"), "args[0].type \"f32\\n\" is not a type");
}

Test(user_desc, bad_access)
{
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"access\": \"read\"}"),
            "args[0].access \"read\" is not an access; expected \"in\", \"out\" or \"inout\"");
    rejects(with_args("{\"name\": \"n\", \"type\": \"i32\", \"value\": \"n\", \"access\": \"in\"}"),
            "args[0].access: n (i32) is a scalar; access belongs to a buffer (\"type\": \"i32*\")");
}

Test(user_desc, bad_fill)
{
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": \"ones\"}"),
            "args[0].fill \"ones\" is not a fill; expected \"zeros\", \"random\", {\"random\": {\"min\": a, \"max\": b}}, "
            "{\"constant\": v} or {\"file\": \"x.bin\"}");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"const\": 1}}"),
            "args[0].fill is an object with the key \"const\"; expected");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"constant\": 1, \"random\": {}}}"),
            "args[0].fill is an object with the keys \"constant\", \"random\"; expected");
    rejects(with_args("{\"name\": \"y\", \"type\": \"f32*\", \"count\": \"n\", \"access\": \"out\", \"fill\": \"zeros\"}"),
            "args[0].fill: y is an out buffer, poisoned (0xFF bytes) before each configuration, not filled");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"random\": {\"min\": 1, \"max\": 1}}}"),
            "args[0].fill.random: min 1 is not below max 1");
    rejects(with_args("{\"name\": \"x\", \"type\": \"u8*\", \"count\": \"n\", \"fill\": {\"random\": {\"min\": -1}}}"),
            "args[0].fill.random.min -1 is out of range for u8; expected 0..255");
    rejects(with_args("{\"name\": \"x\", \"type\": \"i32*\", \"count\": \"n\", \"fill\": {\"constant\": 1.5}}"),
            "args[0].fill.constant 1.50 is not an integer; i32 holds integers");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"random\": {\"mean\": 0}}}"),
            "unknown key \"mean\" in args[0].fill.random; known keys: min, max");
}

Test(user_desc, fill_file_must_exist_and_be_a_file)
{
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"file\": \"nope.bin\"}}"),
            "args[0].fill.file \"nope.bin\" cannot be read (");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"file\": \"nope.bin\"}}"),
            "/nope.bin: No such file or directory); name a file of raw little-endian elements, relative to the "
            "description's folder");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"file\": \".\"}}"),
            "is not a regular file");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"fill\": {\"file\": \"\"}}"),
            "args[0].fill.file is empty");
}

Test(user_desc, buffer_and_scalar_keys)
{
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\"}"),
            "args[0].count is missing; the buffer x (f32*) needs its element count");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"value\": 1}"),
            "args[0].value: x (f32*) is a buffer");
    rejects(with_args("{\"name\": \"n\", \"type\": \"i32\"}"), "args[0].value is missing; the scalar n (i32) needs its value");
    rejects(with_args("{\"name\": \"n\", \"type\": \"i32\", \"value\": \"n\", \"count\": 4}"),
            "args[0].count: n (i32) is a scalar");
    rejects(with_args("{\"name\": \"n\", \"type\": \"i8\", \"value\": 300}"),
            "args[0].value 300 is out of range for i8; expected -128..127");
    rejects(with_args("{\"name\": \"n\", \"type\": \"u32\", \"value\": 2.5}"), "args[0].value 2.50 is not an integer");
    rejects(with_args("{\"name\": \"n\", \"type\": \"u64\", \"value\": 1e20}"),
            "args[0].value 1e+20 is out of range for u64; expected 0..9007199254740992");
    rejects(with_args("{\"name\": \"n\", \"type\": \"i32\", \"value\": true}"),
            "args[0].value is true; expected an expression");
    rejects(with_args("{\"name\": \"x\", \"type\": \"i32\", \"value\": 1}, {\"name\": \"x\", \"type\": \"i32\", \"value\": 2}"),
            "args[1].name \"x\" is also args[0]'s name");
    rejects(with_args("{\"name\": \"2x\", \"type\": \"i32\", \"value\": 1}"), "args[0].name \"2x\" is not a name");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\", \"tolerance\": {\"abs\": 1}}"),
            "args[0].tolerance: x is an in buffer, never compared");
    rejects(with_args("{\"name\": \"x\", \"type\": \"i32*\", \"count\": \"n\", \"access\": \"out\", \"tolerance\": {\"abs\": 1}}"),
            "compared exactly; a tolerance belongs to an f32 or f64 buffer");
    rejects(with_args("\"x\""), "args[0] is \"x\"; expected an object");
    rejects(with("\"args\": {}"), "args is an object; expected the kernel's parameters in order");
}

Test(user_desc, at_most_32_args)
{
    char args[8192] = "";

    for (int i = 0; i < 33; i++)
        smem_append(args, sizeof(args), ", ", "{\"name\": \"a%d\", \"type\": \"i32\", \"value\": %d}", i, i);
    rejects(with_args(args), "args has 33 parameters; at most 32");
}

Test(user_desc, unknown_keys_list_the_known)
{
    rejects("{\"kernel\": \"k\", \"launch\": {\"grdi\": \"1\"}}",
            "unknown key \"grdi\" in launch; known keys: grid, block, cluster, dynamic_smem");
    rejects(with("\"seeds\": 2"), "unknown key \"seeds\" at the top level; known keys: schema, kernel, summary, axes, "
                                  "launch, defaults, args, check, seed");
    rejects(with_args("{\"name\": \"x\", \"type\": \"i32\", \"value\": 1, \"acess\": \"in\"}"),
            "unknown key \"acess\" in args[0]; known keys: name, type, count, access, fill, value, tolerance");
    rejects(with("\"defaults\": {\"blocks\": 128}"),
            "unknown key \"blocks\" in defaults; known keys: block, dyn_smem_bytes, carveout_pct, cluster");
    rejects(with("\"check\": {\"tolerance\": {\"absolute\": 1}}"), "unknown key \"absolute\" in check.tolerance; known keys: abs, rel");
    rejects("{\"kernel\": \"k\", \"kernel\": \"j\", \"launch\": {\"grid\": 1}}",
            "key \"kernel\" appears twice at the top level; give it once");
}

Test(user_desc, missing_kernel_launch_or_grid)
{
    rejects("{\"launch\": {\"grid\": 1}}",
            "kernel is missing; expected the function's name in the file, extern \"C\" or mangled");
    rejects("{\"kernel\": \"\", \"launch\": {\"grid\": 1}}", "kernel is empty");
    rejects("{\"kernel\": \"k\"}", "launch is missing; expected the launch's geometry");
    rejects("{\"kernel\": \"k\", \"launch\": {\"block\": 128}}",
            "launch.grid is missing; expected the number of blocks as an expression");
    rejects("{\"kernel\": \"k\", \"launch\": [1]}", "launch is an array; expected an object");
}

Test(user_desc, expressions_are_checked)
{
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": \"rowz\"}, \"axes\": {\"rows\": [1]}}",
            "launch.grid \"rowz\": unknown variable \"rowz\" at column 1; known variables: rows, carveout_pct, "
            "dyn_smem_bytes, block, cluster, sm_count, warp_size, smem_per_block, smem_per_block_optin, smem_per_sm, "
            "l2_bytes, max_threads_per_block");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 1, \"dynamic_smem\": \"max(block)\"}}",
            "launch.dynamic_smem \"max(block)\": max takes 2 arguments, not 1, at column 1: max(a, b)");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n *\"}"),
            "args[0].count \"n *\": syntax error at column 4");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": \"sm_count / 0\"}}", "division by zero at column 10");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": null}}", "launch.grid is null; expected an expression");
}

Test(user_desc, constants_are_checked_against_their_ranges)
{
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 0}}",
            "launch.grid 0 is out of range; expected an integer 1..2147483647");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": \"3 / 2\"}}",
            "launch.grid \"3 / 2\" = 1.50 is not an integer: wrap it in ceil() or floor(); expected an integer 1..");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 1, \"block\": \"2 * 1024\"}}",
            "launch.block \"2 * 1024\" = 2048 is out of range; expected an integer 1..1024");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 1, \"cluster\": 32}}",
            "launch.cluster 32 is out of range; expected an integer 0..16");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 1, \"dynamic_smem\": -1}}",
            "launch.dynamic_smem -1 is out of range; expected an integer of at least 0");
    rejects(with_args("{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"-4\"}"),
            "args[0].count \"-4\" = -4 is out of range; expected an integer of at least 0");
    rejects(with_args("{\"name\": \"k\", \"type\": \"i8\", \"value\": \"2 * 100\"}"),
            "args[0].value \"2 * 100\" = 200 is out of range for i8; expected -128..127");
    /* what depends on a variable waits for the device */
    done(parses("{\"kernel\": \"k\", \"launch\": {\"grid\": \"sm_count - 1000\"}}"));
}

Test(user_desc, reserved_axis_names)
{
    rejects(with("\"axes\": {\"block\": [1, 2]}"), "axes: \"block\" is a built-in axis (carveout_pct, dyn_smem_bytes, "
                                                 "block, cluster: set its base value in defaults); give the axis another name");
    rejects(with("\"axes\": {\"carveout_pct\": [1]}"), "\"carveout_pct\" is a built-in axis");
    rejects(with("\"axes\": {\"sm_count\": [1]}"), "axes: \"sm_count\" is a device variable");
    rejects(with("\"axes\": {\"min\": [1]}"), "axes: \"min\" is a function of the expressions");
    rejects(with("\"axes\": {\"Rows\": [1]}"), "axes: \"Rows\" is not an axis name; expected lowercase letters");
}

Test(user_desc, axes_counts_and_values)
{
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 1}, \"axes\": {\"a\": [1], \"b\": [1], \"c\": [1], \"d\": [1], "
            "\"e\": [1]}}",
            "axes has 5 axes; at most 4 user axes (with the 4 built-ins, 8 in all)");
    rejects(with("\"axes\": {\"m\": []}"), "axes.m is empty; an axis needs at least one value");
    rejects(with("\"axes\": {\"m\": {\"values\": []}}"), "axes.m.values is empty");
    rejects(with("\"axes\": {\"m\": {\"unit\": \"bytes\"}}"), "axes.m.values is missing");
    rejects(with("\"axes\": {\"m\": {\"values\": [1], \"units\": \"b\"}}"),
            "unknown key \"units\" in axes.m; known keys: values, unit");
    rejects(with("\"axes\": {\"m\": [1, 2.5]}"), "axes.m[1] 2.50 is not an integer");
    rejects(with("\"axes\": {\"m\": [1, \"2\"]}"), "axes.m[1] is \"2\"; expected an integer");
    rejects(with("\"axes\": {\"m\": [1e300]}"), "axes.m[0] 1e+300 is out of range; expected an integer within +-2^53");
    rejects(with("\"axes\": {\"m\": [4, 8, 4]}"), "axes.m[2] 4 repeats axes.m[0]; give each value once");
    rejects(with("\"axes\": {\"m\": [1], \"m\": [2]}"), "key \"m\" appears twice in axes; give it once");
    rejects(with("\"axes\": {\"m\": 4}"), "axes.m is 4; expected a list of integers");
    rejects(with("\"axes\": {\"m\": {\"values\": [1], \"unit\": \"a unit far too long\"}}"),
            "axes.m.unit is 19 characters long; at most 15");
}

Test(user_desc, at_most_256_values_an_axis)
{
    char list[4096] = "", extra[4200];

    for (int i = 0; i < 257; i++)
        smem_append(list, sizeof(list), ", ", "%d", i);
    smem_fmt(extra, sizeof(extra), "\"axes\": {\"m\": [%s]}", list);
    rejects(with(extra), "axes.m has 257 values; at most 256");
}

Test(user_desc, defaults_ranges)
{
    rejects(with("\"defaults\": {\"block\": 2048}"), "defaults.block 2048 is out of range; expected an integer 1..1024");
    rejects(with("\"defaults\": {\"block\": 0}"), "defaults.block 0 is out of range");
    rejects(with("\"defaults\": {\"cluster\": 17}"), "defaults.cluster 17 is out of range; expected an integer 0..16");
    rejects(with("\"defaults\": {\"carveout_pct\": -2}"),
            "defaults.carveout_pct -2 is out of range; expected an integer -1..100");
    rejects(with("\"defaults\": {\"dyn_smem_bytes\": -1}"),
            "defaults.dyn_smem_bytes -1 is out of range; expected an integer of at least 0");
    rejects(with("\"defaults\": {\"block\": \"256\"}"), "defaults.block is \"256\"; expected an integer 1..1024");
    rejects(with("\"defaults\": {\"block\": 25.5}"), "defaults.block 25.50 is not an integer");
}

Test(user_desc, schema_seed_and_check)
{
    rejects(with("\"schema\": \"smembench/1\""),
            "schema \"smembench/1\" is not a launch description's; expected \"smembench-launch/1\"");
    rejects(with("\"seed\": -1"), "seed -1 is out of range; expected an integer of at least 0");
    rejects(with("\"seed\": 1.5"), "seed 1.50 is not an integer");
    rejects(with("\"check\": {\"tolerance\": {\"abs\": -1}}"), "check.tolerance.abs is -1; expected a number >= 0");
    rejects(with("\"check\": {\"reference\": {\"arg\": \"y\", \"file\": \"softmax_ref.bin\"}}"),
            "check.reference.arg \"y\" names no parameter; expected an out or inout buffer (none: give one");
}

Test(user_desc, reference_is_an_output_buffer)
{
    static const char args[] =
        "\"args\": [{\"name\": \"x\", \"type\": \"f32*\", \"count\": \"n\"}, {\"name\": \"y\", \"type\": \"f32*\", "
        "\"count\": \"n\", \"access\": \"out\"}, {\"name\": \"k\", \"type\": \"i32\", \"value\": 3}]";
    char text[1024];

    smem_fmt(text, sizeof(text), "%s, \"check\": {\"reference\": {\"arg\": \"x\", \"file\": \"softmax_ref.bin\"}}", args);
    rejects(with(text), "check.reference.arg \"x\" is an in buffer, not an output; expected an out or inout buffer (y)");
    smem_fmt(text, sizeof(text), "%s, \"check\": {\"reference\": {\"arg\": \"k\", \"file\": \"softmax_ref.bin\"}}", args);
    rejects(with(text), "check.reference.arg \"k\" is a scalar, not an output");
    smem_fmt(text, sizeof(text), "%s, \"check\": {\"reference\": {\"arg\": \"z\", \"file\": \"softmax_ref.bin\"}}", args);
    rejects(with(text), "check.reference.arg \"z\" names no parameter; expected an out or inout buffer (y)");
    smem_fmt(text, sizeof(text), "%s, \"check\": {\"reference\": {\"arg\": \"y\"}}", args);
    rejects(with(text), "check.reference.file is missing");
    smem_fmt(text, sizeof(text), "%s, \"check\": {\"reference\": {\"arg\": \"y\", \"file\": \"y_ref.bin\"}}", args);
    rejects(with(text), "check.reference.file \"y_ref.bin\" cannot be read");
}

Test(user_desc, bad_json_names_its_line)
{
    rejects("{\n  \"kernel\": \"k\",\n  \"launch\": {\"grid\": 1,}\n}\n",
            "not valid JSON at line 3, column 24 (near \"}\"); check the commas, quotes and brackets");
    rejects("{\"kernel\": \"k\"", "not valid JSON at line 1, column 15 (near the end of the file)");
    rejects("{\"kernel\": \"k\", \"launch\": {\"grid\": 1}} x", "not valid JSON at line 1, column 40 (near \"x\")");
    rejects("", "not valid JSON at line 1, column 1");
    rejects("{\"kernel\": \"k\",\n\"launch\": {\"grid\": 1,\n}", "not valid JSON at line 3, column 2 (near the end of the file)");
    rejects("{\"kernel\": tru}", "not valid JSON at line 1, column 12 (near \"tru}\")");
    rejects("[1, 2]", "the description is an array; expected an object");
}
