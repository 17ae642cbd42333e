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
// oldest it reads (as it is, not converted).
inline constexpr int32_t kVersion = 4;
inline constexpr int32_t kOldestReadable = 3;

inline constexpr bool readable(int64_t version) {
    return version >= kOldestReadable && version <= kVersion;
}

// Statements that set the two identifiers above.  Pragma values cannot be
// bound, so the numbers are spelled out; tests check they agree.
inline constexpr const char *kSetApplicationId = "PRAGMA application_id = 1129333584";
inline constexpr const char *kSetVersion = "PRAGMA user_version = 4";

// CREATE statements run when the file is created (the current version's),
// or that made a file of an older readable version.
std::span<const char *const> tables(int32_t version = kVersion);
// CREATE statements run by Writer::finish, after the bulk insert.
std::span<const char *const> final_indexes();

} // namespace cpcprof::storage::schema
