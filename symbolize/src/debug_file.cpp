// SPDX-License-Identifier: MIT
// find_debug_file(): libdwfl's search for one file, offline, without
// debuginfod (debug_search.h).
#include "symbolize/symbolizer.h"

#include "symbolize/src/debug_search.h"
#include "symbolize/src/elf_owners.h"

#include <elfutils/libdwfl.h>

namespace cpcprof::symbolize {

std::string find_debug_file(const std::string &path, const std::vector<std::string> &debug_dirs,
                            bool *own_dwarf) {
    if (own_dwarf != nullptr)
        *own_dwarf = false;
    // As a Session searches (symbolize_session.cpp).
    std::string search_path = ":.debug";
    for (const std::string &dir : debug_dirs)
        search_path += ":" + dir;
    search_path += ":/usr/lib/debug";
    char *search_ptr = search_path.data();
    Dwfl_Callbacks callbacks{};
    callbacks.find_elf = dwfl_build_id_find_elf;
    callbacks.find_debuginfo = find_debuginfo_here; // no server asked
    callbacks.section_address = dwfl_offline_section_address;
    callbacks.debuginfo_path = &search_ptr;
    UniqueDwfl dwfl(dwfl_begin(&callbacks));
    if (dwfl == nullptr)
        return "";
    dwfl_report_begin(dwfl.get());
    Dwfl_Module *mod = dwfl_report_offline(dwfl.get(), path.c_str(), path.c_str(), -1);
    dwfl_report_end(dwfl.get(), nullptr, nullptr);
    if (mod == nullptr)
        return "";
    DebugSearch search{debug_dirs, read_build_id(path), ""};
    void **userdata = nullptr;
    dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (userdata != nullptr)
        *userdata = &search;
    Dwarf_Addr bias = 0;
    if (dwfl_module_getdwarf(mod, &bias) == nullptr) // the search happens here
        return "";
    const char *main_file = nullptr, *debug_file = nullptr;
    dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, &main_file, &debug_file);
    // DWARF found, in no file of its own (libdwfl leaves debug_file null
    // then) or in the main file: the module's own.
    if (debug_file == nullptr || (main_file != nullptr && std::string(main_file) == debug_file)) {
        if (own_dwarf != nullptr)
            *own_dwarf = true;
        return "";
    }
    return debug_file;
}

} // namespace cpcprof::symbolize
