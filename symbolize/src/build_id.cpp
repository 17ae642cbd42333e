// SPDX-License-Identifier: MIT
#include "symbolize/src/build_id.h"

#include "symbolize/src/elf_owners.h"
#include "symbolize/symbolizer.h"

#include "base/scoped_fd.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

namespace cpcprof::symbolize {

namespace {

std::string hex(const unsigned char *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

std::string from_notes(Elf_Data *data) {
    size_t off = 0, name_off, desc_off;
    GElf_Nhdr nhdr;
    while (data && (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
        auto *bytes = static_cast<const unsigned char *>(data->d_buf);
        if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
            std::string_view(reinterpret_cast<const char *>(bytes + name_off), 3) == "GNU")
            return hex(bytes + desc_off, nhdr.n_descsz);
    }
    return {};
}

} // namespace

std::string elf_build_id(Elf *elf) {
    // Program headers first (what the loader maps), then sections.
    size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) == 0) {
        for (size_t i = 0; i < phnum; ++i) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_NOTE)
                continue;
            Elf_Data *data = elf_getdata_rawchunk(elf, int64_t(ph.p_offset), ph.p_filesz,
                                                  ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
            if (std::string id = from_notes(data); !id.empty())
                return id;
        }
    }
    for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_NOTE)
            continue;
        if (std::string id = from_notes(elf_getdata(scn, nullptr)); !id.empty())
            return id;
    }
    return {};
}

std::string read_build_id(const std::string &path) {
    elf_version(EV_CURRENT);
    base::ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return {};
    UniqueElf elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr)); // ended before fd closes
    if (elf == nullptr || elf_kind(elf.get()) != ELF_K_ELF)
        return {};
    return elf_build_id(elf.get());
}

} // namespace cpcprof::symbolize
