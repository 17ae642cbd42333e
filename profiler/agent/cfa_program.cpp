// SPDX-License-Identifier: MIT
// Runs call frame instructions into CfiRow rows (cfa_program.h).
#include "profiler/agent/cfa_program.h"

#include <algorithm>
#include <cstring>

namespace cpcprof::agent {

namespace {

// Call frame instructions (DWARF 5, 6.4.2; LSB "DWARF Extensions").  The
// first three carry an operand in their low six bits.
enum : uint8_t {
    DW_CFA_advance_loc = 0x40,
    DW_CFA_offset = 0x80,
    DW_CFA_restore = 0xc0,
    DW_CFA_high_mask = 0xc0,
    DW_CFA_low_mask = 0x3f,

    DW_CFA_nop = 0x00,
    DW_CFA_set_loc = 0x01,
    DW_CFA_advance_loc1 = 0x02,
    DW_CFA_advance_loc2 = 0x03,
    DW_CFA_advance_loc4 = 0x04,
    DW_CFA_offset_extended = 0x05,
    DW_CFA_restore_extended = 0x06,
    DW_CFA_undefined = 0x07,
    DW_CFA_same_value = 0x08,
    DW_CFA_register = 0x09,
    DW_CFA_remember_state = 0x0a,
    DW_CFA_restore_state = 0x0b,
    DW_CFA_def_cfa = 0x0c,
    DW_CFA_def_cfa_register = 0x0d,
    DW_CFA_def_cfa_offset = 0x0e,
    DW_CFA_def_cfa_expression = 0x0f,
    DW_CFA_expression = 0x10,
    DW_CFA_offset_extended_sf = 0x11,
    DW_CFA_def_cfa_sf = 0x12,
    DW_CFA_def_cfa_offset_sf = 0x13,
    DW_CFA_val_offset = 0x14,
    DW_CFA_val_offset_sf = 0x15,
    DW_CFA_val_expression = 0x16,
    DW_CFA_GNU_args_size = 0x2e,
    DW_CFA_GNU_negative_offset_extended = 0x2f,
};

// The DWARF expression operators of the rules the rows can say: the
// PLT's CFA, a CFA loaded from the stack (OpenSSL's realigned frames, GCC's
// DRAP), and a register saved at an offset from a register.
enum : uint8_t {
    DW_OP_deref = 0x06,
    DW_OP_and = 0x1a,
    DW_OP_plus_uconst = 0x23,
    DW_OP_ge = 0x2a,
    DW_OP_lit0 = 0x30,
    DW_OP_lit15 = 0x3f,
    DW_OP_lit31 = 0x4f,
    DW_OP_breg0 = 0x70,
    DW_OP_breg7 = 0x77,  // rsp + offset
    DW_OP_breg16 = 0x80, // rip + offset
};

// factor * align as DWARF means it, wrapping instead of overflowing (a
// malformed table's factors are anything; the row is then nonsense, not
// undefined behaviour).
int64_t scaled(uint64_t factor, int64_t align) {
    return int64_t(factor * uint64_t(align));
}

// The PLT's CFA expression: rsp + 8 + ((rip & 15) >= N) << 3, i.e.
// DW_OP_breg7 8, DW_OP_breg16 0, DW_OP_lit15, DW_OP_and, DW_OP_litN,
// DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus.
bool plt_expression(const uint8_t *e, uint64_t n, uint8_t *threshold) {
    static const uint8_t head[] = {DW_OP_breg7, 0x08, DW_OP_breg16, 0x00, DW_OP_lit15, DW_OP_and};
    if (n != 11 || std::memcmp(e, head, sizeof head) != 0 || e[6] < DW_OP_lit0 ||
        e[6] > DW_OP_lit31 || e[7] != DW_OP_ge)
        return false;
    *threshold = static_cast<uint8_t>(e[6] - DW_OP_lit0);
    return true;
}

// DW_OP_bregN OFF at the cursor: the register and the offset; the cursor
// moves past them.
bool breg(Cursor &c, uint8_t *reg, int64_t *off) {
    uint8_t op = c.get<uint8_t>();
    if (!c.ok || op < DW_OP_breg0 || op > DW_OP_breg16)
        return false;
    *reg = static_cast<uint8_t>(op - DW_OP_breg0);
    *off = c.sleb();
    return c.ok;
}

// A CFA loaded from memory: DW_OP_bregN OFF, DW_OP_deref, and optionally
// DW_OP_plus_uconst ADD.  OpenSSL's assembly saves the caller's rsp in a
// realigned frame this way; GCC's DRAP loads it from below rbp.
bool deref_expression(const uint8_t *e, uint64_t n, FrameRules *st) {
    Cursor c{e, e + n};
    uint8_t reg = 0;
    int64_t off = 0, add = 0;
    if (!breg(c, &reg, &off) || c.get<uint8_t>() != DW_OP_deref || !c.ok)
        return false;
    if (c.p < c.end) {
        if (c.get<uint8_t>() != DW_OP_plus_uconst)
            return false;
        add = int64_t(c.uleb());
    }
    if (!c.ok || c.p != c.end)
        return false;
    st->cfa_reg = reg;
    st->cfa_off = off;
    st->deref_add = add;
    return true;
}

// The index of reg in kSavedDwarf, or -1.
int saved_index(uint64_t reg) {
    for (unsigned i = 0; i < kSavedRegs; ++i)
        if (kSavedDwarf[i] == reg)
            return int(i);
    return -1;
}

bool fits_int32(int64_t v) {
    return v >= INT32_MIN && v <= INT32_MAX;
}

} // namespace

bool CfaProgram::run(const uint8_t *p, const uint8_t *end, uint64_t *loc, FrameRules *st,
                     bool emit) {
    Cursor c{p, end};
    if (p > end || uint64_t(end - p) > *budget_) {
        *budget_ = 0;
        return false;
    }
    *budget_ -= uint64_t(end - p);
    while (c.ok && c.p < c.end) {
        uint8_t op = c.get<uint8_t>();
        uint8_t low = op & DW_CFA_low_mask;
        switch (op & DW_CFA_high_mask) {
        case DW_CFA_advance_loc:
            advance(loc, low * cie_.code_align, *st, emit);
            continue;
        case DW_CFA_offset:
            set_offset(st, low, scaled(c.uleb(), cie_.data_align));
            if (emit)
                emit_row(*loc, *st);
            continue;
        case DW_CFA_restore:
            restore(st, low);
            if (emit)
                emit_row(*loc, *st);
            continue;
        }
        if (!step(c, op, loc, st, emit))
            return false;
        if (emit)
            emit_row(*loc, *st); // the row at loc ends with this state
    }
    return c.ok;
}

void CfaProgram::emit_row(uint64_t loc, const FrameRules &st) {
    CfiRow r{};
    uint64_t off = loc - bias_;
    if (off > UINT32_MAX)
        return;
    r.pc = static_cast<uint32_t>(off);
    r.kind = CfiRow::none; // a CFA the handler cannot compute
    if (st.gap) {
        r.kind = CfiRow::gap;
    } else if (st.ra_undefined) {
        r.kind = CfiRow::outermost;
    } else if (!st.cfa_bad && !st.ra_bad) {
        if (st.cfa_plt)
            r.kind = CfiRow::plt, r.plt_threshold = st.plt_threshold;
        else if (st.cfa_reg < kDwarfRegs && fits_int32(st.cfa_off) && fits_int32(st.deref_add))
            r.kind = st.cfa_deref ? CfiRow::deref : CfiRow::reg;
    }
    r.cfa_reg = st.cfa_reg;
    r.cfa_off = static_cast<int32_t>(fits_int32(st.cfa_off) ? st.cfa_off : 0);
    r.deref_add = static_cast<int32_t>(fits_int32(st.deref_add) ? st.deref_add : 0);
    for (unsigned i = 0; i < kSavedRegs; ++i) {
        const SavedRule &s = st.saved[i];
        bool fits = s.off >= INT16_MIN && s.off <= INT16_MAX;
        if (s.where == SavedRule::lost || (s.where != SavedRule::same && !fits) ||
            (s.where == SavedRule::at_cfa && s.off == 0)) {
            r.unknown |= uint8_t(1u << i);
        } else if (s.where != SavedRule::same) {
            r.saved[i] = static_cast<int16_t>(s.off);
            if (s.where == SavedRule::at_rbp)
                r.rbp_based |= uint8_t(1u << i);
        }
    }
    if (!out_.empty() && out_.back().pc == r.pc)
        out_.back() = r;
    else
        out_.push_back(r);
}

void CfaProgram::advance(uint64_t *loc, uint64_t delta, const FrameRules &st, bool emit) {
    *loc += delta;
    if (emit)
        emit_row(*loc, st);
}

void CfaProgram::set_offset(FrameRules *st, uint64_t reg, int64_t off) {
    if (int i = saved_index(reg); i >= 0)
        st->saved[i] = {SavedRule::at_cfa, off};
    else if (reg == cie_.ra_reg && off != -8)
        st->ra_bad = true; // return address not where x86-64 puts it
}

void CfaProgram::restore(FrameRules *st, uint64_t reg) {
    if (int i = saved_index(reg); i >= 0)
        st->saved[i] = initial.saved[i];
    if (reg == cie_.ra_reg) {
        st->ra_undefined = initial.ra_undefined;
        st->ra_bad = initial.ra_bad;
    }
}

// A rule the rows cannot express: the register's value is lost to the
// caller's frame, or, for the return address, the frame cannot be left.
void CfaProgram::unsupported_rule(FrameRules *st, uint64_t reg) {
    if (int i = saved_index(reg); i >= 0)
        st->saved[i] = {SavedRule::lost, 0};
    else if (reg == cie_.ra_reg)
        st->ra_bad = true;
}

// The instructions that move the location or save and restore the
// rules; the others are cfa_rule() and register_rule().
bool CfaProgram::step(Cursor &c, uint8_t op, uint64_t *loc, FrameRules *st, bool emit) {
    switch (op) {
    case DW_CFA_nop:
        return true;
    case DW_CFA_set_loc:
        *loc = c.pointer(cie_.fde_enc);
        if (emit)
            emit_row(*loc, *st);
        return true;
    case DW_CFA_advance_loc1:
        advance(loc, c.get<uint8_t>() * cie_.code_align, *st, emit);
        return true;
    case DW_CFA_advance_loc2:
        advance(loc, c.get<uint16_t>() * cie_.code_align, *st, emit);
        return true;
    case DW_CFA_advance_loc4:
        advance(loc, c.get<uint32_t>() * cie_.code_align, *st, emit);
        return true;
    case DW_CFA_remember_state:
        stack_.push_back(*st);
        return true;
    case DW_CFA_restore_state:
        if (!stack_.empty()) {
            *st = stack_.back();
            stack_.pop_back();
        }
        return true;
    case DW_CFA_GNU_args_size:
        c.uleb();
        return true;
    default:
        return cfa_rule(c, op, st) || register_rule(c, op, st);
    }
}

// DW_CFA_def_cfa*: false for any other instruction, or one whose
// expression does not fit in the record.
bool CfaProgram::cfa_rule(Cursor &c, uint8_t op, FrameRules *st) {
    switch (op) {
    case DW_CFA_def_cfa:
        st->cfa_reg = static_cast<uint8_t>(c.uleb());
        st->cfa_off = int64_t(c.uleb());
        st->cfa_plt = st->cfa_deref = st->cfa_bad = false;
        return true;
    case DW_CFA_def_cfa_register:
        st->cfa_reg = static_cast<uint8_t>(c.uleb());
        st->cfa_plt = false;
        st->cfa_bad = st->cfa_bad || st->cfa_deref; // only a register rule has a register
        return true;
    case DW_CFA_def_cfa_offset:
        st->cfa_off = int64_t(c.uleb());
        st->cfa_bad = st->cfa_bad || st->cfa_deref || st->cfa_plt;
        return true;
    case DW_CFA_def_cfa_sf:
        st->cfa_reg = static_cast<uint8_t>(c.uleb());
        st->cfa_off = scaled(uint64_t(c.sleb()), cie_.data_align);
        st->cfa_plt = st->cfa_deref = st->cfa_bad = false;
        return true;
    case DW_CFA_def_cfa_offset_sf:
        st->cfa_off = scaled(uint64_t(c.sleb()), cie_.data_align);
        st->cfa_bad = st->cfa_bad || st->cfa_deref || st->cfa_plt;
        return true;
    case DW_CFA_def_cfa_expression: {
        uint64_t n = c.uleb();
        if (!c.has(n))
            return false;
        st->cfa_plt = plt_expression(c.p, n, &st->plt_threshold);
        st->cfa_deref = !st->cfa_plt && deref_expression(c.p, n, st);
        st->cfa_bad = !st->cfa_plt && !st->cfa_deref;
        c.p += n;
        return true;
    }
    default:
        return false;
    }
}

// The rules of one register: false for an unknown instruction, or one
// whose expression does not fit in the record.
bool CfaProgram::register_rule(Cursor &c, uint8_t op, FrameRules *st) {
    uint64_t r = 0;
    switch (op) {
    case DW_CFA_offset_extended:
        r = c.uleb();
        set_offset(st, r, scaled(c.uleb(), cie_.data_align));
        return true;
    case DW_CFA_offset_extended_sf:
        r = c.uleb();
        set_offset(st, r, scaled(uint64_t(c.sleb()), cie_.data_align));
        return true;
    case DW_CFA_GNU_negative_offset_extended:
        r = c.uleb();
        set_offset(st, r, scaled(0 - c.uleb(), cie_.data_align));
        return true;
    case DW_CFA_restore_extended:
        restore(st, c.uleb());
        return true;
    case DW_CFA_undefined:
        r = c.uleb();
        if (r == cie_.ra_reg)
            st->ra_undefined = true;
        unsupported_rule(st, r);
        return true;
    case DW_CFA_same_value:
        if (int i = saved_index(c.uleb()); i >= 0)
            st->saved[i] = {SavedRule::same, 0};
        return true;
    case DW_CFA_register:
    case DW_CFA_val_offset:
        r = c.uleb();
        c.uleb(); // the other register, or the offset
        unsupported_rule(st, r);
        return true;
    case DW_CFA_val_offset_sf:
        r = c.uleb();
        c.sleb();
        unsupported_rule(st, r);
        return true;
    case DW_CFA_expression: {
        // Saved at DW_OP_breg6 OFF, the frame's rbp + OFF: GCC's DRAP
        // frames save every callee-saved register so.
        r = c.uleb();
        uint64_t n = c.uleb();
        if (!c.has(n))
            return false;
        Cursor e{c.p, c.p + n};
        uint8_t base = 0;
        int64_t off = 0;
        int i = saved_index(r);
        if (i >= 0 && breg(e, &base, &off) && e.p == e.end && base == kDwarfRbp)
            st->saved[i] = {SavedRule::at_rbp, off};
        else
            unsupported_rule(st, r);
        c.p += n;
        return true;
    }
    case DW_CFA_val_expression: {
        r = c.uleb();
        uint64_t n = c.uleb();
        if (!c.has(n))
            return false;
        c.p += n;
        unsupported_rule(st, r);
        return true;
    }
    default:
        return false;
    }
}

} // namespace cpcprof::agent
