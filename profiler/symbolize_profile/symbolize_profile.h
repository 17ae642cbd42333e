// SPDX-License-Identifier: MIT
// Symbolizing a recorded profile: the addresses its stacks reach (storage's
// SymbolWriter) resolved by symbolize::Session and stored back in the file.
// `cpcprof record` does it when the recording ends; `cpcprof symbolize FILE`
// does it again (after debug symbols were installed, for example), which
// replaces every earlier answer - but those of a module that had symbols
// and whose file gives none now (gone, or in a container's namespace that
// ended): its earlier names are kept.
//
// One Session per module: all addresses of a module are offsets in one file,
// so its mappings are placed at one common load bias and the file is read
// once.  An address no symbol names is stored as the function its FDE
// begins ("module+0xSTART"), or not at all without one (reports then show
// module+0xoffset).  A module is marked as having symbols iff the Session
// found a symbol table or DWARF for it (kallsyms' symbols for the kernel
// frames of the "[kernel]" module).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::symbolize {
class DebuginfodClient;
}

namespace cpcprof::symbolize_profile {

struct Options {
    std::vector<std::string> debug_dirs;     // searched before /usr/lib/debug
    std::string kallsyms = "/proc/kallsyms"; // names the kernel frames
    // build-id -> where the file with that build-id is read, for modules
    // whose path does not hold it here (symbolize::Mapping::file).
    std::map<std::string, std::string> files;
    // A module with a build-id that this machine has no symbols for is
    // named from libdebuginfod's cache when an earlier lookup put its debug
    // file there.  When set, one still without symbols is looked up here (its deadline and stop
    // flag bound the lookups), and symbolized from what it gives.
    symbolize::DebuginfodClient *debuginfod = nullptr;
};

struct Summary {
    uint64_t addresses = 0; // distinct (module, offset) that stacks reach, but kept_earlier's
    uint64_t resolved = 0;  // of those, the ones a symbol or DWARF named
    uint64_t by_fde = 0;    // the others, grouped into functions by their FDE
    size_t modules = 0;     // modules looked at, but kept_earlier
    std::vector<std::string> modules_without_symbols; // their paths, by module id
    // "PATH: reason" for those of them whose reason is known beyond "no
    // symbol table or DWARF" (the kernel's symbols hidden)
    std::vector<std::string> why_without_symbols;
    // Modules whose file gave no symbols now, but whose names from an
    // earlier symbolization (its file readable then) were kept.
    std::vector<std::string> kept_earlier;
    // Debug files fetched from debuginfod servers: "PATH (from SERVER)";
    // and the modules asked for in vain: "PATH (why)".
    std::vector<std::string> fetched, not_fetched;
    bool fetch_timed_out = false, fetch_stopped = false;
    double seconds = 0;
};

// Symbolizes the profile at path in place.  nullopt with *error =
// "PATH: reason" when the file is refused or cannot be written; the file
// is then as it was.
std::optional<Summary> symbolize_profile(const std::string &path, const Options &options,
                                         std::string *error);

// "symbolized R of N addresses in M modules (K without symbols: a, b)",
// "; the earlier names of 1 module kept, its file no longer readable
// here: c" when some were, " in S s", and "; F others grouped into
// functions by their FDE" when F > 0, then "; " and each of
// why_without_symbols, then what debuginfod servers gave and did not give.
// N and M leave the kept modules out.
std::string describe(const Summary &s);

// `cpcprof symbolize FILE [--debug-dir DIR]...`.  Exit status: 0 done,
// 1 the file was refused or could not be written, 2 usage error.
int symbolize_main(const std::vector<std::string> &args);

} // namespace cpcprof::symbolize_profile
