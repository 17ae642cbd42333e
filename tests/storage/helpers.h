// SPDX-License-Identifier: MIT
// Shared by the storage tests: a temporary directory per test, a small
// realistic profile, and raw SQLite access for checking and damaging files.
#pragma once

#include "tests/support/integrity.h" // tests/support
#include "tests/support/temp_dir.h"  // tests/support

#include "storage/profile.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

namespace storagetest {

using namespace cpcprof::storage;

constexpr int64_t kStartMono = 5'000'000'000'000; // CLOCK_MONOTONIC of the run start

// A temporary directory per test (tests/support's TempDir).
struct StorageTest : ::testing::Test {
    cpcprof::test::TempDir tmp{"cpcprof-storage"};
    std::filesystem::path dir{tmp.path()};
    void SetUp() override {}
    std::string path(const char *name) const { return (dir / name).string(); }
};

RunInfo test_run();

// A sample with its own storage for frames and values.
struct OwnedSample {
    int pid = 100, tid = 100;
    int64_t time_ns = kStartMono;
    bool complete = true;
    std::vector<uint64_t> frames, values;
    int cpu = -1;
    Sample view() const { return {pid, tid, time_ns, complete, frames, values, cpu}; }
};

// Sample i of a deterministic family: 3 threads of 2 processes, stacks
// drawn from 7 shapes that share prefixes, 2 values.
OwnedSample numbered_sample(int i);

// Writes a profile with `samples` numbered samples, processes, threads,
// modules and accounting; finished when `finish`.  Fails the test on error.
void write_profile(const std::string &path, int samples, bool finish = true);

// Symbolizes a profile with made-up answers: every address an inlined
// frame "inl_OFFSET" (a.h:OFFSET%100) inside "fn_OFFSET" (a.cpp:7), and
// module 1 marked as having symbols.  Fails the test on error.
void symbolize_profile(const std::string &path);

// A small symbolized profile whose every sample is known (pid 100, threads
// 100 "prog" and 101 "worker"; events cpu-clock, period 1e6, and
// page-faults; sample times in ms since the start):
//   6 x main (a.c:10) > compute (a.c:20) > square (m.h:3, inlined),
//       at 10..15 ms, tid 100, 2 page faults each;
//   3 x main (a.c:10) > recurse (a.c:31) > recurse (a.c:31) > recurse (a.c:30),
//       at 20..22 ms, tid 100, no faults;
//   1 x main (a.c:11) > libx.so+0x500 (/lib/libx.so, no symbols), 30 ms,
//       tid 101, 5 faults;
//   1 x a truncated stack recurse (a.c:31) > recurse (a.c:30), 40 ms, tid 101.
// Sources: /src/a.c, /src/m.h.  Fails the test on error.
void write_known_profile(const std::string &path);

// A small symbolized profile with off-CPU time (record --off-cpu; events
// cpu-clock, period 1e6, page-faults and off-cpu; times in ms since the
// start), pid 100, threads 100 "prog" and 101 "worker":
//   4 x main (a.c:10) > compute (a.c:20), at 10..13 ms, tid 100, 1 fault each;
//   tid 100 blocked 3 times in main (a.c:12) > wait_input (a.c:40), a
//       return from read() at its leaf: 20 ms from 14 ms, 30 ms from 40 ms,
//       50 ms from 80 ms;
//   tid 101 preempted for 5 ms at 20 ms (stack not known), and 7 stretches
//       under the threshold summing 0.7 ms from 30 ms (stack not known);
//   tid 101 blocked 2 ms from 60 ms in a stack cut short: wait_input (a.c:40).
void write_off_cpu_profile(const std::string &path);

// A recorder killed mid-batch: a forked child commits `committed`
// samples, adds `pending` more in an open batch, then SIGKILLs itself.
// The file is left in WAL mode with its -wal and -shm.
void write_then_die(const std::string &file, int committed, int pending);

// A finished profile of 200 numbered samples (write_profile), and copies of
// it to damage or check.
struct GoodProfileTest : StorageTest {
    std::string good;
    void SetUp() override;
    std::string copy(const char *name);
};

// Runs literal SQL on the file through an ordinary read-write connection
// (to damage it); returns SQLite's error message or "" on success.
std::string run_sql(const std::string &path, const char *sql);
// PRAGMA integrity_check through a plain read-only connection: "ok" or the
// problems (tests/support).
using cpcprof::test::integrity_check;
// The first column of the first row of a literal query.
std::string query_text(const std::string &path, const char *sql);

std::vector<char> read_bytes(const std::string &path);
void write_bytes(const std::string &path, const std::vector<char> &bytes);

// Opening must fail with a reason containing `expected`.
::testing::AssertionResult refused(const std::string &path, const std::string &expected);

} // namespace storagetest
