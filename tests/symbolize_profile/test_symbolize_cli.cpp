// SPDX-License-Identifier: MIT
// Symbolization as a user meets it: `cpcprof record` names the target's
// functions when it ends (unless --no-symbolize), `cpcprof symbolize FILE`
// does it later, a stripped module is reported without symbols until its
// debug file is given, and files that are not profiles are refused.
// Names are read back the way a report reads them (StackLocator +
// SymbolTable), not from the symbolizer.
#include "tests/cpcprof/cli_helpers.h"
#include "tests/record/record_harness.h"
#include "tests/symbolize_profile/profile_names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;
namespace fs = std::filesystem;

namespace {

// Most of the main thread's CPU time in wl_compute: the hottest function.
const std::vector<std::string> kWorkloadArgs = {"--seconds",        "0.4", "--split", "10,10,80",
                                                "--thread-seconds", "0.05"};

std::vector<std::string> record_args(const std::string &exe, std::vector<std::string> options) {
    std::vector<std::string> args{"record", "-o", "out.cpcprof"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.push_back(exe);
    args.insert(args.end(), kWorkloadArgs.begin(), kWorkloadArgs.end());
    return args;
}

struct SymbolizeLine {
    uint64_t resolved = 0, addresses = 0, modules = 0;
    std::string rest; // after "modules", e.g. " (1 without symbols: PATH)"
};

// The "symbolized R of N addresses in M modules ..." line of stderr.
std::optional<SymbolizeLine> symbolize_line(const std::string &err) {
    static const std::regex re(R"(symbolized (\d+) of (\d+) addresses in (\d+) modules?([^\n]*))");
    std::smatch m;
    if (!std::regex_search(err, m, re))
        return std::nullopt;
    return SymbolizeLine{std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3]), m[4]};
}

FunctionCounts counts_of(const std::string &path) {
    FunctionCounts c;
    std::string error;
    auto reader = storage::Reader::open(path, &error);
    EXPECT_NE(reader, nullptr) << error;
    if (reader) {
        EXPECT_TRUE(function_counts(*reader, &c, &error)) << error;
    }
    return c;
}

// The workload's own functions, as a report of the file shows them.
void expect_workload_names(const std::string &path) {
    FunctionCounts c = counts_of(path);
    ASSERT_GT(c.samples, 100u);
    EXPECT_EQ(hottest(c), "wl_compute");
    for (const char *f : {"main", "wl_phase_compute", "wl_compute", "wl_thread_main"})
        EXPECT_GT(c.total[f], 0u) << f << " is on no stack";
    EXPECT_TRUE(c.file_of["wl_compute"].ends_with("workload.c")) << c.file_of["wl_compute"];
}

} // namespace

TEST(SymbolizeCli, RecordStoresTheTargetsFunctionNames) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, record_args(WORKLOAD_FP, {}));
    ASSERT_EQ(r.status, 0) << r.err;
    auto line = symbolize_line(r.err);
    ASSERT_TRUE(line) << "no symbolize summary in:\n" << r.err;
    EXPECT_GT(line->resolved, 0u);
    EXPECT_LE(line->resolved, line->addresses);
    EXPECT_GE(line->modules, 2u) << "the workload and libc at least";

    auto reader = storage::Reader::open(dir.file("out.cpcprof"), &r.err);
    ASSERT_NE(reader, nullptr) << r.err;
    EXPECT_TRUE(reader->symbolized());
    const storage::ModuleRecord *exe = module_of(*reader, WORKLOAD_FP);
    ASSERT_NE(exe, nullptr);
    EXPECT_EQ(exe->has_symbols, std::optional<bool>(true));
    expect_workload_names(dir.file("out.cpcprof"));
}

TEST(SymbolizeCli, NoSymbolizeLeavesTheFileForSymbolizeToName) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, record_args(WORKLOAD_FP, {"--no-symbolize"}));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(symbolize_line(r.err)) << r.err;
    {
        auto reader = storage::Reader::open(dir.file("out.cpcprof"), &r.err);
        ASSERT_NE(reader, nullptr) << r.err;
        EXPECT_FALSE(reader->symbolized());
        EXPECT_TRUE(reader->symbol_table().empty());
        for (const storage::ModuleRecord &m : reader->modules())
            EXPECT_FALSE(m.has_symbols.has_value()) << m.info.path;
        FunctionCounts c = counts_of(dir.file("out.cpcprof"));
        EXPECT_EQ(c.unnamed_leaves, c.samples);
    }

    RunResult s = run_cpcprof(dir, {"symbolize", "out.cpcprof"});
    ASSERT_EQ(s.status, 0) << s.err;
    auto line = symbolize_line(s.err);
    ASSERT_TRUE(line) << s.err;
    EXPECT_GT(line->resolved, 0u);
    expect_workload_names(dir.file("out.cpcprof"));

    // Again: the answers replace the earlier ones, they do not add up.
    uint32_t chains = 0;
    {
        auto reader = storage::Reader::open(dir.file("out.cpcprof"), &s.err);
        ASSERT_NE(reader, nullptr) << s.err;
        chains = reader->symbol_table().size();
    }
    RunResult again = run_cpcprof(dir, {"symbolize", "out.cpcprof"});
    ASSERT_EQ(again.status, 0) << again.err;
    auto reader = storage::Reader::open(dir.file("out.cpcprof"), &again.err);
    ASSERT_NE(reader, nullptr) << again.err;
    EXPECT_EQ(reader->symbol_table().size(), chains);
}

// A stripped program: no symbols in the file, and the summary says which
// module; its separate debug file, given with --debug-dir, names it again.
TEST(SymbolizeCli, StrippedModuleHasNoSymbolsUntilItsDebugFileIsGiven) {
    TempDir dir;
    std::string stripped = dir.file("workload_stripped");
    std::string debug = dir.file("workload.debug");
    if (run_quiet({"objcopy", "--version"}) != 0)
        GTEST_SKIP() << "objcopy (binutils) is not installed";
    ASSERT_EQ(run_quiet({"objcopy", "--only-keep-debug", WORKLOAD_FP, debug}), 0);
    ASSERT_EQ(run_quiet({"objcopy", "--strip-all", WORKLOAD_FP, stripped}), 0);

    RunResult r = run_cpcprof(dir, record_args(stripped, {}));
    ASSERT_EQ(r.status, 0) << r.err;
    auto line = symbolize_line(r.err);
    ASSERT_TRUE(line) << r.err;
    // (linux-vdso.so.1 may be listed too, where its build-id is not this kernel's.)
    EXPECT_TRUE(contains(line->rest, " without symbols: ")) << line->rest;
    EXPECT_TRUE(contains(line->rest, stripped)) << line->rest;
    std::string build_id;
    {
        auto reader = storage::Reader::open(dir.file("out.cpcprof"), &r.err);
        ASSERT_NE(reader, nullptr) << r.err;
        const storage::ModuleRecord *exe = module_of(*reader, stripped);
        ASSERT_NE(exe, nullptr);
        EXPECT_EQ(exe->has_symbols, std::optional<bool>(false));
        bool some_with = false;
        for (const storage::ModuleRecord &m : reader->modules())
            some_with = some_with || m.has_symbols == std::optional<bool>(true);
        EXPECT_TRUE(some_with) << "libc keeps its dynamic symbols";
        build_id = exe->info.build_id;
        FunctionCounts c = counts_of(dir.file("out.cpcprof"));
        EXPECT_EQ(c.total.count("wl_compute"), 0u);
    }

    // Installed where a debug directory keeps it, by build-id.
    ASSERT_GT(build_id.size(), 2u);
    fs::path by_id = fs::path(dir.file("debug")) / ".build-id" / build_id.substr(0, 2);
    fs::create_directories(by_id);
    fs::rename(debug, by_id / (build_id.substr(2) + ".debug"));
    RunResult s = run_cpcprof(dir, {"symbolize", "out.cpcprof", "--debug-dir", "debug"});
    ASSERT_EQ(s.status, 0) << s.err;
    line = symbolize_line(s.err);
    ASSERT_TRUE(line) << s.err;
    EXPECT_FALSE(contains(line->rest, stripped)) << line->rest;
    auto reader = storage::Reader::open(dir.file("out.cpcprof"), &s.err);
    ASSERT_NE(reader, nullptr) << s.err;
    EXPECT_EQ(module_of(*reader, stripped)->has_symbols, std::optional<bool>(true));
    expect_workload_names(dir.file("out.cpcprof"));
}

// A program deleted (or rebuilt elsewhere, or in a container that has
// ended) after its recording: symbolizing again keeps the names that its
// file gave, says so, and names what it can read as before.
TEST(SymbolizeCli, AModuleWhoseFileIsGoneKeepsItsEarlierNames) {
    TempDir dir;
    std::string copy = dir.file("workload_copy");
    fs::copy_file(WORKLOAD_FP, copy);
    RunResult r = run_cpcprof(dir, record_args(copy, {}));
    ASSERT_EQ(r.status, 0) << r.err;
    expect_workload_names(dir.file("out.cpcprof"));
    FunctionCounts before = counts_of(dir.file("out.cpcprof"));
    fs::remove(copy);

    RunResult s = run_cpcprof(dir, {"symbolize", "out.cpcprof"});
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_TRUE(contains(s.err, "the earlier names of 1 module kept, its file no longer "
                                "readable here: " +
                                    copy))
        << s.err;
    auto line = symbolize_line(s.err);
    ASSERT_TRUE(line) << s.err;
    EXPECT_FALSE(contains(line->rest, "without symbols: " + copy)) << line->rest;
    EXPECT_GT(line->resolved, 0u) << "libc is named again";
    expect_workload_names(dir.file("out.cpcprof"));
    FunctionCounts after = counts_of(dir.file("out.cpcprof"));
    EXPECT_EQ(after.total, before.total);
    auto reader = storage::Reader::open(dir.file("out.cpcprof"), &s.err);
    ASSERT_NE(reader, nullptr) << s.err;
    bool found = false;
    for (const storage::ModuleRecord &m : reader->modules())
        if (m.info.path == copy) {
            found = true;
            EXPECT_EQ(m.has_symbols, std::optional<bool>(true));
        }
    EXPECT_TRUE(found) << copy << " is not a module of the profile";
}

TEST(SymbolizeCli, RefusesWhatIsNotAProfile) {
    TempDir dir;
    const std::string junk = "not a profile\n";
    std::ofstream(dir.file("junk.cpcprof")) << junk;
    RunResult r = run_cpcprof(dir, {"symbolize", "junk.cpcprof"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.err.starts_with("cpcprof symbolize: junk.cpcprof: ")) << r.err;
    EXPECT_EQ(read_file(dir.file("junk.cpcprof")), junk) << "the file was changed";

    r = run_cpcprof(dir, {"symbolize", "missing.cpcprof"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.err.starts_with("cpcprof symbolize: missing.cpcprof: ")) << r.err;
    EXPECT_FALSE(fs::exists(dir.file("missing.cpcprof")));

    for (std::vector<std::string> usage : {std::vector<std::string>{"symbolize"},
                                           {"symbolize", "a.cpcprof", "b.cpcprof"},
                                           {"symbolize", "--frobnicate", "junk.cpcprof"},
                                           {"symbolize", "junk.cpcprof", "--debug-dir"}}) {
        r = run_cpcprof(dir, usage);
        EXPECT_EQ(r.status, 2) << usage.back() << ": " << r.err;
        EXPECT_TRUE(contains(r.err, "usage: cpcprof symbolize")) << r.err;
    }
}
