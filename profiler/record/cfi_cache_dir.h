// SPDX-License-Identifier: MIT
// The directory of compiled unwind tables the recording's agents share
// (the agent's cfi_cache.h).
//
// The user's cache, $XDG_CACHE_HOME/cpcprof/cfi3 (else ~/.cache/...),
// made private (0700) and kept between recordings: compiling the tables
// of a shell, libc and the loader takes the first process of a recording
// about 8 ms, and every later recording finds them.  Each table file is
// named after its module's device, inode, size, modification time and
// build-id, so a changed file is never served another's rows.  The
// recorder prunes it at start: tables not written for 30 days, files a
// killed agent left half-written, the folders of older table formats, and
// the oldest tables beyond 256 MiB.  The tables are pruned after the
// command has started, and at most once an hour (a stamp file's time):
// listing a cache of some hundred tables took 2 ms of every start.
//
// Where that directory cannot be had (no home, a read-only or foreign
// one), a private directory under $TMPDIR or /tmp (cpcprof-cfi-PID-XXXXXX
// after the recorder), removed with its files when the recording ends.  A
// recorder that is killed leaves it: the next one removes the directories
// of recorders that are gone.
#pragma once

#include <cstdint>
#include <string>

namespace cpcprof::record {

class CfiCacheDir {
  public:
    CfiCacheDir(); // path() is empty when no directory could be made
    ~CfiCacheDir();
    CfiCacheDir(const CfiCacheDir &) = delete;
    CfiCacheDir &operator=(const CfiCacheDir &) = delete;
    const std::string &path() const { return path_; }
    // The user's cache (kept), not a directory of this recording.
    bool kept() const { return kept_; }
    // Prunes the user's cache if the last prune is an hour old.
    void prune_if_due() const;

  private:
    std::string path_;
    bool kept_ = false;
};

// What the user's cache holds at most, and for how long a table is kept.
inline constexpr uint64_t kCfiCacheMaxBytes = 256ull << 20;
inline constexpr int64_t kCfiCacheMaxAgeSeconds = 30 * 24 * 3600;

// Prunes the user's cache folder dir (see above), as of now_s (seconds
// since the epoch).  For tests.
void prune_cfi_cache(const std::string &dir, int64_t now_s);
// prune_cfi_cache unless dir was pruned less than an hour before now_s;
// whether it pruned.  For tests.
bool prune_cfi_cache_if_due(const std::string &dir, int64_t now_s);
inline constexpr int64_t kCfiCachePruneEverySeconds = 3600;

} // namespace cpcprof::record
