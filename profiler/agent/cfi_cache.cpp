// SPDX-License-Identifier: MIT
#include "profiler/agent/cfi_cache.h"

#include "profiler/protocol/protocol.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cpcprof::agent {

namespace {

// File layout: this header, count CfiRow, then count uint32_t (the rows'
// pcs), so that a process maps its tables without reading them: at the
// start of every profiled process, copying the pcs out of the rows cost
// about half a millisecond.
struct Header {
    char magic[8];
    uint32_t row_size;
    uint32_t count;
};
constexpr char kMagic[8] = {'c', 'p', 'c', 'c', 'f', 'i', '3', '\0'};
static_assert(kMagic[6] == proto::kCfiCacheFolder[3], "the cache folder names the format");

size_t file_size(uint32_t count) {
    return sizeof(Header) + size_t(count) * (sizeof(CfiRow) + sizeof(uint32_t));
}

std::string g_dir; // empty: no cache

} // namespace

std::string module_build_id(const dl_phdr_info *info) {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_NOTE)
            continue;
        auto *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
        const char *end = p + ph.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof *n;
            const auto *desc =
                reinterpret_cast<const unsigned char *>(name + ((n->n_namesz + 3) & ~3u));
            if (reinterpret_cast<const char *>(desc) + n->n_descsz > end)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0 && n->n_descsz <= 64) {
                std::string hex;
                char b[3];
                for (unsigned k = 0; k < n->n_descsz; ++k) {
                    std::snprintf(b, sizeof b, "%02x", desc[k]);
                    hex += b;
                }
                return hex;
            }
            p = reinterpret_cast<const char *>(desc) + ((n->n_descsz + 3) & ~3u);
        }
    }
    return {};
}

void cfi_cache_init() {
    const char *d = std::getenv(proto::kEnvCfiCache);
    struct stat st;
    if (d != nullptr && *d == '/' && stat(d, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == getuid())
        g_dir = d;
}

std::string module_identity(const dl_phdr_info *info, const char *path, bool *is_file) {
    std::string id = module_build_id(info);
    if (id.empty())
        id = "none";
    if (is_file != nullptr)
        *is_file = false;
    struct stat st;
    if (path == nullptr || *path != '/' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return id;
    if (is_file != nullptr)
        *is_file = true;
    char name[160];
    std::snprintf(
        name, sizeof name, "%llx-%llx-%llx-%llx.%09ld-", static_cast<unsigned long long>(st.st_dev),
        static_cast<unsigned long long>(st.st_ino), static_cast<unsigned long long>(st.st_size),
        static_cast<unsigned long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec);
    return name + id;
}

std::string cfi_cache_key(const std::string &identity) {
    if (g_dir.empty())
        return {};
    return g_dir + "/" + identity;
}

CachedRows cfi_cache_find(const std::string &key) {
    CachedRows found;
    if (key.empty())
        return found;
    int fd = open(key.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return found;
    struct stat st;
    if (fstat(fd, &st) == 0 && size_t(st.st_size) >= sizeof(Header)) {
        void *p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) {
            const auto *h = static_cast<const Header *>(p);
            if (std::memcmp(h->magic, kMagic, sizeof kMagic) == 0 &&
                h->row_size == sizeof(CfiRow) && size_t(st.st_size) == file_size(h->count)) {
                found.rows = reinterpret_cast<const CfiRow *>(h + 1);
                found.pcs = reinterpret_cast<const uint32_t *>(found.rows + h->count);
                found.count = h->count;
            } else {
                munmap(p, size_t(st.st_size));
            }
        }
    }
    close(fd);
    return found;
}

void cfi_cache_store(const std::string &key, const std::vector<CfiRow> &rows,
                     const std::vector<uint32_t> &pcs) {
    if (key.empty() || rows.size() > UINT32_MAX || pcs.size() != rows.size())
        return;
    std::string tmp = key + ".tmp" + std::to_string(getpid());
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.row_size = sizeof(CfiRow);
    h.count = static_cast<uint32_t>(rows.size());
    auto write_all = [fd](const void *data, size_t bytes) {
        const char *p = static_cast<const char *>(data);
        while (bytes > 0) {
            ssize_t n = write(fd, p, bytes);
            if (n <= 0)
                return false;
            p += n;
            bytes -= size_t(n);
        }
        return true;
    };
    bool ok = write_all(&h, sizeof h) && write_all(rows.data(), rows.size() * sizeof(CfiRow)) &&
              write_all(pcs.data(), pcs.size() * sizeof(uint32_t));
    close(fd);
    if (!ok || rename(tmp.c_str(), key.c_str()) != 0)
        unlink(tmp.c_str());
}

} // namespace cpcprof::agent
