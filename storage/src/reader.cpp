// Reader: a read-only, defensive connection; metadata and the stack trie
// are loaded and validated by open(), samples are streamed.
#include "storage/reader.h"

#include "open_checks.h"
#include "schema.h"
#include "sqlite_handle.h"
#include "varint.h"

#include "storage/profile.h"

#include <unordered_map>

namespace cpcprof::storage {

using sql::Statement;

int format_version() {
    return schema::kVersion;
}

namespace {

uint64_t ubits(int64_t v) {
    return static_cast<uint64_t>(v);
}

// Connection settings for a file we do not trust (sqlite.org/security.html):
// no writes to the schema, no triggers or views run, no functions called
// from the schema, cells checked while read.
bool harden(sqlite3 *db, std::string *reason) {
    const std::pair<int, int> configs[] = {
        {SQLITE_DBCONFIG_DEFENSIVE, 1},   {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
        {SQLITE_DBCONFIG_ENABLE_VIEW, 0}, {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
        {SQLITE_DBCONFIG_DQS_DDL, 0},     {SQLITE_DBCONFIG_DQS_DML, 0},
        {SQLITE_DBCONFIG_ENABLE_FKEY, 0}, {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
    };
    for (auto [op, value] : configs) {
        int rc = sqlite3_db_config(db, op, value, nullptr);
        if (rc != SQLITE_OK) {
            *reason = sql::describe(db, rc, "cannot configure SQLite defensively");
            return false;
        }
    }
    sqlite3_busy_timeout(db, 2000); // a recorder may be checkpointing
    for (const char *s :
         {"PRAGMA trusted_schema = OFF", "PRAGMA cell_size_check = ON", "PRAGMA mmap_size = 0"}) {
        int rc = sql::exec(db, s);
        if (rc != SQLITE_OK) {
            *reason = sql::describe(db, rc, "cannot be read");
            return false;
        }
    }
    return true;
}

bool quick_check(sqlite3 *db, std::string *reason) {
    Statement s;
    int rc = s.prepare(db, "PRAGMA quick_check(5)");
    std::vector<std::string> problems;
    if (rc == SQLITE_OK)
        while ((rc = s.step()) == SQLITE_ROW)
            problems.push_back(s.text(0));
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        // Damage bad enough to stop the check itself comes back as an error.
        int primary = rc & 0xff;
        bool damaged = primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
        *reason = sql::describe(db, rc, damaged ? "damaged (SQLite quick_check" : "cannot be read");
        if (damaged)
            *reason += ")";
        return false;
    }
    if (problems.size() == 1 && problems[0] == "ok")
        return true;
    *reason = "damaged (SQLite quick_check:";
    for (const std::string &p : problems)
        *reason += " " + p + ";";
    reason->back() = ')';
    return false;
}

} // namespace

struct Reader::Impl {
    sql::Db db;
    RunInfo run;
    std::optional<int64_t> end_ns;
    bool complete = false;
    std::vector<ProcessRecord> processes;
    std::vector<ThreadInfo> threads;
    std::unordered_map<int64_t, size_t> thread_index; // thread.id -> threads[]
    std::vector<ModuleRecord> modules;
    std::map<int, Accounting> accounting;
    uint64_t sample_count = 0;
    std::vector<StackNode> nodes{StackNode{}};

    int64_t abs(int64_t rel) const { // wraps like the writer's rel()
        return static_cast<int64_t>(ubits(rel) + ubits(run.start_mono_ns));
    }

    bool fail(int rc, const char *what, std::string *reason) {
        *reason = sql::describe(db.get(), rc, what);
        return false;
    }

    bool load(std::string *reason);
    bool load_run(std::string *reason);
    bool load_processes(std::string *reason);
    bool load_threads_and_modules(std::string *reason);
    bool load_accounting_and_trie(std::string *reason);
};

bool Reader::Impl::load(std::string *reason) {
    return load_run(reason) && load_processes(reason) && load_threads_and_modules(reason) &&
           load_accounting_and_trie(reason);
}

bool Reader::Impl::load_run(std::string *reason) {
    Statement s;
    int rc = s.query(db.get(), "SELECT start_ns, start_mono_ns, end_ns, host, kernel, cpu_model, "
                               "hw_pmu, call_graph, max_depth, complete FROM run WHERE id = 1");
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
        rc = s.step();
    }
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the run", reason);
    for (rc = s.query(db.get(), "SELECT arg FROM command_arg ORDER BY pos"); rc == SQLITE_ROW;
         rc = s.step())
        run.command.push_back(s.text(0));
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the command", reason);
    for (rc = s.query(db.get(), "SELECT name, period, sampling FROM event ORDER BY idx");
         rc == SQLITE_ROW; rc = s.step())
        run.events.push_back({s.text(0), ubits(s.int64(1)), s.int64(2) != 0});
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the events", reason);
    return true;
}

bool Reader::Impl::load_processes(std::string *reason) {
    Statement s;
    std::unordered_map<int64_t, size_t> index;
    int rc;
    for (rc = s.query(db.get(), "SELECT pid, ppid, exe, start_ns, end_ns, exit_status, "
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
        return fail(rc, "cannot read the processes", reason);
    for (rc = s.query(db.get(), "SELECT pid, arg FROM process_arg ORDER BY pid, pos");
         rc == SQLITE_ROW; rc = s.step()) {
        auto it = index.find(s.int64(0));
        if (it != index.end())
            processes[it->second].info.argv.push_back(s.text(1));
    }
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the process arguments", reason);
    return true;
}

bool Reader::Impl::load_threads_and_modules(std::string *reason) {
    Statement s;
    int rc;
    for (rc = s.query(db.get(), "SELECT id, pid, tid, name FROM thread ORDER BY id");
         rc == SQLITE_ROW; rc = s.step()) {
        thread_index[s.int64(0)] = threads.size();
        threads.push_back({static_cast<int>(s.int64(1)), static_cast<int>(s.int64(2)), s.text(3)});
    }
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the threads", reason);
    for (rc = s.query(db.get(), "SELECT m.id, m.pid, f.path, f.build_id, m.start_address, "
                                "m.end_address, m.file_offset, m.load_ns, m.unload_ns, m.module, "
                                "f.id FROM mapping AS m LEFT JOIN module AS f ON f.id = m.module "
                                "ORDER BY m.id");
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
        modules.push_back(std::move(m));
    }
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the modules", reason);
    return true;
}

bool Reader::Impl::load_accounting_and_trie(std::string *reason) {
    Statement s;
    int rc;
    for (rc = s.query(db.get(), "SELECT pid, taken, stored, dropped FROM accounting ORDER BY pid");
         rc == SQLITE_ROW; rc = s.step())
        accounting[static_cast<int>(s.int64(0))] = {ubits(s.int64(1)), ubits(s.int64(2)),
                                                    ubits(s.int64(3))};
    if (rc != SQLITE_DONE)
        return fail(rc, "cannot read the accounting", reason);
    // The writer numbers nodes 1, 2, ... and inserts a parent before its
    // children; checking both here means walking up from any node ends at
    // the root in fewer steps than there are nodes, whatever the file says.
    for (rc = s.query(db.get(), "SELECT id, parent, address FROM stack_node ORDER BY id");
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
        return fail(rc, "cannot read the stacks", reason);
    rc = s.query(db.get(), "SELECT count(*) FROM sample");
    if (rc != SQLITE_ROW)
        return fail(rc, "cannot count the samples", reason);
    sample_count = ubits(s.int64(0));
    return true;
}

std::unique_ptr<Reader> Reader::open(const std::string &path, std::string *error) {
    auto impl = std::make_unique<Impl>();
    std::string reason;
    bool ok = check_file_header(path, &reason);
    if (ok) {
        sqlite3 *raw = nullptr;
        int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                                 nullptr);
        impl->db.reset(raw);
        if (rc != SQLITE_OK) {
            reason = sql::describe(raw, rc, "cannot open");
            ok = false;
        }
    }
    // Order matters: nothing reads a table before quick_check has passed
    // and the schema is known to be ours.
    ok = ok && harden(impl->db.get(), &reason) && quick_check(impl->db.get(), &reason) &&
         check_identity(impl->db.get(), &reason) && check_schema(impl->db.get(), &reason) &&
         impl->load(&reason);
    if (!ok) {
        *error = path + ": " + reason;
        return nullptr;
    }
    return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::~Reader() = default;
Reader::Reader(Reader &&) noexcept = default;
Reader &Reader::operator=(Reader &&) noexcept = default;

const RunInfo &Reader::run() const {
    return impl_->run;
}
std::optional<int64_t> Reader::end_ns() const {
    return impl_->end_ns;
}
bool Reader::complete() const {
    return impl_->complete;
}
const std::vector<ProcessRecord> &Reader::processes() const {
    return impl_->processes;
}
const std::vector<ThreadInfo> &Reader::threads() const {
    return impl_->threads;
}
const std::vector<ModuleRecord> &Reader::modules() const {
    return impl_->modules;
}
const std::map<int, Accounting> &Reader::accounting() const {
    return impl_->accounting;
}
uint64_t Reader::sample_count() const {
    return impl_->sample_count;
}
const std::vector<StackNode> &Reader::stack_nodes() const {
    return impl_->nodes;
}

Accounting Reader::accounting_total() const {
    Accounting total;
    for (const auto &[pid, a] : impl_->accounting) {
        total.taken += a.taken;
        total.stored += a.stored;
        total.dropped += a.dropped;
    }
    return total;
}

bool Reader::accounting_balanced() const {
    for (const auto &[pid, a] : impl_->accounting)
        if (!a.balanced())
            return false;
    return accounting_total().balanced();
}

bool Reader::for_each_sample(const std::function<void(const StoredSample &)> &visit,
                             std::string *error) const {
    const Impl &m = *impl_;
    Statement s;
    int rc;
    std::vector<uint64_t> frames, values;
    auto bad = [&](int64_t id, const std::string &why) {
        *error = "inconsistent: sample " + std::to_string(id) + " " + why;
        return false;
    };
    for (rc = s.query(m.db.get(), "SELECT id, thread, time_ns, stack, complete, value, "
                                  "more_values FROM sample ORDER BY id");
         rc == SQLITE_ROW; rc = s.step()) {
        int64_t id = s.int64(0);
        auto thread = m.thread_index.find(s.int64(1));
        if (thread == m.thread_index.end())
            return bad(id, "refers to missing thread " + std::to_string(s.int64(1)));
        uint64_t stack = ubits(s.int64(3));
        if (stack >= m.nodes.size())
            return bad(id, "refers to missing stack node " + std::to_string(stack));
        frames.clear();
        for (uint64_t n = stack; n != 0; n = m.nodes[n].parent)
            frames.push_back(m.nodes[n].address);
        values.clear();
        if (!s.is_null(5))
            values.push_back(ubits(s.int64(5)));
        std::span<const uint8_t> more = s.blob(6);
        if (!more.empty() && values.empty())
            return bad(id, "has more_values but no value");
        for (size_t pos = 0; pos < more.size();) {
            uint64_t v;
            if (!read_varint(more, &pos, &v))
                return bad(id, "has badly encoded more_values");
            values.push_back(v);
        }
        const ThreadInfo &t = m.threads[thread->second];
        visit(
            StoredSample{t.pid, t.tid, m.abs(s.int64(2)), s.int64(4) != 0, stack, frames, values});
    }
    if (rc != SQLITE_DONE) {
        *error = sql::describe(m.db.get(), rc, "cannot read the samples");
        return false;
    }
    return true;
}

} // namespace cpcprof::storage
