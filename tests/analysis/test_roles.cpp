// SPDX-License-Identifier: MIT
// A code address as a PC and as a return address: one address can be a
// sample's leaf (the interrupted instruction, looked up where it is) and
// another sample's caller frame (a return address, looked up inside its
// call), and the two answers are kept apart; and functions that the
// symbolizer named by their FDE count as having no symbol.
#include "profiler/analysis/function_costs.h"
#include "profiler/analysis/query.h"
#include "tests/storage/helpers.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace storagetest;
using namespace cpcprof::analysis;

namespace {

constexpr uint64_t kProg = 0x400000;
constexpr uint64_t kLib = 0x7f0000000000;

struct RolesTest : StorageTest {
    std::string file = path("roles.cpcprof");

    // main (0x1010) > f; f's address 0x2005 is both samples' frame: as
    // the PC of 3 samples (leaf), and as the return address of 2 samples
    // that stopped in g (0x3000).
    void write() {
        std::string error;
        auto w = Writer::create(file, &error);
        ASSERT_TRUE(w) << error;
        w->begin_run(test_run());
        w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
        w->add_thread({100, 100, "prog"});
        w->add_module({100, "/opt/prog", "", kProg, kProg + 0x10000, 0, kStartMono});
        w->add_module({100, "/lib/libz.so", "", kLib, kLib + 0x10000, 0, kStartMono});
        const std::vector<uint64_t> values = {1'000'000, 0};
        int64_t t = kStartMono;
        auto add = [&](const std::vector<uint64_t> &frames, int n) {
            for (int i = 0; i < n; ++i)
                w->add_sample({100, 100, ++t, true, frames, values});
        };
        add({kProg + 0x2005, kProg + 0x1010}, 3);                 // leaf at 0x2005
        add({kProg + 0x3000, kProg + 0x2005, kProg + 0x1010}, 2); // 0x2005 returns from g
        add({kLib + 0x540, kProg + 0x1010}, 4);                   // stripped libz, function 0x500
        add({kLib + 0x510, kLib + 0x548, kProg + 0x1010}, 1);     // the same function twice
        w->add_accounting(100, {10, 10, 0});
        ASSERT_TRUE(w->finish(t + 1, &error)) << error;
    }

    static std::vector<SymbolFrame> at(const char *fn, int line) {
        return {{fn, "/src/a.c", line, false}};
    }
};

// "function:line" of each frame of stack i, root first.
std::vector<std::string> lines(const Query &q, size_t i) {
    std::vector<std::string> out;
    for (const PathFrame &f : q.stack(i))
        out.push_back(q.functions()[f.function].name + ":" + std::to_string(f.line));
    return out;
}

bool has_stack(const Query &q, const std::vector<std::string> &want, uint64_t samples) {
    for (size_t i = 0; i < q.stack_count(); ++i)
        if (lines(q, i) == want)
            return q.stack_cost(i).samples == samples;
    return false;
}

} // namespace

TEST_F(RolesTest, AnAddressUsedBothWaysHasBothLines) {
    write();
    std::string error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    bool both = false;
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path != "/opt/prog")
            continue;
        if (a.offset == 0x2005) {
            both = a.pc && a.return_address;
            s->add(a.module_id, a.offset, at("f", 21));        // the instruction at 0x2005
            s->add_return(a.module_id, a.offset, at("f", 20)); // the call ending there
        } else {
            s->add(a.module_id, a.offset, at(a.offset == 0x1010 ? "main" : "g", int(a.offset)));
        }
    }
    EXPECT_TRUE(both) << "0x2005 is a PC and a return address";
    ASSERT_TRUE(s->finish(&error)) << error;
    // One row per answer: the PC's at 0x2005, the call's at 0x2004.
    EXPECT_EQ(query_text(file, "SELECT group_concat(file_offset) FROM (SELECT file_offset FROM "
                               "symbol WHERE module = 1 ORDER BY file_offset)"),
              "4112,8196,8197,12288");

    auto q = Query::open(file, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_TRUE(has_stack(*q, {"main:4112", "f:21"}, 3));
    EXPECT_TRUE(has_stack(*q, {"main:4112", "f:20", "g:12288"}, 2));
    uint64_t line20 = 0, line21 = 0;
    for (const Query::LineCost &l : q->line_costs()) {
        if (q->functions()[l.function].name != "f")
            continue;
        if (l.line == 20) {
            EXPECT_EQ(l.self.samples, 0u);
            line20 = l.total.samples;
        } else if (l.line == 21) {
            EXPECT_EQ(l.self.samples, 3u);
            line21 = l.total.samples;
        }
    }
    EXPECT_EQ(line20, 2u) << "the call's line holds the samples below the call";
    EXPECT_EQ(line21, 3u) << "the instruction's line holds the samples that stopped on it";
}

// Nothing names 0x2005 as a return address: the caller frame is unnamed,
// not taken for the instruction's line.
TEST_F(RolesTest, AReturnAddressWithoutAnswerIsNotTheLeafsAnswer) {
    write();
    std::string error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path != "/opt/prog")
            continue;
        if (a.offset == 0x2005) {
            s->add(a.module_id, a.offset, at("next_fn", 1));
            s->add_return(a.module_id, a.offset, {});
        } else {
            s->add(a.module_id, a.offset, at(a.offset == 0x1010 ? "main" : "g", 1));
        }
    }
    ASSERT_TRUE(s->finish(&error)) << error;
    auto q = Query::open(file, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_TRUE(has_stack(*q, {"main:1", "next_fn:1"}, 3));
    EXPECT_TRUE(has_stack(*q, {"main:1", "prog+0x2005:0", "g:1"}, 2));
}

// A profile symbolized with one answer per address (as before the roles
// were told apart) reads as it did: that answer in both roles.
TEST_F(RolesTest, OneAnswerServesBothRoles) {
    write();
    std::string error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    for (const AddressToResolve &a : s->addresses())
        if (a.path == "/opt/prog")
            s->add(a.module_id, a.offset, at(a.offset == 0x1010 ? "main" : "f", 5));
    ASSERT_TRUE(s->finish(&error)) << error;
    auto q = Query::open(file, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_TRUE(has_stack(*q, {"main:5", "f:5"}, 3));
    EXPECT_TRUE(has_stack(*q, {"main:5", "f:5", "f:5"}, 2));
    EXPECT_EQ(query_text(file, "SELECT count(*) FROM symbol"), "3");
}

// libz's addresses named by the FDE of their function ("libz.so+0x500", as
// the symbolizer stores them) are one function of a module that lacks names.
TEST_F(RolesTest, FdeNamedFunctionsAreOneFunctionWithoutSymbols) {
    write();
    std::string error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::vector<SymbolFrame> fde_named = {{"libz.so+0x500", "", 0, false}};
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path == "/lib/libz.so")
            s->add(a.module_id, a.offset, fde_named);
        else
            s->add(a.module_id, a.offset, at(a.offset == 0x1010 ? "main" : "f", 5));
        s->set_module_symbols(a.module_id, true); // libz has a .dynsym, naming other functions
    }
    ASSERT_TRUE(s->finish(&error)) << error;
    auto q = Query::open(file, {}, &error);
    ASSERT_TRUE(q) << error;
    std::vector<uint32_t> fns = q->find_functions("libz.so+0x500");
    ASSERT_EQ(fns.size(), 1u);
    EXPECT_FALSE(q->functions()[fns[0]].has_symbols);
    EXPECT_EQ(q->function_self()[fns[0]].samples, 5u);
    EXPECT_EQ(q->function_total()[fns[0]].samples, 5u) << "counted once per sample";
    EXPECT_TRUE(q->modules_without_symbols().empty());
    auto lacking = q->modules_lacking_names();
    ASSERT_EQ(lacking.size(), 1u);
    EXPECT_EQ(lacking[0].path, "/lib/libz.so");
    EXPECT_EQ(lacking[0].cost.samples, 5u);
    EXPECT_TRUE(q->functions()[q->find_functions("main")[0]].has_symbols);
}

// Per instruction (annotate --disassemble, the viewer's source page): the
// samples that stopped at 0x2005 are its own, though 0x2005 is also a
// return address, whose two samples count in the call before it.
TEST_F(RolesTest, PerInstructionCostsKeepAnAddressUsedBothWays) {
    write();
    std::string error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    int64_t prog = 0;
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path != "/opt/prog")
            continue;
        prog = a.module_id;
        if (a.offset == 0x2005) {
            s->add(a.module_id, a.offset, at("f", 21));
            s->add_return(a.module_id, a.offset, at("f", 20));
        } else {
            s->add(a.module_id, a.offset, at(a.offset == 0x1010 ? "main" : "g", int(a.offset)));
        }
    }
    ASSERT_TRUE(s->finish(&error)) << error;
    auto q = Query::open(file, {}, &error);
    ASSERT_TRUE(q) << error;
    Disassembly d;
    d.start = 0x2000;
    d.end = 0x2008;
    d.instructions.resize(2);
    d.instructions[0].address = d.instructions[0].offset = 0x2000;
    d.instructions[1].address = d.instructions[1].offset = 0x2005;
    std::vector<InstructionCost> costs = instruction_costs(*q, prog, d);
    ASSERT_EQ(costs.size(), 2u);
    EXPECT_EQ(costs[1].self.samples, 3u) << "the samples that stopped at 0x2005";
    EXPECT_EQ(costs[1].total.samples, 3u);
    EXPECT_EQ(costs[0].self.samples, 0u);
    EXPECT_EQ(costs[0].total.samples, 2u) << "the call that returns to 0x2005";
}
