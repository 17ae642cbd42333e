// SPDX-License-Identifier: MIT
// Compiled unwind tables shared by every process of a recording.
//
// Compiling a module's .eh_frame (eh_frame.h) costs milliseconds for libc and
// libstdc++, and every profiled process loads them: a shell script that
// starts hundreds of programs would compile the same tables hundreds of
// times.  The recorder makes a private directory for the recording and
// names it in CPCPROF_CFI_CACHE; the first process that compiles a module
// writes its rows there, and the others map the file read-only.  A row's pc
// is an offset from the module's load bias, so a table is the same in
// every process whatever the address the module was loaded at.
//
// A file is named after the module's identity on disk (device, inode,
// size, modification time) and the build-id of the module in memory: a
// module rebuilt during the recording gets a table of its own, and so
// does a process that still runs the file's previous version.  Files are
// written under a temporary name and renamed, so that a reader sees a
// whole table or none.  Mappings are never removed: the overflow handler
// may read a table at any time.
//
// Not for signal context.  Without the variable (or with a directory that
// cannot be used) every function answers "not cached" and the agent
// compiles its tables itself, as before.
#pragma once

#include "profiler/agent/cfi.h"

#include <link.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cpcprof::agent {

// The module's GNU build-id as lowercase hex, from its notes in memory
// (bounded by each note segment); "" when it has none.
std::string module_build_id(const dl_phdr_info *info);

// Reads CPCPROF_CFI_CACHE (once, at the agent's start).
void cfi_cache_init();

// What tells the module (its file at path) from any other: the file's
// device, inode, size and modification time, and the build-id; the
// build-id alone when the file cannot be found (the vDSO), and then
// *is_file (when given) is false.
std::string module_identity(const dl_phdr_info *info, const char *path, bool *is_file = nullptr);

// The cache file's name for a module of that identity whose file was
// found, or "" when there is no cache.
std::string cfi_cache_key(const std::string &identity);

// A module's rows as the cache holds them: the rows, then each row's pc
// again in an array of its own (find_cfi's binary search reads only
// those), mapped read-only.
struct CachedRows {
    const CfiRow *rows = nullptr; // null: none cached
    const uint32_t *pcs = nullptr;
    uint32_t count = 0;
};
CachedRows cfi_cache_find(const std::string &key);

// Writes rows (and their pcs) under key (best effort: a failure only
// costs the next process the compilation).
void cfi_cache_store(const std::string &key, const std::vector<CfiRow> &rows,
                     const std::vector<uint32_t> &pcs);

} // namespace cpcprof::agent
