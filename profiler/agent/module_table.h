// SPDX-License-Identifier: MIT
// The module table the recorder holds for this process: sent at the
// start and whenever it changes (module_scan.h says what it holds).
// Ordinary context only; callers are serialised (start-up and fork before
// the drain thread runs, then the drain thread under its lock).
#pragma once

#include <cstddef>

namespace cpcprof::agent {

// Sends the table when the loader's counters moved since the last look,
// or always with force (start, fork child).  Recompiles the CFI tables
// (cfi_tables.h) when the loader's modules changed.
void send_modules(bool force);

// In a fork child: its address space is its parent's, so the parent's
// last table (and its CFI tables, in the copied memory) is the child's,
// sent again under the child's pid without reading anything.  Code the
// parent mapped after that table is found as in any process (a frame
// outside it makes the drain rescan).
void send_inherited_modules();

// A record the drain is about to send (SampleRecord, values, frames):
// notes whether a frame lies outside every mapping of the table sent.
void note_drained_sample(const char *record, size_t size);

// After a drain pass: rescans /proc/self/maps when a noted frame lay
// outside the table and the wait since the last scan has passed; final
// (the process's end or exec), at once.
void rescan_modules_if_unknown(bool final);

} // namespace cpcprof::agent
