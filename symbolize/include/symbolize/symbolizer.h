// SPDX-License-Identifier: MIT
// Addresses of one process image -> functions, inline chains, file:line.
//
// A Session is built from the executable mappings recorded for a process
// (path, build-id, [start,end), file offset).  Each distinct file is
// reported to one libdwfl session with the load bias that its mapping
// implies, and is read lazily: its symbol table once, sorted, and each
// compile unit's line table and inline scopes once, on first use.  Every
// (module, address) is resolved once; later calls are cache hits.
//
// Debug information is found the standard libdwfl way: the file itself,
// then a separate file by build-id (DIR/.build-id/xx/rest.debug under each
// debug directory and /usr/lib/debug), then by .gnu_debuglink (the file's
// directory, its .debug/ subdirectory, DIR/<file's directory>/), then the
// mapping's debug_file.  No debuginfod server is asked, whatever
// DEBUGINFOD_URLS says (libdwfl's own lookups have no bound): callers
// fetch through symbolize/debuginfod.h and pass the files as debug_file.
//
// The vDSO has no file (glibc names it linux-vdso.so.1, linux-gate.so.1
// on 32-bit x86; the recorder "[vdso]" when glibc gives no name).  It is
// read from this process's own vDSO when the recorded build-id matches
// it: the same kernel build.  Otherwise, or without a recorded build-id,
// it has no symbols.
//
// Each address is looked up through its file offset (the mapping that
// holds it): a file mapped twice at unrelated addresses (a program that
// maps its own code again, as node does) resolves the same in both.
//
// A module whose path is a perf map, a file named perf-PID.map
// (/tmp/perf-PID.map, the agent's name for anonymous executable memory),
// is not ELF: its mappings have their start as file offset (offsets are
// the process's addresses), and the map names the JIT's functions
// (src/perf_map.h).  It is read when the Session is made: a map written
// by another process with the same pid gives wrong names.
//
// Kernel frames are addresses of the module "[kernel]" (kKernelModule),
// which is not a file either: file offsets in its mappings are the
// kernel's addresses, as in a perf map, and it is named from the kernel's
// symbol table, /proc/kallsyms (src/kernel_symbols.h): "clear_page_erms",
// or "ext4_file_write_iter [ext4]" for a loaded module's function.  It is
// read when the Session is made, and kallsyms holds the addresses of this
// boot only (KASLR moves the kernel at every boot; modules move when they
// are loaded again): a profile of another boot gets wrong kernel names.
// Where the kernel hides its addresses from this reader, or the file
// cannot be read, the module has no symbols and why_without_symbols() says
// why.
//
// A Session is not thread-safe: one thread per session.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cpcprof::symbolize {

// The module of kernel frames.
inline constexpr char kKernelModule[] = "[kernel]";

// One executable mapping of a process: [start, end) in the process, and the
// offset in the file of its first byte.  Mappings of the same path (and
// build-id) are one module.  An empty build_id is not checked; a non-empty
// one must match the file's, or the file is not used (it was replaced since
// the recording) and the module's addresses keep their fallback names.
struct Mapping {
    std::string path;
    std::string build_id; // lowercase hex, as in .build-id/ paths
    uint64_t start = 0, end = 0, file_offset = 0;
    // Where path's file is read when this reader's path does not hold it
    // (the file of a process in another mount namespace, held open by the
    // recorder: "/proc/self/fd/N"); empty: at path.  Its build-id is
    // checked as path's would be.  path still names the module, and its
    // directory is where a .gnu_debuglink file is looked for.
    std::string file = {};
    // A separate debug file for the module, used when the standard search
    // (above) finds none: one fetched from a debuginfod server
    // (symbolize/debuginfod.h).  Not used unless its build-id is the
    // module's.
    std::string debug_file = {};
};

struct Frame {
    std::string function; // demangled; empty if unknown
    std::string file;     // as the line table names it (usually absolute); empty if unknown
    int line = 0;         // 0 if unknown
    bool inlined = false; // this frame was inlined into the next one
};

struct Location {
    // Innermost first: inlined frames, then the real function.  Each frame's
    // file:line is where control is in that function: the address's own
    // line for frames[0], the call site of the frame before it otherwise.
    // Empty when nothing names the address.
    std::vector<Frame> frames;
    std::string module;         // the mapping's path; empty if no mapping covers the address
    uint64_t module_offset = 0; // file offset of the address in module (the address itself if none)
    bool has_symbols = false;   // frames is not empty
    // When frames is empty: the file offset where the function holding the
    // address begins, by the call-frame information (the FDE, from
    // .eh_frame_hdr) that covers it; a stripped module's addresses are
    // grouped into functions by it.  nullopt if no FDE covers it, and in
    // PLT stubs (.plt, .plt.sec: one FDE covers them all).
    std::optional<uint64_t> function_offset;
};

class Session { // one process image
  public:
    // debug_dirs are searched before /usr/lib/debug, for build-id and
    // debuglink files alike.  kallsyms names kernel frames (tests give
    // another file).
    explicit Session(const std::vector<Mapping> &mappings, std::vector<std::string> debug_dirs = {},
                     const std::string &kallsyms = "/proc/kallsyms");
    ~Session();
    Session(Session &&) noexcept;
    Session &operator=(Session &&) noexcept;
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    // A return address (a caller frame of a stack) is looked up at
    // address - 1, inside the call instruction; the reported module_offset
    // is that of address as given.  Cached per (module, looked-up address).
    Location resolve(uint64_t address, bool is_return_address);

    // Paths of the modules that resolve() was asked about and that have
    // neither a symbol table nor DWARF (missing, replaced, stripped without
    // findable debug info), in mapping order.
    std::vector<std::string> modules_without_symbols() const;
    // Paths of the ELF modules that resolve() was asked about and that
    // have no DWARF here, their own or a separate file's (stripped, with
    // or without a symbol table): a debuginfod server may have it.
    std::vector<std::string> modules_without_dwarf();
    // For those of modules_without_symbols() whose reason the session
    // knows beyond "no symbol table or DWARF", "PATH: reason", once each:
    // "[kernel]: /proc/kallsyms shows every address as 0 (...)".
    std::vector<std::string> why_without_symbols() const;

    struct Stats {
        uint64_t lookups = 0, cache_hits = 0, compile_units_indexed = 0, symbol_tables_read = 0;
    };
    Stats stats() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The mapping that holds every kernel address in a process: the kernel's
// half of the address space on 64-bit Linux, [2^63, 2^64 - 1), under
// kKernelModule with its start as file offset.  Its range does not depend
// on kallsyms, so kernel frames can be stored where their names are hidden.
Mapping kernel_mapping();

// "module+0xoffset" with the module's file name (no directory), or
// "[unknown]+0xaddress" when no mapping covered the address.
std::string fallback_name(const Location &);
// The name of the function holding an unnamed address: "module+0xSTART"
// with START its function_offset (the FDE's start), as perf names such
// functions; fallback_name() when it has none.
std::string function_fallback_name(const Location &);

// The extent of the function holding ELF address vaddr of the ELF file at
// path by its call-frame information, for a stripped file: [start, end)
// ELF addresses from the start of the FDE covering vaddr (.eh_frame_hdr's
// table, as the symbolizer names such functions) to the next FDE's start
// (alignment padding included).  nullopt when no FDE covers it, or the
// file is not a readable regular ELF file.
std::optional<std::pair<uint64_t, uint64_t>> fde_range(const std::string &path, uint64_t vaddr);

// The separate debug file that the standard search (build-id under each
// of debug_dirs and /usr/lib/debug, then .gnu_debuglink) finds for the
// ELF file at path, as a Session finds it; "" when the file holds its own
// DWARF or none is found.  No server is asked.
// *own_dwarf (when given): whether the file holds its own DWARF.
std::string find_debug_file(const std::string &path, const std::vector<std::string> &debug_dirs,
                            bool *own_dwarf = nullptr);

// The GNU build-id of an ELF file in lowercase hex, "" if it has none or
// cannot be read.  Recorders store it in Mapping::build_id.
std::string read_build_id(const std::string &path);

} // namespace cpcprof::symbolize
