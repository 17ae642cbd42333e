// SPDX-License-Identifier: MIT
#include "tests/symbolize/helpers.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace symtest {

uint64_t Run::file_offset(uint64_t address) const {
    for (const auto &m : mappings)
        if (address >= m.start && address < m.end)
            return address - m.start + m.file_offset;
    return 0;
}

Run run_program(const std::string &path) {
    Run run;
    FILE *p = popen(("'" + path + "'").c_str(), "r");
    if (p == nullptr)
        throw std::runtime_error("cannot run " + path);
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) {
        std::istringstream in(buf);
        std::string kind;
        in >> kind;
        if (kind == "probe" || kind == "func") {
            std::string tag, addr;
            in >> tag >> addr;
            (kind == "probe" ? run.probes : run.functions)[tag] = std::stoull(addr, nullptr, 16);
        } else if (kind == "map") {
            cpcprof::symbolize::Mapping m;
            std::string start, end, off;
            in >> start >> end >> off >> std::ws;
            std::getline(in, m.path);
            m.start = std::stoull(start, nullptr, 16);
            m.end = std::stoull(end, nullptr, 16);
            m.file_offset = std::stoull(off, nullptr, 16);
            run.mappings.push_back(m);
        }
    }
    pclose(p);
    return run;
}

int line_of(const std::string &source_file, const std::string &marker) {
    std::ifstream in(source_file);
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
        auto at = text.find("@" + marker);
        size_t after = at + marker.size() + 1;
        if (at != std::string::npos &&
            (after == text.size() || (!std::isalnum(text[after]) && text[after] != '_')))
            return n;
    }
    return 0;
}

std::string basename(const std::string &path) {
    return std::filesystem::path(path).filename().string();
}

TempDir::TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/symtest.XXXXXX";
    if (mkdtemp(templ.data()) == nullptr)
        throw std::runtime_error("mkdtemp failed");
    path_ = templ;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

} // namespace symtest
