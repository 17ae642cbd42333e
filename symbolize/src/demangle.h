// SPDX-License-Identifier: MIT
#pragma once
#include <string>

namespace cpcprof::symbolize {

// The C++ (Itanium ABI) demangling of name, or name unchanged if it is not
// a mangled C++ name.
std::string demangle(const char *name);

} // namespace cpcprof::symbolize
