// SPDX-License-Identifier: MIT
// Encodings of native events through libpfm4 for a forced PMU.
//
// Run with LIBPFM_FORCE_PMU=<pmu> CPC_TEST_PFM_PMU=<pmu>, <pmu> being "skl" or
// "amd64_fam19h_zen3".  Expected codes come from the vendors' event lists
// (Intel SDM and perf's skylake JSON; AMD PPR 19h and perf's amdzen3 JSON),
// not from libpfm4.
#include "libcpc/src/pfm_events.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace cpc {
namespace {

constexpr const char *kZen3 = "amd64_fam19h_zen3";

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

// Event select: bits 0-7, plus bits 32-35 as bits 8-11 (AMD extended select).
uint64_t event_select(const perf_event_attr &a) {
    return (a.config & 0xff) | ((a.config >> 24) & 0xf00);
}
uint64_t umask(const perf_event_attr &a) {
    return (a.config >> 8) & 0xff;
}
bool bit(const perf_event_attr &a, int n) {
    return (a.config >> n) & 1;
}
uint64_t cmask(const perf_event_attr &a) {
    return (a.config >> 24) & 0xff;
}

perf_event_attr zeroed() {
    return perf_event_attr{};
}

// Encodes name with attrs, expecting success.
perf_event_attr encoded(std::string_view name, std::vector<NativeAttr> attrs = {}) {
    perf_event_attr a = zeroed();
    EXPECT_EQ(pfm_encode(name, attrs, &a), PfmStatus::ok) << name;
    return a;
}

PfmStatus status(std::string_view name, std::vector<NativeAttr> attrs = {}) {
    perf_event_attr a = zeroed();
    return pfm_encode(name, attrs, &a);
}

std::vector<std::string> all_events() {
    std::vector<std::string> names;
    pfm_for_each_event([&](const std::string &n) { names.push_back(n); });
    return names;
}

// Skips unless CPC_TEST_PFM_PMU names the PMU LIBPFM_FORCE_PMU forced.
class PfmTest : public ::testing::Test {
  protected:
    void SetUp() override {
        pmu_ = env("CPC_TEST_PFM_PMU");
        if (pmu_.empty())
            GTEST_SKIP() << "CPC_TEST_PFM_PMU is unset; run with LIBPFM_FORCE_PMU=skl "
                            "CPC_TEST_PFM_PMU=skl (or amd64_fam19h_zen3) to check encodings";
        ASSERT_TRUE(pmu_ == "skl" || pmu_ == kZen3) << "unsupported CPC_TEST_PFM_PMU " << pmu_;
        ASSERT_EQ(env("LIBPFM_FORCE_PMU"), pmu_) << "LIBPFM_FORCE_PMU must match CPC_TEST_PFM_PMU";
    }
    bool skl() const { return pmu_ == "skl"; }
    // Instructions retired (event 0xc0, umask 0 on both PMUs), and an event
    // without a default unit mask.
    const char *instructions() const {
        return skl() ? "INST_RETIRED:ANY_P" : "RETIRED_INSTRUCTIONS";
    }
    const char *needs_umask() const { return skl() ? "MEM_LOAD_RETIRED" : "L1_DTLB_MISS"; }

    std::string pmu_;
};

class SklTest : public PfmTest {
  protected:
    void SetUp() override {
        PfmTest::SetUp();
        if (!IsSkipped() && !HasFatalFailure() && !skl())
            GTEST_SKIP() << "Skylake checks; CPC_TEST_PFM_PMU=" << pmu_;
    }
};

class Zen3Test : public PfmTest {
  protected:
    void SetUp() override {
        PfmTest::SetUp();
        if (!IsSkipped() && !HasFatalFailure() && skl())
            GTEST_SKIP() << "Zen 3 checks; CPC_TEST_PFM_PMU=" << pmu_;
    }
};

// First so that the threads race through libpfm4's one-time initialization.
TEST_F(PfmTest, ConcurrentFirstUseAgrees) {
    std::vector<std::thread> threads;
    std::vector<uint64_t> configs(8);
    std::vector<std::string> names(8);
    for (size_t i = 0; i < configs.size(); ++i)
        threads.emplace_back([&, i] {
            auto pmu = pfm_core_pmu();
            names[i] = pmu ? pmu->name : "";
            perf_event_attr a = zeroed();
            configs[i] = pfm_encode(instructions(), {}, &a) == PfmStatus::ok ? a.config : ~0ull;
        });
    for (auto &t : threads)
        t.join();
    for (size_t i = 0; i < configs.size(); ++i) {
        EXPECT_EQ(names[i], pmu_);
        EXPECT_EQ(configs[i], 0xc0u);
    }
}

TEST_F(SklTest, CorePmu) {
    auto pmu = pfm_core_pmu();
    ASSERT_TRUE(pmu);
    EXPECT_EQ(pmu->name, "skl");
    EXPECT_EQ(pmu->desc, "Intel Skylake");
    EXPECT_TRUE(pmu->intel);
    EXPECT_FALSE(pmu->amd);
    // libpfm4 reports the hyper-threading-off maximum (perf's JSON: counters
    // 0-3, "CounterHTOff" 0-7).
    EXPECT_EQ(pmu->num_gp, 8u);
    EXPECT_EQ(pmu->num_fixed, 3u);
}

TEST_F(Zen3Test, CorePmu) {
    auto pmu = pfm_core_pmu();
    ASSERT_TRUE(pmu);
    EXPECT_EQ(pmu->name, kZen3);
    EXPECT_EQ(pmu->desc, "AMD64 Fam19h Zen3");
    EXPECT_TRUE(pmu->amd);
    EXPECT_FALSE(pmu->intel);
    EXPECT_EQ(pmu->num_gp, 6u);
    EXPECT_EQ(pmu->num_fixed, 0u);
}

TEST_F(SklTest, EncodesDocumentedCodes) {
    struct {
        const char *name;
        uint64_t event, umask;
    } cases[] = {
        {"INST_RETIRED:ANY_P", 0xc0, 0x00},
        {"MEM_LOAD_RETIRED:L3_MISS", 0xd1, 0x20},
        {"L2_RQSTS:MISS", 0x24, 0x3f},
        {"LONGEST_LAT_CACHE:MISS", 0x2e, 0x41}, // architectural LLC misses
        {"FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE", 0xc7, 0x10},
    };
    for (const auto &c : cases) {
        perf_event_attr a = encoded(c.name);
        EXPECT_EQ(a.type, PERF_TYPE_RAW) << c.name;
        EXPECT_EQ(event_select(a), c.event) << c.name;
        EXPECT_EQ(umask(a), c.umask) << c.name;
        EXPECT_EQ(a.config & ~0xffffull, 0u) << c.name << ": only event select and unit mask";
        EXPECT_EQ(a.config1, 0u) << c.name;
        EXPECT_EQ(a.config2, 0u) << c.name;
    }
}

TEST_F(Zen3Test, EncodesDocumentedCodes) {
    struct {
        const char *name;
        uint64_t event, umask;
    } cases[] = {
        {"RETIRED_INSTRUCTIONS", 0xc0, 0x00},
        {"CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C", 0x64, 0x08},
        {"IC_TAG_HIT_MISS:IC_MISS", 0x18e, 0x18}, // extended select in bits 32-35
        {"RETIRED_SSE_AVX_FLOPS:ANY", 0x03, 0x0f},
    };
    for (const auto &c : cases) {
        perf_event_attr a = encoded(c.name);
        EXPECT_EQ(a.type, PERF_TYPE_RAW) << c.name;
        EXPECT_EQ(event_select(a), c.event) << c.name;
        EXPECT_EQ(umask(a), c.umask) << c.name;
        EXPECT_EQ(a.config & ~0xf0000ffffull, 0u) << c.name << ": only event select and unit mask";
    }
    EXPECT_EQ(encoded("IC_TAG_HIT_MISS:IC_MISS").config, 0x10000188eull);
}

TEST_F(PfmTest, EdgeInvCmaskSetTheirBits) {
    // Intel requires a counter mask with edge detection; AMD does not.
    perf_event_attr a = encoded(instructions(), {{"edge", 1}, {"cmask", 1}});
    EXPECT_TRUE(bit(a, 18));
    EXPECT_FALSE(bit(a, 23));
    EXPECT_EQ(cmask(a), 1u);
    a = encoded(instructions(), {{"inv", 1}, {"cmask", 3}});
    EXPECT_TRUE(bit(a, 23));
    EXPECT_FALSE(bit(a, 18));
    EXPECT_EQ(cmask(a), 3u);
    a = encoded(instructions(), {{"cmask", 255}});
    EXPECT_EQ(cmask(a), 255u);
    EXPECT_EQ(event_select(a), 0xc0u);
    EXPECT_EQ(umask(a), 0u);
    a = encoded(instructions(), {{"edge", 0}, {"inv", 0}, {"cmask", 0}});
    EXPECT_EQ(a.config, 0xc0u) << "zero values leave the defaults";
}

TEST_F(SklTest, EdgeWithoutCmaskIsRejected) {
    EXPECT_EQ(status("INST_RETIRED:ANY_P", {{"edge", 1}}), PfmStatus::attr_out_of_range);
}

TEST_F(Zen3Test, EdgeAloneIsAccepted) {
    perf_event_attr a = encoded("RETIRED_INSTRUCTIONS", {{"edge", 1}});
    EXPECT_EQ(a.config, 0xc0u | (1u << 18));
}

TEST_F(SklTest, AnyThreadSetsBit21) {
    perf_event_attr a = encoded("INST_RETIRED:ANY_P", {{"anythr", 1}});
    EXPECT_TRUE(bit(a, 21));
    EXPECT_EQ(status("INST_RETIRED:ANY_P", {{"anythr", 2}}), PfmStatus::attr_out_of_range);
}

TEST_F(Zen3Test, AnyThreadIsUnknown) {
    EXPECT_EQ(status("RETIRED_INSTRUCTIONS", {{"anythr", 1}}), PfmStatus::unknown_attribute);
}

TEST_F(SklTest, UmaskAttributeReplacesTheDefault) {
    // No default unit mask: the attribute supplies it.
    EXPECT_EQ(encoded("MEM_LOAD_RETIRED", {{"umask", 0x20}}).config,
              encoded("MEM_LOAD_RETIRED:L3_MISS").config);
    // Default ANY_P (0x00) replaced by 0x01 (INST_RETIRED.PREC_DIST).
    perf_event_attr a = encoded("INST_RETIRED", {{"umask", 0x01}});
    EXPECT_EQ(event_select(a), 0xc0u);
    EXPECT_EQ(umask(a), 0x01u);
    a = encoded("L2_RQSTS", {{"umask", 0x3f}, {"cmask", 2}, {"inv", 1}});
    EXPECT_EQ(a.config, 0x24u | 0x3fu << 8 | 1u << 23 | 2u << 24);
}

TEST_F(Zen3Test, UmaskAttributeSetsBits8To15) {
    perf_event_attr a = encoded("L1_DTLB_MISS", {{"umask", 0xff}});
    EXPECT_EQ(a.config, 0xff45u);
    a = encoded("IC_TAG_HIT_MISS", {{"umask", 0x1f}});
    EXPECT_EQ(a.config, 0x100001f8eull);
}

TEST_F(PfmTest, UmaskAttributeConflictsAndRange) {
    std::string named = std::string(needs_umask()) + (skl() ? ":L3_MISS" : ":TLB_RELOAD_4K_L2_HIT");
    EXPECT_EQ(status(named), PfmStatus::ok);
    EXPECT_EQ(status(named, {{"umask", 1}}), PfmStatus::unknown_attribute);
    EXPECT_EQ(status(needs_umask(), {{"umask", 0x100}}), PfmStatus::attr_out_of_range);
    // A boolean modifier in the name is not a unit mask.
    EXPECT_EQ(status(std::string(needs_umask()) + ":u", {{"umask", 1}}), PfmStatus::ok);
}

TEST_F(PfmTest, UnknownNames) {
    EXPECT_EQ(status("NO_SUCH_EVENT"), PfmStatus::unknown_event);
    EXPECT_EQ(status(""), PfmStatus::unknown_event);
    EXPECT_EQ(status(std::string(instructions()) + ",INST"), PfmStatus::unknown_event);
    EXPECT_EQ(status(std::string(instructions()) + '\0' + "x"), PfmStatus::unknown_event);
    EXPECT_EQ(status(skl() ? "INST_RETIRED:NO_SUCH_UMASK" : "L1_DTLB_MISS:NO_SUCH_UMASK"),
              PfmStatus::unknown_event);
    EXPECT_EQ(status(needs_umask()), PfmStatus::unknown_event) << "unit mask required";
    EXPECT_EQ(status(needs_umask(), {{"edge", 1}, {"cmask", 1}}), PfmStatus::unknown_event);
    // Other PMUs' events, even by qualified name.
    EXPECT_EQ(status(skl() ? "RETIRED_INSTRUCTIONS" : "INST_RETIRED"), PfmStatus::unknown_event);
    EXPECT_EQ(status("perf::cycles"), PfmStatus::unknown_event);
    EXPECT_EQ(status("cycles"), PfmStatus::unknown_event);
    EXPECT_EQ(status(skl() ? "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS" : "skl::INST_RETIRED"),
              PfmStatus::unknown_event);
}

TEST_F(PfmTest, NamesAreCaseInsensitiveAndMayBeQualified) {
    std::string lower = instructions();
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    EXPECT_EQ(encoded(lower).config, 0xc0u);
    EXPECT_EQ(encoded(pmu_ + "::" + instructions()).config, 0xc0u);
}

TEST_F(PfmTest, BadAttributes) {
    EXPECT_EQ(status(instructions(), {{"pc", 1}}), PfmStatus::unknown_attribute);
    EXPECT_EQ(status(instructions(), {{"EDGE", 1}}), PfmStatus::unknown_attribute);
    EXPECT_EQ(status(instructions(), {{"e", 1}}), PfmStatus::unknown_attribute);
    EXPECT_EQ(status(instructions(), {{"edge", 2}}), PfmStatus::attr_out_of_range);
    EXPECT_EQ(status(instructions(), {{"inv", 2}}), PfmStatus::attr_out_of_range);
    EXPECT_EQ(status(instructions(), {{"cmask", 256}}), PfmStatus::attr_out_of_range);
    EXPECT_EQ(status(instructions(), {{"cmask", 1}, {"cmask", 2}}), PfmStatus::attr_out_of_range);
    // The first bad attribute decides.
    EXPECT_EQ(status(instructions(), {{"cmask", 256}, {"pc", 1}}), PfmStatus::attr_out_of_range);
}

TEST_F(PfmTest, TouchesOnlyTypeAndConfigs) {
    perf_event_attr a = zeroed();
    a.size = 12345;
    a.sample_period = 777;
    a.exclude_kernel = 1;
    a.config1 = 0xdead;
    ASSERT_EQ(pfm_encode(instructions(), {}, &a), PfmStatus::ok);
    EXPECT_EQ(a.type, PERF_TYPE_RAW);
    EXPECT_EQ(a.config, 0xc0u);
    EXPECT_EQ(a.config1, 0u);
    EXPECT_EQ(a.config2, 0u);
    EXPECT_EQ(a.size, 12345u);
    EXPECT_EQ(a.sample_period, 777u);
    EXPECT_EQ(a.exclude_kernel, 1u);
    EXPECT_EQ(a.exclude_user, 0u);

    perf_event_attr before = a;
    a.config = 0x1234;
    before.config = 0x1234;
    EXPECT_NE(pfm_encode("NO_SUCH_EVENT", {}, &a), PfmStatus::ok);
    EXPECT_EQ(std::memcmp(&a, &before, sizeof(a)), 0) << "failure leaves *out alone";
}

TEST_F(PfmTest, WalksCoreEvents) {
    auto names = all_events();
    std::set<std::string> unique(names.begin(), names.end());
    EXPECT_GT(names.size(), 50u);
    EXPECT_EQ(unique.size(), names.size());
    for (const auto &n : names)
        EXPECT_EQ(n.find(':'), n.npos) << n;
    auto expect_listed = [&](const char *n) { EXPECT_TRUE(unique.count(n)) << n; };
    if (skl()) {
        for (const char *n :
             {"INST_RETIRED", "MEM_LOAD_RETIRED", "L2_RQSTS", "FP_ARITH_INST_RETIRED"})
            expect_listed(n);
        EXPECT_FALSE(unique.count("RETIRED_INSTRUCTIONS"));
    } else {
        for (const char *n : {"RETIRED_INSTRUCTIONS", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS",
                              "IC_TAG_HIT_MISS", "RETIRED_SSE_AVX_FLOPS"})
            expect_listed(n);
        EXPECT_FALSE(unique.count("INST_RETIRED"));
    }
    EXPECT_FALSE(unique.count("PERF_COUNT_HW_CPU_CYCLES")) << "perf's generic PMU is not core";
}

TEST_F(PfmTest, GenericNativesEncodeToDocumentedCodes) {
    struct Case {
        const char *papi;
        uint64_t config; // 0: not mapped on this PMU
    };
    const Case skl_cases[] = {
        {"PAPI_l2_tcm", 0x3f24}, {"PAPI_l2_tca", 0xff24}, {"PAPI_l2_ldm", 0x2124},
        {"PAPI_l2_icm", 0x2424}, {"PAPI_fp_ins", 0x3fc7}, {"PAPI_l2_dcm", 0},
        {"PAPI_fp_ops", 0},
    };
    const Case zen3_cases[] = {
        {"PAPI_l2_tcm", 0x0964}, {"PAPI_l2_tca", 0xff64}, {"PAPI_l2_dcm", 0x0864},
        {"PAPI_l2_icm", 0x0164}, {"PAPI_fp_ops", 0x0f03}, {"PAPI_l2_ldm", 0},
        {"PAPI_fp_ins", 0},
    };
    for (const auto &c : skl() ? std::span(skl_cases) : std::span(zen3_cases)) {
        auto native = pfm_generic_native(c.papi);
        if (c.config == 0) {
            EXPECT_FALSE(native) << c.papi << " -> " << *native;
            continue;
        }
        ASSERT_TRUE(native) << c.papi;
        EXPECT_EQ(encoded(*native).config, c.config) << c.papi << " -> " << *native;
    }
    for (const char *n : {"PAPI_tot_cyc", "PAPI_L2_TCM", "PAPI_nonsense", ""})
        EXPECT_FALSE(pfm_generic_native(n)) << n;
}

// libpfm4 initializes without error for an unknown LIBPFM_FORCE_PMU but then
// has no PMU at all.  Runs in a fresh process, so needs no CPC_TEST_PFM_PMU.
TEST(PfmNoPmu, EverythingDegrades) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("LIBPFM_FORCE_PMU", "no_such_pmu", 1);
            perf_event_attr a = zeroed();
            int calls = 0;
            pfm_for_each_event([&](const std::string &) { ++calls; });
            bool ok = !pfm_core_pmu() && calls == 0 &&
                      pfm_encode("RETIRED_INSTRUCTIONS", {}, &a) == PfmStatus::unknown_event &&
                      pfm_encode("INST_RETIRED:ANY_P", {}, &a) == PfmStatus::unknown_event &&
                      !pfm_generic_native("PAPI_l2_tcm") && a.config == 0;
            std::exit(ok ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

// Unforced, libpfm4 also activates perf's generic PMU, which would claim names
// such as "cycles" if they were not qualified with the core PMU.
TEST(PfmHost, NamesResolveOnlyAgainstTheCorePmu) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            unsetenv("LIBPFM_FORCE_PMU");
            perf_event_attr a = zeroed();
            bool ok = !pfm_core_pmu() ||
                      (pfm_encode("cycles", {}, &a) == PfmStatus::unknown_event &&
                       pfm_encode("PERF_COUNT_HW_CPU_CYCLES", {}, &a) == PfmStatus::unknown_event);
            std::exit(ok ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace cpc
