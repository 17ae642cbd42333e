// SPDX-License-Identifier: MIT
// The call frame instructions of one CIE or FDE, run into CfiRow rows
// (ordinary context; part of the .eh_frame compiler, eh_frame.cpp).
#pragma once

#include "base/eh_frame_cursor.h"
#include "profiler/agent/cfi.h"

#include <cstdint>
#include <vector>

namespace cpcprof::agent {

// .eh_frame's cursor and pointer encodings (base/eh_frame_cursor.h).
using namespace base::eh;

// A CIE: what its FDEs share.
struct Cie {
    uint64_t code_align = 1;
    int64_t data_align = -8;
    uint64_t ra_reg = kDwarfRip;
    uint8_t fde_enc = DW_EH_PE_absptr;
    bool has_z = false;
    bool signal = false; // "S": a signal frame
    const uint8_t *insns = nullptr, *insns_end = nullptr;
};

// Where the caller's value of a callee-saved register is.
struct SavedRule {
    enum Where : uint8_t { same, at_cfa, at_rbp, lost } where = same;
    int64_t off = 0;
};

// The rules in force at one location, as far as CfiRow can say them.
struct FrameRules {
    uint8_t cfa_reg = kDwarfRsp;
    int64_t cfa_off = 8;
    bool cfa_deref = false; // CFA = *(cfa_reg + cfa_off) + deref_add
    int64_t deref_add = 0;
    bool cfa_plt = false;
    uint8_t plt_threshold = 0;
    bool cfa_bad = false;
    SavedRule saved[kSavedRegs];
    bool ra_undefined = false;
    bool ra_bad = false; // the return address is not at CFA - 8
    bool gap = false;    // past the function: no FDE says anything
};

// Runs a CIE's or FDE's call frame instructions, emitting a row into out
// at every change of location.  budget: instruction bytes still allowed
// to run, shared by every program of a module.
class CfaProgram {
  public:
    CfaProgram(const Cie &cie, std::vector<CfiRow> &out, uintptr_t bias, uint64_t *budget)
        : cie_(cie), out_(out), bias_(bias), budget_(budget) {}

    // Runs insns from loc; emits a row at every location change.  false
    // on an unknown instruction or when the budget is spent.
    bool run(const uint8_t *p, const uint8_t *end, uint64_t *loc, FrameRules *st, bool emit);

    // The row that starts at loc with the rules st (replaces a row at the
    // same location; none beyond 4 GiB from the bias).
    void emit_row(uint64_t loc, const FrameRules &st);

    // The CIE's rules, which DW_CFA_restore returns to.
    FrameRules initial;

  private:
    void advance(uint64_t *loc, uint64_t delta, const FrameRules &st, bool emit);
    void set_offset(FrameRules *st, uint64_t reg, int64_t off);
    void restore(FrameRules *st, uint64_t reg);
    void unsupported_rule(FrameRules *st, uint64_t reg);
    bool step(Cursor &c, uint8_t op, uint64_t *loc, FrameRules *st, bool emit);
    bool cfa_rule(Cursor &c, uint8_t op, FrameRules *st);
    bool register_rule(Cursor &c, uint8_t op, FrameRules *st);

    const Cie &cie_;
    std::vector<CfiRow> &out_;
    uintptr_t bias_;
    uint64_t *budget_;
    std::vector<FrameRules> stack_;
};

} // namespace cpcprof::agent
