// SPDX-License-Identifier: MIT
// bench_storage: bytes per sample on disk and write/read throughput of the
// .cpcprof writer, on a synthetic but realistic profile.  On demand, not
// part of ctest:
//
//   build/dev/tests/bench/bench_storage [--samples N] [--stacks N] [--depth N]
//                                       [--threads N] [--batch N] [-o FILE]
//
// Defaults: 1,000,000 samples over 5,000 distinct stacks 45 deep (sharing
// outer frames like a real call tree), 2 threads sampled at 4 kHz each,
// 2 values per sample (the sampling event's period, as the recorder
// writes it, and a counter delta), committed every 1,000 samples (~the recorder's 100 ms).
// Stack popularity is Zipf-like, as in real profiles.
//
// Budget (issue 3): <= 41 bytes per sample including the stack tables
// (perf.data: 41 without stacks, 242 with).
#include "tests/support/files.h"            // tests/support: file_size
#include "tests/support/synthetic_stacks.h" // tests/support

#include "storage/profile.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace cpcprof::storage;
using namespace cpcprof::test;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    uint64_t samples = 1'000'000;
    unsigned stacks = 5000;
    unsigned depth = 45;
    unsigned threads = 2;
    unsigned batch = 1000;
    std::string output;
};

bool parse(int argc, char **argv, Options *o) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            return false;
        const char *v = argv[++i];
        if (a == "--samples")
            o->samples = std::strtoull(v, nullptr, 10);
        else if (a == "--stacks")
            o->stacks = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "--depth")
            o->depth = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "--threads")
            o->threads = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "--batch")
            o->batch = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "-o")
            o->output = v;
        else
            return false;
    }
    return o->samples > 0 && o->stacks > 0 && o->depth > 0 && o->threads > 0 && o->batch > 0;
}

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// Bytes per table and index, through SQLite's dbstat table (when built in).
void print_breakdown(const std::string &path, double samples) {
    auto tables = table_sizes(path);
    if (!tables) {
        std::printf("  (no per-table breakdown: this SQLite has no dbstat)\n");
        return;
    }
    std::printf("  by table (dbstat):\n");
    for (const TableSize &t : *tables)
        std::printf("    %-20s %10.0f bytes %6lld pages  %6.2f bytes/sample\n", t.name.c_str(),
                    t.bytes, t.pages, t.bytes / samples);
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr,
                     "usage: %s [--samples N] [--stacks N] [--depth N] [--threads N] "
                     "[--batch N] [-o FILE]\n",
                     argv[0]);
        return 2;
    }
    bool keep = !o.output.empty();
    if (!keep)
        o.output = "/tmp/bench_storage." + std::to_string(getpid()) + ".cpcprof";

    std::mt19937_64 rng(42);
    auto stacks = tree_shaped_stacks(o.stacks, o.depth, rng);
    auto cdf = zipf_cdf(o.stacks);
    std::uniform_real_distribution<double> uniform(0, 1);
    const int64_t t0 = 1'000'000'000'000;

    std::string error;
    auto w = Writer::create(o.output, &error);
    if (!w) {
        std::fprintf(stderr, "bench_storage: %s\n", error.c_str());
        return 1;
    }
    RunInfo run;
    run.command = {"./workload"};
    run.events = {{"cycles", 1'000'000, true}, {"instructions", 0, false}};
    run.start_mono_ns = t0;
    run.call_graph = "libunwind";
    run.max_depth = o.depth;
    w->begin_run(run);
    w->add_process({1000, 1, {"./workload"}, "/usr/bin/workload", t0});
    for (unsigned t = 0; t < o.threads; ++t)
        w->add_thread({1000, static_cast<int>(1000 + t), "worker"});

    std::vector<int64_t> thread_time(o.threads, t0);
    uint64_t values[2];
    auto start = Clock::now();
    for (uint64_t i = 0; i < o.samples; ++i) {
        unsigned t = static_cast<unsigned>(i % o.threads);
        thread_time[t] += 250'000 + static_cast<int64_t>(rng() % 20'000); // 4 kHz, jitter
        size_t k = std::lower_bound(cdf.begin(), cdf.end(), uniform(rng)) - cdf.begin();
        k = std::min<size_t>(k, stacks.size() - 1);
        values[0] = 1'000'000;                   // the period (storage refuses others)
        values[1] = 500'000 + rng() % 2'500'000; // instructions in that period
        Sample s{1000, static_cast<int>(1000 + t), thread_time[t], true, stacks[k], values};
        w->add_sample(s);
        if ((i + 1) % o.batch == 0) {
            w->add_accounting(1000, {o.batch, o.batch, 0});
            if (!w->commit())
                break;
        }
    }
    w->add_accounting(1000, {o.samples % o.batch, o.samples % o.batch, 0});
    auto written = Clock::now();
    uint64_t nodes = w->stack_nodes();
    if (!w->finish(thread_time[0], &error)) {
        std::fprintf(stderr, "bench_storage: %s\n", error.c_str());
        return 1;
    }
    auto finished = Clock::now();

    // Read it all back.
    auto r = Reader::open(o.output, &error);
    if (!r) {
        std::fprintf(stderr, "bench_storage: %s\n", error.c_str());
        return 1;
    }
    auto opened = Clock::now();
    uint64_t read = 0, frames = 0;
    if (!r->for_each_sample(
            [&](const StoredSample &s) {
                ++read;
                frames += s.frames.size();
            },
            &error)) {
        std::fprintf(stderr, "bench_storage: %s\n", error.c_str());
        return 1;
    }
    auto done = Clock::now();

    const double n = static_cast<double>(o.samples);
    const double size = static_cast<double>(file_size(o.output));
    const double write_s = seconds(written - start);
    std::printf("bench_storage: %llu samples, %u distinct stacks of depth %u (%llu trie nodes), "
                "%u threads, 2 values, commit every %u samples\n",
                static_cast<unsigned long long>(o.samples), o.stacks, o.depth,
                static_cast<unsigned long long>(nodes), o.threads, o.batch);
    std::printf("  file          %.0f bytes = %.2f bytes/sample (budget 41; perf.data 41 without "
                "stacks, 242 with)\n",
                size, size / n);
    std::printf("  write         %.3f s = %.0f samples/s (%.0f rows/s counting new trie nodes)\n",
                write_s, n / write_s, (n + static_cast<double>(nodes)) / write_s);
    std::printf("  finish        %.3f s (index, checkpoint, back to rollback journal)\n",
                seconds(finished - written));
    std::printf("  open          %.3f s (integrity_check, schema, trie)\n",
                seconds(opened - finished));
    std::printf("  read          %.3f s = %.0f samples/s, %.1f frames/sample\n",
                seconds(done - opened), static_cast<double>(read) / seconds(done - opened),
                static_cast<double>(frames) / static_cast<double>(read));
    print_breakdown(o.output, n);
    r.reset();
    if (!keep)
        ::unlink(o.output.c_str());
    return read == o.samples ? 0 : 1;
}
