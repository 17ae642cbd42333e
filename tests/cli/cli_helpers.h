// Small helpers of the cli tests: running a tool (objcopy) and finding a
// module of a profile by its file.
#pragma once

#include <storage/profile.h>

#include <string>
#include <vector>

namespace cpcprof::test {

// Runs argv[0] (found in PATH) with argv, output discarded; its exit
// status, or -1 if it could not be run.
int run_program(const std::vector<std::string> &argv);

// The profile's module whose file is path (compared after resolving
// symbolic links), or null.
const storage::ModuleRecord *module_of(const storage::Reader &reader, const std::string &path);

bool contains(const std::string &text, const std::string &needle);

} // namespace cpcprof::test
