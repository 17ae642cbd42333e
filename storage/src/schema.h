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
// PRAGMA user_version: the format version this code writes and reads.
inline constexpr int32_t kVersion = 3;

// Statements that set the two identifiers above.  Pragma values cannot be
// bound, so the numbers are spelled out; tests check they agree.
inline constexpr const char *kSetApplicationId = "PRAGMA application_id = 1129333584";
inline constexpr const char *kSetVersion = "PRAGMA user_version = 3";

// CREATE statements run when the file is created.
std::span<const char *const> tables();
// CREATE statements run by Writer::finish, after the bulk insert.
std::span<const char *const> final_indexes();

} // namespace cpcprof::storage::schema
