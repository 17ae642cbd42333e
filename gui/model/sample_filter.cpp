// SPDX-License-Identifier: MIT
#include "gui/model/sample_filter.h"

#include <algorithm>
#include <cstdio>

namespace cpcprof::gui {

using analysis::Query;

namespace {

std::string seconds(int64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e9);
    return buf;
}

std::string tids(const char *what, const std::vector<ThreadId> &threads) {
    std::string out = std::string(what) + (threads.size() == 1 ? " thread " : " threads ");
    for (size_t i = 0; i < threads.size(); ++i)
        out += (i ? ", " : "") + std::to_string(threads[i].tid);
    return out;
}

std::string cpu_list(const std::vector<int> &cpus) {
    std::string out = cpus.size() == 1 ? "only CPU " : "only CPUs ";
    for (size_t i = 0; i < cpus.size(); ++i)
        out += (i ? ", " : "") + std::to_string(cpus[i]);
    return out;
}

bool contains(const std::vector<ThreadId> &threads, ThreadId t) {
    return std::find(threads.begin(), threads.end(), t) != threads.end();
}

} // namespace

std::string describe(const FilterStep &step) {
    std::vector<std::string> parts;
    if (step.time)
        parts.push_back(seconds(step.time->from_ns) + "-" + seconds(step.time->to_ns) + " s");
    if (step.pid)
        parts.push_back("only process " + std::to_string(*step.pid));
    if (!step.only.empty())
        parts.push_back(tids("only", step.only));
    if (!step.without.empty())
        parts.push_back(tids("without", step.without));
    if (!step.cpus.empty())
        parts.push_back(cpu_list(step.cpus));
    for (const std::string &f : step.through)
        parts.push_back("through " + f);
    for (const std::string &f : step.not_through)
        parts.push_back("not through " + f);
    std::string out;
    for (const std::string &p : parts)
        out += (out.empty() ? "" : ", ") + p;
    return out.empty() ? "all samples" : out;
}

std::optional<analysis::QueryFilter> as_query_filter(const std::vector<FilterStep> &steps) {
    analysis::QueryFilter f;
    for (const FilterStep &s : steps) {
        if (!s.without.empty() || s.only.size() > 1 || s.cpus.size() > 1)
            return std::nullopt;
        if (s.cpus.size() == 1) {
            if (f.cpu && *f.cpu != s.cpus[0])
                return std::nullopt;
            f.cpu = s.cpus[0];
        }
        if (s.time) {
            f.from_ns = std::max(f.from_ns.value_or(INT64_MIN), s.time->from_ns);
            f.to_ns = std::min(f.to_ns.value_or(INT64_MAX), s.time->to_ns);
            if (*f.to_ns < *f.from_ns)
                f.to_ns = f.from_ns;
        }
        if (s.pid) {
            if (f.pid && *f.pid != *s.pid)
                return std::nullopt;
            f.pid = s.pid;
        }
        if (s.only.size() == 1) {
            if (f.tid && *f.tid != s.only[0].tid)
                return std::nullopt;
            if (f.pid && *f.pid != s.only[0].pid)
                return std::nullopt;
            f.tid = s.only[0].tid;
        }
        f.through.insert(f.through.end(), s.through.begin(), s.through.end());
        f.not_through.insert(f.not_through.end(), s.not_through.begin(), s.not_through.end());
    }
    return f;
}

SampleTest::SampleTest(const Query &q, const std::vector<FilterStep> &steps) : q_(q) {
    const auto &threads = q.threads();
    std::vector<uint8_t> thread_ok(threads.size(), 1);
    for (size_t t = 0; t < threads.size(); ++t) {
        ThreadId id{threads[t].pid, threads[t].tid};
        for (const FilterStep &s : steps)
            if ((s.pid && id.pid != *s.pid) || (!s.only.empty() && !contains(s.only, id)) ||
                contains(s.without, id))
                thread_ok[t] = 0;
    }
    const auto &pairs = q.stack_thread_costs();
    pair_ok_.resize(pairs.size());
    analysis::QueryFilter functions;
    for (const FilterStep &s : steps) {
        functions.through.insert(functions.through.end(), s.through.begin(), s.through.end());
        functions.not_through.insert(functions.not_through.end(), s.not_through.begin(),
                                     s.not_through.end());
    }
    std::vector<uint8_t> stack_ok;
    if (!functions.through.empty() || !functions.not_through.empty())
        stack_ok = q.stacks_passing(functions);
    for (size_t p = 0; p < pairs.size(); ++p)
        pair_ok_[p] =
            thread_ok[pairs[p].thread] && (stack_ok.empty() || stack_ok[pairs[p].stack] != 0);
    for (const FilterStep &s : steps)
        if (s.time) {
            from_ns_ = std::max(from_ns_, s.time->from_ns);
            to_ns_ = std::min(to_ns_, s.time->to_ns);
        }
    // Processors: kept by every step that names some.
    for (const FilterStep &s : steps) {
        if (s.cpus.empty())
            continue;
        std::vector<int> named = s.cpus;
        std::sort(named.begin(), named.end());
        if (by_cpu_)
            std::erase_if(named, [&](int c) {
                return !std::binary_search(cpu_ok_.begin(), cpu_ok_.end(), c);
            });
        cpu_ok_ = std::move(named);
        by_cpu_ = true;
    }
}

bool SampleTest::keeps(size_t i) const {
    const Query::KeptSample &s = q_.kept_samples()[i];
    if (by_cpu_ && !std::binary_search(cpu_ok_.begin(), cpu_ok_.end(), s.cpu))
        return false;
    return pair_ok_[s.stack_thread] && s.time_ns >= from_ns_ && s.time_ns < to_ns_;
}

ProfilePtr filter_profile(const ProfilePtr &loaded, const std::vector<FilterStep> &steps,
                          const std::atomic<bool> &cancel, std::string *error) {
    if (!loaded || !loaded->query) {
        *error = "no profile";
        return nullptr;
    }
    const Query &q = *loaded->query;
    // (Off-CPU time is kept beside the samples: more entries, never fewer.)
    if (q.kept_samples().size() < q.samples_kept()) {
        *error = loaded->path + ": the profile was loaded without its samples";
        return nullptr;
    }
    auto data = new_profile_data(disposer_of(loaded));
    data->path = loaded->path;
    SampleTest test(q, steps);
    analysis::QueryFilter described = as_query_filter(steps).value_or(analysis::QueryFilter{});
    data->query = q.subset([&](size_t i) { return test.keeps(i); }, described);
    if (!build_views(*data, cancel, error))
        return nullptr;
    return data;
}

} // namespace cpcprof::gui
