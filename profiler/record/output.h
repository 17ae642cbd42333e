// SPDX-License-Identifier: MIT
// The output file of a recording: what may be replaced, and when.
//
// Only a regular file (or nothing) is ever renamed or replaced: `-o` onto
// a device, a directory, a FIFO or a socket (or a symbolic link to one) is
// refused before anything starts, so that `record -o /dev/null` cannot
// move the machine's /dev/null aside.  The previous profile is kept as
// NAME.old (perf's habit), but only once the target has really started: a
// command that cannot run leaves everything as it was.
#pragma once

#include <string>

namespace cpcprof::record {

// Whether NAME, and the other names a recording renames (NAME.old and the
// WAL files beside both), are absent or regular files (a symbolic link
// counts as what it points to).  On refusal *error names the entry and
// what it is ("/dev/null is a character device").
bool check_output_kind(const std::string &path, std::string *error);

// Whether a file can be created beside path (its directory exists and is
// writable; creates and removes a hidden probe file), and no WAL file of
// another recording lies there without its profile.
bool check_output_writable(const std::string &path, std::string *error);

// An existing profile moved out of the way of a new one.  set_aside()
// renames it (with the -wal and -shm files a killed recording leaves) to
// a hidden name beside it; once the new profile exists, keep() makes it
// NAME.old; if the new one cannot be created, restore() puts it back, so
// that a failure loses neither it nor an earlier NAME.old.
class OldProfile {
  public:
    explicit OldProfile(std::string path);
    // Checks the kinds again; true (and nothing moved) if there is none.
    bool set_aside(std::string *error);
    bool keep(std::string *error);
    void restore();
    // Where it waits between set_aside() and keep().
    const std::string &aside() const { return aside_; }

  private:
    std::string path_, aside_;
    bool moved_ = false;
};

} // namespace cpcprof::record
