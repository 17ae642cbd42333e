// SPDX-License-Identifier: MIT
// `cpcprof check FILE...`: says whether each profile is sound.
//
// A file is opened with storage's Reader (raw header, SQLite integrity_check,
// identity, version, schema, metadata, stack trie, symbol tables), then
// checked further: the accounting balance
// (taken == stored + dropped per process and in total), every sample's
// thread, stack node and values, and, for a complete file, that each
// process has as many samples as its accounting says it stored.
//
// Output, on stdout: one line per problem, "FILE: what is wrong", or one
// line "FILE: ok: N samples, P processes, T threads, complete|incomplete,
// symbolized|not symbolized, ..., format version V" (for an older version,
// "format version 2 (read by migration; this cpcprof writes 4)").  An
// incomplete file (recorder killed) is not a problem in itself.
#pragma once

#include <string>
#include <vector>

namespace cpcprof::check {

struct FileReport {
    std::vector<std::string> problems; // each "FILE: ..."; empty = sound
    std::string summary;               // "FILE: ok: ..." when sound
};

// At most this many sample problems are listed one by one; the rest are
// counted in one more line.
inline constexpr size_t kMaxSampleProblems = 20;

FileReport check_file(const std::string &path);

// Exit status: 0 every file is sound, 1 problems were found, 2 usage error.
int check_main(const std::vector<std::string> &args);

} // namespace cpcprof::check
