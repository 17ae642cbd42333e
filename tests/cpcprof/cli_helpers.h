// SPDX-License-Identifier: MIT
// Finding a module of a profile by its file, for the cli tests.
#pragma once

#include "storage/profile.h"

#include <string>

namespace cpcprof::test {

// The profile's module whose file is path (compared after resolving
// symbolic links), or null.
const storage::ModuleRecord *module_of(const storage::Reader &reader, const std::string &path);

} // namespace cpcprof::test
