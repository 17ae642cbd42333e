// SPDX-License-Identifier: MIT
// Unsigned LEB128, the encoding of sample.more_values: 7 bits per byte,
// least significant group first, high bit set on every byte but the last.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cpcprof::storage {

inline void append_varint(std::vector<uint8_t> &out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
}

// Decodes the varint at in[*pos] and advances *pos.  false if the input
// ends inside it or it does not fit 64 bits (input from a file we do not
// trust).
inline bool read_varint(std::span<const uint8_t> in, size_t *pos, uint64_t *v) {
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*pos >= in.size())
            return false;
        uint8_t b = in[(*pos)++];
        if (shift == 63 && b > 1)
            return false; // bits beyond 64
        result |= static_cast<uint64_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *v = result;
            return true;
        }
    }
    return false;
}

} // namespace cpcprof::storage
