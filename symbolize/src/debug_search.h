// SPDX-License-Identifier: MIT
// libdwfl's search for a module's separate debug file, without debuginfod.
//
// dwfl_standard_find_debuginfo ends by asking the servers of
// DEBUGINFOD_URLS, with libdebuginfod's own timeouts (90 s a try, several
// tries): no bound a profiler's user would accept, and no way to stop it.
// Every Dwfl of this project uses find_debuginfo_here instead: the same
// search on this machine, and the servers only through
// symbolize/debuginfod.h, which the callers bound.
#pragma once

#include <elfutils/libdwfl.h>

#include <string>
#include <vector>

namespace cpcprof::symbolize {

// What find_debuginfo_here searches for one module: its userdata in the
// Dwfl (dwfl_module_info's userdata slot) points at one.
struct DebugSearch {
    std::vector<std::string> dirs; // before /usr/lib/debug, as the Dwfl's debuginfo_path
    std::string build_id;          // the module's, lowercase hex ("" unknown)
    std::string fallback;          // Mapping::debug_file: tried last
};

// A Dwfl_Callbacks::find_debuginfo: by build-id (under each debug
// directory and /usr/lib/debug: dwfl_build_id_find_debuginfo), then by
// .gnu_debuglink (the file's directory, its .debug/, then each debug
// directory and /usr/lib/debug followed by the file's directory; a
// candidate counts when its build-id, or without one its CRC, is the
// module's), then the DebugSearch's fallback when its build-id is the
// module's.  Never asks a server.
int find_debuginfo_here(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name);

} // namespace cpcprof::symbolize
