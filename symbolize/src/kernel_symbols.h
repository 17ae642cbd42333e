// SPDX-License-Identifier: MIT
// The kernel's function symbols, from /proc/kallsyms: one line per symbol,
//     ADDRESS TYPE NAME
//     ADDRESS TYPE NAME\t[MODULE]        (a loaded module's symbol)
// ADDRESS in hex, TYPE nm's letter.  Only text symbols (t, T, w, W) are
// kept; the file is not sorted (module symbols, BPF programs and ftrace
// trampolines follow the kernel's own, in load order).  Each symbol ends
// where the next one begins; the last one at the end of the page after its
// own, perf's guess (symbols__fixup_end), since kallsyms gives no sizes.
// Where several names share an address, the one a person is most likely to
// know is kept: global before weak before local, then the fewest leading
// underscores (perf's choose_best_symbol), then the first in the file.
//
// A reader the kernel does not trust with kernel addresses (kptr_restrict,
// see kallsyms_show_value() in kernel/ksyms_common.c) reads every address
// as 0: such lines are counted, not kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::symbolize {

class KernelSymbols {
  public:
    struct Symbol {
        std::string_view function;
        std::string_view module; // "ext4" for a module's symbol, empty for the kernel's own
    };

    static KernelSymbols parse(std::string_view text);
    // The table of the file at path (normally /proc/kallsyms).  When it
    // names nothing, *problem says why, for a person: the file cannot be
    // read, every address in it is 0 (hidden), or it has no text symbols.
    static KernelSymbols load(const std::string &path, std::string *problem);

    // The function holding address; nullopt before the first symbol and
    // after the last one's end.
    std::optional<Symbol> find(uint64_t address) const;

    size_t size() const { return entries_.size(); }
    // Text symbols whose address read as 0.
    size_t hidden() const { return hidden_; }

  private:
    struct Entry { // 16 bytes a symbol: a kernel has about 100,000 text symbols
        uint64_t start;
        uint32_t name;      // offset in names_
        uint16_t name_size; // kallsyms names are at most KSYM_NAME_LEN (512) bytes
        uint16_t module;    // index in modules_; 0 for the kernel's own
    };
    std::vector<Entry> entries_; // sorted by start, one per address
    uint64_t last_end_ = 0;      // end of the last entry
    std::string names_;
    std::vector<std::string> modules_{""};
    size_t hidden_ = 0;
};

} // namespace cpcprof::symbolize
