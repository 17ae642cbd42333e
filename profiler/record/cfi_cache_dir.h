// SPDX-License-Identifier: MIT
// The recording's directory of compiled unwind tables (the agent's
// cfi_cache.h): made private (0700) under $TMPDIR or /tmp before the
// target starts (named cpcprof-cfi-PID-XXXXXX after the recorder), removed
// with its files when the recording ends.  A recorder that is killed
// leaves its directory: the next one removes the directories of
// recorders that are gone.
#pragma once

#include <string>

namespace cpcprof::record {

class CfiCacheDir {
  public:
    CfiCacheDir(); // path() is empty when no directory could be made
    ~CfiCacheDir();
    CfiCacheDir(const CfiCacheDir &) = delete;
    CfiCacheDir &operator=(const CfiCacheDir &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

} // namespace cpcprof::record
