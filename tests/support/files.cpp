// SPDX-License-Identifier: MIT
#include "tests/support/files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cpcprof::test {

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const std::string &path, const std::string &text) {
    std::filesystem::path p(path);
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    if (ec)
        throw std::runtime_error("cannot create the directories of " + path + ": " + ec.message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

int64_t file_size(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

std::vector<std::string> split_lines(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

std::vector<std::string> lines_with(const std::string &text, const std::string &prefix) {
    std::vector<std::string> out;
    for (const std::string &line : split_lines(text))
        if (line.rfind(prefix, 0) == 0)
            out.push_back(line.substr(prefix.size()));
    return out;
}

size_t count_lines_containing(const std::string &text, const std::string &needle) {
    size_t n = 0;
    for (const std::string &line : split_lines(text))
        n += contains(line, needle);
    return n;
}

bool contains(const std::string &text, const std::string &needle) {
    return text.find(needle) != std::string::npos;
}

std::vector<std::string> dir_entries(const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                names.push_back(e->d_name);
        closedir(d);
    }
    return names;
}

FileState file_state(const std::string &path) {
    FileState f;
    f.bytes = read_file(path);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
        f.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
        f.ctime_ns = st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec;
    }
    f.beside = dir_entries(std::filesystem::path(path).parent_path().string());
    std::sort(f.beside.begin(), f.beside.end());
    return f;
}

} // namespace cpcprof::test
