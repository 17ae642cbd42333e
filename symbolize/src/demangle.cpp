// SPDX-License-Identifier: MIT
#include "symbolize/src/demangle.h"

#include <cstdlib>
#include <cxxabi.h>

namespace cpcprof::symbolize {

std::string demangle(const char *name) {
    if (name == nullptr)
        return {};
    if (name[0] != '_' || name[1] != 'Z')
        return name;
    int status = 0;
    char *out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || out == nullptr)
        return name;
    std::string result(out);
    std::free(out);
    return result;
}

} // namespace cpcprof::symbolize
