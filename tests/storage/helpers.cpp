// SPDX-License-Identifier: MIT
#include "tests/storage/helpers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <map>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace storagetest {

void GoodProfileTest::SetUp() {
    StorageTest::SetUp();
    good = path("good.cpcprof");
    write_profile(good, 200);
}

std::string GoodProfileTest::copy(const char *name) {
    std::string p = path(name);
    std::filesystem::copy_file(good, p);
    return p;
}

RunInfo test_run() {
    RunInfo r;
    r.command = {"./prog", "--size", "big arg with spaces", ""};
    r.events = {{"cpu-clock", 1'000'000, true}, {"page-faults", 0, false}};
    r.start_ns = 1'700'000'000'123'456'789;
    r.start_mono_ns = kStartMono;
    r.host = "testhost";
    r.kernel = "6.1.0-18-amd64";
    r.cpu_model = "Intel(R) Xeon(R) CPU @ 2.20GHz";
    r.hw_pmu = false;
    r.counters = "posix-timer";
    r.counters_reason = "perf_event_open refused (EPERM: a seccomp filter?)";
    r.call_graph = "libunwind";
    r.max_depth = 128;
    return r;
}

OwnedSample numbered_sample(int i) {
    static const std::vector<std::vector<uint64_t>> shapes = {
        // root-first; reversed below into leaf-first
        {0x401000, 0x401100, 0x401200},
        {0x401000, 0x401100, 0x401200, 0x401300},
        {0x401000, 0x401100, 0x401250},
        {0x401000, 0x402000},
        {0x401000, 0x401100, 0x401200, 0x7f0000001000, 0xffffffff81000010},
        {0x401000},
        {0x500000, 0x500010},
    };
    OwnedSample s;
    s.pid = i % 3 == 2 ? 200 : 100;
    s.tid = s.pid + i % 3;
    s.time_ns = kStartMono + 1000 * i;
    const auto &shape = shapes[i % shapes.size()];
    s.frames.assign(shape.rbegin(), shape.rend());
    s.complete = i % 7 != 6;
    // The sampling event's value is its period (storage/sample_values.h).
    s.values = {1'000'000, static_cast<uint64_t>(i % 5)};
    return s;
}

void write_profile(const std::string &path, int samples, bool finish) {
    std::string error;
    auto w = Writer::create(path, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run());
    w->add_process({100, 1, {"./prog"}, "/usr/bin/prog", kStartMono + 10});
    w->add_process({200, 100, {"./child", "x"}, "/usr/bin/child", kStartMono + 20});
    w->add_thread({100, 100, "prog"});
    w->add_module({100, "/usr/bin/prog", "abcdef01", 0x400000, 0x402000, 0, kStartMono + 11});
    for (int i = 0; i < samples; ++i) {
        OwnedSample s = numbered_sample(i);
        w->add_sample(s.view());
        w->add_accounting(s.pid, {1, 1, 0});
        if (i % 50 == 49) {
            ASSERT_TRUE(w->commit()) << w->error();
        }
    }
    w->add_accounting(100, {3, 0, 3});
    if (finish) {
        ASSERT_TRUE(w->finish(kStartMono + 1'000'000'000, &error)) << error;
    } else {
        ASSERT_TRUE(w->commit()) << w->error();
    }
}

void symbolize_profile(const std::string &path) {
    std::string error;
    auto w = SymbolWriter::open(path, &error);
    ASSERT_TRUE(w) << error;
    for (const AddressToResolve &a : w->addresses()) {
        std::string hex = std::to_string(a.offset);
        std::vector<SymbolFrame> frames = {
            {"inl_" + hex, "a.h", static_cast<int>(a.offset % 100), true},
            {"fn_" + hex, "a.cpp", 7, false},
        };
        w->add(a.module_id, a.offset, frames);
    }
    w->set_module_symbols(1, true);
    ASSERT_TRUE(w->finish(&error)) << error;
}

void write_known_profile(const std::string &file) {
    constexpr uint64_t kProg = 0x400000;      // /opt/prog mapped here, file offset 0
    constexpr uint64_t kLib = 0x7f0000000000; // /lib/libx.so
    const std::vector<uint64_t> compute = {kProg + 0x2004, kProg + 0x1010}; // leaf first
    const std::vector<uint64_t> recurse = {kProg + 0x3004, kProg + 0x3010, kProg + 0x3010,
                                           kProg + 0x1010};
    const std::vector<uint64_t> libx = {kLib + 0x500, kProg + 0x1014};
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run()); // cpu-clock (period 1e6) and page-faults
    w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
    w->add_thread({100, 100, "prog"});
    w->add_thread({100, 101, "worker"});
    w->add_module({100, "/opt/prog", "", kProg, kProg + 0x10000, 0, kStartMono});
    w->add_module({100, "/lib/libx.so", "", kLib, kLib + 0x10000, 0, kStartMono});
    auto add = [&](int tid, int64_t ms, const std::vector<uint64_t> &frames, uint64_t faults,
                   bool complete = true) {
        std::vector<uint64_t> values = {1'000'000, faults};
        w->add_sample({100, tid, kStartMono + ms * 1'000'000, complete, frames, values});
    };
    for (int i = 0; i < 6; ++i)
        add(100, 10 + i, compute, 2);
    for (int i = 0; i < 3; ++i)
        add(100, 20 + i, recurse, 0);
    add(101, 30, libx, 5);
    add(101, 40, {kProg + 0x3004, kProg + 0x3010}, 0, false); // cut short
    w->add_accounting(100, {11, 11, 0});
    ASSERT_TRUE(w->finish(kStartMono + 50'000'000, &error)) << error;

    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::map<uint64_t, std::vector<SymbolFrame>> answers = {
        {0x1010, {{"main", "/src/a.c", 10, false}}},
        {0x1014, {{"main", "/src/a.c", 11, false}}},
        {0x2004, {{"square", "/src/m.h", 3, true}, {"compute", "/src/a.c", 20, false}}},
        {0x3004, {{"recurse", "/src/a.c", 30, false}}},
        {0x3010, {{"recurse", "/src/a.c", 31, false}}},
    };
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path == "/opt/prog")
            s->add(a.module_id, a.offset, answers.at(a.offset));
        s->set_module_symbols(a.module_id, a.path == "/opt/prog");
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

void write_off_cpu_profile(const std::string &file) {
    constexpr uint64_t kProg = 0x400000;
    const std::vector<uint64_t> compute = {kProg + 0x2004, kProg + 0x1010};
    const std::vector<uint64_t> wait = {kProg + 0x4008, kProg + 0x1020};
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    RunInfo run = test_run();
    run.events.push_back({kOffCpuEvent, 0, false});
    w->begin_run(run);
    w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
    w->add_thread({100, 100, "prog"});
    w->add_thread({100, 101, "worker"});
    w->add_module({100, "/opt/prog", "", kProg, kProg + 0x10000, 0, kStartMono});
    const int64_t ms = 1'000'000;
    for (int i = 0; i < 4; ++i) {
        std::vector<uint64_t> values = {1'000'000, 1, 0};
        w->add_sample({100, 100, kStartMono + (10 + i) * ms, true, compute, values});
    }
    w->add_off_cpu({100, 100, kStartMono + 14 * ms, 20 * ms, 1, false, true, wait});
    w->add_off_cpu({100, 101, kStartMono + 20 * ms, 5 * ms, 1, true, true, {}});
    w->add_off_cpu({100, 101, kStartMono + 30 * ms, 700'000, 7, false, true, {}});
    w->add_off_cpu({100, 100, kStartMono + 40 * ms, 30 * ms, 1, false, true, wait});
    const std::vector<uint64_t> cut = {kProg + 0x4008};
    w->add_off_cpu({100, 101, kStartMono + 60 * ms, 2 * ms, 1, false, false, cut});
    w->add_off_cpu({100, 100, kStartMono + 80 * ms, 50 * ms, 1, false, true, wait});
    w->add_accounting(100, {4, 4, 0});
    ASSERT_TRUE(w->finish(kStartMono + 140 * ms, &error)) << error;

    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::map<uint64_t, std::vector<SymbolFrame>> answers = {
        {0x1010, {{"main", "/src/a.c", 10, false}}},
        {0x1020, {{"main", "/src/a.c", 12, false}}},
        {0x2004, {{"compute", "/src/a.c", 20, false}}},
        {0x4008, {{"wait_input", "/src/a.c", 40, false}}},
    };
    for (const AddressToResolve &a : s->addresses()) {
        s->add(a.module_id, a.offset, answers.at(a.offset));
        s->set_module_symbols(a.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

std::string run_sql(const std::string &path, const char *sql) {
    sqlite3 *db = nullptr;
    std::string result;
    int rc =
        sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    char *msg = nullptr;
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
    if (rc != SQLITE_OK)
        result = msg != nullptr ? msg : sqlite3_errmsg(db);
    sqlite3_free(msg);
    sqlite3_close(db);
    return result;
}

std::string query_text(const std::string &path, const char *sql) {
    sqlite3 *db = nullptr;
    std::string result = "(error)";
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt *st = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK) {
            int rc = sqlite3_step(st);
            if (rc == SQLITE_ROW) {
                const unsigned char *t = sqlite3_column_text(st, 0);
                result = t != nullptr ? reinterpret_cast<const char *>(t) : "(null)";
            } else if (rc == SQLITE_DONE) {
                result = "(no row)";
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return result;
}

std::vector<char> read_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string &path, const std::vector<char> &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

::testing::AssertionResult refused(const std::string &path, const std::string &expected) {
    std::string error;
    auto r = Reader::open(path, &error);
    if (r)
        return ::testing::AssertionFailure() << path << " was accepted";
    if (error.find(expected) == std::string::npos)
        return ::testing::AssertionFailure()
               << "refused, but the reason \"" << error << "\" does not say \"" << expected << "\"";
    std::printf("refused as expected: %s\n", error.c_str()); // for a human reading the log
    return ::testing::AssertionSuccess() << error;
}

void write_then_die(const std::string &file, int committed, int pending) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::string error;
        auto w = Writer::create(file, &error);
        if (!w)
            _exit(2);
        w->begin_run(test_run());
        w->add_thread({100, 100, "prog"});
        for (int i = 0; i < committed + pending; ++i) {
            OwnedSample s = numbered_sample(i);
            w->add_sample(s.view());
            w->add_accounting(s.pid, {1, 1, 0});
            if (i + 1 == committed && !w->commit())
                _exit(3);
        }
        raise(SIGKILL);
        _exit(4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
}

} // namespace storagetest
