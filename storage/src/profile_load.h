// SPDX-License-Identifier: MIT
// Everything of a profile but the samples, loaded and validated from a
// connection that open_profile() accepted.  The Reader is a view of it;
// the SymbolWriter uses it to find the addresses to resolve.
#pragma once

#include "storage/src/schema.h"

#include "storage/records.h"
#include "storage/symbol_table.h"

#include <sqlite3.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace cpcprof::storage {

struct LoadedProfile {
    const schema::Layout *layout = nullptr; // the file's, as open_profile() found it
    RunInfo run;
    std::optional<int64_t> end_ns;
    bool complete = false;
    std::optional<int64_t> symbolized_ns; // CLOCK_REALTIME
    std::vector<ProcessRecord> processes;
    std::vector<ThreadInfo> threads;
    std::unordered_map<int64_t, size_t> thread_index; // thread.id -> threads[]
    std::vector<ModuleRecord> modules;                // mappings, by mapping id
    std::set<int64_t> module_ids;                     // every module.id
    std::map<int, Accounting> accounting;
    std::vector<Notice> notices;       // by id
    std::vector<OffCpuRecord> off_cpu; // by id
    uint64_t sample_count = 0;
    std::vector<StackNode> nodes{StackNode{}};
    SymbolTable symbols;

    // A stored (relative) time as CLOCK_MONOTONIC; wraps like the writer's.
    int64_t abs(int64_t rel) const {
        return static_cast<int64_t>(static_cast<uint64_t>(rel) +
                                    static_cast<uint64_t>(run.start_mono_ns));
    }

    enum class Symbols { load, skip };
    // Reads a file of layout (an older version's reads as this version,
    // what it lacks absent: schema.cpp "Older versions").  false with
    // *reason naming the first inconsistency or read error.
    bool load(sqlite3 *db, const schema::Layout &layout, Symbols symbols, std::string *reason);

  private:
    bool load_run(sqlite3 *db, std::string *reason);
    bool load_processes(sqlite3 *db, std::string *reason);
    bool load_threads_and_modules(sqlite3 *db, std::string *reason);
    bool load_accounting_and_trie(sqlite3 *db, std::string *reason);
    bool load_off_cpu(sqlite3 *db, std::string *reason);
};

// The symbol tables of db into *table; module ids must be in modules.
bool load_symbol_table(sqlite3 *db, const std::set<int64_t> &modules, SymbolTable *table,
                       std::string *reason);

} // namespace cpcprof::storage
