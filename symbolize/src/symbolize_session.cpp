// SPDX-License-Identifier: MIT
// Session: one Dwfl over the modules of a process image, with a symbol
// table and compile-unit indexes per module, and the address cache.
// (KDAB/perfparser app/perfsymboltable.cpp has the same shape.)
#include "base/paths.h"
#include "symbolize/symbolizer.h"

#include "symbolize/src/address_cache.h"
#include "symbolize/src/build_id.h"
#include "symbolize/src/compile_unit.h"
#include "symbolize/src/debug_search.h"
#include "symbolize/src/elf_owners.h"
#include "symbolize/src/fde_index.h"
#include "symbolize/src/kernel_symbols.h"
#include "symbolize/src/module_map.h"
#include "symbolize/src/perf_map.h"
#include "symbolize/src/plt_names.h"
#include "symbolize/src/symbol_table.h"

#include "base/scoped_fd.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

namespace cpcprof::symbolize {

namespace {

struct ModuleState {
    Dwfl_Module *dwfl = nullptr; // null: file missing, replaced or not ELF
    // Where dwfl has the file: an address's file offset -> ELF address
    // (segments) -> + bias.  Every mapping goes through its file offset,
    // so a second mapping of the file at another address (a program that
    // maps its own code again) resolves as the first.
    std::vector<LoadSegment> segments;
    uint64_t bias = 0;
    std::optional<PerfMap> jit;          // a perf map's module: its names, if the file was read
    std::optional<KernelSymbols> kernel; // the [kernel] module: kallsyms' text symbols
    std::string why_no_symbols;          // the [kernel] module: why kernel has none
    DebugSearch search;                  // where find_debuginfo_here looks
    bool queried = false;
    std::optional<SymbolTable> symbols;     // read on first use
    std::map<Dwarf_Off, CompileUnit> units; // by CU DIE offset, indexed on first use
    std::optional<bool> has_symbols;        // symbol table or DWARF, decided on first query
    std::optional<FdeIndex> fdes;           // read on first unnamed address
    Dwarf_Addr fde_bias = 0;                // process address - ELF address of fdes
    std::optional<PltNames> plt;            // read on first unnamed address
    Dwarf_Addr plt_bias = 0;                // process address - ELF address of plt
};

// The load segments of elf, or nothing if it is not the file the recording
// saw (build-id differs).  *fixed: an ET_EXEC file, loaded at its own
// addresses.
std::optional<std::vector<LoadSegment>> check_elf(int fd, const std::string &build_id,
                                                  bool *fixed) {
    UniqueElf owner(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
    Elf *elf = owner.get();
    if (elf == nullptr)
        return std::nullopt;
    std::optional<std::vector<LoadSegment>> segments;
    size_t phnum = 0;
    if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &phnum) == 0 &&
        (build_id.empty() || elf_build_id(elf) == build_id)) {
        segments.emplace();
        GElf_Ehdr ehdr;
        *fixed = gelf_getehdr(elf, &ehdr) != nullptr && ehdr.e_type == ET_EXEC;
        for (size_t i = 0; i < phnum; ++i) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, int(i), &ph) != nullptr && ph.p_type == PT_LOAD)
                segments->push_back(
                    {ph.p_vaddr, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0});
        }
    }
    return segments;
}

// The kernel's vDSO has no file.  This process's own is the same image when
// the build-id matches (the same kernel build), so a copy of it in a memfd
// stands in for the file; none if there is none.
base::ScopedFd own_vdso_fd() {
    FILE *maps = std::fopen("/proc/self/maps", "re");
    if (maps == nullptr)
        return {};
    unsigned long long start = 0, end = 0;
    bool found = false;
    char line[512];
    while (!found && std::fgets(line, sizeof line, maps) != nullptr) {
        std::string_view l(line);
        while (!l.empty() && (l.back() == '\n' || l.back() == ' '))
            l.remove_suffix(1);
        found = l.ends_with("[vdso]") && std::sscanf(line, "%llx-%llx", &start, &end) == 2 &&
                end > start;
    }
    std::fclose(maps);
    if (!found)
        return {};
    base::ScopedFd fd(memfd_create("vdso", MFD_CLOEXEC));
    if (!fd.valid())
        return {};
    const char *p = reinterpret_cast<const char *>(uintptr_t(start));
    for (size_t left = end - start; left > 0;) {
        ssize_t n = write(fd.get(), p, left);
        if (n <= 0)
            return {};
        p += n;
        left -= size_t(n);
    }
    return fd;
}

// Reports the module's file to dwfl at the bias its first mapping implies,
// and keeps its segments and that bias in state.
Dwfl_Module *report(Dwfl *dwfl, const ModuleMap::Module &module, ModuleState *state) {
    // glibc's name for it, or the recorder's when it has none
    const bool vdso = module.path == "linux-vdso.so.1" || module.path == "linux-gate.so.1" ||
                      module.path == "[vdso]";
    if (vdso && module.build_id.empty()) // cannot tell whether ours is the same
        return nullptr;
    const std::string &file =
        module.mappings.front().file.empty() ? module.path : module.mappings.front().file;
    base::ScopedFd fd =
        vdso ? own_vdso_fd() : base::ScopedFd(open(file.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return nullptr;
    bool fixed = false;
    auto segments = check_elf(fd.get(), module.build_id, &fixed);
    std::optional<uint64_t> bias;
    if (segments && fixed) {
        bias = 0; // a mapping elsewhere is a copy: its addresses go through file offsets
    } else if (segments) {
        const Mapping &first = module.mappings.front();
        bias = load_bias(*segments, first.start, first.file_offset);
    }
    Dwfl_Module *mod = nullptr;
    if (bias) // on success dwfl_report_elf owns fd
        mod =
            dwfl_report_elf(dwfl, module.path.c_str(), module.path.c_str(), fd.get(), *bias, true);
    if (mod != nullptr) {
        fd.release();
        state->segments = std::move(*segments);
        state->bias = *bias;
        state->search.build_id = module.build_id;
        state->search.fallback = module.mappings.front().debug_file;
        void **userdata = nullptr;
        dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        if (userdata != nullptr)
            *userdata = &state->search; // for find_debuginfo_here
    }
    return mod;
}

// The PLT stub tables of elf (.plt, .plt.sec, .plt.got, .iplt), by their
// section headers (which stripping keeps), into index.
void add_plt_sections(Elf *elf, FdeIndex *index) {
    size_t names = 0;
    if (elf_getshdrstrndx(elf, &names) != 0)
        return;
    for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == nullptr || (sh.sh_flags & SHF_EXECINSTR) == 0)
            continue;
        const char *name = elf_strptr(elf, names, sh.sh_name);
        std::string_view n = name != nullptr ? name : "";
        if (n == ".plt" || n.starts_with(".plt.") || n == ".iplt")
            index->add_stubs(sh.sh_addr, sh.sh_addr + sh.sh_size);
    }
}

// The FDE starts of mod's .eh_frame_hdr (PT_GNU_EH_FRAME) but for its PLT
// stubs, and the bias of their ELF addresses.
FdeIndex read_fdes(Dwfl_Module *mod, Dwarf_Addr *bias) {
    Elf *elf = dwfl_module_getelf(mod, bias);
    size_t phnum = 0;
    if (elf == nullptr || elf_getphdrnum(elf, &phnum) != 0)
        return {};
    for (size_t i = 0; i < phnum; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_GNU_EH_FRAME)
            continue;
        Elf_Data *data = elf_getdata_rawchunk(elf, int64_t(ph.p_offset), ph.p_filesz, ELF_T_BYTE);
        if (data == nullptr || data->d_buf == nullptr)
            return {};
        FdeIndex index({static_cast<const uint8_t *>(data->d_buf), data->d_size}, ph.p_vaddr);
        add_plt_sections(elf, &index);
        return index;
    }
    return {};
}

// Whether the file's bytes at offset are glibc's x86-64 signal trampoline,
// __restore_rt (mov $15, %rax; syscall: rt_sigreturn), which a stripped
// libc leaves unnamed: the frame between a signal handler and the code it
// interrupted.  The handler returns into its first byte.
bool starts_sigreturn(const std::string &path, uint64_t offset) {
#if defined(__x86_64__)
    static constexpr unsigned char kRestoreRt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                                   0x00, 0x00, 0x0f, 0x05};
    base::ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    unsigned char bytes[sizeof kRestoreRt];
    return fd.get() >= 0 &&
           pread(fd.get(), bytes, sizeof bytes, off_t(offset)) == ssize_t(sizeof bytes) &&
           std::memcmp(bytes, kRestoreRt, sizeof bytes) == 0;
#else
    (void)path;
    (void)offset;
    return false;
#endif
}

// "function", or "function [module]" for a kernel module's.
std::string kernel_function_name(const KernelSymbols::Symbol &sym) {
    std::string name(sym.function);
    if (!sym.module.empty())
        name.append(" [").append(sym.module).append("]");
    return name;
}

SymbolTable read_symbols(Dwfl_Module *mod) {
    SymbolTable table;
    int count =
        dwfl_module_getsymtab(mod); // .symtab, else .dynsym, from the file or its debug file
    for (int i = 1; i < count; ++i) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, nullptr, nullptr);
        int type = GELF_ST_TYPE(sym.st_info);
        if (name == nullptr || *name == '\0' || shndx == SHN_UNDEF ||
            (type != STT_FUNC && type != STT_GNU_IFUNC))
            continue;
        table.add(addr, sym.st_size, unversioned_name(name),
                  GELF_ST_BIND(sym.st_info) != STB_LOCAL);
    }
    table.finalize();
    return table;
}

} // namespace

struct Session::Impl {
    ModuleMap map;
    std::vector<ModuleState> modules;
    AddressCache cache;
    std::string debuginfo_path;
    char *debuginfo_path_ptr = nullptr;
    Dwfl_Callbacks callbacks{};
    UniqueDwfl dwfl; // after callbacks and the path: it points at them
    Stats stats;

    Impl(const std::vector<Mapping> &mappings, const std::vector<std::string> &debug_dirs,
         const std::string &kallsyms)
        : map(mappings), modules(map.modules().size()) {
        // The default ":.debug:/usr/lib/debug", with the caller's directories
        // before /usr/lib/debug.
        debuginfo_path = ":.debug";
        for (const std::string &dir : debug_dirs)
            debuginfo_path += ":" + dir;
        debuginfo_path += ":/usr/lib/debug";
        debuginfo_path_ptr = debuginfo_path.data();
        callbacks.find_elf = dwfl_build_id_find_elf;
        callbacks.find_debuginfo = find_debuginfo_here; // build-id, debuglink, debug_file
        callbacks.section_address = dwfl_offline_section_address;
        callbacks.debuginfo_path = &debuginfo_path_ptr;
        dwfl.reset(dwfl_begin(&callbacks));
        if (dwfl == nullptr)
            return;
        dwfl_report_begin(dwfl.get());
        for (size_t i = 0; i < modules.size(); ++i) {
            const ModuleMap::Module &module = map.modules()[i];
            if (PerfMap::is_perf_map_path(module.path))
                modules[i].jit = PerfMap::load(module.path);
            else if (module.path == kKernelModule)
                modules[i].kernel = KernelSymbols::load(kallsyms, &modules[i].why_no_symbols);
            else {
                modules[i].search.dirs = debug_dirs;
                modules[i].dwfl = report(dwfl.get(), module, &modules[i]);
            }
        }
        dwfl_report_end(dwfl.get(), nullptr, nullptr);
    }
    // CompileUnits hold DIEs of dwfl's Dwarf: they go first, then dwfl
    // (members are destroyed after this body).
    ~Impl() { modules.clear(); }

    SymbolTable &symbols(ModuleState &m) {
        if (!m.symbols) {
            m.symbols = read_symbols(m.dwfl);
            ++stats.symbol_tables_read;
        }
        return *m.symbols;
    }

    std::vector<Frame> frames(ModuleState &m, uint64_t pc) {
        if (m.dwfl == nullptr)
            return {};
        CompileUnit::Chain chain;
        Dwarf_Addr bias = 0;
        if (Dwarf_Die *cu = dwfl_module_addrdie(m.dwfl, pc, &bias)) {
            auto [it, inserted] = m.units.try_emplace(dwarf_dieoffset(cu), *cu);
            stats.compile_units_indexed += inserted;
            if (it->second.covers(pc - bias))
                chain = it->second.lookup(pc - bias);
        }
        // The real function is named from the symbol table when it can be:
        // DWARF gives internal-linkage functions no linkage name, so their
        // DW_AT_name lacks namespaces and parameters.
        if (const std::string *name = symbols(m).find(pc)) {
            if (chain.complete)
                chain.frames.back().function = *name;
            else
                chain.frames.push_back({*name, chain.outer_file, chain.outer_line, false});
        }
        std::erase_if(chain.frames, [](const Frame &f) { return f.function.empty(); });
        return std::move(chain.frames);
    }

    // "name@plt" if pc is in a PLT stub, else nullptr.
    const std::string *plt_name(ModuleState &m, uint64_t pc) {
        if (m.dwfl == nullptr)
            return nullptr;
        if (!m.plt)
            m.plt.emplace(dwfl_module_getelf(m.dwfl, &m.plt_bias));
        return m.plt->find(pc - m.plt_bias);
    }

    // The process address where the function holding pc begins, by the FDE
    // that covers pc; nullopt if none does.
    std::optional<uint64_t> fde_start(ModuleState &m, uint64_t pc) {
        if (m.dwfl == nullptr)
            return std::nullopt;
        if (!m.fdes)
            m.fdes = read_fdes(m.dwfl, &m.fde_bias);
        Dwarf_Addr cfi_bias = 0;
        Dwarf_CFI *cfi = dwfl_module_eh_cfi(m.dwfl, &cfi_bias);
        Dwarf_Frame *frame = nullptr;
        if (m.fdes->size() == 0 || cfi == nullptr ||
            dwarf_cfi_addrframe(cfi, pc - cfi_bias, &frame) != 0)
            return std::nullopt;
        std::free(frame);
        // FDEs do not overlap: the one covering pc is the last starting at
        // or below it.
        std::optional<uint64_t> start = m.fdes->start_at_or_below(pc - m.fde_bias);
        if (!start)
            return std::nullopt;
        return *start + m.fde_bias;
    }

    bool module_has_symbols(ModuleState &m) {
        if (!m.has_symbols && m.jit) {
            m.has_symbols = m.jit->size() > 0;
        } else if (!m.has_symbols && m.kernel) {
            m.has_symbols = m.kernel->size() > 0;
        } else if (!m.has_symbols) {
            Dwarf_Addr bias;
            m.has_symbols = m.dwfl != nullptr && (symbols(m).size() > 0 ||
                                                  dwfl_module_getdwarf(m.dwfl, &bias) != nullptr);
        }
        return *m.has_symbols;
    }
};

Session::Session(const std::vector<Mapping> &mappings, std::vector<std::string> debug_dirs,
                 const std::string &kallsyms)
    : impl_(std::make_unique<Impl>(mappings, debug_dirs, kallsyms)) {}
Session::~Session() = default;
Session::Session(Session &&) noexcept = default;
Session &Session::operator=(Session &&) noexcept = default;

Location Session::resolve(uint64_t address, bool is_return_address) {
    Impl &s = *impl_;
    ++s.stats.lookups;
    uint64_t pc = is_return_address && address > 0 ? address - 1 : address;
    std::optional<ModuleMap::Hit> hit = s.map.find(pc);
    size_t module = hit ? hit->module : AddressCache::no_module;
    uint64_t offset = hit ? hit->file_offset + (address - pc) : address;
    // The address the module's own tables know pc by: the ELF address plus
    // dwfl's bias, or a perf map's process address (its module's offsets).
    uint64_t key = pc;
    if (hit) {
        const ModuleState &m = s.modules[module];
        if (m.jit || m.kernel)
            key = hit->file_offset;
        else if (m.dwfl != nullptr)
            key = elf_address(m.segments, hit->file_offset).value_or(pc - m.bias) + m.bias;
    }

    if (const Location *cached = s.cache.find(module, key)) {
        ++s.stats.cache_hits;
        Location copy = *cached;
        copy.module_offset = offset;
        return copy;
    }
    Location loc;
    loc.module_offset = offset;
    if (hit) {
        ModuleState &m = s.modules[module];
        m.queried = true;
        loc.module = s.map.modules()[module].path;
        if (m.jit) {
            if (s.module_has_symbols(m))
                if (const std::string *name = m.jit->find(key))
                    loc.frames.push_back({*name, {}, 0, false});
        } else if (m.kernel) {
            if (s.module_has_symbols(m))
                if (std::optional<KernelSymbols::Symbol> sym = m.kernel->find(key))
                    loc.frames.push_back({kernel_function_name(*sym), {}, 0, false});
        } else {
            if (s.module_has_symbols(m))
                loc.frames = s.frames(m, key);
            if (loc.frames.empty())
                if (const std::string *stub = s.plt_name(m, key))
                    loc.frames.push_back({*stub, "", 0, false});
            if (loc.frames.empty() && starts_sigreturn(loc.module, offset))
                loc.frames.push_back({"__restore_rt", "", 0, false});
            if (loc.frames.empty())
                if (std::optional<uint64_t> start = s.fde_start(m, key); start && *start <= key)
                    loc.function_offset = hit->file_offset - (key - *start);
        }
    }
    loc.has_symbols = !loc.frames.empty();
    return s.cache.insert(module, key, std::move(loc));
}

std::vector<std::string> Session::modules_without_symbols() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < impl_->modules.size(); ++i) {
        const ModuleState &m = impl_->modules[i];
        if (m.queried && !m.has_symbols.value_or(false))
            out.push_back(impl_->map.modules()[i].path);
    }
    return out;
}

std::vector<std::string> Session::modules_without_dwarf() {
    std::vector<std::string> out;
    for (size_t i = 0; i < impl_->modules.size(); ++i) {
        ModuleState &m = impl_->modules[i];
        Dwarf_Addr bias = 0;
        if (m.queried && m.dwfl != nullptr && dwfl_module_getdwarf(m.dwfl, &bias) == nullptr)
            out.push_back(impl_->map.modules()[i].path);
    }
    return out;
}

std::vector<std::string> Session::why_without_symbols() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < impl_->modules.size(); ++i) {
        const ModuleState &m = impl_->modules[i];
        if (m.queried && !m.has_symbols.value_or(false) && !m.why_no_symbols.empty())
            out.push_back(impl_->map.modules()[i].path + ": " + m.why_no_symbols);
    }
    return out;
}

Session::Stats Session::stats() const {
    return impl_->stats;
}

namespace {
std::string module_plus(const std::string &module, uint64_t offset) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(offset));
    if (module.empty())
        return std::string("[unknown]") + hex;
    return base::base_name(module) + hex;
}
} // namespace

Mapping kernel_mapping() {
    constexpr uint64_t half = uint64_t(1) << 63;
    return {kKernelModule, "", half, UINT64_MAX, half, ""};
}

std::string fallback_name(const Location &loc) {
    return module_plus(loc.module, loc.module_offset);
}

std::string function_fallback_name(const Location &loc) {
    return loc.function_offset ? module_plus(loc.module, *loc.function_offset) : fallback_name(loc);
}

} // namespace cpcprof::symbolize
