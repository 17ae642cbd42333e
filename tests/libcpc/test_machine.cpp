// SPDX-License-Identifier: MIT
// The processor description and event resolution for processors this
// machine does not have: libpfm4 is forced to a PMU (LIBPFM_FORCE_PMU), the
// perf probe is injected, and sysfs format files come from tests/libcpc/data.
#include "libcpc/src/events.h"
#include "libcpc/src/machine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Forced : ::testing::Test {
    std::string pmu;
    cpc::Machine m;
    void SetUp() override {
        const char *p = std::getenv("CPC_TEST_PFM_PMU");
        const char *data = std::getenv("CPC_TEST_DATA");
        if (p == nullptr || data == nullptr)
            GTEST_SKIP() << "run by ctest with LIBPFM_FORCE_PMU, CPC_TEST_PFM_PMU and "
                            "CPC_TEST_DATA set (see tests/libcpc/CMakeLists.txt)";
        pmu = p;
        cpc::MachineEnv env;
        env.sysfs_cpu_pmu = std::string(data) + "/sysfs-" + pmu;
        env.probe = [](const perf_event_attr &) { return 0; }; // everything counts
        env.probe_overflow = [] { return true; };
        m = cpc::detect_machine(env);
    }
    bool intel() const { return pmu == "skl"; }

    perf_event_attr resolve(const char *name, std::vector<cpc_attr_t> attrs = {},
                            int *subcode = nullptr) {
        cpc::ResolveError err;
        auto r = cpc::resolve_event(m, name, attrs, &err);
        if (subcode != nullptr)
            *subcode = r ? 0 : err.subcode;
        return r ? r->attr : perf_event_attr{};
    }
};

uint64_t bits(uint64_t v, int lo, int hi) {
    return (v >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

bool has(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_F(Forced, DescribesTheForcedProcessor) {
    EXPECT_TRUE(m.hw_pmu);
    EXPECT_TRUE(m.use_pfm);
    if (intel()) {
        EXPECT_NE(m.cciname.find("Skylake"), std::string::npos) << m.cciname;
        EXPECT_NE(m.cpuref.find("Intel"), std::string::npos);
        ASSERT_EQ(m.fixed_events.size(), 3u);
        EXPECT_EQ(m.fixed_events[0], "instructions");
        EXPECT_EQ(m.npic, m.ngp + 3);
        EXPECT_TRUE(has(m.attrs, "anythr")) << "sysfs 'any' is illumos 'anythr'";
    } else {
        EXPECT_NE(m.cpuref.find("AMD"), std::string::npos);
        EXPECT_TRUE(m.fixed_events.empty());
        EXPECT_EQ(m.npic, m.ngp);
    }
    EXPECT_GE(m.ngp, 4u);
    for (const char *a : {"umask", "edge", "inv", "cmask", "picnum"})
        EXPECT_TRUE(has(m.attrs, a)) << a;
    EXPECT_TRUE(has(m.platform_events, "cycles"));
    EXPECT_TRUE(has(m.generic_events, "PAPI_tot_ins"));
    EXPECT_TRUE(has(m.generic_events, "PAPI_l1_dcm"));
}

TEST_F(Forced, GenericEventsMapToPerfEvents) {
    perf_event_attr a = resolve("PAPI_tot_ins");
    EXPECT_EQ(a.type, unsigned(PERF_TYPE_HARDWARE));
    EXPECT_EQ(a.config, unsigned(PERF_COUNT_HW_INSTRUCTIONS));
    a = resolve("PAPI_l1_dcm");
    EXPECT_EQ(a.type, unsigned(PERF_TYPE_HW_CACHE));
    EXPECT_EQ(a.config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                            (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
    a = resolve("LLC-load-misses");
    EXPECT_EQ(a.config, PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                            (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
    int sub = 0;
    char umask[] = "umask";
    resolve("PAPI_tot_ins", {{umask, 1}}, &sub);
    EXPECT_EQ(sub, CPC_ATTRIBUTE_OUT_OF_RANGE) << "generic events take no attributes";
}

TEST_F(Forced, GenericEventsOnlyTheProcessorTableKnows) {
    int sub = -1;
    perf_event_attr a = resolve("PAPI_l2_tcm", {}, &sub);
    ASSERT_EQ(sub, 0) << "PAPI_l2_tcm should map to a native event on " << pmu;
    EXPECT_EQ(a.type, unsigned(PERF_TYPE_RAW));
    EXPECT_NE(a.config, 0u);
}

TEST_F(Forced, NativeEventsWithAttributes) {
    char cmask[] = "cmask", inv[] = "inv", edge[] = "edge";
    const char *ev = intel() ? "MEM_LOAD_RETIRED:L3_MISS" : "RETIRED_INSTRUCTIONS";
    int sub = -1;
    perf_event_attr a = resolve(ev, {{cmask, 2}, {inv, 1}, {edge, 1}}, &sub);
    ASSERT_EQ(sub, 0) << ev;
    EXPECT_EQ(a.type, unsigned(PERF_TYPE_RAW));
    if (intel()) {
        EXPECT_EQ(bits(a.config, 0, 7), 0xd1u);
        EXPECT_EQ(bits(a.config, 8, 15), 0x20u);
    } else {
        EXPECT_EQ(bits(a.config, 0, 7), 0xc0u);
        EXPECT_EQ(bits(a.config, 32, 35), 0u);
    }
    EXPECT_EQ(bits(a.config, 24, 31), 2u);
    EXPECT_EQ(bits(a.config, 23, 23), 1u);
    EXPECT_EQ(bits(a.config, 18, 18), 1u);
    resolve("NO_SUCH_EVENT_ANYWHERE", {}, &sub);
    EXPECT_EQ(sub, CPC_INVALID_EVENT);
    char frob[] = "frob";
    resolve(ev, {{frob, 1}}, &sub);
    EXPECT_EQ(sub, CPC_INVALID_ATTRIBUTE);
}

TEST_F(Forced, RawCodesUseTheSysfsLayout) {
    char umask[] = "umask", edge[] = "edge", inv[] = "inv", cmask[] = "cmask";
    int sub = -1;
    perf_event_attr a = resolve("0xc0", {{umask, 0x01}, {edge, 1}, {inv, 1}, {cmask, 3}}, &sub);
    ASSERT_EQ(sub, 0);
    EXPECT_EQ(a.type, unsigned(PERF_TYPE_RAW));
    EXPECT_EQ(a.config, 0xc0u | (1u << 8) | (1u << 18) | (1u << 23) | (3u << 24));
    EXPECT_EQ(resolve("r1c2").config, 0x1c2u);
    EXPECT_EQ(resolve("450").config, 450u);
    resolve("0xc0", {{cmask, 256}}, &sub);
    EXPECT_EQ(sub, CPC_ATTRIBUTE_OUT_OF_RANGE);
    resolve("0xc0", {{edge, 2}}, &sub);
    EXPECT_EQ(sub, CPC_ATTRIBUTE_OUT_OF_RANGE);
}

TEST_F(Forced, PicnumChecksFixedCounters) {
    char picnum[] = "picnum";
    int sub = -1;
    resolve("cycles", {{picnum, m.npic}}, &sub);
    EXPECT_EQ(sub, CPC_INVALID_PICNUM);
    resolve("cycles", {{picnum, 0}}, &sub);
    EXPECT_EQ(sub, 0);
    if (!intel())
        return;
    resolve("instructions", {{picnum, m.ngp}}, &sub);
    EXPECT_EQ(sub, 0) << "fixed counter 0 counts instructions";
    resolve("cycles", {{picnum, m.ngp}}, &sub);
    EXPECT_EQ(sub, CPC_PIC_NOT_CAPABLE);
}

TEST(FormatParse, Fields) {
    cpc::FormatField f;
    ASSERT_TRUE(cpc::parse_format("config:0-7,32-35\n", &f));
    EXPECT_EQ(f.width(), 12);
    perf_event_attr a{};
    ASSERT_TRUE(f.apply(0x1c0, &a));
    EXPECT_EQ(a.config, 0xc0u | (1ull << 32));
    EXPECT_FALSE(f.apply(0x1000, &a));
    ASSERT_TRUE(cpc::parse_format("config1:0-63", &f));
    EXPECT_TRUE(f.apply(~0ull, &a));
    EXPECT_EQ(a.config1, ~0ull);
    EXPECT_FALSE(cpc::parse_format("conf:1", &f));
    EXPECT_FALSE(cpc::parse_format("config:9-3", &f));
}
