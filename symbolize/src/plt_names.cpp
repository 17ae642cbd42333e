// SPDX-License-Identifier: MIT
#include "symbolize/src/plt_names.h"

#include "symbolize/src/demangle.h"
#include "symbolize/src/symbol_table.h"

#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace cpcprof::symbolize {

namespace {

struct Section {
    GElf_Shdr header{};
    Elf_Data *data = nullptr;
};

// The GOT slot that the stub at address (bytes code) jumps through: the
// first jmp *disp32(%rip) (ff 25) in its first 12 bytes; 0 if none.
uint64_t got_slot(const uint8_t *code, size_t size, uint64_t address) {
    for (size_t i = 0; i + 6 <= size && i < 12; ++i) {
        if (code[i] != 0xff || code[i + 1] != 0x25)
            continue;
        int32_t disp;
        std::memcpy(&disp, code + i + 2, sizeof disp);
        return address + i + 6 + static_cast<uint64_t>(static_cast<int64_t>(disp));
    }
    return 0;
}

// GOT slot -> symbol name, from the RELA sections' JUMP_SLOT and GLOB_DAT
// relocations against the dynamic symbol table.
std::unordered_map<uint64_t, std::string> slot_names(Elf *elf) {
    std::unordered_map<uint64_t, std::string> names;
    for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_RELA)
            continue;
        Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
        GElf_Shdr symsh;
        Elf_Data *rela = elf_getdata(scn, nullptr);
        Elf_Data *syms = symscn != nullptr ? elf_getdata(symscn, nullptr) : nullptr;
        if (rela == nullptr || syms == nullptr || gelf_getshdr(symscn, &symsh) == nullptr ||
            sh.sh_entsize == 0)
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
            GElf_Rela r;
            GElf_Sym sym;
            if (gelf_getrela(rela, int(i), &r) == nullptr)
                break;
            auto type = GELF_R_TYPE(r.r_info);
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
                gelf_getsym(syms, int(GELF_R_SYM(r.r_info)), &sym) == nullptr)
                continue;
            const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
            if (name != nullptr && *name != '\0')
                names.emplace(r.r_offset, demangle(unversioned_name(name).c_str()) + "@plt");
        }
    }
    return names;
}

} // namespace

PltNames::PltNames(Elf *elf) {
    GElf_Ehdr eh;
    size_t shstrndx = 0;
    if (elf == nullptr || gelf_getehdr(elf, &eh) == nullptr || eh.e_machine != EM_X86_64 ||
        elf_getshdrstrndx(elf, &shstrndx) != 0)
        return;
    std::vector<Section> tables;
    for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
        Section s;
        if (gelf_getshdr(scn, &s.header) == nullptr || s.header.sh_type != SHT_PROGBITS)
            continue;
        const char *name = elf_strptr(elf, shstrndx, s.header.sh_name);
        std::string_view n = name != nullptr ? name : "";
        if (n == ".plt" || n == ".plt.sec" || n == ".plt.got") {
            s.data = elf_getdata(scn, nullptr);
            if (s.data != nullptr && s.data->d_buf != nullptr && s.data->d_size == s.header.sh_size)
                tables.push_back(s);
        }
    }
    if (tables.empty())
        return;
    std::unordered_map<uint64_t, std::string> names = slot_names(elf);
    for (const Section &t : tables) {
        // .plt and .plt.sec have 16-byte stubs; .plt.got 8 or 16 (IBT).
        const uint64_t step = t.header.sh_entsize == 8 ? 8 : 16;
        const auto *code = static_cast<const uint8_t *>(t.data->d_buf);
        for (uint64_t at = 0; at + step <= t.header.sh_size; at += step) {
            auto it = names.find(got_slot(code + at, step, t.header.sh_addr + at));
            if (it != names.end())
                stubs_.push_back({t.header.sh_addr + at, t.header.sh_addr + at + step, it->second});
        }
    }
    std::sort(stubs_.begin(), stubs_.end(),
              [](const Stub &a, const Stub &b) { return a.start < b.start; });
}

const std::string *PltNames::find(uint64_t address) const {
    auto it = std::upper_bound(stubs_.begin(), stubs_.end(), address,
                               [](uint64_t a, const Stub &s) { return a < s.start; });
    if (it == stubs_.begin() || address >= std::prev(it)->end)
        return nullptr;
    return &std::prev(it)->name;
}

} // namespace cpcprof::symbolize
