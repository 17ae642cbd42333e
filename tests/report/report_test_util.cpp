// SPDX-License-Identifier: MIT
#include "tests/report/report_test_util.h"

#include "storage/symbol_writer.h"
#include "storage/writer.h"

#include <gtest/gtest.h>

#include <map>

namespace cpcprof::test {

void write_counter_profile(const std::string &file) {
    using namespace storage;
    constexpr int64_t kStart = 7'000'000'000'000;
    constexpr uint64_t kProg = 0x400000;
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    RunInfo run;
    run.command = {"./counters"};
    run.events = {{"cycles", 1000, true},
                  {"instructions", 0, false},
                  {"cache-misses", 0, false},
                  {"cache-references", 0, false}};
    run.start_ns = 1'700'000'000'000'000'000;
    run.start_mono_ns = kStart;
    run.hw_pmu = true;
    run.call_graph = "libunwind";
    run.max_depth = 128;
    w->begin_run(run);
    w->add_process({200, 1, {"./counters"}, "/opt/counters", kStart});
    w->add_thread({200, 200, "counters"});
    w->add_module({200, "/opt/counters", "", kProg, kProg + 0x10000, 0, kStart});
    auto add = [&](int64_t ms, std::vector<uint64_t> frames, std::vector<uint64_t> values) {
        w->add_sample({200, 200, kStart + ms * 1'000'000, true, frames, values});
    };
    for (int i = 0; i < 4; ++i)
        add(1 + i, {kProg + 0x2004, kProg + 0x1010}, {1000, 500, 10, 100});
    add(10, {kProg + 0x3004, kProg + 0x1010}, {1000, 2000, 1, 50});
    w->add_accounting(200, {5, 5, 0});
    ASSERT_TRUE(w->finish(kStart + 20'000'000, &error)) << error;

    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::map<uint64_t, std::vector<SymbolFrame>> answers = {
        {0x1010, {{"main", "/src/c.c", 5, false}}},
        {0x2004, {{"hot_loop", "/src/c.c", 12, false}}},
        {0x3004, {{"templ<int, \"x\">", "/src/c.c", 22, false}}},
    };
    for (const AddressToResolve &a : s->addresses()) {
        s->add(a.module_id, a.offset, answers.at(a.offset));
        s->set_module_symbols(a.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

} // namespace cpcprof::test
