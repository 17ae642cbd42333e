// SPDX-License-Identifier: MIT
// Writer: creates a .cpcprof file and fills it during a recording.
//
// Use from one thread at a time (the recorder's).  Order: create,
// begin_run, then any mix of add_* / set_* / unload_module with commit()
// about every 100 ms, then finish().  Every call between two commits goes
// into one transaction; a recorder killed at any moment leaves a file that
// opens (incomplete) and lacks only the open batch.
//
// Errors: the first failure (SQLite error, disk full, misuse such as an add
// before begin_run) puts the writer in a failed state: later calls do
// nothing, commit() and finish() return false, error() says what happened.
// Destroying a writer that was not finished commits the open batch and
// leaves the file marked incomplete.
#pragma once

#include "storage/records.h"

#include <memory>
#include <optional>
#include <string>

namespace cpcprof::storage {

class Writer {
  public:
    // Creates path, which must not exist (the caller renames old files).
    // The file is a valid, empty profile as soon as this returns.
    // nullptr with *error set on failure; nothing is left behind then.
    static std::unique_ptr<Writer> create(const std::string &path, std::string *error);

    ~Writer();
    Writer(Writer &&) noexcept;
    Writer &operator=(Writer &&) noexcept;
    Writer(const Writer &) = delete;
    Writer &operator=(const Writer &) = delete;

    // Once, before anything else; commits at once so that even a file
    // whose recorder dies early says what was being recorded.
    void begin_run(const RunInfo &run);

    // A pid seen again (exec) replaces its ppid, argv, exe and start.
    void add_process(const ProcessInfo &process);
    // Exactly one of exit_status / killed_by_signal is normally set.
    void set_process_exit(int pid, int64_t end_ns, std::optional<int> exit_status,
                          std::optional<int> killed_by_signal);
    // The same (pid, tid) again renames the thread.
    void add_thread(const ThreadInfo &thread);
    // A second mapping at the same (pid, start) without an unload in
    // between replaces the first, which is marked unloaded at load_ns.
    void add_module(const ModuleInfo &module);
    // Unknown (pid, start): ignored.
    void unload_module(int pid, uint64_t start, int64_t unload_ns);

    // Interns the stack in the trie and stores the sample.  A thread not
    // yet added is created with an empty name (add_thread names it later).
    void add_sample(const Sample &sample);

    // Stores off-CPU time, its stack interned as add_sample's.  The run
    // must have the event kOffCpuEvent (records.h), last; stretches >= 1.
    void add_off_cpu(const OffCpu &off);

    // Adds the increments to the pid's totals; call as often as wanted,
    // in the same batch as the samples the increment counts.
    void add_accounting(int pid, const Accounting &increment);

    // Records a message about a process (the notice table).
    void add_notice(const Notice &notice);

    // Ends the current batch transaction.  false once failed.
    bool commit();

    // end_ns: CLOCK_MONOTONIC end of the run.  Commits, creates the indexes,
    // marks the file complete, folds the WAL into the file and closes it.
    // The writer accepts nothing afterwards.
    bool finish(int64_t end_ns, std::string *error);

    // finish() for a recording cut short (writing failed: a full disk):
    // the file keeps its end time and indexes but stays marked unfinished
    // (complete = 0), and `why` is stored as the recording's own notice
    // (pid 0), which Reader::cut_short() returns.
    bool finish_cut_short(int64_t end_ns, const std::string &why, std::string *error);

    // After a failure (a full disk): ends the failed batch, which is rolled
    // back, and accepts writes again, so that one last small batch may be
    // tried (the accounting of what could not be stored).  false after
    // finish().
    bool resume_after_failure();

    bool ok() const;
    // The first failure, empty while ok().
    const std::string &error() const;

    // Number of distinct stack trie nodes so far (for statistics).
    uint64_t stack_nodes() const;

  private:
    struct Impl;
    explicit Writer(std::unique_ptr<Impl> impl);
    bool finish_as(int64_t end_ns, const std::string *cut_short, std::string *error);
    std::unique_ptr<Impl> impl_;
};

} // namespace cpcprof::storage
