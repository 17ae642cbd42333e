// SPDX-License-Identifier: MIT
// The agent is preloaded into every profiled program: each symbol it
// exports binds in the program before libc's and the program's own.  It
// exports the libc functions it interposes and libcpc's marker, nothing
// else (no C++ standard library instantiation a program could pick up).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <set>
#include <string>

namespace {

// The defined dynamic symbols of the ELF file at path.
std::set<std::string> exported(const char *path, std::string *error) {
    std::set<std::string> names;
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = std::string("cannot open ") + path;
        return names;
    }
    Elf *elf = elf_begin(fd, ELF_C_READ, nullptr);
    for (Elf_Scn *scn = nullptr; elf != nullptr && (scn = elf_nextscn(elf, scn)) != nullptr;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0)
            continue;
        Elf_Data *data = elf_getdata(scn, nullptr);
        for (size_t i = 0; data != nullptr && i < sh.sh_size / sh.sh_entsize; ++i) {
            GElf_Sym sym;
            if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr ||
                sym.st_shndx == SHN_UNDEF || GELF_ST_BIND(sym.st_info) == STB_LOCAL)
                continue;
            if (const char *name = elf_strptr(elf, sh.sh_link, sym.st_name); name && *name)
                names.insert(name);
        }
    }
    if (elf == nullptr)
        *error = std::string("not an ELF file: ") + path;
    elf_end(elf);
    close(fd);
    return names;
}

TEST(AgentExports, OnlyTheLibcFunctionsItInterposes) {
    std::string error;
    std::set<std::string> names = exported(AGENT_SO, &error);
    ASSERT_TRUE(error.empty()) << error;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(libc, nullptr) << dlerror();
    for (const char *needed : {"sigaction", "execve", "pthread_create", "close", "_exit"})
        EXPECT_EQ(names.count(needed), 1u) << needed << " is not interposed";
    for (const std::string &name : names) {
        if (name == "__cpc_pthread_create_forwarder")
            continue; // libcpc looks for it (libcpc/src/inherit.cpp)
        if (name.rfind("__odr_asan.", 0) == 0)
            continue; // AddressSanitizer's indicator of a global (sanitizer builds)
        EXPECT_NE(dlsym(libc, name.c_str()), nullptr)
            << name << " is exported by the agent but is no libc function";
    }
    dlclose(libc);
}

} // namespace
