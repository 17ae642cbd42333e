// SPDX-License-Identifier: MIT
// Writer: one SQLite connection in WAL mode, one transaction per batch, the
// stack trie and the small id maps (threads, modules, live mappings) kept in
// memory so that recording never reads the file back and needs no index.
#include "storage/writer.h"

#include "storage/src/new_file.h"
#include "storage/src/schema.h"
#include "storage/src/sqlite_handle.h"
#include "storage/src/stack_trie.h"
#include "storage/src/varint.h"
#include "storage/src/writer_statements.h"

#include <sys/stat.h>
#include <unistd.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

namespace cpcprof::storage {

using sql::Statement;

namespace {

// 64-bit unsigned quantities are stored as the INTEGER with the same bits.
int64_t bits(uint64_t v) {
    return static_cast<int64_t>(v);
}

bool exists(const std::string &path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
}

void remove_files(const std::string &path) {
    for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        ::unlink((path + suffix).c_str());
}

} // namespace

struct Writer::Impl {
    sql::Db db;
    std::unique_ptr<WriterStatements> st; // destroyed before db
    std::string error;                    // the first failure; empty while ok
    bool in_batch = false;
    bool run_begun = false;
    bool off_cpu_event = false; // the run has kOffCpuEvent, last
    int64_t origin = 0;         // RunInfo::start_mono_ns

    StackTrie trie;
    std::vector<uint64_t> created_nodes;                            // scratch for add_sample
    std::vector<uint8_t> more_values;                               // scratch for add_sample
    std::unordered_map<uint64_t, int64_t> threads;                  // (pid, tid) -> thread.id
    std::map<std::pair<std::string, std::string>, int64_t> modules; // (path, build_id) -> id
    std::map<std::pair<int, uint64_t>, int64_t> live_mappings;      // (pid, start) -> id
    int64_t next_mapping = 1;

    ~Impl() {
        if (db && in_batch)
            (error.empty() ? st->commit : st->rollback).run();
        close();
    }

    void close() {
        st.reset();
        db.reset();
    }

    bool open(const std::string &path, std::string *err);
    // Interns frames in the trie, inserting the new nodes: the leaf's id,
    // or nothing once failed.
    std::optional<uint64_t> intern(std::span<const uint64_t> frames);

    void fail(std::string what) {
        if (error.empty())
            error = std::move(what);
    }

    bool check(int rc, const char *what) {
        if (rc == SQLITE_OK)
            return true;
        fail(sql::describe(db.get(), rc, what));
        return false;
    }

    // Whether a call may write now; opens the batch transaction if needed.
    bool writable(const char *call) {
        if (!error.empty())
            return false;
        if (!db) {
            fail(std::string(call) + " after finish()");
            return false;
        }
        if (!run_begun) {
            fail(std::string(call) + " before begin_run()");
            return false;
        }
        if (!in_batch) {
            if (!check(st->begin.run(), "BEGIN"))
                return false;
            in_batch = true;
        }
        return true;
    }

    bool commit() {
        if (!error.empty())
            return false;
        if (!in_batch)
            return true;
        in_batch = false;
        if (check(st->commit.run(), "COMMIT"))
            return true;
        // After a failed COMMIT (disk full, I/O error) SQLite may keep the
        // transaction open; end it so the file keeps only whole batches.
        st->rollback.run();
        return false;
    }

    int64_t rel(int64_t t) const { // wraps rather than overflows
        return static_cast<int64_t>(static_cast<uint64_t>(t) - static_cast<uint64_t>(origin));
    }

    static uint64_t thread_key(int pid, int tid) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) |
               static_cast<uint32_t>(tid);
    }

    // thread.id of (pid, tid), created (with name) when new; 0 on failure.
    int64_t thread_id(int pid, int tid, std::string_view name, bool rename) {
        auto [it, fresh] = threads.try_emplace(thread_key(pid, tid), threads.size() + 1);
        if (fresh) {
            st->insert_thread.bind(1, it->second).bind(2, pid).bind(3, tid).bind(4, name);
            if (!check(st->insert_thread.run(), "insert thread"))
                return 0;
        } else if (rename) {
            st->rename_thread.bind(1, it->second).bind(2, name);
            if (!check(st->rename_thread.run(), "rename thread"))
                return 0;
        }
        return it->second;
    }
};

namespace {

// Runs the statements in order; false with *err naming the failing one.
bool exec_all(sqlite3 *db, std::initializer_list<const char *> statements, std::string *err) {
    for (const char *s : statements)
        if (int rc = sql::exec(db, s); rc != SQLITE_OK) {
            *err = sql::describe(db, rc, s);
            return false;
        }
    return true;
}

// Makes file (empty) a complete profile without data: identification,
// WAL mode (persistent in the header) and the tables, in one transaction.
// Closing the connection folds the WAL into the file and removes it.
bool build_empty_profile(const std::string &file, std::string *err) {
    sqlite3 *raw = nullptr;
    int rc =
        sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_EXRESCODE, nullptr);
    sql::Db db(raw);
    if (rc != SQLITE_OK) {
        *err = sql::describe(raw, rc, "cannot open");
        return false;
    }
    if (!exec_all(raw,
                  {"PRAGMA page_size = 4096", "PRAGMA journal_mode = WAL", "BEGIN",
                   schema::kSetApplicationId, schema::kSetVersion},
                  err))
        return false;
    for (const char *s : schema::tables())
        if (!exec_all(raw, {s}, err))
            return false;
    if (!exec_all(raw, {"COMMIT"}, err))
        return false;
    db.reset();
    return true;
}

// Back to a rollback journal; false if the mode stays WAL (a live reader).
bool leave_wal(sqlite3 *db) {
    Statement mode;
    return mode.query(db, "PRAGMA journal_mode = DELETE") == SQLITE_ROW && mode.text(0) == "delete";
}

// A short recording is mostly fixed cost: every table and index holds at
// least a page.  A small profile is rewritten with 1 KiB pages (the demo's
// 2,700 samples, symbols included: 120 KB -> 76 KB); a large one keeps
// 4 KiB pages, which read faster (a 1M-sample report took 15-30 % longer
// with 1 KiB pages, for a file 2 % larger).  VACUUM is a transaction: if
// it fails, the file is as it was.
void compact_if_small(sqlite3 *db) {
    constexpr int64_t kSmallPages = (4 << 20) / 4096;
    Statement count;
    if (count.query(db, "PRAGMA page_count") != SQLITE_ROW || count.int64(0) > kSmallPages)
        return;
    count.reset();
    if (sql::exec(db, "PRAGMA page_size = 1024") == SQLITE_OK)
        sql::exec(db, "VACUUM");
}

} // namespace

bool Writer::Impl::open(const std::string &path, std::string *err) {
    sqlite3 *raw = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &raw,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                             nullptr);
    db.reset(raw);
    if (rc != SQLITE_OK) {
        *err = sql::describe(raw, rc, "cannot open");
        return false;
    }
    sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    // synchronous=NORMAL: with WAL a commit survives the recorder's death
    // (what we promise); only power loss may take the last commits.
    Statement mode;
    rc = mode.query(raw, "PRAGMA journal_mode = WAL");
    if (rc == SQLITE_ROW && mode.text(0) != "wal")
        rc = SQLITE_CANTOPEN; // e.g. a file system without shared memory
    mode.reset();
    if (rc != SQLITE_ROW) {
        *err = sql::describe(raw, rc, "cannot use WAL mode");
        return false;
    }
    if (!exec_all(raw, {"PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -16384"}, err))
        return false;
    st = std::make_unique<WriterStatements>();
    for (auto [stmt, text] : st->all)
        if ((rc = stmt->prepare(raw, text)) != SQLITE_OK) {
            *err = sql::describe(raw, rc, text);
            return false;
        }
    return true;
}

std::unique_ptr<Writer> Writer::create(const std::string &path, std::string *error) {
    // A -wal left beside the path by a killed recording whose profile was
    // renamed would be replayed into the new file: refuse rather than mix.
    for (const char *suffix : {"-wal", "-shm"})
        if (exists(path + suffix)) {
            *error = path + suffix + " exists (left by a recording that was killed?); " +
                     "move it away together with its profile";
            return nullptr;
        }
    if (exists(path)) { // checked again, atomically, when the file is moved in
        *error = path + ": already exists; a profile is never overwritten";
        return nullptr;
    }
    // The empty profile is built under another name and moved in whole, so
    // that path is a valid profile from the moment it exists, even if the
    // recorder is killed right here.
    std::string tmp = create_temporary_beside(path, error);
    if (tmp.empty())
        return nullptr;
    std::string err;
    if (!build_empty_profile(tmp, &err)) {
        remove_files(tmp);
        *error = path + ": " + err;
        return nullptr;
    }
    if (!publish_without_replacing(tmp, path, error))
        return nullptr;
    auto impl = std::make_unique<Impl>();
    if (!impl->open(path, &err)) {
        impl.reset();
        remove_files(path);
        *error = path + ": " + err;
        return nullptr;
    }
    return std::unique_ptr<Writer>(new Writer(std::move(impl)));
}

Writer::Writer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Writer::~Writer() = default;
Writer::Writer(Writer &&) noexcept = default;
Writer &Writer::operator=(Writer &&) noexcept = default;

bool Writer::ok() const {
    return impl_->error.empty();
}
const std::string &Writer::error() const {
    return impl_->error;
}
uint64_t Writer::stack_nodes() const {
    return impl_->trie.size();
}

void Writer::begin_run(const RunInfo &run) {
    Impl &m = *impl_;
    if (m.run_begun) {
        m.fail("begin_run() called twice");
        return;
    }
    m.run_begun = true;
    m.origin = run.start_mono_ns;
    m.off_cpu_event = !run.events.empty() && run.events.back().name == kOffCpuEvent;
    if (!m.writable("begin_run()"))
        return;
    WriterStatements &s = *m.st;
    s.insert_run.bind(1, run.start_ns).bind(2, run.start_mono_ns).bind(3, run.host);
    s.insert_run.bind(4, run.kernel).bind(5, run.cpu_model).bind(6, int64_t{run.hw_pmu});
    s.insert_run.bind(7, run.call_graph).bind(8, int64_t{run.max_depth});
    s.insert_run.bind(9, run.counters).bind(10, run.counters_reason);
    if (!m.check(s.insert_run.run(), "insert run"))
        return;
    for (size_t i = 0; i < run.command.size(); ++i) {
        s.insert_command_arg.bind(1, static_cast<int64_t>(i)).bind(2, run.command[i]);
        if (!m.check(s.insert_command_arg.run(), "insert command"))
            return;
    }
    for (size_t i = 0; i < run.events.size(); ++i) {
        const EventInfo &e = run.events[i];
        s.insert_event.bind(1, static_cast<int64_t>(i)).bind(2, e.name).bind(3, bits(e.period));
        s.insert_event.bind(4, int64_t{e.sampling});
        if (!m.check(s.insert_event.run(), "insert event"))
            return;
    }
    m.commit();
}

void Writer::add_process(const ProcessInfo &p) {
    Impl &m = *impl_;
    if (!m.writable("add_process()"))
        return;
    WriterStatements &s = *m.st;
    s.upsert_process.bind(1, p.pid).bind(2, p.ppid).bind(3, p.exe).bind(4, m.rel(p.start_ns));
    if (!m.check(s.upsert_process.run(), "insert process"))
        return;
    s.delete_process_args.bind(1, p.pid);
    if (!m.check(s.delete_process_args.run(), "replace process arguments"))
        return;
    for (size_t i = 0; i < p.argv.size(); ++i) {
        s.insert_process_arg.bind(1, p.pid).bind(2, static_cast<int64_t>(i)).bind(3, p.argv[i]);
        if (!m.check(s.insert_process_arg.run(), "insert process argument"))
            return;
    }
}

void Writer::set_process_exit(int pid, int64_t end_ns, std::optional<int> exit_status,
                              std::optional<int> killed_by_signal) {
    Impl &m = *impl_;
    if (!m.writable("set_process_exit()"))
        return;
    Statement &s = m.st->process_exit;
    s.bind(1, pid).bind(2, m.rel(end_ns));
    s.bind(3, exit_status ? std::optional<int64_t>(*exit_status) : std::nullopt);
    s.bind(4, killed_by_signal ? std::optional<int64_t>(*killed_by_signal) : std::nullopt);
    m.check(s.run(), "set process exit");
}

void Writer::add_thread(const ThreadInfo &t) {
    Impl &m = *impl_;
    if (m.writable("add_thread()"))
        m.thread_id(t.pid, t.tid, t.name, true);
}

void Writer::add_module(const ModuleInfo &mod) {
    Impl &m = *impl_;
    if (!m.writable("add_module()"))
        return;
    WriterStatements &s = *m.st;
    auto [file, fresh] =
        m.modules.try_emplace({mod.path, mod.build_id}, static_cast<int64_t>(m.modules.size() + 1));
    if (fresh) {
        s.insert_module.bind(1, file->second).bind(2, mod.path).bind(3, mod.build_id);
        if (!m.check(s.insert_module.run(), "insert module"))
            return;
    }
    auto [live, added] = m.live_mappings.try_emplace({mod.pid, mod.start}, m.next_mapping);
    if (!added) { // mapped over without an unload: the old one ends now
        s.unload_mapping.bind(1, live->second).bind(2, m.rel(mod.load_ns));
        if (!m.check(s.unload_mapping.run(), "replace mapping"))
            return;
        live->second = m.next_mapping;
    }
    ++m.next_mapping;
    s.insert_mapping.bind(1, live->second).bind(2, mod.pid).bind(3, file->second);
    s.insert_mapping.bind(4, bits(mod.start)).bind(5, bits(mod.end)).bind(6, bits(mod.file_offset));
    s.insert_mapping.bind(7, m.rel(mod.load_ns));
    m.check(s.insert_mapping.run(), "insert mapping");
}

void Writer::unload_module(int pid, uint64_t start, int64_t unload_ns) {
    Impl &m = *impl_;
    auto it = m.live_mappings.find({pid, start});
    if (it == m.live_mappings.end() || !m.writable("unload_module()"))
        return;
    Statement &s = m.st->unload_mapping;
    s.bind(1, it->second).bind(2, m.rel(unload_ns));
    m.live_mappings.erase(it);
    m.check(s.run(), "unload mapping");
}

std::optional<uint64_t> Writer::Impl::intern(std::span<const uint64_t> frames) {
    created_nodes.clear();
    uint64_t leaf = trie.intern(frames, &created_nodes);
    for (uint64_t id : created_nodes) {
        const StackNode &n = trie.node(id);
        st->insert_node.bind(1, bits(id)).bind(2, bits(n.parent)).bind(3, bits(n.address));
        if (!check(st->insert_node.run(), "insert stack node"))
            return std::nullopt;
    }
    return leaf;
}

void Writer::add_sample(const Sample &sample) {
    Impl &m = *impl_;
    if (!m.writable("add_sample()"))
        return;
    int64_t thread = m.thread_id(sample.pid, sample.tid, {}, false);
    if (thread == 0)
        return;
    WriterStatements &s = *m.st;
    std::optional<uint64_t> leaf = m.intern(sample.frames);
    if (!leaf)
        return;
    m.more_values.clear();
    for (size_t i = 1; i < sample.values.size(); ++i)
        append_varint(m.more_values, sample.values[i]);
    Statement &ins = s.insert_sample;
    ins.bind(1, thread).bind(2, m.rel(sample.time_ns)).bind(3, bits(*leaf));
    ins.bind(4, int64_t{sample.complete});
    if (!sample.values.empty())
        ins.bind(5, bits(sample.values[0]));
    ins.bind_blob(6, m.more_values);
    if (sample.cpu >= 0)
        ins.bind(7, int64_t{sample.cpu});
    m.check(ins.run(), "insert sample");
}

void Writer::add_off_cpu(const OffCpu &off) {
    Impl &m = *impl_;
    if (!m.writable("add_off_cpu()"))
        return;
    if (!m.off_cpu_event) {
        m.fail(std::string("add_off_cpu() in a run without the event ") + kOffCpuEvent);
        return;
    }
    if (off.stretches == 0) {
        m.fail("add_off_cpu() of no stretch");
        return;
    }
    int64_t thread = m.thread_id(off.pid, off.tid, {}, false);
    if (thread == 0)
        return;
    std::optional<uint64_t> leaf = m.intern(off.frames);
    if (!leaf)
        return;
    Statement &ins = m.st->insert_off_cpu;
    ins.bind(1, thread).bind(2, m.rel(off.time_ns)).bind(3, bits(off.duration_ns));
    ins.bind(4, bits(off.stretches)).bind(5, int64_t{off.preempted}).bind(6, bits(*leaf));
    ins.bind(7, int64_t{off.complete});
    m.check(ins.run(), "insert off-CPU time");
}

void Writer::add_accounting(int pid, const Accounting &inc) {
    Impl &m = *impl_;
    if (!m.writable("add_accounting()"))
        return;
    Statement &s = m.st->add_accounting;
    s.bind(1, pid).bind(2, bits(inc.taken)).bind(3, bits(inc.stored)).bind(4, bits(inc.dropped));
    s.bind(5, bits(inc.unsampled_ns));
    m.check(s.run(), "add accounting");
}

void Writer::add_notice(const Notice &n) {
    Impl &m = *impl_;
    if (!m.writable("add_notice()"))
        return;
    Statement &s = m.st->insert_notice;
    s.bind(1, n.pid).bind(2, m.rel(n.time_ns)).bind(3, std::string_view(n.text));
    m.check(s.run(), "add notice");
}

bool Writer::commit() {
    return impl_->commit();
}

bool Writer::resume_after_failure() {
    Impl &m = *impl_;
    if (!m.db)
        return false;
    if (m.in_batch) {
        m.st->rollback.run(); // may have been rolled back already: no harm
        m.in_batch = false;
    }
    m.error.clear();
    return true;
}

bool Writer::finish(int64_t end_ns, std::string *error) {
    return finish_as(end_ns, nullptr, error);
}

bool Writer::finish_cut_short(int64_t end_ns, const std::string &why, std::string *error) {
    return finish_as(end_ns, &why, error);
}

bool Writer::finish_as(int64_t end_ns, const std::string *cut_short, std::string *error) {
    Impl &m = *impl_;
    bool done = m.writable("finish()");
    if (done && cut_short != nullptr) {
        add_notice({0, end_ns, *cut_short});
        m.st->end_run_short.bind(1, m.rel(end_ns));
        done = m.error.empty() && m.check(m.st->end_run_short.run(), "mark run cut short");
    } else if (done) {
        m.st->finish_run.bind(1, m.rel(end_ns));
        done = m.check(m.st->finish_run.run(), "mark run complete");
    }
    for (const char *s : schema::final_indexes())
        done = done && m.check(sql::exec(m.db.get(), s), "create index");
    done = done && m.commit();
    if (done) {
        // Fold the WAL into the file and return to a rollback journal, so
        // the finished profile is a single file that opens read-only
        // anywhere.  If a live reader still has it open the mode stays WAL,
        // which is harmless: the last connection to close checkpoints.
        m.st.reset();
        done = m.check(sql::exec(m.db.get(), "PRAGMA wal_checkpoint(TRUNCATE)"), "checkpoint");
        if (done && leave_wal(m.db.get()))
            compact_if_small(m.db.get());
        m.close();
    }
    if (!done && error != nullptr)
        *error = m.error;
    return done;
}

} // namespace cpcprof::storage
