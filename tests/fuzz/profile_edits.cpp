// SPDX-License-Identifier: MIT
// fuzz_profile's row edits (profile_edits.h).
#include "tests/fuzz/profile_edits.h"

#include <sqlite3.h>

#include <filesystem>
#include <span>

namespace fuzzprofile {
namespace {

// The n-th row (?2) of a table gets ?1 in one column, or is deleted.
// Literal SQL only: the table and column names are written out here.
#define ROWID_UPDATE(t, c)                                                                         \
    "UPDATE " #t " SET " #c " = ?1 WHERE rowid = (SELECT rowid FROM " #t " LIMIT 1 OFFSET ?2)"
#define ROWID_DELETE(t)                                                                            \
    "DELETE FROM " #t " WHERE rowid = (SELECT rowid FROM " #t " LIMIT 1 OFFSET ?2)"
#define SYMBOL_UPDATE(c)                                                                           \
    "UPDATE symbol SET " #c " = ?1 WHERE (module, file_offset, depth) = "                          \
    "(SELECT module, file_offset, depth FROM symbol LIMIT 1 OFFSET ?2)"
#define ARG_UPDATE(c)                                                                              \
    "UPDATE process_arg SET " #c " = ?1 WHERE (pid, pos) = "                                       \
    "(SELECT pid, pos FROM process_arg LIMIT 1 OFFSET ?2)"

constexpr const char *kEdits[] = {
    ROWID_UPDATE(run, start_ns),
    ROWID_UPDATE(run, start_mono_ns),
    ROWID_UPDATE(run, end_ns),
    ROWID_UPDATE(run, max_depth),
    ROWID_UPDATE(run, complete),
    ROWID_UPDATE(run, symbolized_ns),
    ROWID_UPDATE(run, call_graph),
    ROWID_UPDATE(command_arg, pos),
    ROWID_UPDATE(command_arg, arg),
    ROWID_DELETE(command_arg),
    ROWID_UPDATE(event, idx),
    ROWID_UPDATE(event, name),
    ROWID_UPDATE(event, period),
    ROWID_UPDATE(event, sampling),
    ROWID_DELETE(event),
    ROWID_UPDATE(process, pid),
    ROWID_UPDATE(process, ppid),
    ROWID_UPDATE(process, exe),
    ROWID_UPDATE(process, start_ns),
    ROWID_UPDATE(process, end_ns),
    ROWID_UPDATE(process, exit_status),
    ROWID_UPDATE(process, killed_by_signal),
    ROWID_DELETE(process),
    ARG_UPDATE(pid),
    ARG_UPDATE(pos),
    ARG_UPDATE(arg),
    ROWID_UPDATE(thread, id),
    ROWID_UPDATE(thread, pid),
    ROWID_UPDATE(thread, tid),
    ROWID_UPDATE(thread, name),
    ROWID_DELETE(thread),
    ROWID_UPDATE(module, id),
    ROWID_UPDATE(module, path),
    ROWID_UPDATE(module, build_id),
    ROWID_UPDATE(module, has_symbols),
    ROWID_DELETE(module),
    ROWID_UPDATE(mapping, pid),
    ROWID_UPDATE(mapping, module),
    ROWID_UPDATE(mapping, start_address),
    ROWID_UPDATE(mapping, end_address),
    ROWID_UPDATE(mapping, file_offset),
    ROWID_UPDATE(mapping, load_ns),
    ROWID_UPDATE(mapping, unload_ns),
    ROWID_DELETE(mapping),
    ROWID_UPDATE(stack_node, id),
    ROWID_UPDATE(stack_node, parent),
    ROWID_UPDATE(stack_node, address),
    ROWID_DELETE(stack_node),
    ROWID_UPDATE(sample, thread),
    ROWID_UPDATE(sample, time_ns),
    ROWID_UPDATE(sample, stack),
    ROWID_UPDATE(sample, complete),
    ROWID_UPDATE(sample, value),
    ROWID_UPDATE(sample, more_values),
    ROWID_DELETE(sample),
    ROWID_UPDATE(accounting, pid),
    ROWID_UPDATE(accounting, taken),
    ROWID_UPDATE(accounting, stored),
    ROWID_UPDATE(accounting, dropped),
    ROWID_UPDATE(function_name, id),
    ROWID_UPDATE(function_name, name),
    ROWID_DELETE(function_name),
    ROWID_UPDATE(source_file, id),
    ROWID_UPDATE(source_file, path),
    SYMBOL_UPDATE(module),
    SYMBOL_UPDATE(file_offset),
    SYMBOL_UPDATE(depth),
    SYMBOL_UPDATE(function),
    SYMBOL_UPDATE(source),
    SYMBOL_UPDATE(line),
    SYMBOL_UPDATE(inlined),
};
constexpr size_t kCount = sizeof kEdits / sizeof kEdits[0];

struct Input {
    std::span<const uint8_t> rest;
    bool take(size_t n, std::span<const uint8_t> *out) {
        if (rest.size() < n)
            return false;
        *out = rest.first(n);
        rest = rest.subspan(n);
        return true;
    }
};

// Binds the value the input describes to ?1; false when the input ends.
bool bind_value(sqlite3_stmt *st, Input &in) {
    std::span<const uint8_t> b;
    if (!in.take(1, &b))
        return false;
    switch (b[0] % 5) {
    case 0: {
        if (!in.take(8, &b))
            return false;
        int64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v = int64_t(uint64_t(v) << 8 | b[size_t(i)]);
        return sqlite3_bind_int64(st, 1, v) == SQLITE_OK;
    }
    case 1:
        if (!in.take(1, &b))
            return false;
        return sqlite3_bind_int64(st, 1, int8_t(b[0])) == SQLITE_OK;
    case 2:
    case 3: {
        bool text = b[0] % 5 == 2;
        if (!in.take(1, &b) || !in.take(b[0], &b))
            return false;
        const void *p = b.empty() ? "" : static_cast<const void *>(b.data());
        return (text ? sqlite3_bind_text(st, 1, static_cast<const char *>(p), int(b.size()),
                                         SQLITE_TRANSIENT)
                     : sqlite3_bind_blob(st, 1, p, int(b.size()), SQLITE_TRANSIENT)) == SQLITE_OK;
    }
    default:
        return sqlite3_bind_null(st, 1) == SQLITE_OK;
    }
}

} // namespace

bool write_edited(const std::string &base, const std::string &path, const uint8_t *data,
                  size_t size) {
    std::error_code ec;
    std::filesystem::copy_file(base, path, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec)
        return false;
    sqlite3 *db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    // No fsync, no journal file: the copy is scratch (35 inputs/s become hundreds).
    sqlite3_exec(db, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr);
    sqlite3_exec(db, "PRAGMA journal_mode = MEMORY", nullptr, nullptr, nullptr);
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    Input in{{data, size}};
    std::span<const uint8_t> op;
    while (in.take(2, &op)) {
        sqlite3_stmt *st = nullptr;
        const char *sql = kEdits[op[0] % kCount];
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
            sqlite3_finalize(st);
            continue;
        }
        sqlite3_bind_int64(st, 2, op[1]);
        bool more = sqlite3_bind_parameter_count(st) < 2 || bind_value(st, in);
        if (more)
            sqlite3_step(st);
        sqlite3_finalize(st);
        if (!more)
            break;
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return true;
}

} // namespace fuzzprofile
