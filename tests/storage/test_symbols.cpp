// SPDX-License-Identifier: MIT
// Symbols: the addresses to resolve, SymbolWriter round trips and redo,
// the Reader's SymbolTable, locate() and the StackLocator.
#include "tests/storage/helpers.h"

#include <time.h>

using namespace storagetest;

namespace {

int64_t realtime_now() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Three processes.  pid 100 maps /usr/bin/prog (module 1) in two segments
// and libfoo (module 2) at 0x7f00..., unloads it at +500 and maps it again
// at 0x7f10... at +600.  pid 200 (a fork) maps prog at the same place and
// libfoo at 0x7e00....  pid 300 maps another non-PIE program (module 3) at
// prog's addresses, so its stacks share trie nodes with pid 100's.
constexpr uint64_t kFooA = 0x7f0000000000, kFooB = 0x7f1000000000, kFooC = 0x7e0000000000;

struct Symbols : StorageTest {
    std::string file;
    std::vector<OwnedSample> samples;

    void SetUp() override {
        StorageTest::SetUp();
        file = path("symbols.cpcprof");
        std::string error;
        auto w = Writer::create(file, &error);
        ASSERT_TRUE(w) << error;
        w->begin_run(test_run());
        const int64_t t = kStartMono;
        w->add_process({100, 1, {"prog"}, "/usr/bin/prog", t});
        w->add_process({200, 100, {"prog"}, "/usr/bin/prog", t});
        w->add_process({300, 100, {"other"}, "/usr/bin/other", t});
        w->add_module({100, "/usr/bin/prog", "aa", 0x400000, 0x401000, 0, t + 1});      // 1
        w->add_module({100, "/usr/bin/prog", "aa", 0x401000, 0x403000, 0x1000, t + 1}); // 2
        w->add_module({100, "/lib/libfoo.so", "bb", kFooA, kFooA + 0x10000, 0, t + 1}); // 3
        w->unload_module(100, kFooA, t + 500);
        w->add_module({100, "/lib/libfoo.so", "bb", kFooB, kFooB + 0x10000, 0, t + 600}); // 4
        w->add_module({200, "/usr/bin/prog", "aa", 0x400000, 0x401000, 0, t + 1});        // 5
        w->add_module({200, "/usr/bin/prog", "aa", 0x401000, 0x403000, 0x1000, t + 1});   // 6
        w->add_module({200, "/lib/libfoo.so", "bb", kFooC, kFooC + 0x10000, 0, t + 1});   // 7
        w->add_module({300, "/usr/bin/other", "cc", 0x400000, 0x403000, 0, t + 1});       // 8
        samples = {
            // one value per event of test_run(): 2
            {100, 100, t + 10, true, {kFooA + 0x100, 0x401010, 0x400500}, {1, 0}},
            {100, 100, t + 700, true, {kFooB + 0x100, 0x401010, 0x400500}, {1, 0}}, // reloaded
            {200, 200, t + 10, true, {kFooC + 0x100, 0x401010, 0x400500}, {1, 0}},  // the fork
            {300, 300, t + 10, true, {0x401010, 0x400500}, {1, 0}}, // other program, same nodes
            {100, 101, t + 20, true, {0x401010, 0x400500}, {1, 0}}, // a PC that is also a return
            {100, 100, t + 30, true, {0xffffffff81000000, 0x400500}, {1, 0}}, // kernel: no module
            {100, 100, t + 40, true, {}, {1, 0}},                             // no frames
            {100, 100, t + 550, true, {kFooA + 0x200}, {1, 0}}, // after the unload, before the
                                                                // reload
        };
        for (const OwnedSample &s : samples)
            w->add_sample(s.view());
        w->add_accounting(100, {6, 6, 0});
        w->add_accounting(200, {1, 1, 0});
        w->add_accounting(300, {1, 1, 0});
        ASSERT_TRUE(w->finish(t + 1000, &error)) << error;
    }

    std::unique_ptr<SymbolWriter> open_writer() {
        std::string error;
        auto w = SymbolWriter::open(file, &error);
        EXPECT_TRUE(w) << error;
        return w;
    }

    std::unique_ptr<Reader> open_reader() {
        std::string error;
        auto r = Reader::open(file, &error);
        EXPECT_TRUE(r) << error;
        return r;
    }
};

std::vector<SymbolFrame> chain(const std::string &name, int line) {
    return {{name + "_inlined", "/src/" + name + ".h", line + 1, true},
            {name, "/src/" + name + ".cpp", line, false}};
}

} // namespace

TEST_F(Symbols, AddressesCoverEveryStackOnceWithItsMapping) {
    auto w = open_writer();
    ASSERT_TRUE(w);
    std::vector<AddressToResolve> got = w->addresses();
    EXPECT_TRUE(w->ok()) << w->error();
    // (module, offset, path, build_id, pid, mapping start, end, file offset, return, pc)
    std::vector<AddressToResolve> want = {
        {1, "/usr/bin/prog", "aa", 0x500, 100, 0x400000, 0x401000, 0, true, false},
        {1, "/usr/bin/prog", "aa", 0x1010, 100, 0x401000, 0x403000, 0x1000, true, true},
        {2, "/lib/libfoo.so", "bb", 0x100, 100, kFooA, kFooA + 0x10000, 0, false, true},
        {2, "/lib/libfoo.so", "bb", 0x200, 100, kFooA, kFooA + 0x10000, 0, false, true},
        {3, "/usr/bin/other", "cc", 0x500, 300, 0x400000, 0x403000, 0, true, false},
        {3, "/usr/bin/other", "cc", 0x1010, 300, 0x400000, 0x403000, 0, false, true},
    };
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(got[i], want[i]);
    }
}

TEST_F(Symbols, AddressesOfAProfileWithoutSamplesAreNone) {
    const std::string empty = path("empty.cpcprof");
    write_profile(empty, 0);
    std::string error;
    auto w = SymbolWriter::open(empty, &error);
    ASSERT_TRUE(w) << error;
    EXPECT_TRUE(w->addresses().empty());
    EXPECT_TRUE(w->finish(&error)) << error;
    auto r = Reader::open(empty, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_TRUE(r->symbolized());
    EXPECT_TRUE(r->symbol_table().empty());
}

TEST_F(Symbols, RoundTrip) {
    {
        auto r = open_reader();
        ASSERT_TRUE(r);
        EXPECT_FALSE(r->symbolized());
        EXPECT_TRUE(r->symbol_table().empty());
        for (const ModuleRecord &m : r->modules())
            EXPECT_FALSE(m.has_symbols.has_value());
    }
    int64_t before = realtime_now();
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x500, chain("main", 10));
    w->add(1, 0x1010, chain("work", 20));
    std::vector<SymbolFrame> odd = {{"", "", 0, false}}; // known address, nothing known of it
    w->add(2, 0x100, odd);
    std::vector<SymbolFrame> one = {{"ns::f<int>(int) const", "/src/ü.cpp", 3, false}};
    w->add(2, 0x200, one);
    w->add(3, 0x1010, {}); // nothing found: no row
    w->set_module_symbols(1, true);
    w->set_module_symbols(2, false);
    std::string error;
    ASSERT_TRUE(w->finish(&error)) << error;
    int64_t after = realtime_now();

    auto r = open_reader();
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->symbolized());
    EXPECT_GE(*r->symbolized_ns(), before);
    EXPECT_LE(*r->symbolized_ns(), after);
    const SymbolTable &t = r->symbol_table();
    EXPECT_EQ(t.size(), 4u);
    EXPECT_EQ(t.expand(t.find({1, 0x500})), chain("main", 10));
    EXPECT_EQ(t.expand(t.find({1, 0x1010})), chain("work", 20));
    EXPECT_EQ(t.expand(t.find({2, 0x100})), odd);
    EXPECT_EQ(t.expand(t.find({2, 0x200})), one);
    EXPECT_EQ(t.find({3, 0x1010}), 0u);
    EXPECT_EQ(t.find({1, 0x501}), 0u);
    EXPECT_TRUE(t.frames(0).empty());
    EXPECT_TRUE(t.frames(99).empty());
    uint32_t work = t.find({1, 0x1010});
    EXPECT_EQ(t.address(work), (CodeAddress{1, 0x1010}));
    ASSERT_EQ(t.frames(work).size(), 2u);
    EXPECT_EQ(t.functions()[t.frames(work)[1].function], "work");
    EXPECT_EQ(t.functions()[0], "");
    EXPECT_EQ(t.files()[0], "");
    for (const ModuleRecord &m : r->modules()) {
        SCOPED_TRACE(m.info.path);
        std::optional<bool> want = m.module_id == 1   ? std::optional(true)
                                   : m.module_id == 2 ? std::optional(false)
                                                      : std::nullopt;
        EXPECT_EQ(m.has_symbols, want);
    }
    EXPECT_TRUE(r->integrity_check().empty());
    EXPECT_EQ(integrity_check(file), "ok");
}

TEST_F(Symbols, StringsAreStoredOnceAndUnknownAsNull) {
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x500, chain("same", 1));
    w->add(1, 0x1010, chain("same", 2));
    w->add(2, 0x100, chain("other", 3));
    std::vector<SymbolFrame> unknown = {{"", "", 0, false}};
    w->add(2, 0x200, unknown);
    std::string error;
    ASSERT_TRUE(w->finish(&error)) << error;
    EXPECT_EQ(query_text(file, "SELECT count(*) FROM function_name"), "4");
    EXPECT_EQ(query_text(file, "SELECT count(DISTINCT name) FROM function_name"), "4");
    EXPECT_EQ(query_text(file, "SELECT count(*) FROM source_file"), "4");
    EXPECT_EQ(query_text(file, "SELECT count(*) FROM symbol"), "7");
    EXPECT_EQ(query_text(file, "SELECT function IS NULL AND source IS NULL AND line = 0 "
                               "FROM symbol WHERE module = 2 AND file_offset = 512"),
              "1");
    // Readable by any SQL client: the function of every frame of 0x1010.
    EXPECT_EQ(query_text(file, "SELECT group_concat(f.name, ';') FROM symbol AS s "
                               "JOIN function_name AS f ON f.id = s.function "
                               "WHERE s.module = 1 AND s.file_offset = 4112"),
              "same_inlined;same");
}

TEST_F(Symbols, AddingTheSameAddressAgainReplacesItsAnswer) {
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x500, chain("first", 1));
    w->add(1, 0x500, chain("second", 2));
    w->add(1, 0x1010, chain("gone", 3));
    w->add(1, 0x1010, {});
    std::string error;
    ASSERT_TRUE(w->finish(&error)) << error;
    auto r = open_reader();
    ASSERT_TRUE(r);
    const SymbolTable &t = r->symbol_table();
    EXPECT_EQ(t.size(), 1u);
    EXPECT_EQ(t.expand(t.find({1, 0x500})), chain("second", 2));
    EXPECT_EQ(query_text(file, "SELECT count(*) FROM function_name"), "2"); // no orphans
}

TEST_F(Symbols, SymbolizingAgainReplacesEverything) {
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x500, chain("old", 1));
    w->add(2, 0x100, chain("old_lib", 2));
    w->set_module_symbols(1, true);
    w->set_module_symbols(2, true);
    std::string error;
    ASSERT_TRUE(w->finish(&error)) << error;
    int64_t first = *open_reader()->symbolized_ns();

    w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x1010, chain("new", 5));
    w->set_module_symbols(1, false);
    ASSERT_TRUE(w->finish(&error)) << error;

    auto r = open_reader();
    ASSERT_TRUE(r);
    EXPECT_GE(*r->symbolized_ns(), first);
    const SymbolTable &t = r->symbol_table();
    EXPECT_EQ(t.size(), 1u);
    EXPECT_EQ(t.find({1, 0x500}), 0u);
    EXPECT_EQ(t.expand(t.find({1, 0x1010})), chain("new", 5));
    EXPECT_EQ(t.functions().size(), 3u); // "", new_inlined, new
    for (const ModuleRecord &m : r->modules())
        EXPECT_EQ(m.has_symbols, m.module_id == 1 ? std::optional(false) : std::nullopt);
    EXPECT_EQ(integrity_check(file), "ok");
}

TEST_F(Symbols, AnUnfinishedWriterChangesNothing) {
    const auto bytes = read_bytes(file);
    {
        auto w = open_writer();
        ASSERT_TRUE(w);
        w->addresses();
        w->add(1, 0x500, chain("never", 1));
        w->set_module_symbols(1, true);
    }
    EXPECT_EQ(read_bytes(file), bytes);
    auto r = open_reader();
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->symbolized());
}

TEST_F(Symbols, MisuseFailsTheWriterAndLeavesTheFile) {
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x500, chain("fine", 1));
    w->add(99, 0x500, chain("nowhere", 1));
    EXPECT_FALSE(w->ok());
    EXPECT_EQ(w->error(), "add(): unknown module id 99");
    w->set_module_symbols(1, true); // ignored once failed
    std::string error;
    EXPECT_FALSE(w->finish(&error));
    EXPECT_EQ(error, "add(): unknown module id 99");
    auto r = open_reader();
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->symbolized());
    EXPECT_TRUE(r->symbol_table().empty());

    w = open_writer();
    ASSERT_TRUE(w);
    w->set_module_symbols(0, true);
    EXPECT_EQ(w->error(), "set_module_symbols(): unknown module id 0");
    w = open_writer();
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->finish(&error)) << error;
    w->add(1, 0x500, chain("late", 1));
    EXPECT_EQ(w->error(), "add() after finish()");
    EXPECT_FALSE(w->finish(&error));
}

TEST_F(Symbols, AnIncompleteProfileCanBeSymbolized) {
    const std::string killed = path("killed.cpcprof");
    write_profile(killed, 120, false);
    std::string error;
    auto w = SymbolWriter::open(killed, &error);
    ASSERT_TRUE(w) << error;
    auto addresses = w->addresses();
    // The numbered profile maps /usr/bin/prog [0x400000, 0x402000) in pid 100 only.
    std::vector<uint64_t> offsets;
    for (const AddressToResolve &a : addresses) {
        EXPECT_EQ(a.module_id, 1);
        EXPECT_EQ(a.pid, 100);
        offsets.push_back(a.offset);
    }
    EXPECT_EQ(offsets, (std::vector<uint64_t>{0x1000, 0x1100, 0x1200, 0x1250, 0x1300}));
    for (const AddressToResolve &a : addresses)
        w->add(a.module_id, a.offset, chain("f" + std::to_string(a.offset), 1));
    ASSERT_TRUE(w->finish(&error)) << error;
    auto r = Reader::open(killed, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_FALSE(r->complete());
    EXPECT_TRUE(r->symbolized());
    EXPECT_EQ(r->symbol_table().size(), 5u);
    EXPECT_EQ(r->sample_count(), 120u);
}

TEST_F(Symbols, ReaderLocatesAddressesByProcessAndTime) {
    auto r = open_reader();
    ASSERT_TRUE(r);
    const int64_t t = kStartMono;
    EXPECT_EQ(r->locate(100, kFooA + 0x100, t + 10), (CodeAddress{2, 0x100}));
    EXPECT_EQ(r->locate(100, kFooB + 0x100, t + 700), (CodeAddress{2, 0x100}));
    EXPECT_EQ(r->locate(200, kFooC + 0x100, t + 10), (CodeAddress{2, 0x100}));
    EXPECT_EQ(r->locate(100, 0x401010, t + 10), (CodeAddress{1, 0x1010}));
    EXPECT_EQ(r->locate(300, 0x401010, t + 10), (CodeAddress{3, 0x1010}));
    EXPECT_EQ(r->locate(100, 0xffffffff81000000, t + 10), (CodeAddress{0, 0xffffffff81000000}));
    EXPECT_EQ(r->locate(999, 0x401010, t + 10), (CodeAddress{0, 0x401010}));
}

TEST_F(Symbols, StackLocatorMergesEqualCodeAndSeparatesDifferentCode) {
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->add(1, 0x500, chain("main", 1));
    w->add(1, 0x1010, chain("work", 2));
    w->add(2, 0x100, chain("lib", 3));
    std::string error;
    ASSERT_TRUE(w->finish(&error)) << error;
    auto r = open_reader();
    ASSERT_TRUE(r);
    StackLocator loc(*r);
    std::vector<uint32_t> located;
    std::vector<std::vector<uint64_t>> stacks;
    ASSERT_TRUE(r->for_each_sample([&](const StoredSample &s) { located.push_back(loc.locate(s)); },
                                   &error))
        << error;
    ASSERT_EQ(located.size(), samples.size());
    const auto &nodes = loc.nodes();
    const SymbolTable &t = r->symbol_table();
    // libfoo's 0x100 in pid 100 before the unload, after the reload, and in the fork.
    EXPECT_EQ(located[0], located[1]);
    EXPECT_EQ(located[0], located[2]);
    const LocatedNode &lib = nodes[located[0]];
    EXPECT_EQ(lib.where, (CodeAddress{2, 0x100}));
    EXPECT_EQ(t.expand(lib.chain), chain("lib", 3));
    EXPECT_EQ(lib.depth, 3u);
    const LocatedNode &work = nodes[lib.parent];
    EXPECT_EQ(work.where, (CodeAddress{1, 0x1010}));
    EXPECT_EQ(t.expand(work.chain), chain("work", 2));
    EXPECT_EQ(nodes[work.parent].where, (CodeAddress{1, 0x500}));
    EXPECT_EQ(nodes[work.parent].parent, 0u);
    // The same trie nodes in pid 300 are another program's code.
    EXPECT_NE(located[3], located[4]);
    EXPECT_EQ(nodes[located[3]].where, (CodeAddress{3, 0x1010}));
    EXPECT_EQ(nodes[located[3]].chain, 0u);
    EXPECT_EQ(located[4], lib.parent); // pid 100's PC at 0x401010 is work's frame
    EXPECT_EQ(nodes[located[5]].where, (CodeAddress{0, 0xffffffff81000000}));
    EXPECT_EQ(located[6], 0u); // no frames
    EXPECT_EQ(nodes[located[7]].where, (CodeAddress{2, 0x200}));
    // Asking again gives the same nodes and adds none.
    size_t count = nodes.size();
    EXPECT_EQ(loc.locate(100, kStartMono + 10, 3), loc.locate(100, kStartMono + 10, 3));
    EXPECT_EQ(loc.nodes().size(), count);
    EXPECT_EQ(loc.locate(100, kStartMono, 0), 0u);
    EXPECT_EQ(loc.locate(100, kStartMono, 1'000'000), 0u);
}

TEST_F(Symbols, SymbolWriterRefusesWhatTheReaderRefuses) {
    std::string error;
    EXPECT_FALSE(SymbolWriter::open(path("none.cpcprof"), &error));
    EXPECT_NE(error.find("No such file"), std::string::npos) << error;
    EXPECT_FALSE(std::filesystem::exists(path("none.cpcprof"))); // not created

    const std::string trigger = path("trigger.cpcprof");
    std::filesystem::copy_file(file, trigger);
    ASSERT_EQ(run_sql(trigger, "CREATE TRIGGER t AFTER INSERT ON symbol BEGIN "
                               "DELETE FROM sample; END"),
              "");
    EXPECT_FALSE(SymbolWriter::open(trigger, &error));
    EXPECT_NE(error.find("trigger 't' is unexpected"), std::string::npos) << error;

    const std::string v1 = path("v1.cpcprof");
    std::filesystem::copy_file(file, v1);
    ASSERT_EQ(run_sql(v1, "PRAGMA user_version = 1"), "");
    EXPECT_FALSE(SymbolWriter::open(v1, &error));
    EXPECT_NE(error.find("schema differs from format version 1"), std::string::npos) << error;

    const std::string other = path("other.db");
    ASSERT_EQ(run_sql(other, "CREATE TABLE t(x)"), "");
    EXPECT_FALSE(SymbolWriter::open(other, &error));
    EXPECT_NE(error.find("not a cpcprof profile"), std::string::npos) << error;
}

TEST_F(Symbols, AnInconsistentSampleFailsAddresses) {
    ASSERT_EQ(run_sql(file, "UPDATE sample SET thread = 42 WHERE id = 2"), "");
    auto w = open_writer();
    ASSERT_TRUE(w);
    w->addresses();
    EXPECT_EQ(w->error(), "inconsistent: sample 2 refers to missing thread 42");
    std::string error;
    EXPECT_FALSE(w->finish(&error));
}
