// SPDX-License-Identifier: MIT
// THE .cpcprof FILE FORMAT, version 6
// ===================================
//
// A .cpcprof file is one SQLite 3 database holding one recording: the run,
// the processes and threads of the target, the modules they mapped, the
// call stacks (once each, as a trie), the samples and, once symbolized,
// what the code addresses are (per module and file offset).  Any SQLite
// client can read it; this block is what such a reader may rely on.
// Version 2 added the symbol tables, run.symbolized_ns and
// module.has_symbols; version 3 the notice table and
// accounting.unsampled_ns, and taken counts overflows merged into one
// signal; version 4 run.counters and run.counters_reason; version 5
// sample.cpu; version 6 the off_cpu table.
//
// Older versions
//   A reader reads every version this project has written, for as long as
//   the project lives (a CI baseline may be months old): the statements
//   that made each older version's files, exactly as they were written,
//   are kept in schema_history.cpp (schema::layouts), and a file is held
//   to exactly one of them.  An older file is read as this version with
//   what its version lacks absent: version 1 has no symbol tables (it
//   reads as never symbolized, module.has_symbols unknown), versions 1
//   and 2 no notices and no accounting.unsampled_ns (read as 0: that
//   cpcprof did not measure it), versions 1 to 3 no run.counters (read as
//   "": not said), versions 1 to 4 no sample.cpu (read as NULL: not known),
//   versions 1 to 5 no off_cpu table (no off-CPU time recorded).  Version 3 has three
//   layouts: two branches each made a version 3 (one with the notice table, one with unsampled_ns;
//   each landed and wrote files) before they met in the final one with both. Reading never converts
//   or writes the file.  Symbolizing writes the symbol tables, which versions 2 to 6 share, in
//   place and leaves the version as it is; a version-1 file has no symbol tables to write and is
//   refused by SymbolWriter.  Versions newer than this one are refused.
//
// Identification
//   PRAGMA application_id = 0x43504350 ("CPCP"); PRAGMA user_version = 6.
//   Text encoding UTF-8 (paths and arguments are stored byte for byte, so
//   a TEXT value is not guaranteed to be valid UTF-8).  A reader refuses
//   versions it does not know: a version changes whenever a table, a column or the
//   meaning of a value changes.  sqlite_schema holds exactly the statements
//   below (tables() and, once the recording is finished, final_indexes());
//   an older version's file those of its layout (schema_history.cpp).  The
//   reader compares it and refuses anything else, triggers and views
//   included.
//
// Times
//   run.start_ns and run.symbolized_ns are wall-clock time (CLOCK_REALTIME,
//   ns since the epoch).  Every other time column is CLOCK_MONOTONIC ns
//   relative to run.start_mono_ns (the same instant as run.start_ns on the
//   monotonic clock), so sample times are small, usually 6-byte, integers.  Times are
//   signed: an event just before the run's start is negative.
//
// 64-bit unsigned quantities (addresses, periods, counts, values) are
//   stored as the SQLite INTEGER with the same 64 bits: values of 2^63 and
//   above read back negative in SQL; C++ casts them back exactly.
//
// Tables
//   run(id = 1, start_ns, start_mono_ns, end_ns, host, kernel, cpu_model,
//       hw_pmu, counters, counters_reason, call_graph, max_depth, complete,
//       symbolized_ns)
//     Exactly one row, written (and committed) by Writer::begin_run.
//     end_ns is NULL until the recording is finished.  complete = 1 only
//     when the recorder finished the file (final commit, indexes made);
//     0 means it stopped early (killed): everything committed before that
//     is present and consistent, the last batch may be missing.
//     hw_pmu: whether the machine had a hardware PMU.  counters: what
//     took the samples and counted the events, libcpc's backend:
//     "perf_event" (perf_event_open) or "posix-timer" (per-thread POSIX
//     CPU-time timers and getrusage, where perf_event_open was refused);
//     counters_reason: why not perf_event_open ("" when it was used), e.g.
//     "perf_event_open refused (EPERM: a seccomp filter?)".  Readers take
//     both as free text.  call_graph: how
//     stacks were taken, record's --call-graph mode: "dwarf" (the agent's
//     own unwinder over the modules' .eh_frame, compiled into tables; not
//     libunwind), "fp" (frame pointers) or "none" (the PC alone); readers
//     take it as free text.  max_depth: the recorder's bound on frames
//     per stack.  symbolized_ns: when the symbol tables below were last
//     written; NULL = never symbolized.
//   command_arg(pos, arg)        the recorded command line, pos from 0.
//   event(idx, name, period, sampling)
//     The requests of the counter set, idx from 0.  idx is the position of
//     the request's value in every sample.  period: overflow period (0 for
//     a request that only counts); sampling = 1 for the request whose
//     overflow takes the samples (the set's first, idx 0).
//   process(pid, ppid, exe, start_ns, end_ns, exit_status, killed_by_signal)
//     One row per pid, keyed by pid: a second report of the same pid (exec)
//     replaces ppid, exe, start_ns and its arguments.  end_ns and exactly
//     one of exit_status / killed_by_signal are set when it ended.  A row
//     may have only its pid when the recorder learnt of the process only
//     from its exit.
//   process_arg(pid, pos, arg)   argv of each process, pos from 0.
//   thread(id, pid, tid, name)
//     id is the file's own small thread number (1, 2, ...) that samples
//     refer to.  (pid, tid) is unique; a thread renamed during the run
//     keeps its row and its last name; a tid reused within one pid during
//     the run shares the row.
//   module(id, path, build_id, has_symbols)
//     One row per distinct file (path, build_id); build_id is lowercase
//     hex or empty.  has_symbols: 1 if the symbolizer found symbols (a
//     symbol table or debug information) in the file, 0 if not, NULL
//     until it has looked.  The path "[kernel]" is no file: its addresses
//     are kernel frames, its mappings have file_offset = start_address (a
//     file offset is the kernel's address), and it is named from
//     /proc/kallsyms (has_symbols 0 where the kernel hid its addresses).
//   mapping(id, pid, module, start_address, end_address, file_offset,
//           load_ns, unload_ns)
//     Where a module was mapped in a process, [start_address, end_address),
//     and when.  unload_ns is NULL while mapped at the end of the run.
//     A code address of a sample belongs to a mapping of the sample's
//     process that covers it: the one live at the sample's time (the one
//     loaded last if several are); else the one loaded last among those
//     already unloaded then; else the first one loaded after it.  (Load
//     and unload times are when the recorder learnt of them, at the
//     agent's module scans: the first samples in a new dlopen may precede
//     its load_ns.)  Its file offset, the key of the symbol tables, is
//     address - start_address + file_offset.
//   stack_node(id, parent, address)
//     The stack trie.  Node 0 is the virtual root and has no row; ids run
//     1, 2, 3, ... without gaps, and parent < id.  A node's path from the
//     root (outermost frame) down to itself is one stack, read root first;
//     read from the node up it is leaf first: the node's own address is the
//     interrupted PC when it is a sample's stack node, a return address
//     otherwise.  (parent, address) is unique: the same stack is stored
//     once, and stacks that share their outermost frames share those nodes.
//   sample(id, thread, time_ns, stack, complete, value, more_values, cpu)
//     One row per stored sample, id in arrival order (roughly, not strictly,
//     time order across threads).  thread -> thread.id; stack ->
//     stack_node.id of the leaf, 0 for a sample without frames; complete =
//     0 when the stack was cut short (depth bound reached or the unwinder
//     gave up), so its outermost node is not a true root.  cpu: the
//     processor the sample was taken on (0, 1, ...), as the kernel's
//     sample ring says it; NULL where not known (the agent's samples).
//     Values (one per event, in event.idx order):
//       value        the first request's value (NULL if the sample has none);
//       more_values  the others as unsigned LEB128 varints (7 bits per byte,
//                    least significant group first, high bit = more
//                    bytes follow), concatenated; NULL when there are none.
//     Why: the number of requests varies per run, and a column per request
//     would need DDL built per run (we build no SQL from data) or a fixed
//     set of mostly-NULL columns (a header byte each per row).  The first
//     request, which drives sampling, stays a plain column so that
//     "SELECT sum(value) ..." works in any SQL client; the rest cost the
//     same as integer columns would (a header byte plus about 3 bytes for
//     a value near 10^6).
//   off_cpu(id, thread, time_ns, duration_ns, stretches, preempted, stack,
//           complete)
//     Time threads spent off the CPU (record --off-cpu), one row per
//     stretch from a thread's switch out to its next switch in, id in
//     arrival order; or, with stretches > 1, the sum of that many stretches
//     of the thread each shorter than the recording's threshold, time_ns
//     the first's switch out, duration_ns their sum.  preempted = 1: taken
//     off the CPU while it could still run (waiting for a CPU, not for
//     something); 0: it blocked.  thread, stack and complete as in sample:
//     stack is where the thread blocked (the return from its system call
//     leaf first), 0 when not known (too short to be read, or preempted).
//     A run with off-CPU time has the event "off-cpu" last in the event
//     table (period 0, sampling 0, a time in ns): it is no request, every
//     sample's value for it is 0, and these rows carry it.
//   accounting(pid, taken, stored, dropped, unsampled_ns)
//     Sample accounting summed per process over the run (taken: overflows
//     of the sampling event, counted by the kernel, whether or not their
//     signal could be handled on its own; stored: samples that reached the
//     recorder; dropped: overflows not stored - full rings, no thread slot,
//     overflows merged into one signal beyond those whose PC was kept;
//     unsampled_ns: CPU time of threads that could not be sampled at all,
//     not counted in taken).  Invariant
//     kept by the recorder, checked and exposed by the reader:
//     taken = stored + dropped per process and in total.  Written in the
//     same transactions as the samples it counts.
//   notice(id, pid, time_ns, text)
//     What the recorder was told about a process while recording, one row
//     per message in arrival order (id 1, 2, ...): a signal the program
//     took for itself, sampling stopped in it and why, counters it could
//     not get.  The text is the message the recorder printed, without its
//     "cpcprof: process PID: " prefix.  pid 0 is the recording itself: in
//     a file with complete = 0 and end_ns set, why the recorder cut it
//     short (writing failed: a full disk), what it kept and what it lost.
//   function_name(id, name)     source_file(id, path)
//     The interned strings of the symbol tables: demangled function names
//     and source file paths, ids 1, 2, 3, ... without gaps.  Each text
//     appears once per table (no index enforces it: it would store every
//     string twice; a reader treats duplicates as one).
//   symbol(module, file_offset, depth, function, source, line, inlined)
//     What the symbolizer found at a code address: one row per frame of
//     its chain, keyed by (module, file_offset, depth), the table itself
//     ordered by that key (WITHOUT ROWID: no rowid, no second copy of the
//     key).  depth 0 is the innermost frame; depths run 0, 1, 2, ... per
//     address.  All frames but the last are inlined calls (inlined = 1),
//     each inside the next; the last is the function the code belongs to.
//     function -> function_name.id, source -> source_file.id, NULL when
//     unknown; line 0 when unknown.  An address without a row was not
//     resolved (no symbol, or no mapping held it).
//     A return address (a caller's frame) is resolved inside its call
//     instruction, at offset - 1, and an interrupted PC (a sample's leaf)
//     at its offset, and one address can be both.  The rows at an
//     address's offset are its answer as a PC when some sample has it as
//     its PC, else its answer as a return address.  When it is both and
//     the two answers differ, the return address's answer is stored at
//     offset - 1 as well (inside the call: no stack holds that address),
//     a single frame with function and source NULL if nothing named it
//     there.  So a reader takes (module, offset) for a leaf, and for a
//     caller (module, offset - 1) if present, else (module, offset).  A
//     function named "FILE+0xOFFSET" after its own module's file name was
//     not named by a symbol: the symbolizer grouped a stripped module's
//     addresses by the call-frame information (FDE) covering them, OFFSET
//     being the file offset where that function's FDE starts.
//
// Writing (Writer)
//   WAL journal, synchronous = NORMAL; every add goes into the current
//   batch transaction, which commit() ends (the recorder commits about
//   every 100 ms).  A recorder killed at any point leaves a file that opens
//   and passes PRAGMA integrity_check and lacks only the uncommitted batch.
//   No secondary index exists while recording (an index makes the bulk
//   insert ~8x slower); finish() then creates final_indexes(), sets
//   run.complete = 1, checkpoints and switches the file back to a rollback
//   journal so that the finished profile is one self-contained file.
//
// Symbolizing (SymbolWriter)
//   After the recording (or later, again: `cpcprof symbolize FILE`), every
//   distinct (module, file offset) that some stack reaches is resolved
//   once and written in one transaction that replaces all previous symbols
//   (function_name, source_file, symbol, module.has_symbols) and sets
//   run.symbolized_ns; a reader sees the old symbols or the new, never a
//   mix.  A return address is resolved at offset - 1 (inside its call
//   instruction), a PC at its offset; an address that is some sample's PC
//   and another's return address is resolved both ways (see "symbol").
//   (Files symbolized before hold the return address's answer alone for
//   such an address; readers take it for both, as they did then.)
//   Size (tests/storage/bench_symbols: 1 M samples, 91 k addresses, 1.37
//   frames each, 20 k function names of ~70 bytes): symbol 32 bytes per
//   address (23 per frame row), function_name 17, source_file 1; 4.5 MB in
//   all, 4.5 bytes per sample on top of the 32 the samples and stacks take.
//
// Indexes (finished files only)
//   stack_node_child UNIQUE ON stack_node(parent, address): walking the
//   trie from the root down.  Samples have no secondary index (it would
//   cost ~10 bytes per sample); readers scan them.

#include "storage/src/schema.h"

namespace cpcprof::storage::schema {
namespace {

constexpr const char *kTables[] = {
    "CREATE TABLE run("
    "id INTEGER PRIMARY KEY CHECK (id = 1), "
    "start_ns INTEGER NOT NULL, start_mono_ns INTEGER NOT NULL, end_ns INTEGER, "
    "host TEXT NOT NULL, kernel TEXT NOT NULL, cpu_model TEXT NOT NULL, "
    "hw_pmu INTEGER NOT NULL, counters TEXT NOT NULL, counters_reason TEXT NOT NULL, "
    "call_graph TEXT NOT NULL, max_depth INTEGER NOT NULL, "
    "complete INTEGER NOT NULL, symbolized_ns INTEGER)",

    "CREATE TABLE command_arg(pos INTEGER PRIMARY KEY, arg TEXT NOT NULL)",

    "CREATE TABLE event("
    "idx INTEGER PRIMARY KEY, name TEXT NOT NULL, period INTEGER NOT NULL, "
    "sampling INTEGER NOT NULL)",

    "CREATE TABLE process("
    "pid INTEGER PRIMARY KEY, ppid INTEGER, exe TEXT, start_ns INTEGER, "
    "end_ns INTEGER, exit_status INTEGER, killed_by_signal INTEGER)",

    "CREATE TABLE process_arg("
    "pid INTEGER NOT NULL, pos INTEGER NOT NULL, arg TEXT NOT NULL, "
    "PRIMARY KEY (pid, pos)) WITHOUT ROWID",

    "CREATE TABLE thread("
    "id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, "
    "name TEXT NOT NULL)",

    "CREATE TABLE module("
    "id INTEGER PRIMARY KEY, path TEXT NOT NULL, build_id TEXT NOT NULL, has_symbols INTEGER)",

    "CREATE TABLE mapping("
    "id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, module INTEGER NOT NULL, "
    "start_address INTEGER NOT NULL, end_address INTEGER NOT NULL, "
    "file_offset INTEGER NOT NULL, load_ns INTEGER NOT NULL, unload_ns INTEGER)",

    "CREATE TABLE stack_node("
    "id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, address INTEGER NOT NULL)",

    "CREATE TABLE sample("
    "id INTEGER PRIMARY KEY, thread INTEGER NOT NULL, time_ns INTEGER NOT NULL, "
    "stack INTEGER NOT NULL, complete INTEGER NOT NULL, value INTEGER, more_values BLOB, "
    "cpu INTEGER)",

    "CREATE TABLE accounting("
    "pid INTEGER PRIMARY KEY, taken INTEGER NOT NULL, stored INTEGER NOT NULL, "
    "dropped INTEGER NOT NULL, unsampled_ns INTEGER NOT NULL)",

    "CREATE TABLE off_cpu("
    "id INTEGER PRIMARY KEY, thread INTEGER NOT NULL, time_ns INTEGER NOT NULL, "
    "duration_ns INTEGER NOT NULL, stretches INTEGER NOT NULL, preempted INTEGER NOT NULL, "
    "stack INTEGER NOT NULL, complete INTEGER NOT NULL)",

    "CREATE TABLE notice("
    "id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, time_ns INTEGER NOT NULL, text TEXT NOT NULL)",

    "CREATE TABLE function_name(id INTEGER PRIMARY KEY, name TEXT NOT NULL)",

    "CREATE TABLE source_file(id INTEGER PRIMARY KEY, path TEXT NOT NULL)",

    "CREATE TABLE symbol("
    "module INTEGER NOT NULL, file_offset INTEGER NOT NULL, depth INTEGER NOT NULL, "
    "function INTEGER, source INTEGER, line INTEGER NOT NULL, inlined INTEGER NOT NULL, "
    "PRIMARY KEY (module, file_offset, depth)) WITHOUT ROWID",
};

constexpr const char *kFinalIndexes[] = {
    "CREATE UNIQUE INDEX stack_node_child ON stack_node(parent, address)",
};

} // namespace

std::span<const char *const> tables() {
    return kTables;
}
std::span<const char *const> final_indexes() {
    return kFinalIndexes;
}

} // namespace cpcprof::storage::schema
