// SPDX-License-Identifier: MIT
#include "storage/src/profile_load.h"

#include "storage/src/sqlite_handle.h"

#include <unordered_map>

namespace cpcprof::storage {

using sql::Statement;

namespace {

uint64_t ubits(int64_t v) {
    return static_cast<uint64_t>(v);
}

bool fail(sqlite3 *db, int rc, const char *what, std::string *reason) {
    *reason = sql::describe(db, rc, what);
    return false;
}

} // namespace

bool LoadedProfile::load(sqlite3 *db, const schema::Layout &l, Symbols symbols_wanted,
                         std::string *reason) {
    layout = &l;
    return load_run(db, reason) && load_processes(db, reason) &&
           load_threads_and_modules(db, reason) && load_accounting_and_trie(db, reason) &&
           load_off_cpu(db, reason) &&
           (symbols_wanted == Symbols::skip || !l.symbols ||
            load_symbol_table(db, module_ids, &symbols, reason));
}

bool LoadedProfile::load_run(sqlite3 *db, std::string *reason) {
    Statement s;
    // What a version lacks reads as absent: never symbolized (version 1),
    // counters not said (versions 1 to 3).
    const char *query =
        layout->counters  ? "SELECT start_ns, start_mono_ns, end_ns, host, kernel, cpu_model, "
                            "hw_pmu, call_graph, max_depth, complete, symbolized_ns, "
                            "counters, counters_reason FROM run WHERE id = 1"
        : layout->symbols ? "SELECT start_ns, start_mono_ns, end_ns, host, kernel, cpu_model, "
                            "hw_pmu, call_graph, max_depth, complete, symbolized_ns, '', '' "
                            "FROM run WHERE id = 1"
                          : "SELECT start_ns, start_mono_ns, end_ns, host, kernel, cpu_model, "
                            "hw_pmu, call_graph, max_depth, complete, NULL, '', '' "
                            "FROM run WHERE id = 1";
    int rc = s.query(db, query);
    if (rc == SQLITE_ROW) { // id is the key: one row at most
        run.start_ns = s.int64(0);
        run.start_mono_ns = s.int64(1);
        end_ns = s.is_null(2) ? std::nullopt : std::optional(abs(s.int64(2)));
        run.host = s.text(3);
        run.kernel = s.text(4);
        run.cpu_model = s.text(5);
        run.hw_pmu = s.int64(6) != 0;
        run.call_graph = s.text(7);
        run.max_depth = static_cast<unsigned>(s.int64(8));
        complete = s.int64(9) != 0;
        symbolized_ns = s.optional_int64(10);
        run.counters = s.text(11);
        run.counters_reason = s.text(12);
        rc = s.step();
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the run", reason);
    for (rc = s.query(db, "SELECT arg FROM command_arg ORDER BY pos"); rc == SQLITE_ROW;
         rc = s.step())
        run.command.push_back(s.text(0));
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the command", reason);
    for (rc = s.query(db, "SELECT name, period, sampling FROM event ORDER BY idx");
         rc == SQLITE_ROW; rc = s.step())
        run.events.push_back({s.text(0), ubits(s.int64(1)), s.int64(2) != 0});
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the events", reason);
    return true;
}

bool LoadedProfile::load_processes(sqlite3 *db, std::string *reason) {
    Statement s;
    std::unordered_map<int64_t, size_t> index;
    int rc;
    for (rc = s.query(db, "SELECT pid, ppid, exe, start_ns, end_ns, exit_status, "
                          "killed_by_signal FROM process ORDER BY pid");
         rc == SQLITE_ROW; rc = s.step()) {
        ProcessRecord p;
        p.info.pid = static_cast<int>(s.int64(0));
        p.info.ppid = static_cast<int>(s.int64(1));
        p.info.exe = s.text(2);
        p.info.start_ns = s.is_null(3) ? 0 : abs(s.int64(3));
        if (!s.is_null(4))
            p.end_ns = abs(s.int64(4));
        if (!s.is_null(5))
            p.exit_status = static_cast<int>(s.int64(5));
        if (!s.is_null(6))
            p.killed_by_signal = static_cast<int>(s.int64(6));
        index[s.int64(0)] = processes.size();
        processes.push_back(std::move(p));
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the processes", reason);
    for (rc = s.query(db, "SELECT pid, arg FROM process_arg ORDER BY pid, pos"); rc == SQLITE_ROW;
         rc = s.step()) {
        auto it = index.find(s.int64(0));
        if (it != index.end())
            processes[it->second].info.argv.push_back(s.text(1));
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the process arguments", reason);
    return true;
}

bool LoadedProfile::load_threads_and_modules(sqlite3 *db, std::string *reason) {
    Statement s;
    int rc;
    for (rc = s.query(db, "SELECT id, pid, tid, name FROM thread ORDER BY id"); rc == SQLITE_ROW;
         rc = s.step()) {
        thread_index[s.int64(0)] = threads.size();
        threads.push_back({static_cast<int>(s.int64(1)), static_cast<int>(s.int64(2)), s.text(3)});
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the threads", reason);
    for (rc = s.query(db, "SELECT id FROM module ORDER BY id"); rc == SQLITE_ROW; rc = s.step()) {
        if (s.int64(0) <= 0) { // 0 means "no module" in a CodeAddress
            *reason = "inconsistent: module id " + std::to_string(s.int64(0));
            return false;
        }
        module_ids.insert(s.int64(0));
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the modules", reason);
    // Version 1 has no module.has_symbols: not looked at (NULL).
    for (rc = s.query(db, layout->symbols
                              ? "SELECT m.id, m.pid, f.path, f.build_id, m.start_address, "
                                "m.end_address, m.file_offset, m.load_ns, m.unload_ns, m.module, "
                                "f.id, f.has_symbols FROM mapping AS m "
                                "LEFT JOIN module AS f ON f.id = m.module ORDER BY m.id"
                              : "SELECT m.id, m.pid, f.path, f.build_id, m.start_address, "
                                "m.end_address, m.file_offset, m.load_ns, m.unload_ns, m.module, "
                                "f.id, NULL FROM mapping AS m "
                                "LEFT JOIN module AS f ON f.id = m.module ORDER BY m.id");
         rc == SQLITE_ROW; rc = s.step()) {
        if (s.is_null(10)) {
            *reason = "inconsistent: mapping " + std::to_string(s.int64(0)) + " refers to module " +
                      std::to_string(s.int64(9)) + ", which is missing";
            return false;
        }
        ModuleRecord m;
        m.info = {static_cast<int>(s.int64(1)),
                  s.text(2),
                  s.text(3),
                  ubits(s.int64(4)),
                  ubits(s.int64(5)),
                  ubits(s.int64(6)),
                  abs(s.int64(7))};
        if (!s.is_null(8))
            m.unload_ns = abs(s.int64(8));
        m.module_id = s.int64(9);
        if (!s.is_null(11))
            m.has_symbols = s.int64(11) != 0;
        modules.push_back(std::move(m));
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the modules", reason);
    return true;
}

bool LoadedProfile::load_accounting_and_trie(sqlite3 *db, std::string *reason) {
    Statement s;
    int rc;
    // Without accounting.unsampled_ns the recorder did not measure it: 0.
    for (rc = s.query(db, layout->unsampled ? "SELECT pid, taken, stored, dropped, unsampled_ns "
                                              "FROM accounting ORDER BY pid"
                                            : "SELECT pid, taken, stored, dropped, 0 "
                                              "FROM accounting ORDER BY pid");
         rc == SQLITE_ROW; rc = s.step())
        accounting[static_cast<int>(s.int64(0))] = {ubits(s.int64(1)), ubits(s.int64(2)),
                                                    ubits(s.int64(3)), ubits(s.int64(4))};
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the accounting", reason);
    if (layout->notices) {
        for (rc = s.query(db, "SELECT pid, time_ns, text FROM notice ORDER BY id");
             rc == SQLITE_ROW; rc = s.step())
            notices.push_back({static_cast<int>(s.int64(0)), abs(s.int64(1)), s.text(2)});
        if (rc != SQLITE_DONE)
            return fail(db, rc, "cannot read the notices", reason);
    }
    // The writer numbers nodes 1, 2, ... and inserts a parent before its
    // children; checking both here means walking up from any node ends at
    // the root in fewer steps than there are nodes, whatever the file says.
    for (rc = s.query(db, "SELECT id, parent, address FROM stack_node ORDER BY id");
         rc == SQLITE_ROW; rc = s.step()) {
        uint64_t id = ubits(s.int64(0)), parent = ubits(s.int64(1));
        if (id != nodes.size() || parent >= id) {
            *reason = "inconsistent stack table at node " + std::to_string(id) + " (parent " +
                      std::to_string(parent) + ")";
            return false;
        }
        nodes.push_back({parent, ubits(s.int64(2))});
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the stacks", reason);
    rc = s.query(db, "SELECT count(*) FROM sample");
    if (rc != SQLITE_ROW)
        return fail(db, rc, "cannot count the samples", reason);
    sample_count = ubits(s.int64(0));
    return true;
}

bool LoadedProfile::load_off_cpu(sqlite3 *db, std::string *reason) {
    // The event off-CPU time is counted as: last, and no request.
    for (size_t i = 0; i < run.events.size(); ++i) {
        const EventInfo &e = run.events[i];
        if (e.name == kOffCpuEvent &&
            (i + 1 != run.events.size() || i == 0 || e.period != 0 || e.sampling)) {
            *reason = std::string("inconsistent: event ") + kOffCpuEvent +
                      " is not the last, counting only, after the sampling one";
            return false;
        }
    }
    if (!layout->off_cpu)
        return true;
    const bool has_event = !run.events.empty() && run.events.back().name == kOffCpuEvent;
    Statement s;
    int rc;
    for (rc = s.query(db, "SELECT id, thread, time_ns, duration_ns, stretches, preempted, stack, "
                          "complete FROM off_cpu ORDER BY id");
         rc == SQLITE_ROW; rc = s.step()) {
        const std::string row = "inconsistent: off-CPU row " + std::to_string(s.int64(0));
        auto t = thread_index.find(s.int64(1));
        const uint64_t stack = ubits(s.int64(6));
        const char *problem = !has_event                ? " in a run without the event off-cpu"
                              : s.int64(3) < 0          ? " lasts more than 2^63 ns"
                              : s.int64(4) <= 0         ? " sums no stretch"
                              : t == thread_index.end() ? " refers to a missing thread"
                              : stack >= nodes.size()   ? " refers to a missing stack node"
                                                        : nullptr;
        if (problem != nullptr) {
            *reason = row + problem;
            return false;
        }
        const ThreadInfo &th = threads[t->second];
        off_cpu.push_back({th.pid, th.tid, abs(s.int64(2)), ubits(s.int64(3)), ubits(s.int64(4)),
                           s.int64(5) != 0, s.int64(7) != 0, stack});
    }
    if (rc != SQLITE_DONE)
        return fail(db, rc, "cannot read the off-CPU time", reason);
    return true;
}

} // namespace cpcprof::storage
