// SPDX-License-Identifier: MIT
// Off-CPU time in the file (format 6): the off_cpu table reads back as
// written, its stacks are symbolized where the threads blocked, the writer
// refuses it in a run that did not record it, and files whose off-CPU rows
// or event contradict the format are refused with a reason.
#include "tests/storage/helpers.h"

#include "storage/sample_values.h"
#include "storage/src/schema.h"

#include <gtest/gtest.h>

namespace storagetest {
namespace {

constexpr int64_t kMs = 1'000'000;

std::unique_ptr<Reader> open_ok(const std::string &file) {
    std::string error;
    auto r = Reader::open(file, &error);
    EXPECT_TRUE(r) << error;
    return r;
}

std::string refusal(const std::string &file) {
    std::string error;
    auto r = Reader::open(file, &error);
    return r ? "(opened)" : error;
}

TEST_F(StorageTest, OffCpuTimeReadsBackAsWrittenBesideTheSamples) {
    const std::string file = path("off.cpcprof");
    write_off_cpu_profile(file);
    auto r = open_ok(file);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->file_format().version, 6);
    EXPECT_EQ(r->off_cpu_event(), 2);
    EXPECT_EQ(r->sample_count(), 4u) << "off-CPU time is no sample";
    const std::vector<OffCpuRecord> &off = r->off_cpu();
    ASSERT_EQ(off.size(), 6u);
    EXPECT_EQ(off[0].tid, 100);
    EXPECT_EQ(off[0].time_ns, kStartMono + 14 * kMs);
    EXPECT_EQ(off[0].duration_ns, uint64_t(20 * kMs));
    EXPECT_EQ(off[0].stretches, 1u);
    EXPECT_FALSE(off[0].preempted);
    EXPECT_TRUE(off[0].complete);
    EXPECT_NE(off[0].stack, 0u);
    EXPECT_EQ(off[0].stack, off[3].stack) << "the same stack is stored once";
    EXPECT_EQ(r->stack_nodes()[off[0].stack].address, 0x404008u);
    EXPECT_TRUE(off[1].preempted);
    EXPECT_EQ(off[1].stack, 0u);
    EXPECT_EQ(off[2].stretches, 7u);
    EXPECT_EQ(off[2].duration_ns, 700'000u);
    EXPECT_FALSE(off[4].complete);
    // Where the thread blocked is named like a sample's PC.
    const SymbolTable &st = r->symbol_table();
    CodeAddress leaf = r->locate(100, 0x404008, off[0].time_ns);
    std::vector<SymbolFrame> frames = st.expand(st.find(leaf));
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].function, "wait_input");
}

TEST_F(StorageTest, OffCpuTimeNeedsItsEventAndAStretch) {
    std::string error;
    auto w = Writer::create(path("no-event.cpcprof"), &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run()); // cpu-clock and page-faults only
    w->add_off_cpu({100, 100, kStartMono, kMs, 1, false, true, {}});
    EXPECT_FALSE(w->ok());
    EXPECT_EQ(w->error(), "add_off_cpu() in a run without the event off-cpu");

    auto w2 = Writer::create(path("no-stretch.cpcprof"), &error);
    ASSERT_TRUE(w2) << error;
    RunInfo run = test_run();
    run.events.push_back({kOffCpuEvent, 0, false});
    w2->begin_run(run);
    w2->add_off_cpu({100, 100, kStartMono, kMs, 0, false, true, {}});
    EXPECT_FALSE(w2->ok());
    EXPECT_EQ(w2->error(), "add_off_cpu() of no stretch");
}

TEST_F(StorageTest, OffCpuRowsThatContradictTheFileAreRefused) {
    const std::string good = path("good.cpcprof");
    write_off_cpu_profile(good);
    struct Damage {
        const char *sql, *reason;
    };
    const Damage damages[] = {
        {"UPDATE off_cpu SET thread = 99 WHERE id = 2",
         "inconsistent: off-CPU row 2 refers to a missing thread"},
        {"UPDATE off_cpu SET stack = 999 WHERE id = 1",
         "inconsistent: off-CPU row 1 refers to a missing stack node"},
        {"UPDATE off_cpu SET stretches = 0 WHERE id = 3",
         "inconsistent: off-CPU row 3 sums no stretch"},
        {"UPDATE off_cpu SET duration_ns = -1 WHERE id = 1",
         "inconsistent: off-CPU row 1 lasts more than 2^63 ns"},
        {"UPDATE event SET name = 'major-faults' WHERE idx = 2",
         "inconsistent: off-CPU row 1 in a run without the event off-cpu"},
        {"UPDATE event SET name = 'off-cpu' WHERE idx = 1",
         "inconsistent: event off-cpu is not the last, counting only, after the sampling one"},
        {"UPDATE event SET period = 5 WHERE idx = 2",
         "inconsistent: event off-cpu is not the last, counting only, after the sampling one"},
    };
    int n = 0;
    for (const Damage &d : damages) {
        const std::string file = path(("bad" + std::to_string(n++) + ".cpcprof").c_str());
        std::filesystem::copy_file(good, file);
        ASSERT_EQ(run_sql(file, d.sql), "") << d.sql;
        EXPECT_EQ(refusal(file), file + ": " + d.reason) << d.sql;
    }
}

TEST_F(StorageTest, ASampleCarriesNoOffCpuTime) {
    RunInfo run = test_run();
    run.events.push_back({kOffCpuEvent, 0, false});
    const uint64_t fine[] = {1'000'000, 3, 0}, wrong[] = {1'000'000, 3, 5};
    EXPECT_EQ(impossible_values(run, fine), "");
    EXPECT_EQ(impossible_values(run, wrong),
              "off-cpu value 5 in a sample (off-CPU time is not sampled)");
}

} // namespace
} // namespace storagetest
