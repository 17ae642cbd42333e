// SPDX-License-Identifier: MIT
// Targets that do what real programs do to a sampler: block in system
// calls, make many threads, fork, exec, dlopen, and take the sampling
// signal for themselves.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <climits>
#include <csignal>
#include <cstdlib>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

const storage::ProcessRecord *process(const Profile &p, int pid) {
    for (const storage::ProcessRecord &r : p.reader->processes())
        if (r.info.pid == pid)
            return &r;
    return nullptr;
}

} // namespace

TEST(RecordBlocking, BlockingCallsNeverFailWithEintr) {
    TempDir dir;
    RunResult r =
        run_cpcprof(dir, {"record", "-F", "10000", "-o", "out.cpcprof", "--", BLOCKING_EXE, "10"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("EINTR"), std::string::npos) << r.err;
    EXPECT_EQ(lines_with(r.out, "blocking ok ").size(), 1u) << r.out;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ProfileSymbols syms(*p.reader);
    // The sampler really was running in both threads: blk_work is 80 ms
    // of CPU (800 samples at 10 kHz); blk_busy spins for the ~1 s of wall
    // time, of which it gets less on a loaded machine.
    EXPECT_GT(samples_in(p, syms, "blk_busy"), 200u);
    EXPECT_GT(samples_in(p, syms, "blk_work"), 400u);
}

TEST(RecordThreads, TwoHundredThreadsAt10kHz) {
    TempDir dir;
    RunResult r = run_cpcprof(
        dir, {"record", "-F", "10000", "-o", "out.cpcprof", "--", THREADS_EXE, "200", "10", "5"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_with(r.out, "joined ").size(), 1u) << r.out;
    std::set<int> printed;
    for (const std::string &t : lines_with(r.out, "thread "))
        printed.insert(std::stoi(t));
    ASSERT_EQ(printed.size(), 200u) << r.out;

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_TRUE(p.reader->accounting_balanced());
    ProfileSymbols syms(*p.reader);
    std::map<int, size_t> per_thread;
    size_t in_worker = 0, complete = 0;
    for (const SampleCopy &s : p.samples) {
        if (!printed.count(s.tid))
            continue;
        ++per_thread[s.tid];
        auto names = syms.stack(s.view());
        if (std::find(names.begin(), names.end(), "th_worker") != names.end()) {
            ++in_worker;
            complete += s.complete;
        }
    }
    std::set<int> named;
    for (const storage::ThreadInfo &t : p.reader->threads())
        named.insert(t.tid);
    size_t missing = 0;
    for (int tid : printed) {
        missing += per_thread[tid] == 0;
        EXPECT_TRUE(named.count(tid)) << "thread " << tid << " not in the thread table";
    }
    auto total = p.reader->accounting_total();
    std::printf("200 threads: %zu samples under th_worker (%zu complete), %zu threads without "
                "samples; taken %llu stored %llu dropped %llu\n",
                in_worker, complete, missing, (unsigned long long)total.taken,
                (unsigned long long)total.stored, (unsigned long long)total.dropped);
    // 5 ms of CPU at 10 kHz: about 50 samples each.
    EXPECT_EQ(missing, 0u);
    EXPECT_GT(in_worker, 200u * 25);
    EXPECT_GE(double(complete), 0.95 * double(in_worker));
}

// The fork child ends with status 3 by exit(3), by _exit(3) (what fork
// children are told to use) or by returning 3 from main; the profile must
// show it ended, with its status, whichever way.
class ForkWithoutExec : public testing::TestWithParam<const char *> {};

TEST_P(ForkWithoutExec, RecordsBothProcessesAndTheChildsEnd) {
    TempDir dir;
    RunResult r =
        run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", FORKER_EXE, "fork", GetParam()});
    ASSERT_EQ(r.status, 0) << r.err;
    auto child_line = lines_with(r.out, "child ");
    auto parent_line = lines_with(r.out, "parent ");
    ASSERT_EQ(child_line.size(), 1u) << r.out;
    ASSERT_EQ(parent_line.size(), 1u) << r.out;
    int child = std::stoi(child_line[0]), parent = std::stoi(parent_line[0]);
    EXPECT_NE(child_line[0].find("exited 3"), std::string::npos) << r.out;

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *c = process(p, child), *pa = process(p, parent);
    ASSERT_NE(c, nullptr) << "the fork child is not in the profile";
    ASSERT_NE(pa, nullptr);
    EXPECT_EQ(c->info.ppid, parent);
    EXPECT_EQ(pa->exit_status, 0);
    EXPECT_TRUE(c->end_ns.has_value()) << "the child is shown running to the end";
    EXPECT_EQ(c->exit_status, 3);
    ProfileSymbols syms(*p.reader);
    size_t child_busy = samples_in(p, syms, "fk_child_busy", child);
    size_t parent_busy = samples_in(p, syms, "fk_parent_busy", parent);
    std::printf("fork, child ends by %s: child %zu samples in fk_child_busy, parent %zu in "
                "fk_parent_busy; child end %s, status %s\n",
                GetParam(), child_busy, parent_busy, c->end_ns ? "recorded" : "missing",
                c->exit_status ? std::to_string(*c->exit_status).c_str() : "missing");
    // 0.3 s at 1 kHz each, less the timer backend's blind end.
    size_t tail = unseen_tail_samples(p, 1'000'000);
    EXPECT_GT(child_busy + tail, 250u);
    EXPECT_GT(parent_busy + tail, 250u);
    EXPECT_EQ(samples_in(p, syms, "fk_parent_busy", child), 0u);
    EXPECT_EQ(samples_in(p, syms, "fk_child_busy", parent), 0u);
    EXPECT_TRUE(p.reader->accounting_balanced());
}

INSTANTIATE_TEST_SUITE_P(ChildEnds, ForkWithoutExec, testing::Values("exit", "_exit", "return"),
                         [](const auto &info) {
                             return std::string(info.param[0] == '_' ? "underscore_exit"
                                                                     : info.param);
                         });

// A fork child that its own parent reaps, killed by a signal: it says
// nothing as it dies and the recorder cannot wait for it, so only the
// kernel knows how it ended (the zombie's exit code, read before its
// parent reaps it 0.3 s later).  Both capture paths.
class ForkChildKilled : public testing::TestWithParam<const char *> {};

TEST_P(ForkChildKilled, ItsSignalIsInTheProfile) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "--capture", GetParam(), "-o", "out.cpcprof", "--",
                                    FORKER_EXE, "fork", "kill"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto child_line = lines_with(r.out, "child ");
    ASSERT_EQ(child_line.size(), 1u) << r.out;
    ASSERT_NE(child_line[0].find("killed " + std::to_string(SIGUSR1)), std::string::npos) << r.out;
    int child = std::stoi(child_line[0]);

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *c = process(p, child);
    ASSERT_NE(c, nullptr) << "the fork child is not in the profile";
    EXPECT_TRUE(c->end_ns.has_value());
    EXPECT_EQ(c->killed_by_signal, std::optional<int>(SIGUSR1));
    EXPECT_FALSE(c->exit_status.has_value());
}

INSTANTIATE_TEST_SUITE_P(Capture, ForkChildKilled, testing::Values("agent", "ring"));

namespace {

// Samples in FUNCTION (fk_chain_stage or fk_chain_last) per image of the
// forker (by the load time of its mapping), in the order the images ran.
std::vector<size_t> chain_samples(const Profile &p, const char *function = "fk_chain_stage") {
    const std::string exe = real_path(FORKER_EXE);
    ProfileSymbols syms(*p.reader);
    std::map<int64_t, size_t> per_image;
    for (const storage::ModuleRecord &m : p.reader->modules())
        if (m.info.path == exe)
            per_image[m.info.load_ns];
    for (const SampleCopy &s : p.samples) {
        const storage::ModuleRecord *m = syms.module(s.pid, s.frames[0], s.time_ns);
        auto names = syms.stack(s.view());
        if (m != nullptr && m->info.path == exe &&
            std::find(names.begin(), names.end(), function) != names.end())
            ++per_image[m->info.load_ns];
    }
    std::vector<size_t> out;
    for (const auto &[t, n] : per_image)
        out.push_back(n);
    return out;
}

// The CPU seconds each stage printed ("spun N SECONDS"), in order.
std::vector<double> chain_cpu(const std::string &out) {
    std::vector<double> cpu;
    for (const std::string &l : lines_with(out, "spun "))
        cpu.push_back(std::stod(l.substr(l.find(' ') + 1)));
    return cpu;
}

} // namespace

TEST(RecordProcesses, ExecChainOfThreePrograms) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", FORKER_EXE, "chain", "2"});
    EXPECT_EQ(r.status, 7) << r.err;
    auto stages = lines_with(r.out, "stage ");
    ASSERT_EQ(stages.size(), 3u) << r.out;
    int pid = std::stoi(stages[0].substr(stages[0].find("pid ") + 4));

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ASSERT_EQ(p.reader->processes().size(), 1u);
    const storage::ProcessRecord &proc = p.reader->processes()[0];
    EXPECT_EQ(proc.info.pid, pid);
    EXPECT_EQ(proc.exit_status, 7);
    EXPECT_EQ(proc.info.argv, (std::vector<std::string>{"forker", "chain", "0", "0.2"}));

    // Each program's image is a mapping of its own; each has its samples.
    std::vector<size_t> per_image = chain_samples(p);
    std::vector<double> cpu = chain_cpu(r.out);
    ASSERT_EQ(per_image.size(), 3u);
    ASSERT_EQ(cpu.size(), 3u) << r.out;
    for (size_t k = 0; k < 3; ++k) {
        std::printf("exec chain: image %zu: %zu samples in fk_chain_stage for %.1f ms of CPU\n", k,
                    per_image[k], cpu[k] * 1000);
        // 1 kHz; the strict check of the exec flush is the next test.  Less,
        // on the timer backend, what the kernel had not checked at the exec.
        EXPECT_GE(double(per_image[k] + unseen_tail_samples(p, 1'000'000)), 0.75 * cpu[k] * 1000)
            << "image " << k;
    }
    EXPECT_TRUE(p.reader->accounting_balanced());
}

// Ten images at 10 kHz, nine of 20 ms of CPU each in fk_chain_stage, then
// 5 ms in fk_chain_last right before the exec: the samples an image takes
// after the agent's last periodic drain (up to 10 ms of them) are sent by
// the exec wrapper before the image goes.  Without that, most of
// fk_chain_last's samples are lost, all of them in an image whose drain
// thread did not happen to run during its last 5 ms.  The rate that the
// last moments are held to is the run's own (samples in fk_chain_stage per
// CPU-second, the tenth image's 0.2 s included), not the -F asked for,
// and over the nine images together: a busy machine lowers it (the
// spins' CPU time includes the overflow round trips, whose kernel part
// takes no samples, and a virtual CPU's stolen time takes none either) in
// bursts, by up to nine tenths over a few milliseconds.  A flush that sent
// samples twice would store more than were taken: the accounting.
TEST(RecordProcesses, ExecKeepsTheSamplesOfTheLastMomentsBeforeIt) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-F", "10000", "-o", "out.cpcprof", "--", FORKER_EXE,
                                    "chain", "9", "0.02", "0.2"});
    EXPECT_EQ(r.status, 7) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    if (timer_backend(p))
        GTEST_SKIP() << "the timer backend cannot keep the last moments before an exec: the "
                        "kernel checks CPU timers only at its tick, and what it had not "
                        "checked at the exec is never signalled (docs/libcpc-on-linux.md)";
    std::vector<size_t> stage = chain_samples(p);
    std::vector<size_t> last = chain_samples(p, "fk_chain_last");
    std::vector<double> cpu = chain_cpu(r.out);
    ASSERT_EQ(cpu.size(), 10u) << r.out;
    ASSERT_EQ(stage.size(), 10u);
    ASSERT_EQ(last.size(), 10u);
    size_t stage_samples = 0, last_samples = 0;
    double stage_cpu = 0;
    for (size_t k = 0; k < stage.size(); ++k) {
        stage_samples += stage[k];
        stage_cpu += cpu[k];
    }
    const double rate = double(stage_samples) / stage_cpu;
    std::printf("exec flush: %zu samples in fk_chain_stage for %.1f ms of CPU: %.0f a second\n",
                stage_samples, stage_cpu * 1000, rate);
    EXPECT_GE(rate, 0.5 * 10000) << "the sampler did not run at its rate";
    for (size_t k = 0; k + 1 < last.size(); ++k) {
        std::printf("exec flush: image %zu: %zu samples in its last 5 ms (%zu in the 20 ms "
                    "before)\n",
                    k, last[k], stage[k]);
        last_samples += last[k];
        EXPECT_GT(last[k], 0u) << "image " << k << " lost its last moments";
    }
    const double expected = 9 * 0.005 * rate;
    std::printf("exec flush: %zu samples in the last 5 ms of 9 images, %.0f expected\n",
                last_samples, expected);
    EXPECT_GE(double(last_samples), 0.6 * expected);
    EXPECT_TRUE(p.reader->accounting_balanced());
}

// 1,000 dlopen/dlclose cycles take about 0.4 s; a sampler that deadlocks
// in the loader's lock does not finish at all, hence the short timeout.
TEST(RecordProcesses, DlopenDlcloseThousandCycles) {
    TempDir dir;
    RunResult r = run_cpcprof(
        dir,
        {"record", "-F", "10000", "-o", "out.cpcprof", "--", FORKER_EXE, "dlopen", "1000", DLIB_SO},
        15);
    ASSERT_FALSE(r.timed_out) << "hung (killed after 15 s)\n" << r.out << r.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_with(r.out, "dlopen cycles 1000 unloaded 1000").size(), 1u) << r.out;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    size_t mappings = 0, unloaded = 0;
    for (const storage::ModuleRecord &m : p.reader->modules())
        if (m.info.path == DLIB_SO) {
            ++mappings;
            unloaded += m.unload_ns.has_value();
        }
    ProfileSymbols syms(*p.reader);
    size_t in_lib = 0, lib_unknown = 0;
    for (const SampleCopy &s : p.samples) {
        std::string f = syms.function(s.pid, s.frames[0], s.time_ns);
        in_lib += f == "dlib_work";
        // A caller in the loop but a leaf no mapping explains: the
        // library's code ran while the profile had no mapping for it.
        auto names = syms.stack(s.view());
        lib_unknown += f.empty() && names.size() > 1 && names[1] == "main";
    }
    std::printf("dlopen loop: %zu mappings of the library (%zu unloaded), %zu samples in "
                "dlib_work, %zu leaves unexplained under main\n",
                mappings, unloaded, in_lib, lib_unknown);
    EXPECT_GE(mappings, 1u);
    EXPECT_GT(in_lib, 100u);
    EXPECT_TRUE(p.reader->accounting_balanced());
}

namespace {

void own_handler_case(const char *mode) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", OWNHANDLER_EXE, mode});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_with(r.out, std::string("ownhandler ") + mode + " ok").size(), 1u) << r.out;
    std::printf("%s", r.err.c_str());
    // Warned, once.
    EXPECT_EQ(count_lines_containing(r.err, "sampling signal"), 1u) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ProfileSymbols syms(*p.reader);
    EXPECT_GT(samples_in(p, syms, "oh_spin"), 250u); // at least the first 0.3 s
}

} // namespace

TEST(RecordOwnHandler, TargetInstallsItsOwnSigemtHandler) {
    own_handler_case("handler");
}

TEST(RecordOwnHandler, TargetBlocksSigemt) {
    own_handler_case("block");
}
