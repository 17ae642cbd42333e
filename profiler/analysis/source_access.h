// SPDX-License-Identifier: MIT
// Which source files a viewer may open, and opening them: the one check
// that `cpcprof annotate` and cpcprof-gui's source page both go through.
//
// A profile may come from someone else, so the paths it names are not
// trusted: a file is opened only when it is a regular file, at most
// kMaxSourceBytes, under one of the source roots after every symlink is
// resolved, and its path has no ".." component.  Roots are the directories
// the user gave (--source-dir, the viewer's settings, the NEW side of a
// remapping) and the directory of each file the profile names (a file is
// shown where it was compiled, unless a symlink there leads elsewhere).
// Files are opened non-blocking (a FIFO cannot hang the reader) and
// checked on the open descriptor, not only by path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cpcprof::symbolize {
class DebuginfodClient;
}

namespace cpcprof::analysis {

inline constexpr uint64_t kMaxSourceBytes = uint64_t{16} << 20;

struct SourceRoots {
    std::vector<std::string> dirs; // --source-dir, the settings page; tried in order
    // Path-prefix remapping OLD=NEW: a stored path under OLD is looked for
    // under NEW (first matching OLD wins); NEW is a root.
    std::vector<std::pair<std::string, std::string>> remaps;
    // The directory of the stored path is a root (the profile's own paths).
    bool profile_paths = true;
};

// "OLD=NEW" into *out; false with *error when it has no '=' or a side is
// empty.
bool parse_remap(const std::string &text, std::pair<std::string, std::string> *out,
                 std::string *error);

// The stored path with the first matching remapping applied (OLD matches
// whole leading components); the path itself when none matches.
std::string remap_path(const std::string &path, const SourceRoots &roots);

// Why candidate may not be opened as a source file ("" = it may), given
// the roots for the stored path: a ".." component, outside every root
// (after resolving symlinks: "a symlink leads outside the source roots"),
// missing, not a regular file (FIFO, device, directory), in /proc or /sys,
// larger than kMaxSourceBytes.  Never blocks.
std::string source_refusal(const std::string &candidate, const std::vector<std::string> &roots);

// The roots that apply to stored path: roots.dirs, the remapping targets,
// and (profile_paths) the stored path's directory.
std::vector<std::string> source_roots_for(const std::string &path, const SourceRoots &roots);

struct SourceFile {
    std::string path;               // the file read ("" when none)
    std::vector<std::string> lines; // without line ends
    // When nothing was read: why, naming every candidate tried and what
    // was wrong with it ("a.c: not found; /x/a.c: a FIFO, not a regular file").
    std::string why_not;
};

// The source file the profile names as stored_path: the candidates of
// source_candidates() (after remapping), the first that source_refusal()
// accepts, read through the same checks on its descriptor.
SourceFile open_source(const std::string &stored_path, const SourceRoots &roots);

// open_source(), then, when nothing here is shown and client is given,
// the file as the debug information of module (the ELF file on this
// machine, by its build-id) names it, from the debuginfod servers: read
// through the same checks, with the cached file's directory as its only
// root.  *from gets the server ("" when the file is this machine's);
// why_not adds what the servers said.  As long as the client's bound.
SourceFile open_source(const std::string &stored_path, const SourceRoots &roots,
                       symbolize::DebuginfodClient *client, const std::string &module,
                       std::string *from);

} // namespace cpcprof::analysis
