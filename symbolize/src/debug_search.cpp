// SPDX-License-Identifier: MIT
#include "symbolize/src/debug_search.h"

#include "base/scoped_fd.h"
#include "symbolize/symbolizer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>

namespace cpcprof::symbolize {

namespace {

// The CRC-32 of a file as .gnu_debuglink records it (zlib's); false when
// it cannot be read.
bool file_crc(int fd, uint32_t *out) {
    uLong crc = crc32(0, nullptr, 0);
    unsigned char buf[64 * 1024];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0)
            return false;
        if (n == 0)
            break;
        crc = crc32(crc, buf, static_cast<uInt>(n));
    }
    *out = static_cast<uint32_t>(crc);
    return true;
}

// An open descriptor of candidate when it is the module's debug file.
int open_matching(const std::string &candidate, const std::string &module_file,
                  const DebugSearch &search, GElf_Word crc, char **name) {
    std::error_code ec;
    if (candidate == module_file ||
        std::filesystem::equivalent(candidate, module_file, ec)) // the module itself
        return -1;
    base::ScopedFd fd(open(candidate.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return -1;
    if (!search.build_id.empty()) {
        if (read_build_id(candidate) != search.build_id)
            return -1;
    } else {
        uint32_t got = 0;
        if (!file_crc(fd.get(), &got) || got != crc || lseek(fd.get(), 0, SEEK_SET) != 0)
            return -1;
    }
    *name = strdup(candidate.c_str());
    return fd.release();
}

} // namespace

int find_debuginfo_here(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name) {
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    const auto *search =
        userdata != nullptr ? static_cast<const DebugSearch *>(*userdata) : nullptr;
    if (search == nullptr || file_name == nullptr)
        return -1;
    if (debuglink_file != nullptr && *debuglink_file != '\0' &&
        std::strchr(debuglink_file, '/') == nullptr) {
        const std::string dir = std::filesystem::path(file_name).parent_path().string();
        std::vector<std::string> candidates = {dir + "/" + debuglink_file,
                                               dir + "/.debug/" + debuglink_file};
        std::vector<std::string> roots = search->dirs;
        roots.emplace_back("/usr/lib/debug");
        for (const std::string &root : roots)
            if (!root.empty() && root[0] == '/')
                candidates.push_back(root + dir + "/" + debuglink_file);
        for (const std::string &c : candidates) {
            fd = open_matching(c, file_name, *search, debuglink_crc, debuginfo_file_name);
            if (fd >= 0)
                return fd;
        }
    }
    if (!search->fallback.empty() && !search->build_id.empty())
        return open_matching(search->fallback, file_name, *search, 0, debuginfo_file_name);
    return -1;
}

} // namespace cpcprof::symbolize
