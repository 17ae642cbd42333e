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
#include "storage/profile.h"

#include <sqlite3.h>
#include <sys/stat.h>
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

// Distinct stacks, leaf first, shaped like a call tree: each new stack
// follows an earlier one for its outer frames (5 to depth-1 of them),
// then goes its own way.  Addresses are return addresses in a PIE
// executable and in a shared library, as a real process has them.
std::vector<std::vector<uint64_t>> make_stacks(const Options &o, std::mt19937_64 &rng) {
    auto address = [&] {
        bool lib = rng() % 3 == 0;
        return (lib ? 0x7f3a5c200000ULL : 0x55d0c8a00000ULL) + (rng() % (8u << 20));
    };
    std::vector<std::vector<uint64_t>> root_first;
    for (unsigned k = 0; k < o.stacks; ++k) {
        std::vector<uint64_t> s;
        if (k > 0) {
            const auto &base = root_first[rng() % k];
            unsigned keep = std::min<unsigned>(o.depth - 1, 5 + rng() % o.depth);
            s.assign(base.begin(), base.begin() + std::min<size_t>(keep, base.size()));
        }
        while (s.size() < o.depth)
            s.push_back(address());
        root_first.push_back(std::move(s));
    }
    for (auto &s : root_first)
        std::reverse(s.begin(), s.end());
    return root_first;
}

// Zipf(1) over stack ranks.
std::vector<double> popularity(unsigned n) {
    std::vector<double> cdf(n);
    double sum = 0;
    for (unsigned r = 0; r < n; ++r)
        cdf[r] = (sum += 1.0 / (r + 1));
    for (double &c : cdf)
        c /= sum;
    return cdf;
}

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

int64_t file_size(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// Bytes per table and index, through SQLite's dbstat table (when built in).
void print_breakdown(const std::string &path, double samples) {
    sqlite3 *db = nullptr;
    sqlite3_stmt *st = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT name, sum(pgsize), count(*) FROM dbstat GROUP BY name "
                           "ORDER BY sum(pgsize) DESC",
                           -1, &st, nullptr) == SQLITE_OK) {
        std::printf("  by table (dbstat):\n");
        while (sqlite3_step(st) == SQLITE_ROW) {
            double bytes = static_cast<double>(sqlite3_column_int64(st, 1));
            std::printf("    %-20s %10.0f bytes %6lld pages  %6.2f bytes/sample\n",
                        reinterpret_cast<const char *>(sqlite3_column_text(st, 0)), bytes,
                        static_cast<long long>(sqlite3_column_int64(st, 2)), bytes / samples);
        }
    } else {
        std::printf("  (no per-table breakdown: this SQLite has no dbstat)\n");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
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
    auto stacks = make_stacks(o, rng);
    auto cdf = popularity(o.stacks);
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
        values[0] = 1'000'000;                  // the period (storage refuses others)
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
