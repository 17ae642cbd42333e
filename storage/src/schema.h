// SPDX-License-Identifier: MIT
// The .cpcprof schema: identification constants and the DDL, shared by the
// writer (which creates it) and the reader (which compares a file against
// it).  The format itself is specified at the top of schema.cpp.
#pragma once

#include <cstdint>
#include <span>

namespace cpcprof::storage::schema {

// PRAGMA application_id of every .cpcprof file: "CPCP" in ASCII.
inline constexpr int32_t kApplicationId = 0x43504350;
// PRAGMA user_version: the format version this code writes, and the
// oldest it reads.  Every version this project has written is read
// (schema_history.cpp); older ones are read as this one, what they lack
// being absent.
inline constexpr int32_t kVersion = 6;
inline constexpr int32_t kOldestReadable = 1;

inline constexpr bool readable(int64_t version) {
    return version >= kOldestReadable && version <= kVersion;
}

// Statements that set the two identifiers above.  Pragma values cannot be
// bound, so the numbers are spelled out; tests check they agree.
inline constexpr const char *kSetApplicationId = "PRAGMA application_id = 1129333584";
inline constexpr const char *kSetVersion = "PRAGMA user_version = 6";

// CREATE statements run when the file is created (the current version's).
std::span<const char *const> tables();
// CREATE statements run by Writer::finish, after the bulk insert.
std::span<const char *const> final_indexes();

// One shape of sqlite_schema that some cpcprof wrote, and what a file of
// that shape holds beyond the tables every version has.  A version has
// more than one layout where two branches each changed it before they met
// (version 3).
struct Layout {
    int32_t version;                     // PRAGMA user_version
    const char *form;                    // "" for a version's final form, else what sets it apart
    bool symbols;                        // function_name, source_file, symbol, run.symbolized_ns,
                                         // module.has_symbols (version 2)
    bool notices;                        // the notice table (version 3)
    bool unsampled;                      // accounting.unsampled_ns (version 3)
    bool counters;                       // run.counters, run.counters_reason (version 4)
    bool cpus;                           // sample.cpu (version 5)
    bool off_cpu;                        // the off_cpu table (version 6)
    std::span<const char *const> tables; // final_indexes() are the same in every layout
};

// The layouts of a version, its final form first; empty for a version
// this code does not read.
std::span<const Layout> layouts(int32_t version);

} // namespace cpcprof::storage::schema
