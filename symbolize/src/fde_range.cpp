// SPDX-License-Identifier: MIT
// fde_range (symbolizer.h): the call-frame information of a file on disk.
#include "symbolize/src/elf_owners.h"
#include "symbolize/src/fde_index.h"
#include "symbolize/symbolizer.h"

#include "base/scoped_fd.h"
#include "base/unique_c.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <span>

namespace cpcprof::symbolize {

namespace {

// dwarf_cfi_end returns int; the owner wants a function of the pointer.
void end_cfi(Dwarf_CFI *cfi) {
    dwarf_cfi_end(cfi);
}

} // namespace

std::optional<std::pair<uint64_t, uint64_t>> fde_range(const std::string &path, uint64_t vaddr) {
    elf_version(EV_CURRENT);
    base::ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    struct stat st {};
    if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    UniqueElf elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr)); // ended before fd closes
    size_t phnum = 0;
    if (elf == nullptr || elf_kind(elf.get()) != ELF_K_ELF ||
        elf_getphdrnum(elf.get(), &phnum) != 0)
        return std::nullopt;
    // Where functions begin: .eh_frame_hdr's table of FDE starts.
    std::optional<FdeIndex> starts;
    for (size_t i = 0; i < phnum && !starts; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf.get(), int(i), &ph) == nullptr || ph.p_type != PT_GNU_EH_FRAME)
            continue;
        Elf_Data *data =
            elf_getdata_rawchunk(elf.get(), int64_t(ph.p_offset), ph.p_filesz, ELF_T_BYTE);
        if (data == nullptr || data->d_buf == nullptr)
            return std::nullopt;
        starts.emplace(
            std::span<const uint8_t>(static_cast<const uint8_t *>(data->d_buf), data->d_size),
            ph.p_vaddr);
    }
    // That an FDE covers vaddr at all, and the end of its last rule's
    // range when no function follows.
    std::unique_ptr<Dwarf_CFI, decltype(&end_cfi)> cfi(dwarf_getcfi_elf(elf.get()), end_cfi);
    if (!starts || starts->size() == 0 || cfi == nullptr)
        return std::nullopt;
    Dwarf_Frame *frame = nullptr;
    if (dwarf_cfi_addrframe(cfi.get(), vaddr, &frame) != 0)
        return std::nullopt;
    Dwarf_Addr row_start = 0, row_end = 0;
    bool signal_frame = false;
    int ok = dwarf_frame_info(frame, &row_start, &row_end, &signal_frame);
    std::free(frame);
    std::optional<uint64_t> start = starts->start_at_or_below(vaddr);
    if (ok < 0 || !start)
        return std::nullopt;
    uint64_t end = starts->start_above(vaddr).value_or(row_end);
    if (end <= *start)
        return std::nullopt;
    return std::pair<uint64_t, uint64_t>{*start, end};
}

} // namespace cpcprof::symbolize
