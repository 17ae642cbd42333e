// SPDX-License-Identifier: MIT
// Reader: opens a .cpcprof file, which may come from someone else.
//
// open() reads the file read-only and defensively (SQLite defensive mode,
// trusted_schema off, triggers and views disabled; nothing written beside
// the file: src/private_copy.h), runs PRAGMA integrity_check,
// checks the application id, the format version and that sqlite_schema is
// exactly the expected one, then loads and validates the metadata, the
// stack trie and the symbol tables.  A file that fails any of this is
// refused with a reason; no input file makes it crash.  An incomplete file
// (recorder killed) is accepted: complete() says so.
//
// Not thread-safe: one thread at a time per Reader (open one per thread).
#pragma once

#include "storage/records.h"
#include "storage/symbol_table.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::storage {

class Reader {
  public:
    // nullptr with *error = "PATH: reason" when the file is refused.
    static std::unique_ptr<Reader> open(const std::string &path, std::string *error);

    ~Reader();
    Reader(Reader &&) noexcept;
    Reader &operator=(Reader &&) noexcept;
    Reader(const Reader &) = delete;
    Reader &operator=(const Reader &) = delete;

    // The file's format, perhaps older than format_version() (profile.h).
    FileFormat file_format() const;
    // Empty RunInfo if the recorder died before begin_run committed.
    const RunInfo &run() const;
    // CLOCK_MONOTONIC end of the run, set by Writer::finish.
    std::optional<int64_t> end_ns() const;
    // A CLOCK_MONOTONIC time (a sample's, end_ns()) as ns since the run's
    // start.  Wraps as the file's relative times do, so that a file's
    // extreme values cannot overflow the subtraction.
    int64_t since_start(int64_t mono_ns) const {
        return static_cast<int64_t>(static_cast<uint64_t>(mono_ns) -
                                    static_cast<uint64_t>(run().start_mono_ns));
    }
    // Writer::finish completed.  false: the recorder stopped early; the
    // file holds every batch committed before that.
    bool complete() const;
    // Why the recorder cut the recording short (Writer::finish_cut_short:
    // writing failed, what was kept and lost); empty for a finished file
    // and for one whose recorder was killed (no word at all).
    std::optional<std::string> cut_short() const;

    const std::vector<ProcessRecord> &processes() const; // by pid
    const std::vector<ThreadInfo> &threads() const;      // in order of first appearance
    const std::vector<ModuleRecord> &modules() const;    // in order of loading

    const std::map<int, Accounting> &accounting() const; // per pid
    const std::vector<Notice> &notices() const;          // in arrival order
    Accounting accounting_total() const;
    // taken == stored + dropped for every process and in total.
    bool accounting_balanced() const;

    // Off-CPU time (record --off-cpu; none before format 6), by arrival.
    // Each row's thread and stack are in the file (open() checked).
    const std::vector<OffCpuRecord> &off_cpu() const;
    // The index in run().events of kOffCpuEvent, whose values off_cpu()
    // carries; -1 when the run did not record off-CPU time.
    int off_cpu_event() const;

    uint64_t sample_count() const;
    // Samples whose stack is complete (reaches a true root: not cut by the
    // depth bound or the unwinder); counted on first use.  Empty if the
    // file cannot be read.
    std::optional<uint64_t> complete_stack_samples() const;
    // The trie: index = node id, [0] = the virtual root.
    const std::vector<StackNode> &stack_nodes() const;

    // Calls visit for every sample, in arrival order.  false with *error
    // set if a sample is inconsistent (refers to a missing thread or stack
    // node, bad value encoding, not one value per event of the run) or the
    // file cannot be read; the samples before it have been visited.
    //
    // Frames::skip leaves StoredSample::frames empty (stack, the trie node,
    // is still set): callers that resolve stacks per node (StackLocator)
    // save a walk up the trie per sample.
    //
    // SQLite reads the rows on a thread of its own, a batch ahead of visit,
    // which runs on the calling thread; visit must not call the functions
    // here that read the file (complete_stack_samples, integrity_check).
    enum class Frames { walk, skip };
    bool for_each_sample(const std::function<void(const StoredSample &)> &visit, std::string *error,
                         Frames frames = Frames::walk) const;
    // The same for checking a file: an inconsistent sample is passed to
    // bad ("sample N refers to ...") and skipped, and the scan goes on; a
    // sample with another number of values than the run has events is
    // visited (the caller counts them).  false with *error only if the
    // file cannot be read.  Frames::skip as above (`cpcprof check` needs
    // the nodes, not the walks: those would cost samples x depth).
    bool for_each_sample_checked(const std::function<void(const StoredSample &)> &visit,
                                 const std::function<void(const std::string &)> &bad,
                                 std::string *error, Frames frames = Frames::walk) const;

    // The samples visited per process by the last pass of either function
    // above that reached the end; empty before one has.  For
    // file_problems.h's stored_count_problems().
    std::optional<std::map<int, uint64_t>> samples_per_process() const;

    // ---- Symbols --------------------------------------------------------
    // CLOCK_REALTIME of the last symbolization; empty: never symbolized.
    std::optional<int64_t> symbolized_ns() const;
    bool symbolized() const { return symbolized_ns().has_value(); }
    // Empty until symbolized.  Per module: ModuleRecord::has_symbols.
    const SymbolTable &symbol_table() const;
    // The module and file offset where address lay in pid at time_ns
    // (CLOCK_MONOTONIC), by the format's rule (schema.cpp, mapping);
    // {0, address} when no mapping of pid held it.  For single questions;
    // to resolve samples in bulk use StackLocator (storage/stack_locator.h).
    CodeAddress locate(int pid, uint64_t address, int64_t time_ns) const;

    // PRAGMA integrity_check: every page, row and index (open() has run it
    // too and refused the file on a problem).  The problems SQLite names;
    // empty = none.
    std::vector<std::string> integrity_check() const;

  private:
    struct Impl;
    explicit Reader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace cpcprof::storage
