// SPDX-License-Identifier: MIT
// The process's CFI tables (cfi_tables.h).  Ordinary context only: the
// handler reads the published index through find_cfi (cfi_lookup.cpp).
#include "profiler/agent/cfi_tables.h"

#include "profiler/agent/cfi.h"
#include "profiler/agent/cfi_cache.h"
#include "profiler/agent/eh_frame.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace cpcprof::agent {

namespace {

// A module's rows and their pcs (for find_cfi's search): compiled here
// (owned) or mapped from the cache.
struct Table {
    std::unique_ptr<std::vector<CfiRow>> owned;
    std::unique_ptr<std::vector<uint32_t>> owned_pcs;
    const CfiRow *rows = nullptr;
    const uint32_t *pcs = nullptr;
    uint32_t count = 0;
};

// A module's table is found again by its load address and what tells it
// from any other module (module_identity): a library loaded where an
// unloaded one was never gets the unloaded one's rows.
struct TableKey {
    uintptr_t bias;
    const void *hdr;
    std::string identity;
    bool operator<(const TableKey &o) const {
        return std::tie(bias, hdr, identity) < std::tie(o.bias, o.hdr, o.identity);
    }
};

// Every index published and the tables they point to.  Superseded ones
// are kept (a handler may still read them); they are small.  The agent's
// constructor may run before this file's dynamic initializers: the
// containers are built on first use.
auto &tables() {
    static std::map<TableKey, Table> t;
    return t;
}

auto &indexes() {
    static std::vector<std::unique_ptr<CfiIndex>> v;
    return v;
}

std::mutex g_refresh_lock; // the constructor, the drain thread

// The module's table from the recording's cache, or compiled here (and
// cached for the other processes).  key: "" for no cache.
Table load_table(const dl_phdr_info *info, const std::string &key, const uint8_t *hdr,
                 std::span<const CfiMemory> readable) {
    Table t;
    CachedRows cached = cfi_cache_find(key);
    if (cached.rows != nullptr) {
        t.rows = cached.rows;
        t.pcs = cached.pcs;
        t.count = cached.count;
        return t;
    }
    t.owned =
        std::make_unique<std::vector<CfiRow>>(compile_eh_frame(hdr, info->dlpi_addr, readable));
    t.owned_pcs = std::make_unique<std::vector<uint32_t>>(t.owned->size());
    for (size_t i = 0; i < t.owned->size(); ++i)
        (*t.owned_pcs)[i] = (*t.owned)[i].pc;
    cfi_cache_store(key, *t.owned, *t.owned_pcs);
    t.rows = t.owned->data();
    t.pcs = t.owned_pcs->data();
    t.count = static_cast<uint32_t>(t.owned->size());
    return t;
}

// dl_iterate_phdr callback: the module's table into the index (arg).
int collect_module(dl_phdr_info *info, size_t, void *arg) {
    auto *index = static_cast<CfiIndex *>(arg);
    const uint8_t *hdr = nullptr;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    std::vector<CfiMemory> readable;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_GNU_EH_FRAME)
            hdr = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R)) {
            auto *start = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
            readable.push_back({start, start + ph.p_filesz}); // beyond: maybe unmapped
        }
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            lo = std::min<uintptr_t>(lo, info->dlpi_addr + ph.p_vaddr);
            hi = std::max<uintptr_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
    }
    if (hdr == nullptr || hi == 0)
        return 0;
    // Inside dl_iterate_phdr the module cannot be unloaded under us.
    const char *name = info->dlpi_name;
    const char *path = name != nullptr && *name != '\0' ? name : "/proc/self/exe";
    bool is_file = false;
    TableKey key{info->dlpi_addr, hdr, module_identity(info, path, &is_file)};
    auto found = tables().find(key);
    if (found == tables().end()) {
        // The vDSO is no file, but its build-id names the kernel's image of
        // it, the same in every process.
        bool vdso = !is_file && key.identity != "none" && name != nullptr &&
                    std::strncmp(name, "linux-vdso", 10) == 0;
        std::string cache_key = is_file ? cfi_cache_key(key.identity)
                                : vdso  ? cfi_cache_key("vdso-" + key.identity)
                                        : std::string();
        Table t = load_table(info, cache_key, hdr, readable);
        found = tables().emplace(std::move(key), std::move(t)).first;
    }
    const Table &table = found->second;
    index->modules.push_back({lo, hi, info->dlpi_addr, table.rows, table.pcs, table.count});
    return 0;
}

} // namespace

void refresh_cfi() {
#if defined(__x86_64__)
    std::lock_guard<std::mutex> g(g_refresh_lock);
    auto index = std::make_unique<CfiIndex>();
    dl_iterate_phdr(collect_module, index.get());
    std::sort(index->modules.begin(), index->modules.end(),
              [](const ModuleCfi &a, const ModuleCfi &b) { return a.lo < b.lo; });
    publish_cfi(index.get());
    indexes().push_back(std::move(index));
#endif
}

} // namespace cpcprof::agent
