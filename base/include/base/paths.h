// SPDX-License-Identifier: MIT
// The parts of a path, as text: no file system access, no normalization
// ("a//b" keeps its slashes).  The one basename and dirname of the project.
#pragma once

#include <string>
#include <string_view>

namespace cpcprof::base {

// What follows the last '/': "lib/x.so" -> "x.so", "x.so" -> "x.so",
// "dir/" -> "".
inline std::string base_name(std::string_view path) {
    size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The directory holding path: "a/b" -> "a", "/b" -> "/", "b" -> ".".
inline std::string dir_name(std::string_view path) {
    size_t slash = path.rfind('/');
    if (slash == std::string_view::npos)
        return ".";
    return std::string(slash == 0 ? path.substr(0, 1) : path.substr(0, slash));
}

// path up to and including its last '/', "" when it has none: what a
// file beside path is named with ("a/b" -> "a/", "b" -> "").
inline std::string dir_prefix(std::string_view path) {
    size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? std::string_view()
                                                       : path.substr(0, slash + 1));
}

} // namespace cpcprof::base
