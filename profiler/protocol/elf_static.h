// SPDX-License-Identifier: MIT
// Whether a program file is a statically linked ELF executable: no
// PT_INTERP, so the dynamic loader never runs and LD_PRELOAD (the agent)
// is never loaded.  Shared by the recorder (for the command it starts) and
// the agent (for the programs a profiled process execs).  Plain system
// calls, no allocation.
#pragma once

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace cpcprof::elf {

// True only for a readable 64- or 32-bit ELF executable without PT_INTERP;
// anything else (a script, a dynamic program, an unreadable file) is false.
inline bool is_static_elf(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    union {
        Elf64_Ehdr e64;
        Elf32_Ehdr e32;
    } h;
    bool result = false;
    if (pread(fd, &h, sizeof h, 0) == ssize_t(sizeof h) &&
        std::memcmp(h.e64.e_ident, ELFMAG, SELFMAG) == 0) {
        bool is64 = h.e64.e_ident[EI_CLASS] == ELFCLASS64;
        unsigned type = is64 ? h.e64.e_type : h.e32.e_type;
        off_t phoff = is64 ? off_t(h.e64.e_phoff) : off_t(h.e32.e_phoff);
        unsigned phnum = is64 ? h.e64.e_phnum : h.e32.e_phnum;
        unsigned phsize = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
        if ((type == ET_EXEC || type == ET_DYN) && phnum > 0 && phnum < 4096) {
            bool interp = false, ok = true;
            for (unsigned i = 0; i < phnum && ok && !interp; ++i) {
                union {
                    Elf64_Phdr p64;
                    Elf32_Phdr p32;
                } ph;
                ok = pread(fd, &ph, phsize, phoff + off_t(i) * phsize) == ssize_t(phsize);
                interp = ok && (is64 ? ph.p64.p_type : ph.p32.p_type) == PT_INTERP;
            }
            result = ok && !interp;
        }
    }
    close(fd);
    return result;
}

// The file execvp would run for name: name itself when it has a slash,
// else the first executable regular file of that name in PATH.  Writes it
// into out (size n); false when none is found.
inline bool resolve_in_path(const char *name, const char *path_env, char *out, size_t n) {
    if (std::strchr(name, '/') != nullptr) {
        if (std::strlen(name) >= n)
            return false;
        std::strcpy(out, name);
        return true;
    }
    const char *p = path_env != nullptr ? path_env : "/usr/local/bin:/bin:/usr/bin";
    while (true) {
        const char *colon = std::strchr(p, ':');
        size_t len = colon != nullptr ? size_t(colon - p) : std::strlen(p);
        size_t nlen = std::strlen(name);
        if (len + 1 + nlen < n) {
            if (len == 0) {
                std::strcpy(out, name); // an empty entry is the current directory
            } else {
                std::memcpy(out, p, len);
                out[len] = '/';
                std::strcpy(out + len + 1, name);
            }
            if (access(out, X_OK) == 0)
                return true;
        }
        if (colon == nullptr)
            return false;
        p = colon + 1;
    }
}

} // namespace cpcprof::elf
