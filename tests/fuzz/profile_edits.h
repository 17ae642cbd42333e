// SPDX-License-Identifier: MIT
// fuzz_profile's second mode: edits of a good profile's rows.  Random
// bytes in an SQLite file rarely pass its integrity check, so most raw
// inputs stop at the first check; edits through SQLite keep the file
// sound and reach what the reader does with odd values (ids that point
// nowhere, cycles in the stack trie, huge or negative numbers, text that
// is not UTF-8, values where there should be none).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fuzzprofile {

// Copies base to path, then applies the edits data encodes, each:
//   1 byte  which statement (an UPDATE of one column, or a DELETE, of the
//           n-th row of one table; modulo the number of statements)
//   1 byte  n
//   1 byte  the value's kind: 0 int64 (8 bytes follow), 1 a small int
//           (1 signed byte follows), 2 text, 3 blob (1 length byte and
//           that many bytes follow), 4 NULL
// until data ends.  Failed edits (a NOT NULL column, a duplicate key) are
// skipped.  false if the copy cannot be made.
bool write_edited(const std::string &base, const std::string &path, const uint8_t *data,
                  size_t size);

} // namespace fuzzprofile
