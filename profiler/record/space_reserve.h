// SPDX-License-Identifier: MIT
// Disk space held back for the end of a recording.
//
// When the disk fills, the recorder still has to write one small batch:
// the accounting row that counts the samples the file lacks.  A file of
// the output's file system, unnamed (O_TMPFILE, else created and unlinked
// at once) and allocated at the start, holds that space; releasing it
// (closing it) frees the space just before that batch.  A recorder that
// is killed leaves nothing behind: the kernel frees the file with it.
#pragma once

#include <cstddef>
#include <string>

namespace cpcprof::record {

class SpaceReserve {
  public:
    SpaceReserve() = default;
    ~SpaceReserve() { release(); }
    SpaceReserve(const SpaceReserve &) = delete;
    SpaceReserve &operator=(const SpaceReserve &) = delete;

    // Allocates bytes in the directory of path; false (and nothing held)
    // where it cannot: the disk may be full already, or the file system
    // does not allocate ahead.
    bool hold(const std::string &path, size_t bytes);
    // Frees the space (idempotent).
    void release();
    bool held() const { return fd_ >= 0; }

  private:
    int fd_ = -1;
};

// What a recording holds back: the accounting batch needs a few pages of
// WAL (4 KiB each) and of its index.
inline constexpr size_t kEndReserveBytes = 64 * 1024;

} // namespace cpcprof::record
