// SPDX-License-Identifier: MIT
// A main for the fuzz targets outside libFuzzer: runs
// LLVMFuzzerTestOneInput once on every file of the directories (or files)
// named on the command line, in name order, so that the ordinary and the
// sanitized suites compile every fuzz target and replay its checked-in
// seeds and found inputs.  A crash or a sanitizer report fails the test
// as it would fail the fuzzer; an empty corpus fails too (a replay of
// nothing proves nothing).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

bool read_file(const std::filesystem::path &path, std::vector<uint8_t> *out) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::filesystem::path> inputs;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        if (std::filesystem::is_directory(argv[i], ec)) {
            for (const auto &entry : std::filesystem::directory_iterator(argv[i], ec))
                if (entry.is_regular_file())
                    inputs.push_back(entry.path());
        } else {
            inputs.emplace_back(argv[i]);
        }
        if (ec) {
            std::fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], ec.message().c_str());
            return 2;
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "replay: no inputs found in the paths given\n");
        return 2;
    }
    std::sort(inputs.begin(), inputs.end());
    std::vector<uint8_t> data;
    for (const auto &path : inputs) {
        if (!read_file(path, &data)) {
            std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
            return 2;
        }
        std::printf("replay: %s (%zu bytes)\n", path.c_str(), data.size());
        std::fflush(stdout);
        LLVMFuzzerTestOneInput(data.data(), data.size());
    }
    std::printf("replay: %zu inputs, no crash\n", inputs.size());
    return 0;
}
