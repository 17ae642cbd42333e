// SPDX-License-Identifier: MIT
// Symbols as a report shows them, on real code: a stripped program's
// functions are one row each, named by where their FDE begins; and an
// address that is one sample's PC and another's return address gets the
// line of its own instruction as a leaf and the line of the call before it
// as a caller.  Expected values come from binutils (nm, readelf, objdump,
// addr2line) on the unstripped workload, not from the symbolizer.
#include "tests/record/record_harness.h"
#include "tests/support/binomial.h"

#include <gtest/gtest.h>

#include "profiler/analysis/query.h"
#include "storage/profile.h"

#include <cstdio>
#include <map>
#include <sstream>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

std::string command_output(const std::string &command) {
    std::string out;
    if (FILE *p = popen(command.c_str(), "r")) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0)
            out.append(buf, n);
        pclose(p);
    }
    return out;
}

struct Segment {
    uint64_t offset = 0, vaddr = 0, filesz = 0;
};

// The executable PT_LOAD of path, by readelf.
std::optional<Segment> text_segment(const std::string &path) {
    std::istringstream in(command_output("readelf -lW '" + path + "'"));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        std::string type, offset, vaddr, paddr, filesz, memsz, flags;
        l >> type >> offset >> vaddr >> paddr >> filesz >> memsz >> flags;
        if (type == "LOAD" && line.find(" R E ") != std::string::npos)
            return Segment{std::stoull(offset, nullptr, 16), std::stoull(vaddr, nullptr, 16),
                           std::stoull(filesz, nullptr, 16)};
    }
    return std::nullopt;
}

// The ELF address of a defined symbol, by nm; 0 if none.
uint64_t symbol_address(const std::string &path, const std::string &name) {
    std::istringstream in(command_output("nm --defined-only '" + path + "'"));
    std::string address, type, symbol;
    while (in >> address >> type >> symbol)
        if (symbol == name)
            return std::stoull(address, nullptr, 16);
    return 0;
}

// "file:line" of an ELF address, by addr2line (innermost inline frame);
// "" when unknown.
std::string line_of(const std::string &path, uint64_t vaddr) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(vaddr));
    std::string out = command_output("addr2line -e '" + path + "' " + hex);
    out = out.substr(0, out.find_first_of(" \n"));
    size_t slash = out.rfind('/');
    if (slash != std::string::npos)
        out = out.substr(slash + 1);
    return out.find('?') == std::string::npos ? out : "";
}

// A return address R of a call in wl_* or main whose own line and whose
// call's line (R - 1) differ, by objdump and addr2line.
std::optional<uint64_t> return_address_with_two_lines(const std::string &path) {
    std::istringstream in(command_output("objdump -d --no-show-raw-insn '" + path + "'"));
    std::string line, function;
    bool after_call = false;
    while (std::getline(in, line)) {
        if (line.size() > 2 && line.back() == ':' && line.find('<') != std::string::npos) {
            function = line.substr(line.find('<') + 1);
            after_call = false;
            continue;
        }
        size_t colon = line.find(':');
        if (colon == std::string::npos || line.empty() || line[0] != ' ')
            continue;
        uint64_t address = std::stoull(line.substr(0, colon), nullptr, 16);
        bool ours = function.starts_with("wl_") || function.starts_with("main");
        if (after_call && ours && !line_of(path, address).empty() &&
            !line_of(path, address - 1).empty() &&
            line_of(path, address) != line_of(path, address - 1))
            return address;
        after_call = line.find("\tcall") != std::string::npos;
    }
    return std::nullopt;
}

std::string hex(uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
    return b;
}

// "file:line" (file name only) of a frame; "" when unknown.
std::string frame_line(const cpcprof::analysis::Query &q, const cpcprof::analysis::PathFrame &f) {
    if (f.line == 0)
        return "";
    std::string file = q.files()[f.file];
    return file.substr(file.rfind('/') + 1) + ":" + std::to_string(f.line);
}

} // namespace

TEST(UnnamedCli, StrippedFunctionsAreOneRowEachNamedByTheirFde) {
    auto segment = text_segment(WORKLOAD_FP);
    uint64_t compute = symbol_address(WORKLOAD_FP, "wl_compute");
    if (!segment || compute == 0)
        GTEST_SKIP() << "readelf or nm cannot read " << WORKLOAD_FP;
    const std::string expected =
        "workload_stripped+0x" + hex(compute - segment->vaddr + segment->offset);
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", WORKLOAD_STRIPPED,
                                    "--seconds", "0.4", "--split", "10,10,80"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find(" others grouped into functions by their FDE"), std::string::npos)
        << r.err;
    std::string error;
    auto q = cpcprof::analysis::Query::open(dir.file("out.cpcprof"), {}, &error);
    ASSERT_TRUE(q) << error;
    // wl_compute's samples: one function, however many addresses they hit.
    std::vector<uint32_t> fns = q->find_functions(expected);
    ASSERT_EQ(fns.size(), 1u) << expected << " is not a function of the report";
    EXPECT_FALSE(q->functions()[fns[0]].has_symbols);
    uint64_t stripped_self = 0, hottest = 0;
    for (uint32_t f = 0; f < q->functions().size(); ++f) {
        hottest = std::max(hottest, q->function_self()[f].samples);
        if (q->functions()[f].module.ends_with("workload_stripped")) {
            stripped_self += q->function_self()[f].samples;
            // PLT stubs keep their names (from the dynamic relocations,
            // which stripping leaves): a sample may land in one.
            if (!q->functions()[f].name.ends_with("@plt")) {
                EXPECT_FALSE(q->functions()[f].has_symbols) << q->functions()[f].name;
            }
        }
    }
    EXPECT_EQ(q->function_self()[fns[0]].samples, hottest) << "wl_compute is the hottest";
    // All of them: its share of the program's samples is its share of the
    // CPU time the workload measured for itself, but for the binomial
    // spread of that many samples.  The setup is in the total though its
    // page faults are kernel time, which the sampler skips: the share
    // expected is a little low, never high.
    std::map<std::string, double> cpu = workload_seconds(r.out);
    ASSERT_EQ(cpu.size(), 5u) << r.out;
    double all = 0;
    for (const auto &[f, s] : cpu)
        all += s;
    double share = cpu["wl_phase_compute"] / all;
    uint64_t in_compute = q->function_self()[fns[0]].samples;
    EXPECT_GE(in_compute, binomial_lower_bound(stripped_self, share))
        << "wl_compute's samples in one row: " << binomial_story(in_compute, stripped_self, share)
        << "\n"
        << r.out;
    auto lacking = q->modules_lacking_names();
    ASSERT_FALSE(lacking.empty());
    EXPECT_TRUE(lacking[0].path.ends_with("workload_stripped")) << lacking[0].path;
    EXPECT_EQ(lacking[0].cost.samples, q->total().samples) << "every sample starts there";
    // record's summary names it, with its share, as report's header does.
    EXPECT_NE(r.err.find("cpcprof: modules without symbols: " + lacking[0].path +
                         " (100.0 % of samples)"),
              std::string::npos)
        << r.err;
    RunResult rep = run_cpcprof(dir, {"report", "out.cpcprof"});
    ASSERT_EQ(rep.status, 0) << rep.err;
    const std::string line =
        "modules without symbols: " + cpcprof::analysis::modules_lacking_names_text(*q);
    EXPECT_NE(rep.out.find("# " + line + "\n"), std::string::npos) << rep.out;
    EXPECT_NE(r.err.find("cpcprof: " + line + "\n"), std::string::npos) << r.err;
}

TEST(UnnamedCli, PcAndReturnAddressGetTheirOwnLines) {
    auto segment = text_segment(WORKLOAD_FP);
    auto ret = return_address_with_two_lines(WORKLOAD_FP);
    uint64_t leaf = symbol_address(WORKLOAD_FP, "wl_compute");
    if (!segment || !ret || leaf == 0)
        GTEST_SKIP() << "binutils found no call in the workload whose return address and call "
                        "have different lines";
    // A profile of the workload's file mapped at 0x555555554000: R as the
    // PC of 3 samples, and as the return address of 2 that stopped in
    // wl_compute.
    const uint64_t base = 0x555555554000;
    TempDir dir;
    const std::string file = dir.file("roles.cpcprof");
    std::string error;
    auto w = storage::Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    storage::RunInfo run;
    run.command = {WORKLOAD_FP};
    run.events = {{"cpu-clock", 1'000'000, true}};
    run.start_mono_ns = 1'000'000'000;
    run.call_graph = "dwarf";
    run.max_depth = 128;
    w->begin_run(run);
    w->add_process({100, 1, {WORKLOAD_FP}, WORKLOAD_FP, run.start_mono_ns});
    w->add_thread({100, 100, "workload"});
    w->add_module({100, WORKLOAD_FP, "", base + segment->vaddr,
                   base + segment->vaddr + segment->filesz, segment->offset, run.start_mono_ns});
    const std::vector<uint64_t> value = {1'000'000};
    const std::vector<uint64_t> as_pc = {base + *ret};
    const std::vector<uint64_t> as_return = {base + leaf, base + *ret};
    int64_t t = run.start_mono_ns;
    for (int i = 0; i < 3; ++i)
        w->add_sample({100, 100, ++t, false, as_pc, value});
    for (int i = 0; i < 2; ++i)
        w->add_sample({100, 100, ++t, false, as_return, value});
    w->add_accounting(100, {5, 5, 0});
    ASSERT_TRUE(w->finish(t + 1, &error)) << error;
    w.reset();
    RunResult r = run_cpcprof(dir, {"symbolize", file});
    ASSERT_EQ(r.status, 0) << r.err;

    auto q = cpcprof::analysis::Query::open(file, {}, &error);
    ASSERT_TRUE(q) << error;
    const std::string own = line_of(WORKLOAD_FP, *ret), call = line_of(WORKLOAD_FP, *ret - 1);
    std::map<std::string, uint64_t> leaf_lines, caller_lines;
    for (size_t i = 0; i < q->stack_count(); ++i) {
        std::vector<cpcprof::analysis::PathFrame> s = q->stack(i);
        if (s.size() == 1)
            leaf_lines[frame_line(*q, s.back())] += q->stack_cost(i).samples;
        else if (s.size() >= 2)
            // The innermost frame of R's own chain sits right above wl_compute's.
            caller_lines[frame_line(*q, s[s.size() - 2])] += q->stack_cost(i).samples;
    }
    EXPECT_EQ(leaf_lines, (std::map<std::string, uint64_t>{{own, 3}})) << "call at " << call;
    EXPECT_EQ(caller_lines, (std::map<std::string, uint64_t>{{call, 2}})) << "own line " << own;
}
