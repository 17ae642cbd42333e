// SPDX-License-Identifier: MIT
// Files and text in tests: reading and writing whole files, splitting
// text into lines, a directory's entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::test {

// The bytes of a file; "" if it cannot be read.
std::string read_file(const std::string &path);
// Writes text to path, creating the directories above it; throws
// std::runtime_error saying what failed.
void write_file(const std::string &path, const std::string &text);

// A file's size in bytes; -1 if it cannot be stat'ed.
int64_t file_size(const std::string &path);

// The lines of text, without their '\n'.
std::vector<std::string> split_lines(const std::string &text);
// Lines of text that start with prefix, prefix removed.
std::vector<std::string> lines_with(const std::string &text, const std::string &prefix);
size_t count_lines_containing(const std::string &text, const std::string &needle);
bool contains(const std::string &text, const std::string &needle);

// The names in a directory but "." and "..", in the order readdir gives
// them; empty if it cannot be read.
std::vector<std::string> dir_entries(const std::string &dir);

// What a reader must leave as it found it: a file's bytes, its
// modification and change times (-1 if it cannot be stat'ed), and the
// names in its directory (sorted).
struct FileState {
    std::string bytes;
    int64_t mtime_ns = -1, ctime_ns = -1;
    std::vector<std::string> beside;
    bool operator==(const FileState &) const = default;
};
FileState file_state(const std::string &path);

} // namespace cpcprof::test
