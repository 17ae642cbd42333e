// SPDX-License-Identifier: MIT
// A profile's SQLite integrity, checked by SQLite itself through a plain
// read-only connection (not storage's Reader, whose checks are under test).
#pragma once

#include <cstdint>
#include <string>

namespace cpcprof::test {

// PRAGMA integrity_check: "ok", or its complaints joined by "; ", or why
// the file could not be opened or checked.
std::string integrity_check(const std::string &path);

// The samples committed so far to a profile that may still be being
// written (the recorder commits every 100 ms): SQLite's count of the
// sample table's rows; -1 while it cannot be read.
int64_t committed_samples(const std::string &path);

} // namespace cpcprof::test
