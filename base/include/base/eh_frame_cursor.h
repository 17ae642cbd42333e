// SPDX-License-Identifier: MIT
// Reading .eh_frame and .eh_frame_hdr data (ordinary context): a cursor
// that never reads past its end, LEB128 numbers and the DW_EH_PE pointer
// encodings (LSB "DWARF Extensions").  Used by the agent's table compiler
// (profiler/agent/eh_frame.cpp) and the symbolizer's FDE index
// (symbolize/src/fde_index.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cpcprof::base::eh {

// Pointer encodings of .eh_frame: a format (low nibble) and what the value
// is relative to (bits 4-6).
enum : uint8_t {
    DW_EH_PE_absptr = 0x00,
    DW_EH_PE_uleb128 = 0x01,
    DW_EH_PE_udata2 = 0x02,
    DW_EH_PE_udata4 = 0x03,
    DW_EH_PE_udata8 = 0x04,
    DW_EH_PE_sleb128 = 0x09,
    DW_EH_PE_sdata2 = 0x0a,
    DW_EH_PE_sdata4 = 0x0b,
    DW_EH_PE_sdata8 = 0x0c,
    DW_EH_PE_format_mask = 0x0f,
    DW_EH_PE_pcrel = 0x10,
    DW_EH_PE_datarel = 0x30,
    DW_EH_PE_relative_mask = 0x70,
    DW_EH_PE_omit = 0xff,
};

// Reads [p, end); any read that would pass end clears ok and yields 0.
struct Cursor {
    const uint8_t *p;
    const uint8_t *end;
    bool ok = true;

    bool has(size_t n) {
        if (p > end || static_cast<size_t>(end - p) < n)
            ok = false;
        return ok;
    }
    // Skips n bytes that must lie before end.
    void skip(uint64_t n) {
        if (has(n))
            p += n;
    }
    template <class T> T get() {
        T v{};
        if (has(sizeof v)) {
            std::memcpy(&v, p, sizeof v);
            p += sizeof v;
        }
        return v;
    }
    uint64_t uleb() {
        uint64_t v = 0;
        for (int shift = 0; has(1) && shift < 64; shift += 7) {
            uint8_t b = *p++;
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80))
                return v;
        }
        ok = false;
        return v;
    }
    int64_t sleb() {
        int64_t v = 0;
        int shift = 0;
        uint8_t b = 0;
        do {
            if (!has(1))
                return 0;
            b = *p++;
            v |= int64_t(b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) && shift < 64);
        if (shift < 64 && (b & 0x40))
            v = int64_t(uint64_t(v) | (~uint64_t(0) << shift)); // sign-extend; no overflow
        return v;
    }
    // A pointer in the DW_EH_PE encoding enc; datarel is relative to base.
    uint64_t pointer(uint8_t enc, uint64_t datarel = 0) {
        if (enc == DW_EH_PE_omit)
            return 0;
        uint64_t here = reinterpret_cast<uintptr_t>(p);
        uint64_t v = 0;
        switch (enc & DW_EH_PE_format_mask) {
        case DW_EH_PE_absptr:
            v = get<uint64_t>();
            break;
        case DW_EH_PE_uleb128:
            v = uleb();
            break;
        case DW_EH_PE_udata2:
            v = get<uint16_t>();
            break;
        case DW_EH_PE_udata4:
            v = get<uint32_t>();
            break;
        case DW_EH_PE_udata8:
            v = get<uint64_t>();
            break;
        case DW_EH_PE_sleb128:
            v = sleb();
            break;
        case DW_EH_PE_sdata2:
            v = int64_t(get<int16_t>());
            break;
        case DW_EH_PE_sdata4:
            v = int64_t(get<int32_t>());
            break;
        case DW_EH_PE_sdata8:
            v = get<uint64_t>();
            break;
        default:
            ok = false;
            return 0;
        }
        switch (enc & DW_EH_PE_relative_mask) {
        case 0:
            break;
        case DW_EH_PE_pcrel:
            v += here;
            break;
        case DW_EH_PE_datarel:
            v += datarel;
            break;
        default:
            ok = false;
            break; // textrel/funcrel: not used on x86-64
        }
        return v;
    }
};

} // namespace cpcprof::base::eh
