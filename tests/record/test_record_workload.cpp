// SPDX-License-Identifier: MIT
// The workload target (known functions, known depths, its own CPU-time
// measurement) recorded in dwarf and fp modes, with and without frame
// pointers: shares per function, stack completeness, the recursion's depth.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"
#include "tests/support/binomial.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

struct Build {
    const char *name;
    const char *exe;
};
void PrintTo(const Build &b, std::ostream *os) {
    *os << b.name;
}
const Build kFp{"fp", WORKLOAD_FP};
const Build kNoFp{"nofp", WORKLOAD_NOFP};

// A recording of the workload, every sample symbolized.
struct Recorded {
    RunResult run;
    Profile profile;
    std::map<std::string, double> measured; // "share FUNC SECONDS"
    int depth = 0;                          // "depth wl_recurse N"
    int pid = 0;
    struct Named {
        const SampleCopy *sample;
        std::vector<std::string> names; // leaf first
    };
    std::vector<Named> samples; // the workload process's only
};

void record_workload(const TempDir &dir, const Build &b, const char *call_graph,
                     const char *seconds, Recorded *r) {
    // 4 kHz: the shares are judged by their binomial spread, which these
    // 4,000 samples a second of CPU time keep within about 2 points.
    r->run = run_cpcprof(dir, {"record", "-F", "4000", "--call-graph", call_graph, "-o",
                               "out.cpcprof", "--", b.exe, "--seconds", seconds});
    ASSERT_EQ(r->run.status, 0) << r->run.err;
    for (const std::string &l : lines_with(r->run.out, "share ")) {
        auto sp = l.find(' ');
        r->measured[l.substr(0, sp)] = std::stod(l.substr(sp + 1));
    }
    ASSERT_EQ(r->measured.size(), 4u) << r->run.out;
    auto d = lines_with(r->run.out, "depth wl_recurse ");
    ASSERT_EQ(d.size(), 1u);
    r->depth = std::stoi(d[0]);
    r->profile = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(r->profile) << r->profile.error;
    ASSERT_EQ(r->profile.reader->processes().size(), 1u);
    r->pid = r->profile.reader->processes()[0].info.pid;
    ProfileSymbols syms(*r->profile.reader);
    for (const SampleCopy &s : r->profile.samples)
        if (s.pid == r->pid)
            r->samples.push_back({&s, syms.stack(s.view())});
    ASSERT_GT(r->samples.size(), 1000u);
}

bool has(const std::vector<std::string> &names, const std::string &f) {
    return std::find(names.begin(), names.end(), f) != names.end();
}

// Complete back to the thread's root: the unwinder says so and main (main
// thread) or wl_thread_main (second thread) is on the stack.
bool complete_to_root(const Recorded::Named &n, int pid) {
    return n.sample->complete && has(n.names, n.sample->tid == pid ? "main" : "wl_thread_main");
}

// Per measured function: its share of the samples (those whose stack, or
// only leaf, holds one of the functions) against its share of the time
// the workload measured: each attributed sample lands in a function with
// the probability of its share of the time, so its count must lie within
// the binomial bounds of that share.  On the timer backend one signal can
// bring several periods, each its own sample at the one PC the signal
// interrupted (the kernel checks CPU timers at its tick): the samples are
// drawn in clusters, and the bounds are those of the clusters' effective
// number, (sum of sizes)^2 / sum of squared sizes, scaled back to samples.
double samples_per_draw(const Recorded &r) {
    if (!timer_backend(r.profile))
        return 1;
    // A signal's samples follow each other in one thread within
    // microseconds, at the same PC; the next signal is a tick (4 ms) away.
    std::vector<const SampleCopy *> order;
    for (const Recorded::Named &n : r.samples)
        order.push_back(n.sample);
    std::sort(order.begin(), order.end(), [](const SampleCopy *a, const SampleCopy *b) {
        return a->tid != b->tid ? a->tid < b->tid : a->time_ns < b->time_ns;
    });
    double sum = 0, squares = 0, size = 0;
    const SampleCopy *prev = nullptr;
    for (const SampleCopy *s : order) {
        bool same = prev != nullptr && prev->tid == s->tid && !s->frames.empty() &&
                    !prev->frames.empty() && prev->frames[0] == s->frames[0] &&
                    s->time_ns - prev->time_ns < 500'000;
        if (!same && size > 0) {
            sum += size;
            squares += size * size;
            size = 0;
        }
        size += 1;
        prev = s;
    }
    sum += size;
    squares += size * size;
    return squares > 0 ? squares / sum : 1;
}

void compare_shares(const Recorded &r, bool leaf_only, const char *label) {
    // Where a function's time is spent when only the leaf is trusted.
    const std::map<std::string, std::vector<std::string>> leaves = {
        {"wl_phase_recursion", {"wl_phase_recursion", "wl_recurse", "wl_leaf"}},
        {"wl_phase_chase", {"wl_phase_chase", "wl_chase"}},
        {"wl_phase_compute", {"wl_phase_compute", "wl_compute"}},
        {"wl_thread_work", {"wl_thread_work"}},
    };
    std::map<std::string, double> counted;
    double total_counted = 0, total_measured = 0;
    for (const auto &[f, s] : r.measured)
        total_measured += s;
    for (const Recorded::Named &n : r.samples)
        for (const auto &[f, s] : r.measured) {
            bool in = leaf_only ? has(leaves.at(f), n.names.at(0)) : has(n.names, f);
            if (in) {
                counted[f] += 1;
                total_counted += 1;
                break;
            }
        }
    std::printf("%s: %.0f of %zu samples attributed\n", label, total_counted, r.samples.size());
    std::printf("  %-20s %9s %9s %8s %15s\n", "function", "measured", "profile", "diff pp",
                "samples bounds");
    auto n = uint64_t(total_counted);
    double per_draw = samples_per_draw(r);
    auto draws = uint64_t(double(n) / per_draw);
    if (per_draw > 1)
        std::printf("%s: timer backend, %.2f samples per signal: bounds of %llu draws\n", label,
                    per_draw, (unsigned long long)draws);
    for (const auto &[f, s] : r.measured) {
        double want = s / total_measured, got = counted[f] / total_counted;
        uint64_t k = uint64_t(counted[f]),
                 lo = uint64_t(double(binomial_lower_bound(draws, want)) * per_draw),
                 hi = uint64_t(std::ceil(double(binomial_upper_bound(draws, want)) * per_draw));
        std::printf("  %-20s %8.2f%% %8.2f%% %+8.2f %7llu-%-7llu\n", f.c_str(), 100 * want,
                    100 * got, 100 * (got - want), (unsigned long long)lo, (unsigned long long)hi);
        EXPECT_TRUE(k >= lo && k <= hi) << label << ": " << f << ": " << binomial_story(k, n, want);
    }
}

class Workload : public testing::TestWithParam<Build> {};

} // namespace

TEST_P(Workload, DwarfSharesMatchAndStacksAreComplete) {
    TempDir dir;
    Recorded r;
    ASSERT_NO_FATAL_FAILURE(record_workload(dir, GetParam(), "dwarf", "2", &r));
    compare_shares(r, false, GetParam().name);

    size_t complete = 0, flagged = 0, leaf_samples = 0, right_depth = 0;
    for (const Recorded::Named &n : r.samples) {
        complete += complete_to_root(n, r.pid);
        flagged += n.sample->complete;
        if (n.names[0] == "wl_leaf") {
            ++leaf_samples;
            right_depth += std::count(n.names.begin(), n.names.end(), "wl_recurse") == r.depth;
        }
    }
    double pct = 100.0 * double(complete) / double(r.samples.size());
    std::printf("%s dwarf: %.2f%% of %zu samples complete back to main/wl_thread_main "
                "(%.2f%% flagged complete); %zu of %zu wl_leaf samples under exactly %d "
                "wl_recurse frames\n",
                GetParam().name, pct, r.samples.size(),
                100.0 * double(flagged) / double(r.samples.size()), right_depth, leaf_samples,
                r.depth);
    EXPECT_GE(pct, 99.0);
    ASSERT_GT(leaf_samples, 100u);
    EXPECT_GE(double(right_depth), 0.99 * double(leaf_samples));
    // Stacks the unwinder calls complete really are: no flagged one
    // misses its root.
    EXPECT_LE(flagged - complete, r.samples.size() / 200);
}

INSTANTIATE_TEST_SUITE_P(Builds, Workload, testing::Values(kFp, kNoFp),
                         [](const auto &info) { return std::string(info.param.name); });

// fp mode walks frame pointers.  Measured here (GCC 12, -O2):
//  - nofp build: the walk stops at once (mean depth under 2); nothing but
//    the leaf is right.
//  - fp build: GCC keeps no frame in leaf functions that need no stack
//    (wl_leaf, wl_chase, wl_compute), so the walk from such a leaf skips
//    its caller (wl_recurse x 39 instead of 40, main instead of
//    wl_phase_compute).  Main-thread stacks reach main and libc's start
//    code; the second thread's pass through the profiler's own start
//    frames (left out of the stack) to the thread's start
//    (RecordUnwind.ThreadStacksPassTheProfilersOwnFrames asserts it).
// Asserted: what holds whatever the build, the leaf (the interrupted PC),
// with leaf-attributed shares within their binomial bounds; and, for the
// fp build, that
// main-thread stacks reach main.  The rest is printed.
TEST(WorkloadFramePointers, LimitsOfFpMode) {
    const std::map<std::string, std::string> caller_of = {
        {"wl_leaf", "wl_recurse"},
        {"wl_chase", "wl_phase_chase"},
        {"wl_compute", "wl_phase_compute"},
        {"wl_thread_work", "wl_thread_main"},
    };
    for (const Build &b : {kFp, kNoFp}) {
        TempDir dir;
        Recorded r;
        ASSERT_NO_FATAL_FAILURE(record_workload(dir, b, "fp", "1", &r));
        size_t complete = 0, flagged = 0, leaf_known = 0, with_caller = 0, caller_right = 0,
               deep = 0, main_thread = 0, main_complete = 0;
        double depth_sum = 0;
        for (const Recorded::Named &n : r.samples) {
            complete += complete_to_root(n, r.pid);
            flagged += n.sample->complete;
            leaf_known += n.names[0].rfind("wl_", 0) == 0;
            depth_sum += double(n.names.size());
            auto it = caller_of.find(n.names[0]);
            if (it != caller_of.end()) {
                ++with_caller;
                caller_right += n.names.size() > 1 && n.names[1] == it->second;
            }
            deep += n.names[0] == "wl_leaf" &&
                    std::count(n.names.begin(), n.names.end(), "wl_recurse") == r.depth;
            if (n.sample->tid == r.pid) {
                ++main_thread;
                main_complete += complete_to_root(n, r.pid);
            }
        }
        double all = double(r.samples.size());
        std::printf("fp mode, %s build: %zu samples; complete to main/wl_thread_main %.2f%% "
                    "(flagged %.2f%%; main thread %.2f%%); leaf in the workload %.2f%%; caller "
                    "right %.2f%% of %zu; full 40-deep recursion in %zu; mean depth %.1f\n",
                    b.name, r.samples.size(), 100 * double(complete) / all,
                    100 * double(flagged) / all,
                    100 * double(main_complete) / double(std::max<size_t>(main_thread, 1)),
                    100 * double(leaf_known) / all,
                    with_caller ? 100 * double(caller_right) / double(with_caller) : 0.0,
                    with_caller, deep, depth_sum / all);
        // Reliably true in fp mode: the leaf is the interrupted PC, in the
        // workload but for a few percent (3 % expected at most), counted in
        // independent draws: the timer backend's signals each carry many
        // samples of one PC (late ticks), so a few signals outside move the
        // share by several points.
        const double per_draw = samples_per_draw(r);
        const auto draws = uint64_t(all / per_draw);
        const auto outside = uint64_t(std::ceil((all - double(leaf_known)) / per_draw));
        EXPECT_LE(outside, binomial_upper_bound(draws, 0.03))
            << b.name << ": leaves outside the workload in "
            << binomial_story(outside, draws, 0.03);
        compare_shares(r, true, (std::string("fp mode leaf, ") + b.name).c_str());
        if (b.exe == kFp.exe) {
            EXPECT_GE(double(main_complete), 0.95 * double(main_thread));
        }
    }
}
