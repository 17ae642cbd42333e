// SPDX-License-Identifier: MIT
#include "tests/record/record_harness.h"

#include <sched.h>

#include "tests/support/binomial.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <regex>

namespace cpcprof::test {

namespace {

ProgramOptions cpcprof_options() {
    ProgramOptions o;
    o.own_group = true;
    o.out = "stdout";
    o.err = "stderr";
    // No test asks a debuginfod server but those that start their own.
    o.env = {"DEBUGINFOD_URLS="};
    return o;
}

} // namespace

pid_t start_cpcprof(const TempDir &dir, const std::vector<std::string> &args) {
    std::vector<std::string> all;
#ifdef REFUSE_PERF_EXE
    // The suite's seccomp twin: the recorder and all it starts under a
    // container's verdict on perf_event_open (tests/support/refuse_perf).
    if (std::getenv("CPC_TEST_REFUSE_PERF") != nullptr)
        all = {REFUSE_PERF_EXE, "seccomp"};
#endif
    all.emplace_back(CPCPROF_EXE);
    all.insert(all.end(), args.begin(), args.end());
    return start_program(dir, all, cpcprof_options());
}

RunResult wait_cpcprof(const TempDir &dir, pid_t pid, int timeout_s) {
    return wait_program(dir, pid, cpcprof_options(), timeout_s);
}

RunResult run_cpcprof(const TempDir &dir, const std::vector<std::string> &args, int timeout_s) {
    return wait_cpcprof(dir, start_cpcprof(dir, args), timeout_s);
}

#ifdef REFUSE_PERF_EXE
RunResult run_cpcprof_in_container(const TempDir &dir, const std::vector<std::string> &args,
                                   const std::vector<std::string> &env, const char *filter) {
    std::vector<std::string> all{"/usr/bin/env"};
    all.insert(all.end(), env.begin(), env.end());
    all.insert(all.end(), {REFUSE_PERF_EXE, filter, CPCPROF_EXE});
    all.insert(all.end(), args.begin(), args.end());
    return wait_cpcprof(dir, start_program(dir, all, cpcprof_options()));
}
#endif

bool timer_backend(const Profile &p) {
    return p.reader != nullptr && p.reader->run().counters == "posix-timer";
}

uint64_t unseen_tail_samples(const Profile &p, uint64_t period_ns) {
    return timer_backend(p) ? 150'000'000 / period_ns : 0;
}

std::optional<Summary> parse_summary(const std::string &err) {
    static const std::regex re(
        R"(cpcprof: recorded ([0-9.]+) s: (\d+) process(?:es)?, (\d+) threads?; samples taken (\d+), stored (\d+), dropped (\d+);)");
    std::smatch m;
    if (!std::regex_search(err, m, re))
        return std::nullopt;
    Summary s;
    s.seconds = std::stod(m[1]);
    s.processes = static_cast<unsigned>(std::stoul(m[2]));
    s.threads = static_cast<unsigned>(std::stoul(m[3]));
    s.taken = std::stoull(m[4]);
    s.stored = std::stoull(m[5]);
    s.dropped = std::stoull(m[6]);
    return s;
}

std::map<std::string, double> workload_seconds(const std::string &out) {
    std::map<std::string, double> seconds;
    static const std::regex line(R"((?:share|setup) (\w+) ([0-9.]+))");
    for (const std::string &l : split_lines(out))
        if (std::smatch m; std::regex_match(l, m, line))
            seconds[m[1]] = std::stod(m[2]);
    return seconds;
}

uint64_t ClockReference::fewest_samples() const {
    return binomial_lower_bound(periods, binomial_rate_lower_bound(taken, periods));
}

std::string ClockReference::story(uint64_t samples) const {
    return std::to_string(samples) + " samples, where the kernel counted " +
           std::to_string(periods) + " periods and took " + std::to_string(taken) +
           " of them as overflows of a reference event: between " +
           std::to_string(fewest_samples()) + " and " + std::to_string(most_samples()) +
           " expected";
}

std::optional<ClockReference> clock_reference(const std::string &text, const std::string &name) {
    std::optional<ClockReference> ref;
    for (const std::string &l : lines_with(text, "clock " + name + " ")) {
        unsigned long long periods = 0, taken = 0;
        if (std::sscanf(l.c_str(), "%llu %llu", &periods, &taken) != 2)
            return std::nullopt; // "- -": refused
        if (!ref)
            ref.emplace();
        ref->periods += periods;
        ref->taken += std::min(taken, periods + 1);
    }
    if (ref)
        ref->taken = std::min(ref->taken, ref->periods);
    return ref;
}

storage::StoredSample SampleCopy::view() const {
    storage::StoredSample s;
    s.pid = pid;
    s.tid = tid;
    s.time_ns = time_ns;
    s.complete = complete;
    s.frames = frames;
    s.cpu = cpu;
    return s;
}

Profile load_profile(const std::string &path) {
    Profile p;
    p.reader = storage::Reader::open(path, &p.error);
    if (p.reader == nullptr)
        return p;
    p.reader->for_each_sample(
        [&](const storage::StoredSample &s) {
            p.samples.push_back({s.pid, s.tid, s.time_ns, s.complete,
                                 std::vector<uint64_t>(s.frames.begin(), s.frames.end()), s.cpu});
        },
        &p.error);
    return p;
}

int usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

std::set<int> cpus_of(const Profile &p) {
    std::set<int> cpus;
    for (const SampleCopy &c : p.samples)
        cpus.insert(c.cpu);
    return cpus;
}

const storage::ProcessRecord *process_running(const Profile &p, const std::string &exe_end) {
    for (const storage::ProcessRecord &r : p.reader->processes())
        if (r.info.exe.ends_with(exe_end))
            return &r;
    return nullptr;
}

std::string real_path(const char *path) {
    char buf[PATH_MAX];
    return realpath(path, buf) != nullptr ? std::string(buf) : std::string(path);
}

} // namespace cpcprof::test

namespace {

// In a sanitized build (the asan preset) the agent and libcpc.so carry the
// AddressSanitizer runtime, which refuses to load into the unsanitized
// targets ("ASan runtime does not come first in initial library list"):
// nothing can be recorded, so every test skips and says why.
class SanitizedBuild : public testing::Environment {
  public:
    void SetUp() override {
#ifdef RECORD_AGENT_SANITIZED
        GTEST_SKIP() << "the agent is built with AddressSanitizer, whose runtime cannot be "
                        "preloaded into the unsanitized targets; the record tests run in the "
                        "dev preset";
#endif
    }
};

[[maybe_unused]] testing::Environment *const g_sanitized =
    testing::AddGlobalTestEnvironment(new SanitizedBuild);

} // namespace
