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

// File layout: this header, then count CfiRow.
struct Header {
    char magic[8];
    uint32_t row_size;
    uint32_t count;
};
constexpr char kMagic[8] = {'c', 'p', 'c', 'c', 'f', 'i', '2', '\0'};

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

namespace {} // namespace

void cfi_cache_init() {
    const char *d = std::getenv(proto::kEnvCfiCache);
    struct stat st;
    if (d != nullptr && *d == '/' && stat(d, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == getuid())
        g_dir = d;
}

std::string module_identity(const dl_phdr_info *info, const char *path) {
    std::string id = module_build_id(info);
    if (id.empty())
        id = "none";
    struct stat st;
    if (path == nullptr || *path != '/' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return id;
    char name[160];
    std::snprintf(
        name, sizeof name, "%llx-%llx-%llx-%llx.%09ld-", static_cast<unsigned long long>(st.st_dev),
        static_cast<unsigned long long>(st.st_ino), static_cast<unsigned long long>(st.st_size),
        static_cast<unsigned long long>(st.st_mtim.tv_sec), st.st_mtim.tv_nsec);
    return name + id;
}

std::string cfi_cache_key(const dl_phdr_info *info, const char *path) {
    if (g_dir.empty() || path == nullptr || *path != '/')
        return {};
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return {};
    return g_dir + "/" + module_identity(info, path);
}

const CfiRow *cfi_cache_find(const std::string &key, uint32_t *count) {
    if (key.empty())
        return nullptr;
    int fd = open(key.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return nullptr;
    struct stat st;
    const CfiRow *rows = nullptr;
    if (fstat(fd, &st) == 0 && size_t(st.st_size) >= sizeof(Header)) {
        void *p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) {
            const auto *h = static_cast<const Header *>(p);
            if (std::memcmp(h->magic, kMagic, sizeof kMagic) == 0 &&
                h->row_size == sizeof(CfiRow) &&
                size_t(st.st_size) == sizeof(Header) + size_t(h->count) * sizeof(CfiRow)) {
                rows = reinterpret_cast<const CfiRow *>(h + 1);
                *count = h->count;
            } else {
                munmap(p, size_t(st.st_size));
            }
        }
    }
    close(fd);
    return rows;
}

void cfi_cache_store(const std::string &key, const std::vector<CfiRow> &rows) {
    if (key.empty() || rows.size() > UINT32_MAX)
        return;
    std::string tmp = key + ".tmp" + std::to_string(getpid());
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.row_size = sizeof(CfiRow);
    h.count = static_cast<uint32_t>(rows.size());
    bool ok = write(fd, &h, sizeof h) == ssize_t(sizeof h);
    size_t bytes = rows.size() * sizeof(CfiRow);
    const char *p = reinterpret_cast<const char *>(rows.data());
    while (ok && bytes > 0) {
        ssize_t n = write(fd, p, bytes);
        ok = n > 0;
        if (ok) {
            p += n;
            bytes -= size_t(n);
        }
    }
    close(fd);
    if (!ok || rename(tmp.c_str(), key.c_str()) != 0)
        unlink(tmp.c_str());
}

} // namespace cpcprof::agent
