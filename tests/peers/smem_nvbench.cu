/* smembench's bandwidth, bank, latency and dynamic benchmarks as nvbench benchmarks, for the side by
 * side (tests/peers/side_by_side.sh). Nothing here re-implements a benchmark: every state runs
 * smembench's own descriptor from libsmem.a (its plan, seeded setup on the private state the driver
 * allocates, launcher, host-reference check and teardown: smem_case_open, smem_case_close) exactly as
 * src/runner.c does, and only the timing is nvbench's: the descriptor's launch runs inside
 * state.exec on nvbench's stream. The axes carry smembench's axis names, so a state and a smembench
 * point with the same values are the same launch; the launch geometry and the work per
 * launch go into the state's summaries (smem/...) for side_by_side.py to convert times into metrics. */
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include <nvbench/nvbench.cuh>

extern "C" {
#include "bench.h"
#include "device_open.h"
#include "load_family.h"
#include "smem.h"

extern const struct smem_bench smem_bandwidth_bench, smem_bank_bench, smem_dynamic_bench, smem_latency_bench;
}

namespace {

/* smembench's default --seed, so both tools time the same inputs */
constexpr uint64_t seed = 1;

/* The device as smembench's driver describes it, read once per ordinal (it measures the clock). */
const smem_device &device(int ordinal)
{
    static std::map<int, smem_device> opened;
    auto it = opened.find(ordinal);
    if (it == opened.end()) {
        smem_device d{};
        char why[256] = "";
        if (smem_device_open(ordinal, &d, why, sizeof(why)) != SMEM_OK)
            throw std::runtime_error(std::string("smem_nvbench: cannot open device: ") + why);
        it = opened.emplace(ordinal, d).first;
    }
    return it->second;
}

void add_int64(nvbench::state &state, const char *tag, const char *name, int64_t value)
{
    auto &s = state.add_summary(tag);
    s.set_string("name", name);
    s.set_string("description", "smembench's launch of this point, for side_by_side.py");
    s.set_string("hide", "smembench side by side");
    s.set_int64("value", value);
}

void add_float64(nvbench::state &state, const char *tag, const char *name, double value)
{
    auto &s = state.add_summary(tag);
    s.set_string("name", name);
    s.set_string("description", "work per launch as smembench counts it, for side_by_side.py");
    s.set_string("hide", "smembench side by side");
    s.set_float64("value", value);
}

/* One point of a descriptor, planned, set up and verified the way src/runner.c does before timing. */
class peer_case {
public:
    peer_case(const smem_bench &b, nvbench::state &state) : m_bench(b)
    {
        m_dev = &device(state.get_device()->get_id());
        for (size_t i = 0; i < b.n_axes; i++)
            m_values[i] = state.get_int64(b.axes[i].name);
        m_point.bench = &b;
        m_point.sweep = "peers";
        std::copy(m_values, m_values + SMEM_MAX_AXES, m_point.values);
        m_case.bench = &b;
        m_case.values = m_values;
        m_case.dev = m_dev;
        m_case.plan = &m_plan;
        m_case.seed = seed;
        m_plan.carveout_pct = -1;   /* the driver's default, as the runner starts every plan */
    }

    ~peer_case()
    {
        if (m_set_up)
            smem_case_close(&m_case);
        cudaFree(m_case.clk);
    }

    /* Plans, launches once and checks against the host reference; "" when ready, else why not. */
    std::string prepare()
    {
        char why[SMEM_REASON_LEN] = "";
        if (m_bench.plan(&m_point, m_dev, &m_plan, why, sizeof(why)) == SMEM_ESKIP)
            return why;
        if (m_plan.cluster || !m_plan.block)
            return "not a plain kernel launch: outside this peer's scope";

        const void *fn = m_bench.kernel(&m_case);
        cudaFuncAttributes fa{};
        int blocks = 0;
        check(cudaFuncGetAttributes(&fa, fn), "reading the kernel's attributes");
        /* the runner's two opt-in steps: the function's dynamic limit here, the launch's size later */
        int dyn_limit = (int)(m_dev->smem_per_block - (int64_t)fa.sharedSizeBytes);
        if (m_plan.optin && (int64_t)m_plan.dyn_smem > dyn_limit)
            dyn_limit = (int)m_plan.dyn_smem;
        check(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   m_plan.carveout_pct < 0 ? cudaSharedmemCarveoutDefault : m_plan.carveout_pct),
              "setting the carveout");
        check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_limit),
              "raising the dynamic shared-memory limit");
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, (int)m_plan.block, m_plan.dyn_smem),
              "the occupancy calculator");
        /* grid 0 in a plan is one full wave, as the runner resolves it */
        m_case.grid = m_plan.grid ? m_plan.grid : (unsigned)m_dev->sm_count * (unsigned)(blocks > 0 ? blocks : 1);
        check(cudaMalloc(&m_case.clk, 64), "allocating the clock record");

        int rc = smem_case_open(&m_case);
        m_set_up = true;
        if (rc == SMEM_ESKIP)
            return m_case.reason;
        if (rc)
            throw std::runtime_error(std::string("smem_nvbench: setup failed: ") + m_case.reason);
        check(cudaDeviceSynchronize(), "setup");
        /* verify before timing: a kernel that has not matched its reference has no timing */
        m_case.stream = nullptr;
        if (m_bench.launch(&m_case))
            throw std::runtime_error("smem_nvbench: the first launch failed");
        check(cudaDeviceSynchronize(), "the first launch");
        if ((rc = m_bench.verify(&m_case)))
            return std::string("wrong result: ") + m_case.reason;
        return "";
    }

    /* One launch on stream, as smembench times it. */
    void launch(cudaStream_t stream)
    {
        m_case.stream = stream;
        if (m_bench.launch(&m_case))
            throw std::runtime_error(std::string("smem_nvbench: launch failed: ") + cudaGetErrorString(cudaGetLastError()));
    }

    const smem_case &get() const { return m_case; }
    const smem_plan &plan() const { return m_plan; }
    const smem_device &dev() const { return *m_dev; }

private:
    static void check(cudaError_t e, const char *what)
    {
        if (e != cudaSuccess)
            throw std::runtime_error(std::string("smem_nvbench: ") + what + ": " + cudaGetErrorString(e));
    }

    const smem_bench &m_bench;
    const smem_device *m_dev = nullptr;
    int64_t m_values[SMEM_MAX_AXES] = {};
    smem_point m_point{};
    smem_plan m_plan{};
    smem_case m_case{};
    bool m_set_up = false;
};

/* The work of one launch, in what smembench's metric divides by time: bytes moved (bandwidth, bank,
 * dynamic) or dependent loads (latency). */
void add_work(nvbench::state &state, const peer_case &pc)
{
    const smem_case &c = pc.get();
    const smem_bench *b = c.bench;

    if (b == &smem_latency_bench) {
        add_float64(state, "smem/loads_per_launch", "Loads", (double)pc.plan().work);
    } else if (b == &smem_dynamic_bench) {
        /* smembench's own metric at one second is the bytes of one launch */
        smem_timing unit{1.0, 0, 0};
        smem_metrics m{};
        b->metrics(&c, &unit, &m);
        for (size_t i = 0; i < m.n; i++)
            if (std::string(m.m[i].name) == "gbytes_per_s")
                add_float64(state, "smem/bytes_per_launch", "Bytes", m.m[i].value * 1e9);
    } else {
        add_float64(state, "smem/bytes_per_launch", "Bytes", smem_load_bytes(&c));
    }
}

void run(const smem_bench &b, nvbench::state &state)
{
    peer_case pc(b, state);
    std::string why = pc.prepare();

    if (!why.empty()) {
        state.skip(why);
        return;
    }
    add_int64(state, "smem/grid", "Grid", pc.get().grid);
    add_int64(state, "smem/block", "Block", pc.plan().block);
    add_int64(state, "smem/dyn_smem_bytes", "Dynamic smem", (int64_t)pc.plan().dyn_smem);
    add_int64(state, "smem/sm_count", "SMs", pc.dev().sm_count);
    add_work(state, pc);
    state.exec([&pc](nvbench::launch &launch) { pc.launch(launch.get_stream()); });
}

void bandwidth(nvbench::state &state) { run(smem_bandwidth_bench, state); }
void bank(nvbench::state &state) { run(smem_bank_bench, state); }
void dynamic(nvbench::state &state) { run(smem_dynamic_bench, state); }
void latency(nvbench::state &state) { run(smem_latency_bench, state); }

} // namespace

/* The side-by-side points; any axis can be overridden on the command line (-a stride_elems=[1:33]). */
NVBENCH_BENCH(bandwidth).add_int64_axis("width_bytes", {4, 8, 16});
NVBENCH_BENCH(bank)
    .add_int64_axis("width_bytes", {4})
    .add_int64_axis("stride_elems", {1, 2, 4, 8, 16, 32});
NVBENCH_BENCH(latency).add_int64_axis("chain_slots", {1024}).add_int64_axis("index_chase", {0, 1});
/* 227 KiB is the H200's opt-in ceiling; a device with less skips it with smembench's reason */
NVBENCH_BENCH(dynamic)
    .add_int64_axis("dyn_smem_bytes", {0, 48 * 1024, 100 * 1024, 227 * 1024})
    .add_int64_axis("mib", {256});
