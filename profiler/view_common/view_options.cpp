// SPDX-License-Identifier: MIT
// Shared options and file handling of the viewing commands (view_options.h).
#include "profiler/view_common/view_options.h"
#include "base/paths.h"

#include "storage/file_problems.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cpcprof::view {

const char kViewOptionsHelp[] =
    "  --pid PID           only the samples of process PID\n"
    "  --tid TID           only the samples of thread TID\n"
    "  --cpu N             only the samples taken on processor N (where the\n"
    "                      profile says it: format 5 on)\n"
    "  --time START,END    only samples in [START, END) seconds since the run's\n"
    "                      start (either side may be empty: 2.5, or ,1)\n"
    "  --through FUNC      only samples with FUNC on their stack (exact name; again\n"
    "                      for more: every one must be there)\n"
    "  --not-through FUNC  leave out samples with FUNC on their stack (repeatable)\n"
    "  --event NAME        the event that weighs samples (default: the first)\n"
    "  --no-inline         fold inlined calls into the function they are in\n";

namespace {

bool parse_seconds(const std::string &s, int64_t *ns) {
    auto v = base::parse_real(s);
    if (!v || *v < 0 || *v > 1e9)
        return false;
    *ns = int64_t(std::llround(*v * 1e9));
    return true;
}

} // namespace

int parse_view_option(const char *cmd, const std::vector<std::string> &args, size_t *i,
                      ViewOptions *out) {
    const std::string &a = args[*i];
    if (a == "--no-inline") {
        out->filter.inline_frames = false;
        return 1;
    }
    if (a != "--pid" && a != "--tid" && a != "--cpu" && a != "--time" && a != "--event" &&
        a != "--through" && a != "--not-through")
        return 0;
    if (*i + 1 >= args.size()) {
        std::fprintf(stderr, "cpcprof %s: %s needs a value\n", cmd, a.c_str());
        return -1;
    }
    const std::string &v = args[++*i];
    if (a == "--event") {
        if (v.empty()) {
            std::fprintf(stderr, "cpcprof %s: --event needs an event name\n", cmd);
            return -1;
        }
        out->event = v;
        return 1;
    }
    if (a == "--through" || a == "--not-through") {
        std::vector<std::string> &names =
            a == "--through" ? out->filter.through : out->filter.not_through;
        if (v.empty() || names.size() >= analysis::kMaxFunctionTests) {
            std::fprintf(stderr, "cpcprof %s: %s '%s': %s\n", cmd, a.c_str(), v.c_str(),
                         v.empty() ? "needs a function name"
                                   : "too many functions (at most 64 of each)");
            return -1;
        }
        names.push_back(v);
        return 1;
    }
    if (a == "--pid" || a == "--tid") {
        auto id = base::parse_whole(v, 1, INT32_MAX);
        if (!id) {
            std::fprintf(stderr, "cpcprof %s: %s '%s': not a process or thread id\n", cmd,
                         a.c_str(), v.c_str());
            return -1;
        }
        (a == "--pid" ? out->filter.pid : out->filter.tid) = int(*id);
        return 1;
    }
    if (a == "--cpu") {
        auto n = base::parse_whole(v, 0, INT32_MAX);
        if (!n) {
            std::fprintf(stderr, "cpcprof %s: --cpu '%s': not a processor number (0, 1, ...)\n",
                         cmd, v.c_str());
            return -1;
        }
        out->filter.cpu = int(*n);
        return 1;
    }
    size_t comma = v.find(',');
    std::string from = v.substr(0, comma);
    std::string to = comma == std::string::npos ? std::string() : v.substr(comma + 1);
    int64_t ns = 0;
    bool ok = comma != std::string::npos && !(from.empty() && to.empty());
    if (ok && !from.empty()) {
        ok = parse_seconds(from, &ns);
        out->filter.from_ns = ns;
    }
    if (ok && !to.empty()) {
        ok = parse_seconds(to, &ns);
        out->filter.to_ns = ns;
    }
    if (ok && out->filter.from_ns && out->filter.to_ns &&
        *out->filter.to_ns <= *out->filter.from_ns)
        ok = false;
    if (!ok) {
        std::fprintf(stderr,
                     "cpcprof %s: --time '%s': expected START,END in seconds since the run's "
                     "start, START < END (e.g. 0.5,2 or ,1)\n",
                     cmd, v.c_str());
        return -1;
    }
    return 1;
}

bool parse_top(const char *program, const std::string &value, size_t *top) {
    auto n = base::parse_whole(value, 0, LLONG_MAX);
    if (!n)
        return base::usage_error(program, "--top '%s': expected a number of rows (0 = all)",
                                 value.c_str());
    *top = size_t(*n);
    return true;
}

int walk_view_args(const char *cmd, base::ArgWalk walk, ViewOptions *out, const char *usage,
                   const std::vector<std::string> &args) {
    walk.shared = [cmd, out, own = std::move(walk.shared)](const std::vector<std::string> &a,
                                                           size_t *i) {
        int r = parse_view_option(cmd, a, i, out);
        return r != 0 || !own ? r : own(a, i);
    };
    int r = base::walk_args(walk, args);
    if (r == 0)
        std::printf(usage, kViewOptionsHelp);
    return r;
}

std::unique_ptr<analysis::Query> open_profile(const char *cmd, const std::string &path,
                                              const ViewOptions &options) {
    std::string error;
    auto q = analysis::Query::open(path, options.filter, &error);
    if (!q) {
        std::fprintf(stderr, "cpcprof %s: %s\n", cmd, error.c_str());
        return nullptr;
    }
    const storage::Reader &r = q->reader();
    if (r.run().events.empty()) {
        if (uint64_t n = r.sample_count())
            std::fprintf(stderr,
                         "cpcprof %s: %s: no events, though it holds %llu sample%s: the file "
                         "lost the list of what was sampled, so they cannot be weighed "
                         "(nothing to show)\n",
                         cmd, path.c_str(), static_cast<unsigned long long>(n), n == 1 ? "" : "s");
        else
            std::fprintf(stderr,
                         "cpcprof %s: %s: no events and no samples: the recording stopped "
                         "before it began (nothing to show)\n",
                         cmd, path.c_str());
        return nullptr;
    }
    if (options.filter.cpu && q->samples_read() != 0 && q->samples_with_cpu() == 0)
        std::fprintf(stderr,
                     "cpcprof %s: %s: --cpu: this profile does not say which processor took its "
                     "samples (profiles say it from format version 5 on), so none is kept\n",
                     cmd, path.c_str());
    // What `cpcprof check` reports about a file that opened: the costs
    // shown may be off, so say so, in check's words.
    std::vector<std::string> problems = storage::accounting_problems(r);
    if (auto per_pid = r.samples_per_process())
        for (std::string &p : storage::stored_count_problems(r, *per_pid))
            problems.push_back(std::move(p));
    for (const std::string &p : problems)
        std::fprintf(stderr, "cpcprof %s: %s: warning: %s\n", cmd, path.c_str(), p.c_str());
    if (auto why = q->reader().cut_short())
        std::fprintf(stderr,
                     "cpcprof %s: %s: the recording was cut short: %s; showing what it stored\n",
                     cmd, path.c_str(), why->c_str());
    else if (!q->reader().complete())
        std::fprintf(stderr,
                     "cpcprof %s: %s: the recording did not finish (recorder stopped early); "
                     "showing what it stored\n",
                     cmd, path.c_str());
    if (!q->reader().symbolized() && !q->reader().file_format().symbol_tables)
        std::fprintf(stderr,
                     "cpcprof %s: %s was never symbolized: addresses are shown as "
                     "module+0xoffset (format version %d has no symbol tables: record the "
                     "program again for function names)\n",
                     cmd, path.c_str(), q->reader().file_format().version);
    else if (!q->reader().symbolized())
        std::fprintf(stderr,
                     "cpcprof %s: %s was never symbolized: addresses are shown as "
                     "module+0xoffset (run cpcprof symbolize %s)\n",
                     cmd, path.c_str(), path.c_str());
    for (const std::string &m : q->modules_without_symbols())
        std::fprintf(stderr, "cpcprof %s: no symbols for %s\n", cmd, m.c_str());
    return q;
}

std::unique_ptr<analysis::Query> open_parsed(const char *cmd, int parsed, const std::string &path,
                                             const ViewOptions &options, int *status) {
    if (parsed <= 0) {
        *status = parsed == 0 ? kExitOk : kExitUsage;
        return nullptr;
    }
    auto q = open_profile(cmd, path, options);
    *status = q ? kExitOk : kExitFailed;
    return q;
}

bool warn_no_samples(const char *cmd, const analysis::Query &q, const char *consequence) {
    if (!q.total().empty()) // samples, or off-CPU time
        return false;
    std::fprintf(stderr, "cpcprof %s: no samples %s; %s\n", cmd,
                 q.samples_read() == 0 ? "in the profile" : "pass the filter", consequence);
    return true;
}

int pick_event(const char *cmd, const analysis::Query &q, const ViewOptions &options) {
    if (options.event.empty())
        return q.events().empty() ? -1 : 0;
    int e = q.event_index(options.event);
    if (e >= 0)
        return e;
    std::string known;
    for (const auto &ev : q.events())
        known += (known.empty() ? "" : ", ") + ev.name;
    std::fprintf(stderr, "cpcprof %s: event '%s' is not in this profile (it has: %s)\n", cmd,
                 options.event.c_str(), known.c_str());
    return -1;
}

bool write_output(const char *cmd, const std::string &path, const std::string &text) {
    if (path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
            std::fflush(stdout) != 0) {
            std::fprintf(stderr, "cpcprof %s: writing to stdout: %s\n", cmd, std::strerror(errno));
            return false;
        }
        return true;
    }
    std::string tmp = base::dir_prefix(path) + "." + base::base_name(path) + ".XXXXXX";
    int fd = mkstemp(tmp.data());
    auto fail = [&](const char *what) {
        std::fprintf(stderr, "cpcprof %s: %s: %s: %s\n", cmd, path.c_str(), what,
                     std::strerror(errno));
        return false;
    };
    if (fd < 0)
        return fail("cannot create");
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            errno = saved;
            return fail("cannot write");
        }
        done += size_t(n);
    }
    fchmod(fd, 0644);
    if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
        int saved = errno;
        ::unlink(tmp.c_str());
        errno = saved;
        return fail("cannot write");
    }
    return true;
}

} // namespace cpcprof::view
