// SPDX-License-Identifier: MIT
// Names of a module's PLT stubs, "printf@plt" (demangled: "operator
// delete(void*)@plt"), as objdump and perf give them: no symbol names a stub, so without this a
// sample in one shows as module+0xoffset.  Each stub's indirect jump is decoded to the GOT slot it
// goes through, and the slot's relocation (JUMP_SLOT in .rela.plt,
// GLOB_DAT for .plt.got) names the symbol: the order of stubs and
// relocations does not matter.  x86-64 only (jmp *disp32(%rip), with or
// without endbr64 and bnd); other machines get no names.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::symbolize {

class PltNames {
  public:
    PltNames() = default;
    explicit PltNames(Elf *elf); // reads the sections once; nothing if they are not there

    // "name@plt" of the stub holding the ELF address, nullptr if none.
    const std::string *find(uint64_t address) const;

    size_t size() const { return stubs_.size(); }

  private:
    struct Stub {
        uint64_t start = 0, end = 0;
        std::string name;
    };
    std::vector<Stub> stubs_; // sorted by start
};

} // namespace cpcprof::symbolize
