// SPDX-License-Identifier: MIT
// fde_range (symbolizer.h): the call-frame information of a file on disk.
#include "symbolize/src/elf_owners.h"
#include "symbolize/symbolizer.h"

#include "base/scoped_fd.h"
#include "base/unique_c.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

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
    if (elf == nullptr || elf_kind(elf.get()) != ELF_K_ELF)
        return std::nullopt;
    // .eh_frame: what the unwinder reads (a stripped file keeps it).
    std::unique_ptr<Dwarf_CFI, decltype(&end_cfi)> cfi(dwarf_getcfi_elf(elf.get()), end_cfi);
    if (cfi == nullptr)
        return std::nullopt;
    Dwarf_Frame *frame = nullptr;
    if (dwarf_cfi_addrframe(cfi.get(), vaddr, &frame) != 0)
        return std::nullopt;
    Dwarf_Addr start = 0, end = 0;
    bool signal_frame = false;
    int ok = dwarf_frame_info(frame, &start, &end, &signal_frame);
    std::free(frame);
    if (ok < 0 || end <= start)
        return std::nullopt;
    return std::pair<uint64_t, uint64_t>{start, end};
}

} // namespace cpcprof::symbolize
