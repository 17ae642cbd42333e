// SPDX-License-Identifier: MIT
// The .cpcprof profile file: value types, Writer and Reader, SymbolWriter,
// SymbolTable and StackLocator (Query and CallTree, which aggregate a
// profile for the views, are profiler/analysis/query.h).  The format
// (tables, keys, invariants) is specified at the top of storage/src/schema.cpp.
#pragma once

#include "storage/reader.h"
#include "storage/records.h"
#include "storage/stack_locator.h"
#include "storage/symbol_table.h"
#include "storage/symbol_writer.h"
#include "storage/writer.h"

namespace cpcprof::storage {

// The format version this library writes (PRAGMA user_version of the
// file).  It reads every older version this project wrote as well
// (Reader::file_format), and refuses newer ones.
int format_version();

} // namespace cpcprof::storage
