// SPDX-License-Identifier: MIT
// Owners of elfutils handles: dwfl_end(3) and elf_end(3) on every exit.
#pragma once

#include "base/unique_c.h"

#include <elfutils/libdwfl.h>
#include <libelf.h>

namespace cpcprof::symbolize {

using UniqueDwfl = base::UniqueC<Dwfl, dwfl_end>;
using UniqueElf = base::UniqueC<Elf, elf_end>;

} // namespace cpcprof::symbolize
