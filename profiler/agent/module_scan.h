// SPDX-License-Identifier: MIT
// The process's executable mappings, as the module table sends them to the
// recorder.  Ordinary context only (the drain thread, start-up, fork).
//
// The loader's modules (dl_iterate_phdr) come first, with the names and
// build-ids the loader gives them.  /proc/self/maps adds every other
// executable mapping: code a program maps itself (node maps part of its
// own binary a second time, r-xp, at 0x7f...), files it maps executable
// by hand, and anonymous executable memory (JIT code).
//   - a second mapping of a file the loader has: the loader's path and
//     build-id (matched by device and inode), its own file offset;
//   - another file: the path /proc/self/maps shows, no build-id;
//   - anonymous memory (no file; also "[anon:NAME]" regions named with
//     PR_SET_VMA_ANON_NAME): the path jit_map_path(pid), and as file
//     offset the mapping's start, so that an address's offset in this
//     "module" is the address itself, as a perf map lists it;
//   - other kernel regions ([vsyscall], [uprobes]): left out.
// Adjacent entries that continue each other (same path, contiguous
// offsets) are merged: JIT heaps are often many neighbouring mappings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::agent {

struct ModuleEntry {
    uint64_t start = 0, end = 0, file_offset = 0;
    std::string path, build_id;
};

// One executable line of /proc/PID/maps.
struct MapsLine {
    uint64_t start = 0, end = 0, file_offset = 0;
    uint64_t dev_major = 0, dev_minor = 0, inode = 0;
    std::string path; // "" for anonymous memory
};

// The executable lines of a maps text; lines that do not parse are skipped.
std::vector<MapsLine> parse_exec_maps(std::string_view text);

// The perf map a program writes for its JIT code (`node --perf-basic-prof`,
// perf's convention): "/tmp/perf-PID.map".  Also the path of the
// process's anonymous executable mappings in the module table.
std::string jit_map_path(int pid);

// Appends to modules (the loader's, in its order) the mappings of maps
// that none of them overlaps, named as above, sorted by start.
void add_unlisted_mappings(std::vector<ModuleEntry> &modules, const std::vector<MapsLine> &maps,
                           int pid);

// The loader's executable segments (exe: the main program's path, which
// the loader leaves unnamed), then, with maps, add_unlisted_mappings over
// /proc/self/maps.  A maps file that cannot be read leaves the loader's.
std::vector<ModuleEntry> scan_modules(const std::string &exe, bool maps = true);

// The protocol's modules message (profiler/protocol/protocol.h) of pid's
// table at time_ns: one message holds the whole table, and what would
// not fit is left out (the loader's modules come first).  The agent sends
// its own; the recorder, those of processes it attaches to.
std::vector<char> module_table_message(int pid, int64_t time_ns,
                                       const std::vector<ModuleEntry> &modules);

// Sorted, merged [start, end) ranges of modules, for covers().
struct KnownRanges {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;

    explicit KnownRanges(const std::vector<ModuleEntry> &modules = {});
    bool covers(uint64_t address) const;
};

} // namespace cpcprof::agent
