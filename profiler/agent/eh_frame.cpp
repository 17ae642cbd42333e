// SPDX-License-Identifier: MIT
// Compiles a module's .eh_frame into a sorted table of CfiRow (ordinary
// context: at start-up and when the drain thread sees modules change).
// Only what the overflow handler's fast path can use is kept: the CFA as
// rsp or rbp plus an offset (or the PLT's expression), where the caller's
// rbp is saved, and whether the frame is outermost or a signal trampoline;
// every other rule makes the row CfiRow::none.
#include "profiler/agent/eh_frame.h"

#include "base/eh_frame_cursor.h"
#include "profiler/agent/cfa_program.h"

#include <algorithm>
#include <cstring>
#include <span>

namespace cpcprof::agent {

namespace {

// The version of .eh_frame_hdr this reads, and the length that announces
// the 64-bit DWARF format (never produced for x86-64 .eh_frame).
constexpr uint8_t kEhFrameHdrVersion = 1;
constexpr uint32_t kDwarf64Length = 0xffffffff;

// What a module's unwind data may point into (its loaded segments), and
// how much work its compilation may take: a malformed library's tables
// point anywhere, overlap, or list one huge record many times.
struct Bounds {
    std::span<const CfiMemory> readable;
    uint64_t budget; // instruction bytes still allowed to run

    // The end of the readable range that holds [addr, addr + n), or null.
    const uint8_t *end_of(uint64_t addr, uint64_t n) const {
        for (const CfiMemory &m : readable) {
            auto lo = reinterpret_cast<uintptr_t>(m.lo), hi = reinterpret_cast<uintptr_t>(m.hi);
            if (addr >= lo && addr <= hi && n <= hi - addr)
                return m.hi;
        }
        return nullptr;
    }
    // A cursor over the record (4-byte length, then that many bytes) at
    // addr; ok == false when it is not wholly readable or has the 64-bit
    // form.
    Cursor record(uint64_t addr) const {
        const uint8_t *end = end_of(addr, 4);
        if (end == nullptr)
            return {nullptr, nullptr, false};
        auto *p = reinterpret_cast<const uint8_t *>(addr);
        uint32_t len;
        std::memcpy(&len, p, 4);
        if (len == 0 || len == kDwarf64Length || end_of(addr + 4, len) == nullptr)
            return {nullptr, nullptr, false};
        return {p + 4, p + 4 + len};
    }
};

bool parse_cie(uint64_t addr, const Bounds &b, Cie *cie) {
    Cursor c = b.record(addr);
    if (!c.ok)
        return false;
    if (c.get<uint32_t>() != 0) // CIE id
        return false;
    uint8_t version = c.get<uint8_t>();
    if (!c.ok)
        return false;
    const char *aug = reinterpret_cast<const char *>(c.p);
    size_t auglen = strnlen(aug, static_cast<size_t>(c.end - c.p));
    c.skip(auglen + 1); // fails without the terminating NUL
    cie->code_align = c.uleb();
    cie->data_align = c.sleb();
    cie->ra_reg = version == 1 ? c.get<uint8_t>() : c.uleb();
    const uint8_t *aug_end = nullptr;
    for (size_t i = 0; i < auglen && c.ok; ++i) {
        switch (aug[i]) {
        case 'z': {
            uint64_t n = c.uleb();
            if (!c.has(n))
                return false;
            aug_end = c.p + n;
            cie->has_z = true;
            break;
        }
        case 'R':
            cie->fde_enc = c.get<uint8_t>();
            break;
        case 'L':
            c.get<uint8_t>();
            break;
        case 'P': {
            uint8_t enc = c.get<uint8_t>();
            c.pointer(enc);
            break;
        }
        case 'S':
            cie->signal = true;
            break;
        default:
            if (aug_end == nullptr)
                return false;
            c.p = aug_end; // unknown: skip the rest of the data
            i = auglen;
        }
    }
    if (aug_end != nullptr)
        c.p = aug_end;
    cie->insns = c.p;
    cie->insns_end = c.end;
    return c.ok;
}

void compile_fde(uint64_t fde, uintptr_t bias, Bounds &b, std::vector<CfiRow> &out) {
    Cursor c = b.record(fde);
    if (!c.ok)
        return;
    auto id_at = reinterpret_cast<uintptr_t>(c.p);
    uint32_t cie_off = c.get<uint32_t>();
    if (!c.ok || cie_off == 0 || cie_off > id_at)
        return; // a CIE, or nothing
    Cie cie;
    if (!parse_cie(id_at - cie_off, b, &cie))
        return;
    uint64_t begin = c.pointer(cie.fde_enc);
    uint64_t range = c.pointer(cie.fde_enc & DW_EH_PE_format_mask);
    if (cie.has_z)
        c.skip(c.uleb());
    if (!c.ok || range == 0)
        return;
    CfaProgram prog(cie, out, bias, &b.budget);
    FrameRules st;
    uint64_t loc = begin;
    if (!prog.run(cie.insns, cie.insns_end, &loc, &st, false))
        return;
    prog.initial = st;
    loc = begin;
    // The function's rows start here (out.size() - 1 after the emit would
    // underflow when the row is dropped, pc beyond 4 GiB from the bias).
    size_t first = out.size();
    prog.emit_row(loc, st);
    if (!prog.run(c.p, c.end, &loc, &st, true)) {
        out.resize(first); // unknown instruction: no rows for this function
        return;
    }
    if (cie.signal) // the trampoline's own CFA rules are expressions
        for (size_t i = first; i < out.size(); ++i)
            out[i].kind = CfiRow::signal;
    FrameRules end;
    end.gap = true;
    prog.emit_row(begin + range, end); // nothing known past the function
}

} // namespace

std::vector<CfiRow> compile_eh_frame(const uint8_t *hdr, uintptr_t bias,
                                     std::span<const CfiMemory> readable) {
    std::vector<CfiRow> rows;
    uint64_t size = 0;
    for (const CfiMemory &m : readable)
        size += m.hi > m.lo ? uint64_t(m.hi - m.lo) : 0;
    Bounds b{readable, kCfiWorkPerByte * size + (1u << 20)};
    const uint8_t *end = b.end_of(reinterpret_cast<uintptr_t>(hdr), 4);
    if (end == nullptr || hdr[0] != kEhFrameHdrVersion)
        return rows;
    Cursor c{hdr + 4, end};
    uint8_t ptr_enc = hdr[1], count_enc = hdr[2], table_enc = hdr[3];
    auto datarel = reinterpret_cast<uintptr_t>(hdr);
    c.pointer(ptr_enc, datarel); // eh_frame start: not needed, the table names every FDE
    uint64_t count = c.pointer(count_enc, datarel);
    if (!c.ok || table_enc == DW_EH_PE_omit || count > (1u << 24))
        return rows;
    for (uint64_t i = 0; i < count && c.ok && b.budget > 0; ++i) {
        c.pointer(table_enc, datarel); // initial location
        uint64_t fde = c.pointer(table_enc, datarel);
        if (c.ok)
            compile_fde(fde, bias, b, rows);
    }
    if (b.budget == 0)
        return {}; // not a table anyone wrote: no rows rather than some
    // Where one function ends and the next begins at the same address, the
    // next one's row must win the lookup (the last row at that address).
    std::stable_sort(rows.begin(), rows.end(), [](const CfiRow &a, const CfiRow &b) {
        if (a.pc != b.pc)
            return a.pc < b.pc;
        auto weak = [](const CfiRow &r) { return r.kind == CfiRow::none || r.kind == CfiRow::gap; };
        return weak(a) && !weak(b);
    });
    return rows;
}

} // namespace cpcprof::agent
