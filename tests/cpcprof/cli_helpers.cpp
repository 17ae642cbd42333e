// SPDX-License-Identifier: MIT
#include "tests/cpcprof/cli_helpers.h"

#include <filesystem>

namespace cpcprof::test {

const storage::ModuleRecord *module_of(const storage::Reader &reader, const std::string &path) {
    std::error_code ec;
    std::filesystem::path want = std::filesystem::canonical(path, ec);
    if (ec)
        return nullptr;
    for (const storage::ModuleRecord &m : reader.modules()) {
        std::filesystem::path file = std::filesystem::canonical(m.info.path, ec);
        if (!ec && file == want)
            return &m;
    }
    return nullptr;
}

} // namespace cpcprof::test
