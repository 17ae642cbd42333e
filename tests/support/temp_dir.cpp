// SPDX-License-Identifier: MIT
#include "tests/support/temp_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace cpcprof::test {

TempDir::TempDir(const std::string &prefix) {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/" + prefix + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr)
        throw std::system_error(errno, std::generic_category(), "mkdtemp " + tmpl);
    path_ = buf.data();
}

TempDir::~TempDir() {
    if (std::getenv("CPCPROF_TEST_KEEP") != nullptr) {
        std::fprintf(stderr, "kept %s\n", path_.c_str());
        return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

} // namespace cpcprof::test
