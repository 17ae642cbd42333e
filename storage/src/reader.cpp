// SPDX-License-Identifier: MIT
// Reader: a read-only, defensive connection; everything but the samples is
// loaded and validated by open() (profile_load.cpp), samples are streamed.
#include "storage/reader.h"

#include "storage/src/address_map.h"
#include "storage/src/open_checks.h"
#include "storage/src/profile_load.h"
#include "storage/src/sample_rows.h"
#include "storage/src/schema.h"
#include "storage/src/sqlite_handle.h"
#include "storage/src/varint.h"

#include "storage/file_problems.h"
#include "storage/profile.h"

namespace cpcprof::storage {

using sql::Statement;

int format_version() {
    return schema::kVersion;
}

struct Reader::Impl {
    std::unique_ptr<PrivateCopy> copy; // what db reads, if not the file itself
    sql::Db db;                        // closed before copy is removed
    LoadedProfile p;
    mutable std::unique_ptr<AddressMap> address_map;        // built by the first locate()
    mutable std::optional<std::map<int, uint64_t>> per_pid; // by the last whole scan
    mutable std::optional<uint64_t> complete_stacks;        // by the first ask

    // One pass over the samples; a bad sample stops it, or with bad set is
    // reported there and skipped.
    bool scan(const std::function<void(const StoredSample &)> &visit,
              const std::function<void(const std::string &)> *bad, Frames frames,
              std::string *error) const;
};

std::unique_ptr<Reader> Reader::open(const std::string &path, std::string *error) {
    auto impl = std::make_unique<Impl>();
    std::string reason;
    const schema::Layout *layout = nullptr;
    if (!open_profile(path, Access::read_only, &impl->db, &layout, &reason, &impl->copy) ||
        !impl->p.load(impl->db.get(), *layout, LoadedProfile::Symbols::load, &reason)) {
        *error = path + ": " + reason;
        return nullptr;
    }
    return std::unique_ptr<Reader>(new Reader(std::move(impl)));
}

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::~Reader() = default;
Reader::Reader(Reader &&) noexcept = default;
Reader &Reader::operator=(Reader &&) noexcept = default;

FileFormat Reader::file_format() const {
    return {impl_->p.layout->version, impl_->p.layout->form, impl_->p.layout->symbols};
}
const RunInfo &Reader::run() const {
    return impl_->p.run;
}
std::optional<int64_t> Reader::end_ns() const {
    return impl_->p.end_ns;
}
bool Reader::complete() const {
    return impl_->p.complete;
}
std::optional<std::string> Reader::cut_short() const {
    if (impl_->p.complete)
        return std::nullopt;
    for (const Notice &n : impl_->p.notices)
        if (n.pid == 0)
            return n.text;
    return std::nullopt;
}
const std::vector<ProcessRecord> &Reader::processes() const {
    return impl_->p.processes;
}
const std::vector<ThreadInfo> &Reader::threads() const {
    return impl_->p.threads;
}
const std::vector<ModuleRecord> &Reader::modules() const {
    return impl_->p.modules;
}
const std::map<int, Accounting> &Reader::accounting() const {
    return impl_->p.accounting;
}
const std::vector<Notice> &Reader::notices() const {
    return impl_->p.notices;
}
const std::vector<OffCpuRecord> &Reader::off_cpu() const {
    return impl_->p.off_cpu;
}
int Reader::off_cpu_event() const {
    const std::vector<EventInfo> &e = impl_->p.run.events;
    return !e.empty() && e.back().name == kOffCpuEvent ? int(e.size() - 1) : -1;
}
uint64_t Reader::sample_count() const {
    return impl_->p.sample_count;
}
std::optional<uint64_t> Reader::complete_stack_samples() const {
    if (!impl_->complete_stacks) {
        Statement s;
        if (s.query(impl_->db.get(), "SELECT count(*) FROM sample WHERE complete <> 0") !=
            SQLITE_ROW)
            return std::nullopt;
        impl_->complete_stacks = static_cast<uint64_t>(s.int64(0));
    }
    return impl_->complete_stacks;
}
const std::vector<StackNode> &Reader::stack_nodes() const {
    return impl_->p.nodes;
}
std::optional<int64_t> Reader::symbolized_ns() const {
    return impl_->p.symbolized_ns;
}
const SymbolTable &Reader::symbol_table() const {
    return impl_->p.symbols;
}

CodeAddress Reader::locate(int pid, uint64_t address, int64_t time_ns) const {
    if (!impl_->address_map)
        impl_->address_map = std::make_unique<AddressMap>(impl_->p.modules);
    AddressMap &map = *impl_->address_map;
    return map.locate(map.context(pid, time_ns), address);
}

Accounting Reader::accounting_total() const {
    Accounting total;
    for (const auto &[pid, a] : impl_->p.accounting) {
        total.taken += a.taken;
        total.stored += a.stored;
        total.dropped += a.dropped;
        total.unsampled_ns += a.unsampled_ns;
    }
    return total;
}

bool Reader::accounting_balanced() const {
    for (const auto &[pid, a] : impl_->p.accounting)
        if (!a.balanced())
            return false;
    return accounting_total().balanced();
}

std::vector<std::string> Reader::integrity_check() const {
    Statement s;
    std::vector<std::string> problems;
    int rc;
    for (rc = s.query(impl_->db.get(), "PRAGMA integrity_check(100)"); rc == SQLITE_ROW;
         rc = s.step())
        problems.push_back(s.text(0));
    if (rc != SQLITE_DONE)
        return {sql::describe(impl_->db.get(), rc, "integrity_check stopped")};
    if (problems.size() == 1 && problems[0] == "ok")
        problems.clear();
    return problems;
}

bool Reader::for_each_sample(const std::function<void(const StoredSample &)> &visit,
                             std::string *error, Frames frames) const {
    return impl_->scan(visit, nullptr, frames, error);
}

bool Reader::for_each_sample_checked(const std::function<void(const StoredSample &)> &visit,
                                     const std::function<void(const std::string &)> &bad,
                                     std::string *error, Frames frames) const {
    return impl_->scan(visit, &bad, frames, error);
}

bool Reader::Impl::scan(const std::function<void(const StoredSample &)> &visit,
                        const std::function<void(const std::string &)> *bad, Frames walk,
                        std::string *error) const {
    std::vector<uint64_t> frames, values;
    int64_t id = 0;
    // false: stop the scan (no bad callback).
    auto report = [&](const std::string &why) {
        std::string what = "sample " + std::to_string(id) + " " + why;
        if (bad != nullptr) {
            (*bad)(what);
            return true;
        }
        *error = "inconsistent: " + what;
        return false;
    };
    const std::vector<StackNode> &nodes = p.nodes;
    const size_t nevents = p.run.events.size();
    std::vector<uint64_t> per_thread(p.threads.size(), 0);
    auto thread = p.thread_index.end(); // of the row before, mostly the same
    int64_t last_thread_id = 0;
    SampleRows rows(db.get(), p.layout->cpus); // db is its thread's until rows is gone
    for (const SampleBatch *b = rows.next(); b != nullptr; b = rows.next()) {
        for (const SampleRow &row : b->rows) {
            id = row.id;
            if (row.thread != last_thread_id || thread == p.thread_index.end()) {
                thread = p.thread_index.find(row.thread);
                last_thread_id = row.thread;
            }
            if (thread == p.thread_index.end()) {
                if (report("refers to missing thread " + std::to_string(row.thread)))
                    continue;
                return false;
            }
            uint64_t stack = static_cast<uint64_t>(row.stack);
            if (stack >= nodes.size()) {
                if (report("refers to missing stack node " + std::to_string(stack)))
                    continue;
                return false;
            }
            frames.clear();
            for (uint64_t n = walk == Frames::walk ? stack : 0; n != 0; n = nodes[n].parent)
                frames.push_back(nodes[n].address);
            values.clear();
            if (row.has_value)
                values.push_back(static_cast<uint64_t>(row.value));
            std::span<const uint8_t> more = b->more_of(row);
            const char *value_problem =
                !more.empty() && values.empty() ? "has more_values but no value" : nullptr;
            for (size_t pos = 0; value_problem == nullptr && pos < more.size();) {
                uint64_t v = 0;
                if (read_varint(more, &pos, &v))
                    values.push_back(v);
                else
                    value_problem = "has badly encoded more_values";
            }
            if (value_problem != nullptr) {
                if (report(value_problem))
                    continue;
                return false;
            }
            if (values.size() != nevents && bad == nullptr) {
                // check's words: "1 sample has 2 values, ..." -> "sample N has 2 values, ..."
                std::string what = value_count_problem(1, values.size(), nevents);
                report(what.substr(what.find("has ")));
                return false;
            }
            ++per_thread[thread->second];
            const ThreadInfo &t = p.threads[thread->second];
            if (row.cpu < -1 || row.cpu > INT32_MAX) {
                if (report("has cpu " + std::to_string(row.cpu)))
                    continue;
                return false;
            }
            visit(StoredSample{t.pid, t.tid, p.abs(row.time_ns), row.complete != 0, stack, frames,
                               values, int(row.cpu)});
        }
    }
    if (!rows.error().empty()) {
        *error = rows.error();
        return false;
    }
    std::map<int, uint64_t> counts;
    for (size_t i = 0; i < per_thread.size(); ++i)
        counts[p.threads[i].pid] += per_thread[i];
    per_pid = std::move(counts);
    return true;
}

std::optional<std::map<int, uint64_t>> Reader::samples_per_process() const {
    return impl_->per_pid;
}

} // namespace cpcprof::storage
