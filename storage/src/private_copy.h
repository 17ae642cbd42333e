// SPDX-License-Identifier: MIT
// Reading a profile without writing beside it.
//
// SQLite writes next to a database it reads in two cases: a WAL-mode file
// (what a recording in progress, or a killed recorder, leaves: the header
// says WAL) gets a -shm index and a -wal, and a hot rollback journal
// (-journal, a symbolize that was killed) is rolled back into the file.
// Neither may happen to a file someone gave us, and neither can on
// read-only media.  How open_profile() opens a file for reading:
//
//   - a non-empty -wal or -journal beside it: the file and that journal
//     are copied into a private temporary directory and SQLite opens the
//     copy, so that the commits a killed recorder left in its WAL (its
//     last samples) are read, and a half-written symbolize is rolled back,
//     without touching the original.  `immutable=1` would ignore them.
//   - a WAL-mode header without a WAL: opened with the URI parameter
//     immutable=1 (no -shm, no locks; nothing else writes such a file).
//   - otherwise (a finished profile, rollback journal mode, no journal):
//     opened read-only as it is; SQLite creates nothing for that.
#pragma once

#include <memory>
#include <string>

namespace cpcprof::storage {

enum class ReadSource { as_is, immutable, private_copy };

// Which of the three ways above path (a file whose header passed
// check_file_header) is opened.
ReadSource read_source(const std::string &path);

// "file:PATH?immutable=1" ("file://" before an absolute PATH) with PATH
// percent-encoded (RFC 3986), for sqlite3_open_v2 with SQLITE_OPEN_URI.
std::string immutable_uri(const std::string &path);

// A private temporary directory (in $TMPDIR, else /tmp, mode 0700) that
// holds a copy of a profile and its journal; removed with everything in
// it when destroyed.  Close the SQLite connection on path() first.
class PrivateCopy {
  public:
    // Copies path, then the non-empty path-wal / path-journal beside it.
    // A recorder still writing may checkpoint meanwhile: the copy is
    // retried (3 times) until the file's size and times are the same
    // before and after it.  nullptr with *reason on failure.
    static std::unique_ptr<PrivateCopy> make(const std::string &path, std::string *reason);

    ~PrivateCopy();
    PrivateCopy(const PrivateCopy &) = delete;
    PrivateCopy &operator=(const PrivateCopy &) = delete;

    // The copy of the profile (its journal beside it, same suffix).
    const std::string &path() const { return path_; }
    // A rollback journal was copied: SQLite must write the copy to roll
    // it back, so it is opened read-write (a WAL is read read-only).
    bool needs_rollback() const { return rollback_; }

  private:
    explicit PrivateCopy(std::string dir);
    std::string dir_, path_;
    bool rollback_ = false;
};

} // namespace cpcprof::storage
