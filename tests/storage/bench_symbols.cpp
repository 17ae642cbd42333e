// SPDX-License-Identifier: MIT
// bench_symbols: size of the symbol tables and speed of the symbol path on
// a synthetic profile.  On demand, not part of ctest:
//
//   build/dev/tests/storage/bench_symbols [--samples N] [--stacks N] [--depth N]
//                                         [--processes N] [-o FILE]
//
// Defaults: 1,000,000 samples over 5,000 distinct stacks 45 deep that share
// outer frames like a call tree (~100k distinct addresses), in 2 processes
// with the same mappings (an executable and a library), Zipf popularity.
// Each address resolves to 1-3 frames (inlining) among ~20k function names
// of ~60 characters and ~2k source files.  Prints the bytes the symbols
// add (per table, from dbstat), and the time of SymbolWriter::addresses(),
// of writing the symbols, of Reader::open, and of a report's aggregation:
// every sample located (StackLocator) and its cost summed per function.
#include "tests/support/files.h"            // tests/support: file_size
#include "tests/support/synthetic_stacks.h" // tests/support

#include "storage/profile.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace cpcprof::storage;
using namespace cpcprof::test;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    uint64_t samples = 1'000'000;
    unsigned stacks = 5000, depth = 45, processes = 2;
    std::string output;
};

bool parse(int argc, char **argv, Options *o) {
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        const char *v = argv[i + 1];
        if (a == "--samples")
            o->samples = std::strtoull(v, nullptr, 10);
        else if (a == "--stacks")
            o->stacks = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "--depth")
            o->depth = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "--processes")
            o->processes = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
        else if (a == "-o")
            o->output = v;
        else
            return false;
    }
    return argc % 2 == 1 && o->samples > 0 && o->stacks > 0 && o->depth > 0 && o->processes > 0;
}

constexpr uint64_t kExe = kSyntheticExe, kLib = kSyntheticLib, kSpan = kSyntheticSpan;
constexpr int64_t kStart = 1'000'000'000'000;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

bool write_profile(const Options &o, const std::string &path) {
    std::mt19937_64 rng(42);
    auto stacks = tree_shaped_stacks(o.stacks, o.depth, rng);
    std::vector<double> cdf = zipf_cdf(o.stacks);
    std::string error;
    auto w = Writer::create(path, &error);
    if (!w) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return false;
    }
    RunInfo run;
    run.events = {{"cpu-clock", 250'000, true}, {"instructions", 0, false}};
    run.start_mono_ns = kStart;
    w->begin_run(run);
    for (unsigned p = 0; p < o.processes; ++p) {
        int pid = 1000 + static_cast<int>(p);
        w->add_process({pid, 1, {"prog"}, "/usr/bin/prog", kStart});
        w->add_module({pid, "/usr/bin/prog", "aa", kExe, kExe + kSpan, 0, kStart});
        w->add_module({pid, "/usr/lib/libbig.so", "bb", kLib, kLib + kSpan, 0, kStart});
    }
    uint64_t values[2] = {250'000, 0};
    for (uint64_t i = 0; i < o.samples; ++i) {
        double u = std::uniform_real_distribution<double>(0, 1)(rng);
        size_t k = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        const auto &frames = stacks[std::min<size_t>(k, stacks.size() - 1)];
        int pid = 1000 + static_cast<int>(i % o.processes);
        values[1] = 100'000 + i % 1000;
        w->add_sample({pid, pid, kStart + static_cast<int64_t>(i) * 250'000, true, frames, values});
        if (i % 1000 == 999)
            w->commit();
    }
    for (unsigned p = 0; p < o.processes; ++p) {
        uint64_t n = o.samples / o.processes + (p < o.samples % o.processes);
        w->add_accounting(1000 + static_cast<int>(p), {n, n, 0});
    }
    if (!w->finish(kStart + static_cast<int64_t>(o.samples) * 250'000, &error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return false;
    }
    return true;
}

// 1-3 frames per address from pools of names and files.
std::vector<SymbolFrame> answer(uint64_t offset) {
    std::mt19937_64 rng(offset);
    auto function = [&] {
        return "project::module_" + std::to_string(rng() % 200) + "::Class<int>::method_" +
               std::to_string(rng() % 100) + "(std::string const&, int)";
    };
    auto file = [&] {
        return "/build/src/dir" + std::to_string(rng() % 40) + "/file_" +
               std::to_string(rng() % 50) + ".cpp";
    };
    std::vector<SymbolFrame> frames;
    unsigned inlined = rng() % 4 == 0 ? 1 + rng() % 2 : 0;
    for (unsigned i = 0; i < inlined; ++i)
        frames.push_back({function(), file(), static_cast<int>(rng() % 2000), true});
    frames.push_back({function(), file(), static_cast<int>(rng() % 2000), false});
    return frames;
}

// What the symbol tables take, through SQLite's dbstat table (when built in).
void print_tables(const std::string &path, double addresses) {
    auto tables = table_sizes(path);
    if (!tables) {
        std::printf("  (no per-table breakdown: this SQLite has no dbstat)\n");
        return;
    }
    for (const TableSize &t : *tables)
        if (t.name == "symbol" || t.name == "function_name" || t.name == "source_file")
            std::printf("  %-14s %10.0f bytes  %6.1f bytes/address\n", t.name.c_str(), t.bytes,
                        t.bytes / addresses);
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr,
                     "usage: %s [--samples N] [--stacks N] [--depth N] [--processes N] "
                     "[-o FILE]\n",
                     argv[0]);
        return 2;
    }
    std::string path =
        o.output.empty() ? "/tmp/bench_symbols." + std::to_string(getpid()) + ".cpcprof" : o.output;
    auto t = Clock::now();
    if (!write_profile(o, path))
        return 1;
    int64_t unsymbolized = file_size(path);
    std::printf("profile: %llu samples, %u stacks x %u, %u processes: %.2f s, %lld bytes\n",
                static_cast<unsigned long long>(o.samples), o.stacks, o.depth, o.processes,
                since(t), static_cast<long long>(unsymbolized));

    std::string error;
    t = Clock::now();
    auto w = SymbolWriter::open(path, &error);
    if (!w) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    double open_s = since(t);
    t = Clock::now();
    std::vector<AddressToResolve> addresses = w->addresses();
    double addresses_s = since(t);
    size_t frames = 0;
    t = Clock::now();
    for (const AddressToResolve &a : addresses) {
        std::vector<SymbolFrame> chain = answer(a.offset);
        frames += chain.size();
        w->add(a.module_id, a.offset, chain);
    }
    w->set_module_symbols(1, true);
    w->set_module_symbols(2, true);
    if (!w->finish(&error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    double write_s = since(t);
    int64_t symbolized = file_size(path);
    double n = static_cast<double>(addresses.size());
    std::printf("symbolize: open %.3f s, addresses() %.3f s for %zu addresses, "
                "add + finish %.3f s for %zu frames\n",
                open_s, addresses_s, addresses.size(), write_s, frames);
    std::printf("symbol tables: %lld bytes = %.1f bytes/address = %.2f bytes/sample\n",
                static_cast<long long>(symbolized - unsymbolized),
                static_cast<double>(symbolized - unsymbolized) / n,
                static_cast<double>(symbolized - unsymbolized) / static_cast<double>(o.samples));
    print_tables(path, n);

    t = Clock::now();
    auto r = Reader::open(path, &error);
    if (!r) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    std::printf("Reader::open (integrity_check, trie, %u chains): %.3f s\n",
                r->symbol_table().size(), since(t));
    // A report: cost per located node over every sample, then per function
    // (self and total), each located node visited once.
    t = Clock::now();
    StackLocator loc(*r);
    std::vector<uint64_t> self;
    bool ok = r->for_each_sample(
        [&](const StoredSample &s) {
            uint32_t node = loc.locate(s);
            if (node >= self.size())
                self.resize(loc.nodes().size() * 2);
            self[node] += s.values.empty() ? 0 : s.values[0];
        },
        &error, Reader::Frames::skip);
    double scan_s = since(t);
    const SymbolTable &symbols = r->symbol_table();
    std::vector<uint64_t> by_function(symbols.functions().size());
    self.resize(loc.nodes().size());
    for (size_t i = 1; i < self.size(); ++i)
        for (const FrameRef &f :
             symbols.frames(loc.nodes()[i].chain)
                 .first(std::min<size_t>(1, symbols.frames(loc.nodes()[i].chain).size())))
            by_function[f.function] += self[i];
    double report_s = since(t);
    if (!ok) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    std::printf("report: %llu samples located in %.3f s (%zu located nodes); "
                "self cost per function %.3f s in all\n",
                static_cast<unsigned long long>(r->sample_count()), scan_s, loc.nodes().size(),
                report_s);
    if (o.output.empty())
        ::unlink(path.c_str());
    return 0;
}
