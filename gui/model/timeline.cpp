// SPDX-License-Identifier: MIT
#include "gui/model/timeline.h"
#include "base/paths.h"

#include <algorithm>
#include <map>

namespace cpcprof::gui {

using analysis::Query;

Timeline make_timeline(const Query &q) {
    Timeline t;
    const storage::Reader &r = q.reader();
    int64_t last = 0;
    for (const Query::KeptSample &s : q.kept_samples())
        last = std::max(last, s.time_ns);
    int64_t end = r.end_ns() ? r.since_start(*r.end_ns()) : 0;
    t.duration_ns = std::max<int64_t>({end, last + 1, 1});

    std::map<int, std::string> names;
    for (const storage::ProcessRecord &p : r.processes())
        names[p.info.pid] = p.info.argv.empty() ? p.info.exe : p.info.argv[0];
    std::map<int, std::vector<uint32_t>> by_pid;
    const auto &threads = q.threads();
    for (uint32_t i = 0; i < threads.size(); ++i)
        by_pid[threads[i].pid].push_back(i);
    for (const auto &[pid, members] : by_pid) {
        TimelineRow proc;
        proc.process = true;
        proc.id = {pid, 0};
        std::string name = names[pid];
        // A program by its file's name; a kernel thread ("[kworker/0:1]")
        // as the kernel names it.
        if (!name.starts_with('['))
            name = base::base_name(name);
        proc.label = std::to_string(pid) + (name.empty() ? "" : " " + name);
        size_t at = t.rows.size();
        t.rows.push_back(std::move(proc));
        for (uint32_t i : members) {
            TimelineRow row;
            row.id = {pid, threads[i].tid};
            row.label = (threads[i].name.empty() ? "thread" : threads[i].name) + " (" +
                        std::to_string(threads[i].tid) + ")";
            row.thread = i;
            row.cost = threads[i].cost;
            t.rows[at].cost.add(row.cost);
            t.rows.push_back(std::move(row));
        }
    }
    // The processors that took samples, each with their cost.
    std::map<int, analysis::Cost> by_cpu;
    const size_t nevents = q.events().size();
    auto kept = q.kept_samples();
    for (size_t i = 0; i < kept.size(); ++i) {
        if (kept[i].cpu < 0)
            continue;
        analysis::Cost &c = by_cpu[kept[i].cpu];
        c.values.resize(nevents, 0);
        c.samples = analysis::saturating_add(c.samples, 1);
        auto values = q.kept_values(i);
        for (size_t e = 0; e < nevents && e < values.size(); ++e)
            c.values[e] = analysis::saturating_add(c.values[e], values[e]);
    }
    for (auto &[cpu, cost] : by_cpu) {
        TimelineRow row;
        row.cpu = cpu;
        row.label = "CPU " + std::to_string(cpu);
        row.cost = std::move(cost);
        t.rows.push_back(std::move(row));
    }
    return t;
}

size_t Timeline::bin_of(int64_t t, size_t bins, TimeRange window) const {
    if (t <= window.from_ns || bins == 0 || window.to_ns <= window.from_ns)
        return 0;
    auto b = size_t((unsigned __int128)(uint64_t)(t - window.from_ns) * bins /
                    (uint64_t)(window.to_ns - window.from_ns));
    return std::min(b, bins - 1);
}

int64_t Timeline::time_of_bin(double b, size_t bins, TimeRange window) const {
    if (bins == 0)
        return window.from_ns;
    return window.from_ns +
           int64_t(std::clamp(b / double(bins), 0.0, 1.0) * double(window.to_ns - window.from_ns));
}

void Timeline::spread(int64_t start, uint64_t duration_ns, uint64_t value, TimeRange window,
                      std::vector<uint64_t> *row, std::vector<uint64_t> *process_row) const {
    const size_t bins = row->size();
    const auto span = (unsigned __int128)std::max<uint64_t>(duration_ns, 1);
    const int64_t end = start + int64_t(std::min<uint64_t>(duration_ns, INT64_MAX - start));
    // The whole run also holds what lies past its end: in its last slice.
    const bool whole_run = window == whole();
    const int64_t from = std::max(start, window.from_ns);
    const int64_t to = whole_run ? std::max(end, from + 1) : std::min(end, window.to_ns);
    if (to <= from)
        return;
    uint64_t given = 0;
    const size_t first = bin_of(from, bins, window), last = bin_of(to - 1, bins, window);
    for (size_t b = first; b <= last; ++b) {
        const int64_t lo = b == first ? from : time_of_bin(double(b), bins, window);
        const int64_t hi = b == last ? to : time_of_bin(double(b + 1), bins, window);
        // Its share of the value, the last slice the remainder (so that
        // the slices of a stretch wholly in the window sum to its value).
        uint64_t part = 0;
        if (b == last && start >= window.from_ns && to >= end)
            part = value - std::min(given, value);
        else if (hi > lo)
            part = uint64_t((unsigned __int128)value * uint64_t(hi - lo) / span);
        given += part;
        (*row)[b] = analysis::saturating_add((*row)[b], part);
        (*process_row)[b] = analysis::saturating_add((*process_row)[b], part);
    }
}

std::vector<std::vector<uint64_t>> Timeline::density(const Query &q, int event, size_t bins) const {
    return density(q, event, bins, whole());
}

std::vector<std::vector<uint64_t>> Timeline::density(const Query &q, int event, size_t bins,
                                                     TimeRange window) const {
    std::vector<std::vector<uint64_t>> out(rows.size(), std::vector<uint64_t>(bins, 0));
    if (bins == 0)
        return out;
    // The whole run also holds samples stamped at or after its end.
    const bool whole_run = window == whole();
    // Row of each thread, and of its process.
    const auto &threads = q.threads();
    std::vector<uint32_t> thread_row(threads.size(), 0), proc_row(threads.size(), 0);
    uint32_t proc = 0;
    // Processors' rows, by processor number (rows are in that order).
    std::vector<std::pair<int, uint32_t>> cpu_row;
    for (uint32_t r = 0; r < rows.size(); ++r) {
        if (rows[r].process) {
            proc = r;
        } else if (rows[r].cpu >= 0) {
            cpu_row.emplace_back(rows[r].cpu, r);
        } else if (rows[r].thread < threads.size()) {
            thread_row[rows[r].thread] = r;
            proc_row[rows[r].thread] = proc;
        }
    }
    const auto &pairs = q.stack_thread_costs();
    const size_t e = size_t(std::max(event, 0));
    const int off_cpu = q.off_cpu_event();
    auto samples = q.kept_samples();
    for (size_t i = 0; i < samples.size(); ++i) {
        const int64_t t = samples[i].time_ns;
        auto values = q.kept_values(i);
        uint64_t v = e < values.size() ? values[e] : 0;
        uint32_t th = pairs[samples[i].stack_thread].thread;
        if (off_cpu >= 0 && q.kept_off_cpu(i)) {
            // A stretch off the CPU lies over the slices it spans (a sum
            // of short ones from the first on), in the window's part.
            if (v != 0)
                spread(t, values[size_t(off_cpu)], v, window, &out[thread_row[th]],
                       &out[proc_row[th]]);
            continue;
        }
        if (!whole_run && (t < window.from_ns || t >= window.to_ns))
            continue;
        size_t b = bin_of(t, bins, window);
        out[thread_row[th]][b] = analysis::saturating_add(out[thread_row[th]][b], v);
        out[proc_row[th]][b] = analysis::saturating_add(out[proc_row[th]][b], v);
        if (const int c = samples[i].cpu; c >= 0) {
            auto at =
                std::lower_bound(cpu_row.begin(), cpu_row.end(), std::pair<int, uint32_t>{c, 0});
            if (at != cpu_row.end() && at->first == c)
                out[at->second][b] = analysis::saturating_add(out[at->second][b], v);
        }
    }
    return out;
}

} // namespace cpcprof::gui
