/* Kernel resources read from a code file with no GPU (src/cubin.c): the file's kind from its first
 * bytes, and each kernel's registers, static shared memory, parameters and __launch_bounds__ as the
 * toolkit's cuobjdump reads them from tests/unit/cubin_kernels.cu compiled by the build (a cubin for
 * sm_90, a fatbin for sm_80 and sm_90, PTX for sm_90, a relocatable cubin). The expected values come
 * from that source. Without CUDA the build compiles nothing and those tests are skipped. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "cubin.h"
#include "smem.h"

#if defined(SMEM_TEST_CUBIN) && defined(SMEM_TEST_FATBIN) && defined(SMEM_TEST_PTX) && defined(SMEM_TEST_RDC)
#define HAVE_INPUTS 1
#else
#define HAVE_INPUTS 0
#define SMEM_TEST_CUBIN ""
#define SMEM_TEST_FATBIN ""
#define SMEM_TEST_PTX ""
#define SMEM_TEST_RDC ""
#endif

#define NEEDS_INPUTS()                                                                                            \
    do {                                                                                                          \
        if (!HAVE_INPUTS)                                                                                         \
            cr_skip_test("built without CUDA: no nvcc compiled tests/unit/cubin_kernels.cu");                     \
    } while (0)

static char dir[64];

/* A private directory for the files a test writes. */
static void make_dir(void)
{
    strcpy(dir, "/tmp/smemcubinXXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st, (void)type, (void)f;
    return remove(path);
}

/* After each test: its directory and everything in it, when it made one. */
static void remove_dir(void)
{
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(code_kind, .fini = remove_dir);
TestSuite(cubin, .fini = remove_dir);

/* dir/name with these bytes in it; the path in path. */
static void write_file(const char *name, const void *bytes, size_t n, char *path, size_t len)
{
    FILE *f;

    smem_fmt(path, len, "%s/%s", dir, name);
    f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

/* The kernels of path for cc; fails the test with the reason when there are none. */
static struct smem_cubin_kernel *read_ok(const char *path, int cc, size_t *n)
{
    struct smem_cubin_kernel *k = NULL;
    char why[512] = "";
    int rc = smem_cubin_resources(path, cc, &k, n, why, sizeof(why));

    cr_assert_eq(rc, SMEM_OK, "%s for cc %d: %s", path, cc, why);
    cr_assert_not_null(k);
    return k;
}

/* The reason smem_cubin_resources gives for path at cc (it must fail with SMEM_EINVAL). */
static void read_fails(const char *path, int cc, char *why, size_t len)
{
    struct smem_cubin_kernel *k = (struct smem_cubin_kernel *)1;
    size_t n = 99;

    cr_assert_eq(smem_cubin_resources(path, cc, &k, &n, why, len), SMEM_EINVAL, "%s for cc %d", path, cc);
    cr_assert_null(k);
    cr_assert_eq(n, 0);
    cr_assert_neq(why[0], '\0');
    cr_assert_null(strchr(why, '\n'), "one line: %s", why);
}

static const struct smem_cubin_kernel *find(const struct smem_cubin_kernel *k, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(k[i].name, name))
            return &k[i];
    cr_assert_fail("no kernel %s", name);
    return NULL;
}

/* What cubin_kernels.cu declares, whatever the architecture: static shared memory, parameters and the
 * __launch_bounds__ limit. */
static void check_source_values(const struct smem_cubin_kernel *k, size_t n, int arch)
{
    const struct smem_cubin_kernel *t, *s, *l, *e;

    cr_assert_eq(n, 4);
    /* sorted by name */
    cr_assert_str_eq(k[0].name, "_Z5scalePdd4quadx");
    cr_assert_str_eq(k[1].name, "empty_kernel");
    cr_assert_str_eq(k[2].name, "local_array");
    cr_assert_str_eq(k[3].name, "tile_sum");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(k[i].arch, arch, "%s: sm_%d", k[i].name, k[i].arch);
        cr_assert_gt(k[i].regs, 0, "%s", k[i].name);
        cr_assert(k[i].params_known, "%s", k[i].name);
    }

    t = find(k, n, "tile_sum");
    cr_assert_eq(t->static_smem, 256 * 4);
    cr_assert_eq(t->max_threads, 128);
    cr_assert_eq(t->n_params, 3);
    cr_assert_eq(t->param_offset[0], 0);
    cr_assert_eq(t->param_size[0], 8);
    cr_assert_eq(t->param_offset[1], 8);
    cr_assert_eq(t->param_size[1], 8);
    cr_assert_eq(t->param_offset[2], 16);
    cr_assert_eq(t->param_size[2], 4);
    cr_assert_eq(t->local_bytes, 0);

    s = find(k, n, "_Z5scalePdd4quadx");
    cr_assert_eq(s->static_smem, 96 * 8);
    cr_assert_eq(s->max_threads, 0, "no __launch_bounds__: the file says no limit");
    cr_assert_eq(s->n_params, 4);
    cr_assert_eq(s->param_size[0], 8);
    cr_assert_eq(s->param_size[1], 8);
    cr_assert_eq(s->param_size[2], 16);
    cr_assert_eq(s->param_size[3], 8);
    cr_assert_eq(s->param_offset[2], 16);
    cr_assert_eq(s->param_offset[3], 32, "the 8-byte long long after the 16-byte struct");

    l = find(k, n, "local_array");
    cr_assert_geq(l->local_bytes, 64 * 4, "the volatile float[64] is in local memory: %lld bytes",
                  (long long)l->local_bytes);
    cr_assert_eq(l->static_smem, 0);
    cr_assert_eq(l->n_params, 2);
    cr_assert_eq(l->param_size[1], 4);

    e = find(k, n, "empty_kernel");
    cr_assert_eq(e->n_params, 0);
    cr_assert_eq(e->static_smem, 0);
    cr_assert_eq(e->local_bytes, 0);
}

Test(code_kind, tells_cubin_fatbin_and_ptx_by_their_first_bytes)
{
    enum smem_code_kind kind;
    char why[512];

    NEEDS_INPUTS();
    cr_assert_eq(smem_code_kind_of(SMEM_TEST_CUBIN, &kind, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(kind, SMEM_CODE_CUBIN);
    cr_assert_eq(smem_code_kind_of(SMEM_TEST_FATBIN, &kind, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(kind, SMEM_CODE_FATBIN);
    cr_assert_eq(smem_code_kind_of(SMEM_TEST_PTX, &kind, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(kind, SMEM_CODE_PTX);
}

Test(code_kind, names)
{
    cr_assert_str_eq(smem_code_kind_name(SMEM_CODE_CUBIN), "cubin");
    cr_assert_str_eq(smem_code_kind_name(SMEM_CODE_FATBIN), "fatbin");
    cr_assert_str_eq(smem_code_kind_name(SMEM_CODE_PTX), "ptx");
}

Test(code_kind, rejects_a_text_file_showing_its_start)
{
    const char text[] = "#include <stdio.h>\nint main(void) { return 0; }\n";
    char path[128], why[512], expect[512];
    enum smem_code_kind kind;

    make_dir();
    write_file("kernel.cu", text, strlen(text), path, sizeof(path));
    cr_assert_eq(smem_code_kind_of(path, &kind, why, sizeof(why)), SMEM_EINVAL);
    smem_fmt(expect, sizeof(expect), "%s is not a cubin, fatbin or PTX file (its first bytes are \"#include <stdio.\"): "
             "compile with nvcc -cubin, -fatbin or -ptx", path);
    cr_assert_str_eq(why, expect);
}

Test(code_kind, rejects_a_binary_file_showing_its_bytes_in_hex)
{
    const unsigned char bytes[] = { 0x9c, 0x01, 0xfe, 0x00, 0x7f, 0x45, 0x4c, 0x46, 0x11, 0x22 };
    char path[128], why[512], expect[512];
    enum smem_code_kind kind;

    make_dir();
    write_file("random.bin", bytes, sizeof(bytes), path, sizeof(path));
    cr_assert_eq(smem_code_kind_of(path, &kind, why, sizeof(why)), SMEM_EINVAL);
    smem_fmt(expect, sizeof(expect), "%s is not a cubin, fatbin or PTX file (its first bytes are 9c 01 fe 00 7f 45 4c "
             "46): compile with nvcc -cubin, -fatbin or -ptx", path);
    cr_assert_str_eq(why, expect);
    /* smem_cubin_resources says the same, before looking for any tool */
    read_fails(path, 90, why, sizeof(why));
    cr_assert_str_eq(why, expect);
}

Test(code_kind, rejects_an_empty_file)
{
    char path[128], why[512];
    enum smem_code_kind kind;

    make_dir();
    write_file("empty.cubin", "", 0, path, sizeof(path));
    cr_assert_eq(smem_code_kind_of(path, &kind, why, sizeof(why)), SMEM_EINVAL);
    cr_assert(strstr(why, "empty.cubin is not a cubin, fatbin or PTX file (it is empty)"), "%s", why);
}

Test(code_kind, rejects_a_host_program)
{
    char why[512];
    enum smem_code_kind kind;

    /* this test's own executable: an ELF file, but for the host's machine */
    cr_assert_eq(smem_code_kind_of("/proc/self/exe", &kind, why, sizeof(why)), SMEM_EINVAL);
    cr_assert(strstr(why, "/proc/self/exe is an ELF file for machine ") && strstr(why, "not CUDA code"), "%s", why);
}

Test(code_kind, rejects_a_missing_file_and_a_directory)
{
    char path[160], why[512], expect[512];
    enum smem_code_kind kind;

    make_dir();
    smem_fmt(path, sizeof(path), "%s/softmax.cubin", dir);
    cr_assert_eq(smem_code_kind_of(path, &kind, why, sizeof(why)), SMEM_EINVAL);
    smem_fmt(expect, sizeof(expect), "%s: no such file", path);
    cr_assert_str_eq(why, expect);
    read_fails(path, 90, why, sizeof(why));
    cr_assert_str_eq(why, expect);

    cr_assert_eq(smem_code_kind_of(dir, &kind, why, sizeof(why)), SMEM_EINVAL);
    cr_assert(strstr(why, "is a directory, not a cubin, fatbin or PTX file"), "%s", why);
}

Test(code_kind, ptx_is_text_with_a_version_directive)
{
    const char ptx[] = "//\n// Generated by hand\n//\n\n.version 9.0\n.target sm_90\n.address_size 64\n";
    char path[128], why[512];
    enum smem_code_kind kind;

    make_dir();
    write_file("hand.ptx", ptx, strlen(ptx), path, sizeof(path));
    cr_assert_eq(smem_code_kind_of(path, &kind, why, sizeof(why)), SMEM_OK, "%s", why);
    cr_assert_eq(kind, SMEM_CODE_PTX);
}

Test(cubin, reads_the_declared_resources_of_a_cubin)
{
    size_t n;
    struct smem_cubin_kernel *k;

    NEEDS_INPUTS();
    k = read_ok(SMEM_TEST_CUBIN, 90, &n);
    check_source_values(k, n, 90);
    free(k);
}

Test(cubin, a_device_function_is_not_a_kernel)
{
    size_t n;
    struct smem_cubin_kernel *k;

    NEEDS_INPUTS();
    /* relocatable code keeps twice() as a function of its own (cuobjdump lists _Z5twicef) */
    k = read_ok(SMEM_TEST_RDC, 90, &n);
    cr_assert_eq(n, 4);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_neq(k[i].name, "_Z5twicef");
    cr_assert_eq(find(k, n, "tile_sum")->static_smem, 1024);
    free(k);
}

Test(cubin, an_sm_90_cubin_runs_on_9_0_only_of_these)
{
    char why[512], expect[512];
    size_t n;
    struct smem_cubin_kernel *k;

    NEEDS_INPUTS();
    k = read_ok(SMEM_TEST_CUBIN, 90, &n);
    free(k);
    read_fails(SMEM_TEST_CUBIN, 86, why, sizeof(why));
    smem_fmt(expect, sizeof(expect), "%s holds sm_90 code only; a compute capability 8.6 device cannot run it", SMEM_TEST_CUBIN);
    cr_assert_str_eq(why, expect);
    /* another major: code for 9.x does not run on 10.0 */
    read_fails(SMEM_TEST_CUBIN, 100, why, sizeof(why));
    cr_assert(strstr(why, "holds sm_90 code only; a compute capability 10.0 device cannot run it"), "%s", why);
}

Test(cubin, a_fatbin_gives_the_newest_code_the_device_runs)
{
    size_t n;
    struct smem_cubin_kernel *k;

    NEEDS_INPUTS();
    k = read_ok(SMEM_TEST_FATBIN, 90, &n);
    check_source_values(k, n, 90);
    free(k);
    /* 8.6 and 8.9 run sm_80 code, not sm_90 */
    k = read_ok(SMEM_TEST_FATBIN, 86, &n);
    check_source_values(k, n, 80);
    free(k);
    k = read_ok(SMEM_TEST_FATBIN, 89, &n);
    check_source_values(k, n, 80);
    free(k);
}

Test(cubin, a_fatbin_without_code_for_the_device_says_what_it_holds)
{
    char why[512], expect[512];

    NEEDS_INPUTS();
    read_fails(SMEM_TEST_FATBIN, 75, why, sizeof(why));
    smem_fmt(expect, sizeof(expect), "%s holds sm_80, sm_90 code only; a compute capability 7.5 device cannot run it", SMEM_TEST_FATBIN);
    cr_assert_str_eq(why, expect);
}

Test(cubin, static_shared_memory_leaves_out_the_reserved_kib_on_sm_90)
{
    size_t n80, n90;
    struct smem_cubin_kernel *k80, *k90;

    NEEDS_INPUTS();
    /* sm_90 code counts the driver's 1 KiB reservation in its shared section, sm_80 code does not: both
     * give the declared 1024 and 768 bytes, as the driver's static size does */
    k80 = read_ok(SMEM_TEST_FATBIN, 80, &n80);
    k90 = read_ok(SMEM_TEST_FATBIN, 90, &n90);
    cr_assert_eq(find(k80, n80, "tile_sum")->static_smem, find(k90, n90, "tile_sum")->static_smem);
    cr_assert_eq(find(k80, n80, "_Z5scalePdd4quadx")->static_smem, 768);
    cr_assert_eq(find(k90, n90, "_Z5scalePdd4quadx")->static_smem, 768);
    free(k80);
    free(k90);
}

Test(cubin, ptx_is_compiled_for_the_device)
{
    size_t n, nc;
    struct smem_cubin_kernel *k, *c;

    NEEDS_INPUTS();
    k = read_ok(SMEM_TEST_PTX, 90, &n);
    check_source_values(k, n, 90);
    /* ptxas for sm_90 makes what nvcc -cubin made */
    c = read_ok(SMEM_TEST_CUBIN, 90, &nc);
    cr_assert_eq(n, nc);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(k[i].regs, c[i].regs, "%s", k[i].name);
    free(k);
    free(c);
    /* PTX runs on later devices: compiled for sm_100 */
    k = read_ok(SMEM_TEST_PTX, 100, &n);
    check_source_values(k, n, 100);
    free(k);
}

Test(cubin, ptx_for_a_newer_device_is_refused)
{
    char why[512], expect[512];

    NEEDS_INPUTS();
    read_fails(SMEM_TEST_PTX, 86, why, sizeof(why));
    smem_fmt(expect, sizeof(expect), "%s is PTX for sm_90 and later; a compute capability 8.6 device cannot run it", SMEM_TEST_PTX);
    cr_assert_str_eq(why, expect);
}

Test(cubin, ptxas_errors_are_reported_in_one_line)
{
    const char ptx[] = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry broken( { bad }\n";
    char path[128], why[512];

    NEEDS_INPUTS();
    make_dir();
    write_file("broken.ptx", ptx, strlen(ptx), path, sizeof(path));
    read_fails(path, 90, why, sizeof(why));
    cr_assert(strstr(why, "ptxas failed on ") && strstr(why, "broken.ptx") && strstr(why, "line 4"), "%s", why);
}

Test(cubin, a_file_name_is_never_a_command)
{
    const char *name = "a b;touch ran;$(touch ran).cubin";
    size_t n;
    struct smem_cubin_kernel *k;
    FILE *in, *out;
    int c;

    NEEDS_INPUTS();
    make_dir();
    /* run from that directory, a shell would leave a file "ran" there; the tools get the name as one
     * argument (and the cubin's absolute path) */
    cr_assert_eq(chdir(dir), 0);
    in = fopen(SMEM_TEST_CUBIN, "rb");
    out = fopen(name, "wb");
    cr_assert(in && out);
    while ((c = fgetc(in)) != EOF)
        fputc(c, out);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
    k = read_ok(name, 90, &n);
    cr_assert_eq(n, 4);
    free(k);
    cr_assert_neq(access("ran", F_OK), 0, "a shell ran the file's name");
}

Test(cubin, the_temporary_directory_is_removed)
{
    size_t n;
    struct smem_cubin_kernel *k;
    char tmp[160];

    NEEDS_INPUTS();
    make_dir();
    smem_fmt(tmp, sizeof(tmp), "%s/tmp", dir);
    cr_assert_eq(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1);
    /* the PTX path writes the most there: ptxas's cubin and the tools' output */
    k = read_ok(SMEM_TEST_PTX, 90, &n);
    free(k);
    cr_assert_eq(rmdir(tmp), 0, "TMPDIR is not empty after the call");
}

Test(cubin, cuda_home_comes_first)
{
    /* an ELF header for EM_CUDA (190) is enough for the kind; the cuobjdump in $CUDA_HOME/bin answers */
    unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    const char script[] = "#!/bin/sh\necho \"cuobjdump fatal   : the one in CUDA_HOME\" >&2\nexit 1\n";
    char path[128], bin[128], tool[160], why[512];

    make_dir();
    elf[18] = 190;
    write_file("k.cubin", elf, sizeof(elf), path, sizeof(path));
    smem_fmt(bin, sizeof(bin), "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0700), 0);
    smem_fmt(tool, sizeof(tool), "%s/cuobjdump", bin);
    cr_assert_eq(access(tool, F_OK), -1);
    write_file("bin/cuobjdump", script, strlen(script), tool, sizeof(tool));
    cr_assert_eq(chmod(tool, 0700), 0);
    setenv("CUDA_HOME", dir, 1);
    read_fails(path, 90, why, sizeof(why));
    cr_assert(strstr(why, "cuobjdump failed on ") && strstr(why, ": cuobjdump fatal : the one in CUDA_HOME"), "%s",
              why);
}

Test(cubin, rejects_a_compute_capability_that_is_not_major_minor)
{
    char why[512];

    /* checked first: no file is read */
    read_fails("softmax.cubin", 9, why, sizeof(why));
    cr_assert(strstr(why, "compute capability 9 is not major * 10 + minor"), "%s", why);
}
