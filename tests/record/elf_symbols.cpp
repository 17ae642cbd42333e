// SPDX-License-Identifier: MIT
#include "tests/record/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

namespace cpcprof::test {

namespace {

struct ElfCloser {
    void operator()(Elf *e) const { elf_end(e); }
};

// Appends the sized function symbols of one symbol table section.
void read_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr &sh, std::vector<ElfSymbol> *out) {
    Elf_Data *data = elf_getdata(scn, nullptr);
    if (data == nullptr || sh.sh_entsize == 0)
        return;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr)
            continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
            continue;
        const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (name != nullptr && *name != '\0')
            out->push_back({sym.st_value, sym.st_size, name});
    }
}

} // namespace

std::optional<ElfSymbols> ElfSymbols::load(const std::string &path, std::string *error) {
    elf_version(EV_CURRENT);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = "cannot open " + path;
        return std::nullopt;
    }
    std::unique_ptr<Elf, ElfCloser> elf(elf_begin(fd, ELF_C_READ, nullptr));
    ElfSymbols out;
    size_t nphdr = 0;
    if (elf == nullptr || elf_kind(elf.get()) != ELF_K_ELF ||
        elf_getphdrnum(elf.get(), &nphdr) != 0) {
        *error = path + ": not an ELF file with program headers";
        close(fd);
        return std::nullopt;
    }
    for (size_t i = 0; i < nphdr; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf.get(), static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_LOAD)
            out.loads_.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
    }
    // .symtab when present (it has the local functions too), else .dynsym.
    for (Elf64_Word want : {SHT_SYMTAB, SHT_DYNSYM}) {
        for (Elf_Scn *scn = elf_nextscn(elf.get(), nullptr); scn != nullptr;
             scn = elf_nextscn(elf.get(), scn)) {
            GElf_Shdr sh;
            if (gelf_getshdr(scn, &sh) != nullptr && sh.sh_type == want)
                read_table(elf.get(), scn, sh, &out.symbols_);
        }
        if (!out.symbols_.empty())
            break;
    }
    elf.reset();
    close(fd);
    std::sort(out.symbols_.begin(), out.symbols_.end(),
              [](const ElfSymbol &a, const ElfSymbol &b) { return a.address < b.address; });
    return out;
}

const ElfSymbol *ElfSymbols::at(uint64_t vaddr) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), vaddr,
                               [](uint64_t v, const ElfSymbol &s) { return v < s.address; });
    // Symbols may nest or share an address (aliases): look back a little
    // for one whose range holds the address.
    for (int back = 0; back < 8 && it != symbols_.begin(); ++back) {
        --it;
        if (vaddr < it->address + std::max<uint64_t>(it->size, 1))
            return &*it;
    }
    return nullptr;
}

std::optional<uint64_t> ElfSymbols::vaddr_of_offset(uint64_t offset) const {
    for (const Load &l : loads_)
        if (offset >= l.offset && offset < l.offset + l.filesz)
            return l.vaddr + (offset - l.offset);
    return std::nullopt;
}

const ElfSymbol *ElfSymbols::find(std::string_view name) const {
    for (const ElfSymbol &s : symbols_)
        if (s.name == name)
            return &s;
    return nullptr;
}

std::string base_name(std::string_view symbol) {
    size_t dot = symbol.find('.');
    return std::string(symbol.substr(0, dot));
}

} // namespace cpcprof::test
