// SPDX-License-Identifier: MIT
#pragma once
#include <gelf.h>
#include <string>

namespace cpcprof::symbolize {

// The NT_GNU_BUILD_ID note of elf in lowercase hex, "" if none.
std::string elf_build_id(Elf *elf);

} // namespace cpcprof::symbolize
