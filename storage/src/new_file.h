// SPDX-License-Identifier: MIT
// Creating a file so that it appears complete or not at all: build it
// under a temporary name in the same directory, then move it into place
// without ever replacing an existing file.
#pragma once

#include <string>

namespace cpcprof::storage {

// Creates an empty, hidden temporary file next to path (".NAME.PID.N.tmp",
// mode 0666 less the umask) and returns its name, or "" with *error set.
std::string create_temporary_beside(const std::string &path, std::string *error);

// Moves tmp to path unless path exists (atomically where the file system
// allows: renameat2 RENAME_NOREPLACE, else link + unlink).  tmp is gone
// afterwards whatever the outcome.  false with *error set on failure.
bool publish_without_replacing(const std::string &tmp, const std::string &path, std::string *error);

} // namespace cpcprof::storage
