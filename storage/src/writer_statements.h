// SPDX-License-Identifier: MIT
// The SQL the Writer runs: every statement a constant, compiled once when
// the file is created, with data bound as parameters.
#pragma once

#include "storage/src/sqlite_handle.h"

#include <utility>

namespace cpcprof::storage {

// Holds pointers to its own members: neither copied nor moved.
struct WriterStatements {
    using Statement = sql::Statement;
    WriterStatements() = default;
    WriterStatements(const WriterStatements &) = delete;
    WriterStatements &operator=(const WriterStatements &) = delete;

    Statement begin, commit, rollback;
    Statement insert_run, insert_command_arg, insert_event, finish_run, end_run_short;
    Statement upsert_process, delete_process_args, insert_process_arg, process_exit;
    Statement insert_thread, rename_thread;
    Statement insert_module, insert_mapping, unload_mapping;
    Statement insert_node, insert_sample, insert_off_cpu, add_accounting, insert_notice;

    // Every statement the writer runs, each a constant.
    std::pair<Statement *, const char *> all[22] = {
        {&begin, "BEGIN"},
        {&commit, "COMMIT"},
        {&rollback, "ROLLBACK"},
        {&insert_run,
         "INSERT INTO run(id, start_ns, start_mono_ns, end_ns, host, kernel, cpu_model, "
         "hw_pmu, call_graph, max_depth, counters, counters_reason, complete) "
         "VALUES (1, ?1, ?2, NULL, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0)"},
        {&insert_command_arg, "INSERT INTO command_arg(pos, arg) VALUES (?1, ?2)"},
        {&insert_event, "INSERT INTO event(idx, name, period, sampling) VALUES (?1, ?2, ?3, ?4)"},
        {&finish_run, "UPDATE run SET end_ns = ?1, complete = 1 WHERE id = 1"},
        {&end_run_short, "UPDATE run SET end_ns = ?1 WHERE id = 1"},
        {&upsert_process,
         "INSERT INTO process(pid, ppid, exe, start_ns) VALUES (?1, ?2, ?3, ?4) "
         "ON CONFLICT(pid) DO UPDATE SET ppid = excluded.ppid, exe = excluded.exe, "
         "start_ns = excluded.start_ns, end_ns = NULL, exit_status = NULL, "
         "killed_by_signal = NULL"},
        {&delete_process_args, "DELETE FROM process_arg WHERE pid = ?1"},
        {&insert_process_arg, "INSERT INTO process_arg(pid, pos, arg) VALUES (?1, ?2, ?3)"},
        {&process_exit,
         "INSERT INTO process(pid, end_ns, exit_status, killed_by_signal) "
         "VALUES (?1, ?2, ?3, ?4) "
         "ON CONFLICT(pid) DO UPDATE SET end_ns = excluded.end_ns, "
         "exit_status = excluded.exit_status, killed_by_signal = excluded.killed_by_signal"},
        {&insert_thread, "INSERT INTO thread(id, pid, tid, name) VALUES (?1, ?2, ?3, ?4)"},
        {&rename_thread, "UPDATE thread SET name = ?2 WHERE id = ?1"},
        {&insert_module, "INSERT INTO module(id, path, build_id) VALUES (?1, ?2, ?3)"},
        {&insert_mapping,
         "INSERT INTO mapping(id, pid, module, start_address, end_address, file_offset, "
         "load_ns, unload_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL)"},
        {&unload_mapping, "UPDATE mapping SET unload_ns = ?2 WHERE id = ?1"},
        {&insert_node, "INSERT INTO stack_node(id, parent, address) VALUES (?1, ?2, ?3)"},
        {&insert_sample, "INSERT INTO sample(thread, time_ns, stack, complete, value, more_values, "
                         "cpu) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"},
        {&insert_off_cpu,
         "INSERT INTO off_cpu(thread, time_ns, duration_ns, stretches, preempted, stack, complete) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"},
        {&add_accounting,
         "INSERT INTO accounting(pid, taken, stored, dropped, unsampled_ns) "
         "VALUES (?1, ?2, ?3, ?4, ?5) "
         "ON CONFLICT(pid) DO UPDATE SET taken = taken + excluded.taken, "
         "stored = stored + excluded.stored, dropped = dropped + excluded.dropped, "
         "unsampled_ns = unsampled_ns + excluded.unsampled_ns"},
        {&insert_notice, "INSERT INTO notice(pid, time_ns, text) VALUES (?1, ?2, ?3)"},
    };
};

} // namespace cpcprof::storage
