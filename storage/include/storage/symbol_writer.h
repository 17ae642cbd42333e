// SPDX-License-Identifier: MIT
// SymbolWriter: adds symbols to a recorded profile (format: schema.cpp,
// "Symbolizing").
//
//   auto w = SymbolWriter::open(path, &error);
//   for (const AddressToResolve &a : w->addresses())      // once each
//       w->add(a.module_id, a.offset, frames_of(a));      // innermost first
//   (and add_return() where a return address's answer differs from its
//   answer as a PC)
//   for (each module looked at) w->set_module_symbols(id, found);
//   w->finish(&error);
//
// open() checks the file exactly as Reader::open does (it may come from
// someone else) but reads and writes.  Nothing reaches the file before
// finish(), which replaces every previous symbol in one transaction: a
// profile can be symbolized again (`cpcprof symbolize FILE`), and a writer
// destroyed unfinished leaves the file as it was.  An incomplete profile
// (recorder killed) can be symbolized; a profile still being recorded must
// not be.
//
// Errors: the first failure (read error, inconsistent sample, misuse) puts
// the writer in a failed state: later calls do nothing, finish() returns
// false and error() says what happened.  One thread at a time.
#pragma once

#include "storage/records.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace cpcprof::storage {

class SymbolWriter {
  public:
    // nullptr with *error = "PATH: reason" when the file is refused.
    static std::unique_ptr<SymbolWriter> open(const std::string &path, std::string *error);

    ~SymbolWriter();
    SymbolWriter(const SymbolWriter &) = delete;
    SymbolWriter &operator=(const SymbolWriter &) = delete;

    // Every distinct (module, file offset) that a sample's stack reaches,
    // sorted by (module_id, offset), each with a mapping that held it and
    // how samples used it.  Each address of a stack is placed by the
    // mapping of the sample's own process at the sample's time; addresses
    // no mapping held are left out.  Reads every sample (~0.5 s for 1 M).
    std::vector<AddressToResolve> addresses();

    // What the symbolizer found at (module_id, offset): frames innermost
    // first.  Empty frames: nothing is stored (unresolved).  The same key
    // again replaces the earlier answer.  An unknown module_id fails.
    void add(int64_t module_id, uint64_t offset, std::span<const SymbolFrame> frames);
    // What the symbolizer found at (module_id, offset) as a return address,
    // for an address that is also some sample's PC (both roles set in
    // addresses()) when that differs from add()'s answer for it as a PC.
    // Stored at offset - 1, inside the call instruction, where no PC of a
    // stack lies (schema.cpp, "symbol"); empty frames store one unknown
    // frame, so that readers do not take the PC's answer for it.  The
    // caller must not use it when offset - 1 is itself an address of
    // addresses() (only a garbage stack has that), nor for offset 0.
    void add_return(int64_t module_id, uint64_t offset, std::span<const SymbolFrame> frames);
    // Whether the symbolizer found symbols in the module's file.  Modules
    // never set are stored as not looked at (NULL).
    void set_module_symbols(int64_t module_id, bool has_symbols);
    // For a module whose file gave no symbols now: if the profile names
    // its addresses from before (its file was readable then - the file of
    // a process in a container since gone, a library since removed), those
    // earlier answers replace this writer's for it and stay, with its
    // has_symbols, and true is returned; otherwise false and nothing
    // changes.
    bool keep_earlier(int64_t module_id);

    // Writes everything in one transaction, replacing all previous symbols,
    // and sets run.symbolized_ns to now (CLOCK_REALTIME).  Closes the file.
    bool finish(std::string *error);

    bool ok() const;
    const std::string &error() const;

  private:
    struct Impl;
    explicit SymbolWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace cpcprof::storage
