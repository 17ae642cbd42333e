// SPDX-License-Identifier: MIT
// Every layout of sqlite_schema that a cpcprof wrote (schema.h Layout):
// the statements of each older version copied from the commit that last
// wrote it, byte for byte, so that the reader holds an older file to
// exactly the schema it was made with.  These never change: a new format
// version adds its predecessor's statements here.
//
//   version  form                 written by (git history)
//   1        -                    f21b48e .. 40c1cf3
//   2        -                    4ae0e20 .. d94b64b, 51736f8, 029be79
//   3        notice, no unsampled 3565fec .. 21cae17 (branch wip-sig)
//   3        unsampled, no notice 934cf0e, cab1682, 0c7e100
//   3        final (both)         3e61bb3 (the merge) .. 2d7ac46
//   4        -                    e7cac72 .. 8c53fa9
//   5        -                    08cbf60 .. 4f61af6
//   6        current              (off_cpu) ..
#include "storage/src/schema.h"

namespace cpcprof::storage::schema {
namespace {

// The tables no version before 5 changed, spelled as every version wrote them.
constexpr const char *kCommandArg =
    "CREATE TABLE command_arg(pos INTEGER PRIMARY KEY, arg TEXT NOT NULL)";
constexpr const char *kEvent =
    "CREATE TABLE event("
    "idx INTEGER PRIMARY KEY, name TEXT NOT NULL, period INTEGER NOT NULL, "
    "sampling INTEGER NOT NULL)";
constexpr const char *kProcess =
    "CREATE TABLE process("
    "pid INTEGER PRIMARY KEY, ppid INTEGER, exe TEXT, start_ns INTEGER, "
    "end_ns INTEGER, exit_status INTEGER, killed_by_signal INTEGER)";
constexpr const char *kProcessArg =
    "CREATE TABLE process_arg("
    "pid INTEGER NOT NULL, pos INTEGER NOT NULL, arg TEXT NOT NULL, "
    "PRIMARY KEY (pid, pos)) WITHOUT ROWID";
constexpr const char *kThread =
    "CREATE TABLE thread("
    "id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, "
    "name TEXT NOT NULL)";
constexpr const char *kMapping =
    "CREATE TABLE mapping("
    "id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, module INTEGER NOT NULL, "
    "start_address INTEGER NOT NULL, end_address INTEGER NOT NULL, "
    "file_offset INTEGER NOT NULL, load_ns INTEGER NOT NULL, unload_ns INTEGER)";
constexpr const char *kStackNode =
    "CREATE TABLE stack_node("
    "id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, address INTEGER NOT NULL)";
// Versions 1 to 4 (version 5 added sample.cpu).
constexpr const char *kSample =
    "CREATE TABLE sample("
    "id INTEGER PRIMARY KEY, thread INTEGER NOT NULL, time_ns INTEGER NOT NULL, "
    "stack INTEGER NOT NULL, complete INTEGER NOT NULL, value INTEGER, more_values BLOB)";

// Version 2's symbol tables, the same in versions 3 to 5.
constexpr const char *kFunctionName =
    "CREATE TABLE function_name(id INTEGER PRIMARY KEY, name TEXT NOT NULL)";
constexpr const char *kSourceFile =
    "CREATE TABLE source_file(id INTEGER PRIMARY KEY, path TEXT NOT NULL)";
constexpr const char *kSymbol =
    "CREATE TABLE symbol("
    "module INTEGER NOT NULL, file_offset INTEGER NOT NULL, depth INTEGER NOT NULL, "
    "function INTEGER, source INTEGER, line INTEGER NOT NULL, inlined INTEGER NOT NULL, "
    "PRIMARY KEY (module, file_offset, depth)) WITHOUT ROWID";

// Version 4: run.counters, run.counters_reason.
constexpr const char *kRunV4 =
    "CREATE TABLE run("
    "id INTEGER PRIMARY KEY CHECK (id = 1), "
    "start_ns INTEGER NOT NULL, start_mono_ns INTEGER NOT NULL, end_ns INTEGER, "
    "host TEXT NOT NULL, kernel TEXT NOT NULL, cpu_model TEXT NOT NULL, "
    "hw_pmu INTEGER NOT NULL, counters TEXT NOT NULL, counters_reason TEXT NOT NULL, "
    "call_graph TEXT NOT NULL, max_depth INTEGER NOT NULL, "
    "complete INTEGER NOT NULL, symbolized_ns INTEGER)";

constexpr const char *kRunV1 =
    "CREATE TABLE run("
    "id INTEGER PRIMARY KEY CHECK (id = 1), "
    "start_ns INTEGER NOT NULL, start_mono_ns INTEGER NOT NULL, end_ns INTEGER, "
    "host TEXT NOT NULL, kernel TEXT NOT NULL, cpu_model TEXT NOT NULL, "
    "hw_pmu INTEGER NOT NULL, call_graph TEXT NOT NULL, max_depth INTEGER NOT NULL, "
    "complete INTEGER NOT NULL)";

// Versions 2 and 3: symbolized_ns.
constexpr const char *kRunV2 =
    "CREATE TABLE run("
    "id INTEGER PRIMARY KEY CHECK (id = 1), "
    "start_ns INTEGER NOT NULL, start_mono_ns INTEGER NOT NULL, end_ns INTEGER, "
    "host TEXT NOT NULL, kernel TEXT NOT NULL, cpu_model TEXT NOT NULL, "
    "hw_pmu INTEGER NOT NULL, call_graph TEXT NOT NULL, max_depth INTEGER NOT NULL, "
    "complete INTEGER NOT NULL, symbolized_ns INTEGER)";

constexpr const char *kModuleV1 =
    "CREATE TABLE module(id INTEGER PRIMARY KEY, path TEXT NOT NULL, build_id TEXT NOT NULL)";

// Versions 2 to 5: has_symbols.
constexpr const char *kModuleV2 =
    "CREATE TABLE module("
    "id INTEGER PRIMARY KEY, path TEXT NOT NULL, build_id TEXT NOT NULL, has_symbols INTEGER)";

constexpr const char *kAccountingV1 =
    "CREATE TABLE accounting("
    "pid INTEGER PRIMARY KEY, taken INTEGER NOT NULL, stored INTEGER NOT NULL, "
    "dropped INTEGER NOT NULL)";

// Version 3 (both later forms) to 5: unsampled_ns.
constexpr const char *kAccountingV3 =
    "CREATE TABLE accounting("
    "pid INTEGER PRIMARY KEY, taken INTEGER NOT NULL, stored INTEGER NOT NULL, "
    "dropped INTEGER NOT NULL, unsampled_ns INTEGER NOT NULL)";

// Version 3 (two of its forms) to 5.
constexpr const char *kNotice =
    "CREATE TABLE notice("
    "id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, time_ns INTEGER NOT NULL, text TEXT NOT NULL)";

// f21b48e .. 40c1cf3.
constexpr const char *kTablesV1[] = {
    kRunV1,    kCommandArg, kEvent,     kProcess, kProcessArg,   kThread,
    kModuleV1, kMapping,    kStackNode, kSample,  kAccountingV1,
};

// 4ae0e20 .. d94b64b.
constexpr const char *kTablesV2[] = {
    kRunV2,   kCommandArg, kEvent,  kProcess,      kProcessArg,   kThread,     kModuleV2,
    kMapping, kStackNode,  kSample, kAccountingV1, kFunctionName, kSourceFile, kSymbol,
};

// 3565fec .. 21cae17: the notice table, no unsampled_ns.
constexpr const char *kTablesV3Notice[] = {
    kRunV2,        kCommandArg, kEvent,        kProcess,    kProcessArg,
    kThread,       kModuleV2,   kMapping,      kStackNode,  kSample,
    kAccountingV1, kNotice,     kFunctionName, kSourceFile, kSymbol,
};

// 934cf0e .. 0c7e100: unsampled_ns, no notice table.
constexpr const char *kTablesV3Unsampled[] = {
    kRunV2,   kCommandArg, kEvent,  kProcess,      kProcessArg,   kThread,     kModuleV2,
    kMapping, kStackNode,  kSample, kAccountingV3, kFunctionName, kSourceFile, kSymbol,
};

// 3e61bb3 .. 2d7ac46.
constexpr const char *kTablesV3[] = {
    kRunV2,        kCommandArg, kEvent,        kProcess,    kProcessArg,
    kThread,       kModuleV2,   kMapping,      kStackNode,  kSample,
    kAccountingV3, kNotice,     kFunctionName, kSourceFile, kSymbol,
};

// e7cac72 .. 8c53fa9.
constexpr const char *kTablesV4[] = {
    kRunV4,        kCommandArg, kEvent,        kProcess,    kProcessArg,
    kThread,       kModuleV2,   kMapping,      kStackNode,  kSample,
    kAccountingV3, kNotice,     kFunctionName, kSourceFile, kSymbol,
};

// 08cbf60 .. 4f61af6: sample.cpu.
constexpr const char *kSampleV5 =
    "CREATE TABLE sample("
    "id INTEGER PRIMARY KEY, thread INTEGER NOT NULL, time_ns INTEGER NOT NULL, "
    "stack INTEGER NOT NULL, complete INTEGER NOT NULL, value INTEGER, more_values BLOB, "
    "cpu INTEGER)";
constexpr const char *kTablesV5[] = {
    kRunV4,        kCommandArg, kEvent,        kProcess,    kProcessArg,
    kThread,       kModuleV2,   kMapping,      kStackNode,  kSampleV5,
    kAccountingV3, kNotice,     kFunctionName, kSourceFile, kSymbol,
};

} // namespace

std::span<const Layout> layouts(int32_t version) {
    // Version 6's statements are tables() (schema.cpp), the ones the
    // writer runs.
    static const Layout kV6[] = {{6, "", true, true, true, true, true, true, tables()}};
    static const Layout kV5[] = {{5, "", true, true, true, true, true, false, kTablesV5}};
    static const Layout kV4[] = {{4, "", true, true, true, true, false, false, kTablesV4}};
    static const Layout kV3[] = {
        {3, "", true, true, true, false, false, false, kTablesV3},
        {3, "an early form with notices and without accounting.unsampled_ns", true, true, false,
         false, false, false, kTablesV3Notice},
        {3, "an early form with accounting.unsampled_ns and without notices", true, false, true,
         false, false, false, kTablesV3Unsampled},
    };
    static const Layout kV2[] = {{2, "", true, false, false, false, false, false, kTablesV2}};
    static const Layout kV1[] = {{1, "", false, false, false, false, false, false, kTablesV1}};
    switch (version) {
    case 1:
        return kV1;
    case 2:
        return kV2;
    case 3:
        return kV3;
    case 4:
        return kV4;
    case 5:
        return kV5;
    case 6:
        return kV6;
    default:
        return {};
    }
}

} // namespace cpcprof::storage::schema
