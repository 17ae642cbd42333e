// SPDX-License-Identifier: MIT
// The source page's data on a real recording of cpcprof-demo (tests/view's
// harness): per-line costs (gui/model source_view) equal to what `cpcprof
// annotate FUNC` prints, per-instruction costs (disassembly_view) equal to
// `cpcprof annotate --disassemble FUNC`, and the Qt models over them
// checked with QAbstractItemModelTester.  Offscreen.
#include "tests/view_common/view_harness.h"

#include "gui/itemmodels/cost_model.h"
#include "gui/itemmodels/source_models.h"
#include "gui/model/cost_columns.h"
#include "gui/model/profile_data.h"
#include "gui/model/source_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <sstream>
#include <sys/stat.h>

namespace cpcprof::guitest {
namespace {

using namespace gui;

// The demo's sources in this tree; the recording names the path it was
// compiled at, which need not exist here.
cpcprof::analysis::SourceRoots demo_roots() {
    cpcprof::analysis::SourceRoots r;
    r.dirs = {DEMO_SOURCE_DIR};
    return r;
}

// Rows of annotate's output that samples reached (marked ">"): key (line
// number or address) -> samples, total samples, then self and total per
// event.
std::map<std::string, std::vector<uint64_t>> marked_rows(const std::string &out, size_t events) {
    std::map<std::string, std::vector<uint64_t>> rows;
    std::istringstream in(out);
    std::string line;
    const size_t mark = 3 + 2 * events;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string t; words >> t;)
            w.push_back(t);
        if (w.size() <= mark + 1 || w[mark] != ">")
            continue;
        std::vector<uint64_t> v;
        for (size_t i = 1; i < mark; ++i)
            v.push_back(std::stoull(w[i]));
        rows[w[mark + 1]] = v;
    }
    return rows;
}

std::vector<uint64_t> figures(const cpcprof::analysis::Cost &self,
                              const cpcprof::analysis::Cost &total) {
    std::vector<uint64_t> v = {self.samples, total.samples};
    for (size_t e = 0; e < self.values.size(); ++e) {
        v.push_back(self.values[e]);
        v.push_back(total.values[e]);
    }
    return v;
}

struct SourceModel : ::testing::Test {
    ProfilePtr profile;
    std::string file;
    test::TempDir dir;
    void SetUp() override {
        SKIP_WITHOUT_DEMO_RECORDING();
        file = test::demo_profile();
        ASSERT_FALSE(file.empty());
        std::atomic<bool> cancel{false};
        std::string error;
        profile = load_profile(file, cancel, &error);
        ASSERT_TRUE(profile) << error;
    }
    uint32_t function(const std::string &name) const {
        std::vector<uint32_t> f = profile->query->find_functions(name);
        EXPECT_EQ(f.size(), 1u) << name;
        return f.empty() ? 0 : f[0];
    }
    std::map<std::string, std::vector<uint64_t>> annotate(const std::vector<std::string> &more) {
        std::vector<std::string> args = {"annotate", file, "--source-dir", DEMO_SOURCE_DIR};
        args.insert(args.end(), more.begin(), more.end());
        test::RunResult r = test::cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << r.err;
        return marked_rows(r.out, profile->query->events().size());
    }
};

TEST_F(SourceModel, PerLineCostsEqualAnnotate) {
    for (const char *name : {"walk_list", "main", "checksum", "matrix_multiply"}) {
        SCOPED_TRACE(name);
        uint32_t fn = function(name);
        SourceView v = source_view(*profile->query, fn, demo_roots(), 0);
        EXPECT_FALSE(v.shown_path.empty()) << v.why_not;
        EXPECT_NE(v.shown_path.find(DEMO_SOURCE_DIR), std::string::npos) << v.shown_path;
        std::map<std::string, std::vector<uint64_t>> want = annotate({name});
        std::map<std::string, std::vector<uint64_t>> got;
        for (const SourceLine &l : v.lines)
            if (l.has_cost)
                got[std::to_string(l.line)] = figures(l.self, l.total);
        EXPECT_FALSE(got.empty());
        EXPECT_EQ(got, want);
    }
}

TEST_F(SourceModel, HottestLineIsMarkedFirst) {
    uint32_t fn = function("walk_list");
    SourceView v = source_view(*profile->query, fn, demo_roots(), 0);
    const SourceLine *hot = nullptr;
    uint64_t most = 0;
    for (const SourceLine &l : v.lines) {
        if (l.hot_rank == 1)
            hot = &l;
        most = std::max(most, l.self.values.at(0));
    }
    ASSERT_NE(hot, nullptr);
    EXPECT_EQ(hot->self.values.at(0), most);
    EXPECT_GT(most, 0u);
    // The hottest line is a line of walk_list's body in the file shown.
    EXPECT_NE(hot->text.find_first_not_of(" \t"), std::string::npos);
}

TEST_F(SourceModel, InlinedCodeCountsAtTheLineOfTheCall) {
    // make_list is inlined into main: its samples are in main's total at
    // the line of the call, named there.
    uint32_t fn = function("main");
    SourceView v = source_view(*profile->query, fn, demo_roots(), 0);
    uint32_t make_list = function("make_list");
    bool named = false;
    for (const SourceLine &l : v.lines)
        for (uint32_t f : l.inlined)
            if (f == make_list) {
                named = true;
                EXPECT_TRUE(l.has_cost);
                EXPECT_GE(l.total.samples, profile->query->function_total()[make_list].samples);
            }
    if (!named)
        GTEST_SKIP() << "make_list was not inlined into main in this build";
}

TEST_F(SourceModel, PerInstructionCostsEqualAnnotateDisassemble) {
    for (const char *name : {"walk_list", "main", "matrix_multiply"}) {
        SCOPED_TRACE(name);
        uint32_t fn = function(name);
        DisassemblyView d = disassembly_view(*profile->query, fn);
        ASSERT_TRUE(d.code.error.empty()) << d.code.error;
        ASSERT_EQ(d.costs.size(), d.code.instructions.size());
        std::map<std::string, std::vector<uint64_t>> want = annotate({name, "--disassemble"});
        std::map<std::string, std::vector<uint64_t>> got;
        for (size_t i = 0; i < d.costs.size(); ++i)
            if (d.costs[i].total.samples != 0) {
                char addr[24];
                std::snprintf(addr, sizeof addr, "0x%llx",
                              (unsigned long long)d.code.instructions[i].address);
                got[addr] = figures(d.costs[i].self, d.costs[i].total);
            }
        EXPECT_FALSE(got.empty());
        EXPECT_EQ(got, want);
    }
}

TEST_F(SourceModel, InstructionSelfSumsToTheFunctionsSelf) {
    // walk_list calls nothing and has nothing inlined: every sample of it
    // is at one of its instructions.
    uint32_t fn = function("walk_list");
    DisassemblyView d = disassembly_view(*profile->query, fn);
    ASSERT_TRUE(d.code.error.empty()) << d.code.error;
    cpcprof::analysis::Cost sum{0, std::vector<uint64_t>(profile->query->events().size())};
    for (const auto &c : d.costs)
        sum.add(c.self);
    EXPECT_EQ(sum.samples, profile->query->function_self()[fn].samples);
    EXPECT_EQ(sum.values, profile->query->function_self()[fn].values);
    EXPECT_EQ(d.code.symbol, "walk_list");
}

TEST_F(SourceModel, ItemModelsPassTheTester) {
    uint32_t fn = function("main");
    auto v = std::make_shared<const SourceView>(source_view(*profile->query, fn, demo_roots(), 0));
    auto d = std::make_shared<const DisassemblyView>(disassembly_view(*profile->query, fn));
    SourceLinesModel lines;
    DisassemblyModel code;
    QAbstractItemModelTester t1(&lines, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester t2(&code, QAbstractItemModelTester::FailureReportingMode::Fatal);
    lines.setView(v, cost_columns(*profile->query), profile->query.get());
    code.setView(d, cost_columns(*profile->query));
    EXPECT_EQ(lines.rowCount(), int(v->lines.size()));
    EXPECT_EQ(code.rowCount(), int(d->code.instructions.size()));
    // The self column of the hottest line holds its figure.
    int self = lines.eventColumn(0, CostColumn::Kind::Self);
    ASSERT_GE(self, 0);
    for (size_t i = 0; i < v->lines.size(); ++i)
        if (v->lines[i].has_cost) {
            EXPECT_EQ(lines.index(int(i), self).data(SortRole).toDouble(),
                      double(v->lines[i].self.values[0]));
        }
    // The instruction rows of a line are those objdump gave that line.
    for (int r = 0; r < code.rowCount(); ++r) {
        const auto &in = d->code.instructions[size_t(r)];
        if (in.line == 0)
            continue;
        std::vector<int> rows = code.rowsOfLine(in.file, in.line);
        EXPECT_NE(std::find(rows.begin(), rows.end(), r), rows.end());
    }
    lines.setView(nullptr, {}, nullptr);
    code.setView(nullptr, {});
    EXPECT_EQ(lines.rowCount(), 0);
}

TEST_F(SourceModel, InlinedFunctionLinksToItsOwnLines) {
    // make_list, inlined into main: its disassembly is main's symbol, and
    // its hottest line links to the instructions objdump says came from it.
    uint32_t fn = function("make_list");
    auto d = std::make_shared<const DisassemblyView>(disassembly_view(*profile->query, fn));
    ASSERT_TRUE(d->code.error.empty()) << d->code.error;
    if (d->code.symbol == "make_list")
        GTEST_SKIP() << "make_list was not inlined into main in this build";
    SourceView v = source_view(*profile->query, fn, demo_roots(), 0);
    const SourceLine *hot = nullptr;
    for (const SourceLine &l : v.lines)
        if (l.hot_rank == 1)
            hot = &l;
    ASSERT_NE(hot, nullptr);
    DisassemblyModel code;
    code.setView(d, cost_columns(*profile->query));
    std::vector<int> rows = code.rowsOfLine(v.stored_path, hot->line, "make_list");
    ASSERT_FALSE(rows.empty()) << "line " << hot->line;
    for (int r : rows) {
        const cpcprof::analysis::Instruction &in = d->code.instructions[size_t(r)];
        EXPECT_EQ(in.inner_line, hot->line);
        EXPECT_EQ(in.inlined_from.rfind("make_list(", 0), 0u) << in.inlined_from;
    }
    // The same instructions, asked for as main's, are at main's line.
    EXPECT_NE(code.lineOf(rows.front(), v.stored_path, "main"), hot->line);
}

// Options and refusals of annotate's source and disassembly, on the known
// profile (its modules and sources are not on this machine).
TEST(AnnotateOptions, PathMapAndDisassembleSayWhatIsWrong) {
    test::TempDir dir;
    std::string known = dir.file("known.cpcprof");
    storagetest::write_known_profile(known);
    test::RunResult r = test::cpcprof(dir, {"annotate", known, "main", "--path-map", "nonsense"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("OLD=NEW"), std::string::npos) << r.err;
    r = test::cpcprof(dir, {"annotate", known, "main", "--disassemble"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("not disassembled"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not found"), std::string::npos) << r.err;
    // The source through a path map onto a directory where a.c is a FIFO:
    // refused, named, and the counts still shown.
    std::string moved = dir.file("moved");
    ASSERT_EQ(::mkdir(moved.c_str(), 0755), 0);
    ASSERT_EQ(::mkfifo((moved + "/a.c").c_str(), 0644), 0);
    r = test::cpcprof(dir, {"annotate", known, "recurse", "--path-map", "/src=" + moved});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("FIFO"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("(source not shown)"), std::string::npos) << r.out;
}

} // namespace
} // namespace cpcprof::guitest

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
