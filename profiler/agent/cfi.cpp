// Compiles .eh_frame into CfiRow tables (ordinary context) and answers the
// handler's lookups (signal context: find_cfi only).
#include "cfi.h"

#include "cfi_cache.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

namespace cpcprof::agent {

namespace {

// Pointer encodings of .eh_frame (LSB "DWARF Extensions", DW_EH_PE_*).
enum : uint8_t {
    DW_EH_PE_absptr = 0x00, DW_EH_PE_uleb128 = 0x01, DW_EH_PE_udata2 = 0x02,
    DW_EH_PE_udata4 = 0x03, DW_EH_PE_udata8 = 0x04, DW_EH_PE_sleb128 = 0x09,
    DW_EH_PE_sdata2 = 0x0a, DW_EH_PE_sdata4 = 0x0b, DW_EH_PE_sdata8 = 0x0c,
    DW_EH_PE_pcrel = 0x10, DW_EH_PE_datarel = 0x30, DW_EH_PE_omit = 0xff,
};

// DWARF register numbers on x86-64.
constexpr unsigned kRbp = 6, kRsp = 7, kRip = 16;

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
        switch (enc & 0x0f) {
        case DW_EH_PE_absptr: v = get<uint64_t>(); break;
        case DW_EH_PE_uleb128: v = uleb(); break;
        case DW_EH_PE_udata2: v = get<uint16_t>(); break;
        case DW_EH_PE_udata4: v = get<uint32_t>(); break;
        case DW_EH_PE_udata8: v = get<uint64_t>(); break;
        case DW_EH_PE_sleb128: v = sleb(); break;
        case DW_EH_PE_sdata2: v = int64_t(get<int16_t>()); break;
        case DW_EH_PE_sdata4: v = int64_t(get<int32_t>()); break;
        case DW_EH_PE_sdata8: v = get<uint64_t>(); break;
        default: ok = false; return 0;
        }
        switch (enc & 0x70) {
        case 0: break;
        case DW_EH_PE_pcrel: v += here; break;
        case DW_EH_PE_datarel: v += datarel; break;
        default: ok = false; break; // textrel/funcrel: not used on x86-64
        }
        return v;
    }
};

// factor * align as DWARF means it, wrapping instead of overflowing (a
// malformed table's factors are anything; the row is then nonsense, not
// undefined behaviour).
int64_t scaled(uint64_t factor, int64_t align) {
    return int64_t(factor * uint64_t(align));
}

struct Cie {
    uint64_t code_align = 1;
    int64_t data_align = -8;
    uint64_t ra_reg = kRip;
    uint8_t fde_enc = DW_EH_PE_absptr;
    bool has_z = false;
    bool signal = false; // "S": a signal frame
    const uint8_t *insns = nullptr, *insns_end = nullptr;
};

struct State {
    uint8_t cfa_reg = kRsp;
    int64_t cfa_off = 8;
    bool cfa_plt = false;
    uint8_t plt_threshold = 0;
    bool cfa_bad = false;
    int64_t rbp_off = 0; // 0: same value
    bool ra_undefined = false;
};

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
    // form (not produced for x86-64 .eh_frame).
    Cursor record(uint64_t addr) const {
        const uint8_t *end = end_of(addr, 4);
        if (end == nullptr)
            return {nullptr, nullptr, false};
        auto *p = reinterpret_cast<const uint8_t *>(addr);
        uint32_t len;
        std::memcpy(&len, p, 4);
        if (len == 0 || len == 0xffffffff || end_of(addr + 4, len) == nullptr)
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
        case 'R': cie->fde_enc = c.get<uint8_t>(); break;
        case 'L': c.get<uint8_t>(); break;
        case 'P': {
            uint8_t enc = c.get<uint8_t>();
            c.pointer(enc);
            break;
        }
        case 'S': cie->signal = true; break;
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

// The PLT's CFA expression: rsp + 8 + ((rip & 15) >= N) << 3.
bool plt_expression(const uint8_t *e, uint64_t n, uint8_t *threshold) {
    static const uint8_t head[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a};
    if (n != 11 || std::memcmp(e, head, sizeof head) != 0 || e[6] < 0x30 || e[6] > 0x4f ||
        e[7] != 0x2a)
        return false;
    *threshold = static_cast<uint8_t>(e[6] - 0x30);
    return true;
}

class Program {
  public:
    Program(const Cie &cie, std::vector<CfiRow> &out, uintptr_t bias, uint64_t *budget)
        : cie_(cie), out_(out), bias_(bias), budget_(budget) {}

    // Runs insns from loc; emits a row at every location change.  false
    // on an unknown instruction or when the budget is spent.
    bool run(const uint8_t *p, const uint8_t *end, uint64_t *loc, State *st, bool emit) {
        Cursor c{p, end};
        if (p > end || uint64_t(end - p) > *budget_) {
            *budget_ = 0;
            return false;
        }
        *budget_ -= uint64_t(end - p);
        while (c.ok && c.p < c.end) {
            uint8_t op = c.get<uint8_t>();
            uint8_t low = op & 0x3f;
            switch (op & 0xc0) {
            case 0x40: advance(loc, low * cie_.code_align, *st, emit); continue;
            case 0x80:
                set_offset(st, low, scaled(c.uleb(), cie_.data_align));
                if (emit)
                    emit_row(*loc, *st);
                continue;
            case 0xc0:
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

    void emit_row(uint64_t loc, const State &st) {
        CfiRow r{};
        uint64_t off = loc - bias_;
        if (off > UINT32_MAX)
            return;
        r.pc = static_cast<uint32_t>(off);
        if (st.ra_undefined)
            r.kind = CfiRow::outermost;
        else if (st.cfa_bad || st.cfa_off < INT32_MIN || st.cfa_off > INT32_MAX)
            r.kind = CfiRow::none;
        else if (st.cfa_plt)
            r.kind = CfiRow::plt, r.plt_threshold = st.plt_threshold;
        else if (st.cfa_reg == kRsp)
            r.kind = CfiRow::sp;
        else if (st.cfa_reg == kRbp)
            r.kind = CfiRow::fp;
        else
            r.kind = CfiRow::none;
        r.cfa_off = static_cast<int32_t>(st.cfa_off);
        r.rbp_off = static_cast<int16_t>(std::clamp<int64_t>(st.rbp_off, INT16_MIN, INT16_MAX));
        if (!out_.empty() && out_.back().pc == r.pc)
            out_.back() = r;
        else
            out_.push_back(r);
    }

    State initial;

  private:
    void advance(uint64_t *loc, uint64_t delta, const State &st, bool emit) {
        *loc += delta;
        if (emit)
            emit_row(*loc, st);
    }
    void set_offset(State *st, uint64_t reg, int64_t off) {
        if (reg == kRbp)
            st->rbp_off = off;
        else if (reg == cie_.ra_reg && off != -8)
            st->cfa_bad = true; // return address not where x86-64 puts it
    }
    void restore(State *st, uint64_t reg) {
        if (reg == kRbp)
            st->rbp_off = initial.rbp_off;
        if (reg == cie_.ra_reg)
            st->ra_undefined = initial.ra_undefined;
    }

    bool step(Cursor &c, uint8_t op, uint64_t *loc, State *st, bool emit) {
        switch (op) {
        case 0x00: return true; // nop
        case 0x01: *loc = c.pointer(cie_.fde_enc); if (emit) emit_row(*loc, *st); return true;
        case 0x02: advance(loc, c.get<uint8_t>() * cie_.code_align, *st, emit); return true;
        case 0x03: advance(loc, c.get<uint16_t>() * cie_.code_align, *st, emit); return true;
        case 0x04: advance(loc, c.get<uint32_t>() * cie_.code_align, *st, emit); return true;
        case 0x05: { uint64_t r = c.uleb(); set_offset(st, r, scaled(c.uleb(), cie_.data_align)); return true; }
        case 0x06: restore(st, c.uleb()); return true;
        case 0x07: { uint64_t r = c.uleb(); if (r == cie_.ra_reg) st->ra_undefined = true; if (r == kRbp) st->rbp_off = 0; return true; }
        case 0x08: { uint64_t r = c.uleb(); if (r == kRbp) st->rbp_off = 0; return true; }
        case 0x09: { uint64_t r = c.uleb(); c.uleb(); if (r == kRbp || r == cie_.ra_reg) st->cfa_bad = true; return true; }
        case 0x0a: stack_.push_back(*st); return true;
        case 0x0b: if (!stack_.empty()) { *st = stack_.back(); stack_.pop_back(); } return true;
        case 0x0c: st->cfa_reg = static_cast<uint8_t>(c.uleb()); st->cfa_off = c.uleb(); st->cfa_plt = false; return true;
        case 0x0d: st->cfa_reg = static_cast<uint8_t>(c.uleb()); st->cfa_plt = false; return true;
        case 0x0e: st->cfa_off = c.uleb(); return true;
        case 0x0f: {
            uint64_t n = c.uleb();
            if (!c.has(n)) return false;
            st->cfa_plt = plt_expression(c.p, n, &st->plt_threshold);
            if (!st->cfa_plt) st->cfa_bad = true;
            c.p += n;
            return true;
        }
        case 0x10: case 0x16: { // expression, val_expression
            uint64_t r = c.uleb();
            uint64_t n = c.uleb();
            if (!c.has(n)) return false;
            c.p += n;
            if (r == kRbp || r == cie_.ra_reg) st->cfa_bad = true;
            return true;
        }
        case 0x11: { uint64_t r = c.uleb(); set_offset(st, r, scaled(uint64_t(c.sleb()), cie_.data_align)); return true; }
        case 0x12: st->cfa_reg = static_cast<uint8_t>(c.uleb()); st->cfa_off = scaled(uint64_t(c.sleb()), cie_.data_align); st->cfa_plt = false; return true;
        case 0x13: st->cfa_off = scaled(uint64_t(c.sleb()), cie_.data_align); return true;
        case 0x14: case 0x15: { uint64_t r = c.uleb(); (op == 0x14) ? (void)c.uleb() : (void)c.sleb(); if (r == kRbp || r == cie_.ra_reg) st->cfa_bad = true; return true; }
        case 0x2e: c.uleb(); return true; // GNU_args_size
        case 0x2f: { uint64_t r = c.uleb(); set_offset(st, r, scaled(0 - c.uleb(), cie_.data_align)); return true; }
        default: return false;
        }
    }

    const Cie &cie_;
    std::vector<CfiRow> &out_;
    uintptr_t bias_;
    uint64_t *budget_;
    std::vector<State> stack_;
};

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
    uint64_t range = c.pointer(cie.fde_enc & 0x0f);
    if (cie.has_z)
        c.skip(c.uleb());
    if (!c.ok || range == 0)
        return;
    Program prog(cie, out, bias, &b.budget);
    State st;
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
    State end;
    end.cfa_bad = true;
    prog.emit_row(begin + range, end); // nothing known past the function
}

// Published index and everything it points to.  Superseded indexes and
// tables are kept (a handler may still read them); they are small.
// The agent's constructor runs before this file's dynamic initializers
// may have: the containers are built on first use.
std::atomic<const CfiIndex *> g_index{nullptr};

// A module's rows: compiled here (owned) or mapped from the cache.
struct Table {
    std::unique_ptr<std::vector<CfiRow>> owned;
    const CfiRow *rows = nullptr;
    uint32_t count = 0;
};

auto &tables() {
    static std::map<std::pair<uintptr_t, const void *>, Table> t;
    return t;
}

// The module's table from the recording's cache, or compiled here (and
// cached for the other processes).
Table load_table(const dl_phdr_info *info, const uint8_t *hdr,
                 std::span<const CfiMemory> readable) {
    const char *name = info->dlpi_name;
    std::string key =
        cfi_cache_key(info, name != nullptr && *name != '\0' ? name : "/proc/self/exe");
    Table t;
    t.rows = cfi_cache_find(key, &t.count);
    if (t.rows != nullptr)
        return t;
    t.owned =
        std::make_unique<std::vector<CfiRow>>(compile_eh_frame(hdr, info->dlpi_addr, readable));
    cfi_cache_store(key, *t.owned);
    t.rows = t.owned->data();
    t.count = static_cast<uint32_t>(t.owned->size());
    return t;
}

auto &indexes() {
    static std::vector<std::unique_ptr<CfiIndex>> v;
    return v;
}

struct Collect {
    CfiIndex *index;
};

int collect_module(dl_phdr_info *info, size_t, void *arg) {
    auto *col = static_cast<Collect *>(arg);
    const uint8_t *hdr = nullptr;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    std::vector<CfiMemory> readable;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_GNU_EH_FRAME)
            hdr = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R)) {
            auto *start = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
            readable.push_back({start, start + ph.p_filesz}); // beyond: maybe unmapped
        }
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            lo = std::min<uintptr_t>(lo, info->dlpi_addr + ph.p_vaddr);
            hi = std::max<uintptr_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
    }
    if (hdr == nullptr || hi == 0)
        return 0;
    // Inside dl_iterate_phdr the module cannot be unloaded under us.
    auto key = std::make_pair(static_cast<uintptr_t>(info->dlpi_addr),
                              static_cast<const void *>(hdr));
    auto found = tables().find(key);
    if (found == tables().end())
        found = tables().emplace(key, load_table(info, hdr, readable)).first;
    const Table &table = found->second;
    col->index->modules.push_back({lo, hi, info->dlpi_addr, table.rows, table.count});
    return 0;
}

} // namespace

void refresh_locked();

std::vector<CfiRow> compile_eh_frame(const uint8_t *hdr, uintptr_t bias,
                                     std::span<const CfiMemory> readable) {
    std::vector<CfiRow> rows;
    uint64_t size = 0;
    for (const CfiMemory &m : readable)
        size += m.hi > m.lo ? uint64_t(m.hi - m.lo) : 0;
    Bounds b{readable, kCfiWorkPerByte * size + (1u << 20)};
    const uint8_t *end = b.end_of(reinterpret_cast<uintptr_t>(hdr), 4);
    if (end == nullptr || hdr[0] != 1)
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
        return a.kind == CfiRow::none && b.kind != CfiRow::none;
    });
    return rows;
}

namespace {

std::mutex g_refresh_lock; // the drain thread and dlopen callers
unsigned long long g_seen_adds = ~0ull, g_seen_subs = ~0ull;

int load_counts(dl_phdr_info *info, size_t size, void *arg) {
    auto *c = static_cast<unsigned long long *>(arg);
    if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c[0] = info->dlpi_adds;
        c[1] = info->dlpi_subs;
    }
    return 1;
}

} // namespace

void refresh_cfi_if_changed() {
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(load_counts, c);
    std::lock_guard<std::mutex> g(g_refresh_lock);
    if (c[0] == g_seen_adds && c[1] == g_seen_subs)
        return;
    g_seen_adds = c[0];
    g_seen_subs = c[1];
    refresh_locked();
}

void refresh_cfi() {
    std::lock_guard<std::mutex> g(g_refresh_lock);
    refresh_locked();
}

void refresh_locked() {
#if defined(__x86_64__)
    auto index = std::make_unique<CfiIndex>();
    Collect col{index.get()};
    dl_iterate_phdr(collect_module, &col);
    std::sort(index->modules.begin(), index->modules.end(),
              [](const ModuleCfi &a, const ModuleCfi &b) { return a.lo < b.lo; });
    g_index.store(index.get(), std::memory_order_release); // pairs with find_cfi
    indexes().push_back(std::move(index));
#endif
}

const CfiRow *find_cfi(uintptr_t pc, uintptr_t *bias) {
    const CfiIndex *idx = g_index.load(std::memory_order_acquire);
    if (idx == nullptr)
        return nullptr;
    const auto &mods = idx->modules;
    size_t lo = 0, hi = mods.size();
    while (lo < hi) { // last module with lo <= pc
        size_t mid = (lo + hi) / 2;
        if (mods[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return nullptr;
    const ModuleCfi &m = mods[lo - 1];
    if (pc >= m.hi || pc < m.bias || pc - m.bias > UINT32_MAX)
        return nullptr;
    auto off = static_cast<uint32_t>(pc - m.bias);
    size_t a = 0, b = m.count;
    while (a < b) { // last row with pc <= off
        size_t mid = (a + b) / 2;
        if (m.rows[mid].pc <= off)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == 0)
        return nullptr;
    *bias = m.bias;
    return &m.rows[a - 1];
}

} // namespace cpcprof::agent
