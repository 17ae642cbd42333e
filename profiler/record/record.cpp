// SPDX-License-Identifier: MIT
#include "profiler/record/record.h"

#include "profiler/record/attach.h"
#include "profiler/record/cfi_cache_dir.h"
#include "profiler/record/debuginfod_pass.h"
#include "profiler/record/options.h"
#include "profiler/record/output.h"
#include "profiler/record/plan.h"
#include "profiler/record/record_session.h"
#include "profiler/record/spawn.h"

#include "profiler/symbolize_profile/symbolize_profile.h"

#include "base/clock.h"
#include "profiler/analysis/accounting_text.h"
#include "profiler/analysis/query.h"
#include "storage/reader.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <sstream>

namespace cpcprof::record {

namespace {

int fail(const std::string &msg, int code = 1) {
    std::fprintf(stderr, "cpcprof record: %s\n", msg.c_str());
    return code;
}

// The profile could not be created after the command started: the
// channel is closed (its agent stops sampling at its next report) and the
// command runs to its end unharmed, unrecorded.
int unrecorded(Target &t, const std::string &why) {
    t.channel.reset();
    std::fprintf(stderr, "cpcprof record: %s; the command runs on without being recorded\n",
                 why.c_str());
    int status = 0;
    while (waitpid(t.pid, &status, 0) < 0 && errno == EINTR) {
    }
    return 1;
}

storage::RunInfo run_info(const Options &o, const Plan &p) {
    storage::RunInfo r;
    r.command = o.command;
    if (!o.pids.empty()) {
        std::string list;
        for (int pid : o.pids)
            list += (list.empty() ? "" : ",") + std::to_string(pid);
        r.command = {"-p", list};
    }
    if (o.system_wide) {
        r.command = {"-a"};
        if (!o.cpus.empty()) {
            std::string list;
            for (int c : o.cpus)
                list += (list.empty() ? "" : ",") + std::to_string(c);
            r.command.insert(r.command.end(), {"--cpu", list});
        }
    }
    for (size_t i = 0; i < p.events.size(); ++i)
        r.events.push_back({p.events[i].name, p.events[i].period, i == 0});
    if (o.off_cpu)
        r.events.push_back({storage::kOffCpuEvent, 0, false});
    r.start_ns = base::realtime_ns();
    r.start_mono_ns = base::monotonic_ns();
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    r.host = host;
    utsname u;
    if (uname(&u) == 0)
        r.kernel = std::string(u.sysname) + " " + u.release;
    r.cpu_model = p.cpu_model;
    r.hw_pmu = p.hw_pmu;
    r.counters = p.backend;
    r.counters_reason = p.backend_reason;
    r.call_graph = o.call_graph;
    r.max_depth = static_cast<unsigned>(o.max_depth);
    return r;
}

// " (123.0 KiB)": the file's size now, as the file system has it.
std::string size_text(const std::string &path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        return "";
    char buf[48];
    std::snprintf(buf, sizeof buf, " (%.1f KiB)", double(st.st_size) / 1024.0);
    return buf;
}

// Off-CPU stretches a second above which record suggests the rings.
constexpr double kManySwitchesPerSecond = 10000;

// The size is left to the symbolizer's line (size_follows) when symbols
// are added after it: they grow the file.
void print_summary(const Options &o, const Summary &s, bool size_follows) {
    std::string size = size_follows ? "" : size_text(o.output);
    std::string unsampled;
    if (s.unsampled_ns != 0)
        unsampled = analysis::losses_text({0, 0, 0, s.unsampled_ns});
    // What the file holds, read back: the share of stacks that were cut.
    std::string stacks;
    std::string error;
    if (auto r = storage::Reader::open(o.output, &error)) {
        auto complete = r->complete_stack_samples();
        if (complete)
            stacks =
                analysis::complete_stacks_text(*complete, r->sample_count(), r->run().call_graph);
    }
    if (!stacks.empty())
        stacks.insert(0, "; ");
    std::fprintf(stderr,
                 "cpcprof: recorded %.2f s: %zu process%s, %zu thread%s; samples taken %llu, "
                 "stored %llu, dropped %llu%s; wrote %s%s%s\n",
                 s.seconds, s.processes, s.processes == 1 ? "" : "es", s.threads,
                 s.threads == 1 ? "" : "s", static_cast<unsigned long long>(s.taken),
                 static_cast<unsigned long long>(s.stored),
                 static_cast<unsigned long long>(s.dropped), unsampled.c_str(), o.output.c_str(),
                 size.c_str(), stacks.c_str());
    const double known =
        s.off_cpu_ns == 0 ? 0.0 : 100.0 * double(s.off_cpu_read_ns) / double(s.off_cpu_ns);
    // Where a wait too short to read gets its stack: the kernel's stack at
    // each switch, which the agents' path takes where this user may.
    std::string how =
        s.off_cpu_switch_stacks ? "the kernel's stack at each switch" : "read while they waited";
    if (!s.off_cpu_switch_stacks && known < 90)
        how += s.per_thread_counters
                   ? "; a wait too short to read needs the kernel's stack at each switch: root, "
                     "CAP_PERFMON or kernel.perf_event_paranoid 1 or less"
               : o.capture != "ring"
                   ? "; a wait too short to read has no stack where the rings sample"
                   : "; a wait too short to read has no stack where the rings sample: without "
                     "--capture ring the kernel's stack at each switch is taken, by root, "
                     "CAP_PERFMON or with kernel.perf_event_paranoid 1 or less";
    if (o.off_cpu)
        std::fprintf(stderr,
                     "cpcprof: off the CPU %.3f s in %llu stretches; where they waited is known "
                     "for %.1f %% of that time (%s)\n",
                     double(s.off_cpu_ns) / 1e9,
                     static_cast<unsigned long long>(s.off_cpu_stretches), known, how.c_str());
    // Counters of each thread's own (the agents') cost it microseconds at
    // every switch, which the kernel moves out and in; the rings' counters
    // are shared by the threads and cost a fraction of that
    // (docs/profiler.md, Off-CPU time).
    const double per_second = s.seconds > 0 ? double(s.off_cpu_stretches) / s.seconds : 0.0;
    if (o.off_cpu && s.per_thread_counters && per_second >= kManySwitchesPerSecond)
        std::fprintf(stderr,
                     "cpcprof: the threads switched about %.0f times a second, and the "
                     "profiler's counters in the program, each thread's own, cost every switch "
                     "some microseconds: --capture ring costs a fraction of that%s\n",
                     per_second,
                     s.off_cpu_switch_stacks ? " (but gives a wait too short to read no stack)"
                                             : "");
}

// Said even with -q: the profile lacks samples and nothing else shows it.
void print_silent(const std::vector<int> &pids) {
    std::string list;
    for (size_t i = 0; i < pids.size() && i < 10; ++i)
        list += (i ? ", " : "") + std::to_string(pids[i]);
    if (pids.size() > 10)
        list += ", ...";
    std::fprintf(stderr,
                 "cpcprof: %zu process%s stopped reporting before %s ended (pid %s): the program "
                 "closed the profiler's channel, exec'd a program the profiler cannot be loaded "
                 "into (static), or ended by a raw exit_group system call that runs no exit "
                 "handler (as Go's runtime does); samples after the last report are missing\n",
                 pids.size(), pids.size() == 1 ? "" : "es", pids.size() == 1 ? "it" : "they",
                 list.c_str());
}

// The file stopped taking writes during the recording (Session said so
// at once).  It keeps what was committed before and is closed if it still
// can be, marked cut short with why, what it kept and what it lost, so
// that no reader takes it for a finished recording; nothing is symbolized.
int cut_short(const Options &o, storage::Writer &w, const Summary &s) {
    std::string error;
    std::string why =
        "writing the file failed (" + s.write_error + "): the samples stored before are here, " +
        std::to_string(s.lost) + (s.lost == 1 ? " sample" : " samples") + " after that " +
        (s.lost_counted ? "are not (counted as dropped)" : "are not (and could not be counted)");
    bool finished = w.finish_cut_short(base::monotonic_ns(), why, &error);
    if (!o.quiet)
        print_summary(o, s, false);
    std::fprintf(stderr,
                 "cpcprof record: %s holds the samples stored before writing failed and reads "
                 "as cut short%s; %llu sample%s could not be stored and %s\n",
                 o.output.c_str(),
                 finished ? "" : (" (closing it failed too: " + error + ")").c_str(),
                 static_cast<unsigned long long>(s.lost), s.lost == 1 ? "" : "s",
                 s.lost_counted ? "are counted as dropped in it"
                                : "the file could not even take their count");
    return 1;
}

// The debuginfod servers' part of symbolize(): each refusing server named
// once and left out, the others asked by `cpcprof symbolize` for at most
// --debuginfod-wait seconds.  What they do not give in time stays without
// symbols, and the summary says how to ask again.
void ask_debuginfod(const Options &o, const std::string &urls) {
    std::string asked;
    std::istringstream in(urls);
    std::vector<std::string> refusing = refusing_servers(urls);
    for (std::string url; in >> url;) {
        bool refused = false;
        for (const std::string &r : refusing)
            refused = refused || r.rfind(url + " (", 0) == 0;
        if (!refused)
            asked += (asked.empty() ? "" : " ") + url;
    }
    for (const std::string &r : refusing)
        std::fprintf(stderr,
                     "cpcprof: the debuginfod server %s is not asked: it cannot be reached\n",
                     r.c_str());
    if (asked.empty())
        return;
    DebuginfodPass pass =
        run_debuginfod_pass(o.output, asked, double(o.debuginfod_wait_s), o.quiet);
    const std::string again = "cpcprof symbolize " + o.output + " asks again";
    switch (pass.outcome) {
    case DebuginfodPass::Outcome::done:
        // The child's summary, and what its servers did not give in time
        // (said even when quiet).
        if (!o.quiet) {
            std::fprintf(stderr, "%s", pass.said.c_str());
        } else {
            std::istringstream lines(pass.said);
            for (std::string line; std::getline(lines, line);)
                if (line.starts_with("cpcprof: debuginfod: "))
                    std::fprintf(stderr, "%s\n", line.c_str());
        }
        break;
    case DebuginfodPass::Outcome::timed_out:
        std::fprintf(stderr,
                     "cpcprof: the debuginfod servers (%s) did not give their debug files "
                     "within %llu s (--debuginfod-wait): stopped, the names from this machine's "
                     "files are kept; %s\n",
                     asked.c_str(), static_cast<unsigned long long>(o.debuginfod_wait_s),
                     again.c_str());
        break;
    case DebuginfodPass::Outcome::interrupted:
        std::fprintf(stderr,
                     "cpcprof: asking the debuginfod servers stopped (Ctrl-C) after %.1f s: the "
                     "names from this machine's files are kept; %s\n",
                     pass.seconds, again.c_str());
        break;
    case DebuginfodPass::Outcome::failed:
        while (!pass.said.empty() && std::isspace(static_cast<unsigned char>(pass.said.back())))
            pass.said.pop_back();
        std::fprintf(stderr,
                     "cpcprof: asking the debuginfod servers (%s) failed: %s%s%s; the names from "
                     "this machine's files are kept\n",
                     asked.c_str(), pass.error.c_str(), pass.said.empty() ? "" : ": ",
                     pass.said.c_str());
        break;
    }
}

// Resolves the new profile's addresses.  A failure leaves the recording
// as it is (unsymbolized, which `cpcprof symbolize` can redo) and does not
// change the exit status, which is the target's.
// held: the recorded processes' files that this namespace does not have
// (Attach), read in their place.
// This machine's files first, with DEBUGINFOD_URLS removed; then, if it
// named servers, their debug files in a child process waited for at most
// --debuginfod-wait seconds (debuginfod_pass.h).
void symbolize(const Options &o, const std::vector<std::shared_ptr<const HeldFiles>> &held = {}) {
    std::string error;
    const std::string urls = take_debuginfod_urls();
    symbolize_profile::Options options;
    for (const std::shared_ptr<const HeldFiles> &files : held)
        if (files)
            options.files.merge(held_file_paths(*files));
    auto summary = symbolize_profile::symbolize_profile(o.output, options, &error);
    if (!summary) {
        std::fprintf(stderr,
                     "cpcprof record: symbolizing failed, the profile is kept "
                     "unsymbolized%s: %s\n",
                     size_text(o.output).c_str(), error.c_str());
        return;
    }
    if (!o.quiet)
        std::fprintf(stderr, "cpcprof: %s; %s%s\n", symbolize_profile::describe(*summary).c_str(),
                     o.output.c_str(), size_text(o.output).c_str());
    if (!urls.empty() && o.debuginfod_wait_s > 0 && summary->addresses > 0)
        ask_debuginfod(o, urls);
    // As report's header says it: which modules' sampled addresses have
    // no names, and what share of the samples that is.
    if (!o.quiet)
        if (auto q = analysis::Query::open(o.output, {}, &error)) {
            std::string mods = analysis::modules_lacking_names_text(*q);
            if (!mods.empty())
                std::fprintf(stderr, "cpcprof: modules without symbols: %s\n", mods.c_str());
        }
}

// The q-quantile of a histogram, in ns (bucket upper bound).
double quantile(const std::vector<uint64_t> &h, uint32_t width, double q) {
    uint64_t total = 0;
    for (uint64_t n : h)
        total += n;
    if (total == 0)
        return 0;
    uint64_t want = static_cast<uint64_t>(q * double(total - 1)), seen = 0;
    for (size_t b = 0; b < h.size(); ++b) {
        seen += h[b];
        if (seen > want)
            return double((b + 1) * width);
    }
    return double(h.size() * width);
}

void print_stats(const Summary &s) {
    if (s.cost_bucket_ns == 0) {
        std::fprintf(stderr, "cpcprof: no handler costs were reported\n");
        return;
    }
    const char *what[] = {"PC + unwind + ring push",
                          "whole SIGEMT handler (with cpc_set_sample and "
                          "cpc_set_restart)"};
    for (int m = 0; m < 2; ++m)
        std::fprintf(stderr, "cpcprof: %s: median %.2f us, p99 %.2f us\n", what[m],
                     quantile(s.cost[m], s.cost_bucket_ns, 0.5) / 1000,
                     quantile(s.cost[m], s.cost_bucket_ns, 0.99) / 1000);
}

std::atomic<Attach *> g_attach{nullptr};

void stop_attach(int) {
    if (Attach *a = g_attach.load())
        a->stop();
}

// record -p: the processes run on; the recording ends at Ctrl-C, after
// --duration, or when they have all ended.
int record_attached(const Options &o, const Plan &plan) {
    std::string error;
    if (!check_output_writable(o.output, &error))
        return fail(error);
    // An event per thread, CPU and event: a process of a thousand threads
    // needs thousands of descriptors.
    rlimit nofile{};
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    std::unique_ptr<Attach> attach = Attach::open(o, plan, o.pids, false, &error);
    if (!attach)
        return fail(error);
    storage::RunInfo run = run_info(o, plan);
    OldProfile old(o.output);
    std::unique_ptr<storage::Writer> writer;
    if (old.set_aside(&error)) {
        writer = storage::Writer::create(o.output, &error);
        if (!writer)
            old.restore();
    }
    if (!writer)
        return fail(error);
    if (!old.keep(&error))
        std::fprintf(stderr, "cpcprof record: the previous profile stays at %s: %s\n",
                     old.aside().c_str(), error.c_str());
    writer->begin_run(run);
    writer->commit();
    Target target;
    target.channel = attach->start();
    if (!target.channel.valid())
        return fail(std::string("cannot make the recorder's channel: ") + std::strerror(errno));
    g_attach.store(attach.get());
    struct sigaction sa {
    }, old_int{}, old_term{};
    sa.sa_handler = stop_attach;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    if (!o.quiet && o.system_wide)
        std::fprintf(stderr, "cpcprof: recording every process%s%s; %s\n",
                     o.cpus.empty() ? "" : " on CPUs ",
                     o.cpus.empty() ? "" : run.command.back().c_str(),
                     o.duration ? "until --duration has passed or Ctrl-C" : "Ctrl-C stops");
    else if (!o.quiet)
        std::fprintf(stderr, "cpcprof: recording %s %s (not stopped or signalled); %s\n",
                     o.pids.size() == 1 ? "process" : "processes", run.command[1].c_str(),
                     o.duration ? "until --duration has passed, Ctrl-C or their end"
                                : "Ctrl-C stops, or their end");
    SpaceReserve reserve;
    reserve.hold(o.output, kEndReserveBytes);
    Session session(*writer, target, o.output, reserve);
    if (o.off_cpu)
        session.set_off_cpu();
    Summary s = session.run();
    g_attach.store(nullptr);
    std::shared_ptr<const HeldFiles> held = attach->held_files();
    // The session's end closed first: a reader blocked sending into a
    // channel nobody reads any more (the session stopped on an error)
    // gets EPIPE and stops, instead of the join waiting for it forever.
    target.channel.reset();
    attach.reset(); // detached: the processes run on untouched
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (!s.write_error.empty())
        return cut_short(o, *writer, s);
    if (!writer->finish(base::monotonic_ns(), &error))
        return fail("writing " + o.output + ": " + error);
    if (!o.quiet)
        print_summary(o, s, o.symbolize);
    if (o.symbolize)
        symbolize(o, {held});
    return 0;
}

} // namespace

int record_main(const std::vector<std::string> &args) {
    std::string error;
    auto o = parse_options(args, &error);
    if (!o) {
        std::fprintf(stderr, "cpcprof record: %s\n%s", error.c_str(), usage());
        return 2;
    }
    if (o->help) {
        std::fputs(usage(), stdout);
        return 0;
    }
    if (!check_output_kind(o->output, &error))
        return fail(error, 2);
    auto plan = plan_events(*o, &error);
    if (!plan)
        return fail(error);
    if (!o->pids.empty() && plan->backend != "perf_event")
        return fail("cannot attach: -p samples through perf_event_open(2), which this "
                    "process may not use (" +
                    plan->backend_reason + ")");
    if (o->system_wide && plan->backend != "perf_event")
        return fail("cannot profile the whole system: -a samples through perf_event_open(2), "
                    "which this process may not use (" +
                    plan->backend_reason + ")");
    if (o->off_cpu && plan->backend != "perf_event")
        return fail("cannot record off-CPU time: the threads' switches come from "
                    "perf_event_open(2), which this process may not use (" +
                    plan->backend_reason + ")");
    if (o->capture == "ring" && plan->backend != "perf_event")
        return fail("cannot use --capture ring: the kernel's sample rings are "
                    "perf_event_open(2)'s, which this process may not use (" +
                    plan->backend_reason + ")");
    if (!plan->notice.empty() && !o->quiet)
        std::fprintf(stderr, "cpcprof: %s\n", plan->notice.c_str());
    if (!plan->warning.empty())
        std::fprintf(stderr, "cpcprof: warning: %s\n", plan->warning.c_str());
    if (!o->pids.empty() || o->system_wide)
        return record_attached(*o, *plan);
    if (!check_output_writable(o->output, &error))
        return fail(error);
    storage::RunInfo run = run_info(*o, *plan);
    // Orphaned descendants are reparented to us, so their exit is seen.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    std::optional<std::string> static_exe =
        o->capture == "agent" || o->capture == "auto" ? static_command(*o) : std::nullopt;
    // The kernel's rings where asked, and for a static program, which the
    // agent cannot be loaded into, where this process may open them.
    bool ring = o->capture == "ring" ||
                (o->capture == "auto" && static_exe && plan->backend == "perf_event");
    if (static_exe && ring)
        std::fprintf(stderr,
                     "cpcprof: %s is statically linked: the profiler cannot be loaded into it, "
                     "so it is sampled through the kernel's sample rings\n",
                     static_exe->c_str());
    else if (static_exe)
        std::fprintf(stderr,
                     "cpcprof: %s is statically linked: the profiler cannot be loaded into it, "
                     "so it runs unsampled\n",
                     static_exe->c_str());
    if (ring)
        static_exe.reset(); // sampled: not a process that runs unsampled
    std::unique_ptr<Attach> attach;
    // The agents' processes with --off-cpu: the rings of their threads'
    // switches, which also sample what the agents cannot (ring_fallback).
    std::unique_ptr<Attach> fallback;
    std::optional<Target> target;
    std::optional<CfiCacheDir> cfi_cache; // the agents' unwind tables, for the recording
    if (ring) {
        // The child is held before its exec while the rings are opened on
        // it: they follow it through the exec and into what it starts.
        auto open_rings = [&](pid_t pid, std::string *why) {
            attach = Attach::open(*o, *plan, {pid}, true, why);
            return attach != nullptr;
        };
        target = spawn_held(*o, open_rings, &error);
        if (target)
            target->channel = attach->start();
        if (target && !target->channel.valid())
            return unrecorded(*target, std::string("cannot make the recorder's channel: ") +
                                           std::strerror(errno));
    } else {
        auto agent = find_agent(&error);
        if (!agent)
            return fail(error);
        cfi_cache.emplace();
        const std::function<bool(pid_t, std::string *)> watch = [&](pid_t pid, std::string *why) {
            fallback = Attach::open_watch(*o, *plan, pid, why);
            return fallback != nullptr;
        };
        target = spawn_target(*o, *plan, *agent, cfi_cache->path(), &error,
                              o->off_cpu ? &watch : nullptr);
    }
    if (!target)
        return fail(error, 127); // nothing was touched
    // The rings of the threads' switches are read from the start: a thread
    // is read while it waits, and the first waits begin at once.
    base::ScopedFd watch_channel = fallback ? fallback->start() : base::ScopedFd();
    if (fallback && !watch_channel.valid())
        return unrecorded(*target, std::string("cannot make the recorder's channel: ") +
                                       std::strerror(errno));
    // The terminal's ^C reaches the target; the recorder finishes the file.
    // Ignored only now, after the fork: the target must get the
    // dispositions cpcprof was started with (an ignored signal stays
    // ignored across exec).  GNU time does the same.
    sighandler_t old_int = signal(SIGINT, SIG_IGN);
    sighandler_t old_quit = signal(SIGQUIT, SIG_IGN);
    // The command runs: only now is the previous profile moved aside.  Its
    // agent's first messages wait in the channel meanwhile.
    OldProfile old(o->output);
    std::unique_ptr<storage::Writer> writer;
    if (old.set_aside(&error)) {
        writer = storage::Writer::create(o->output, &error);
        if (!writer)
            old.restore();
    }
    if (!writer)
        return unrecorded(*target, error);
    if (!old.keep(&error))
        std::fprintf(stderr, "cpcprof record: the previous profile stays at %s: %s\n",
                     old.aside().c_str(), error.c_str());
    writer->begin_run(run);
    if (cfi_cache) // off the command's start: listing the tables takes milliseconds
        cfi_cache->prune_if_due();
    if (static_exe) {
        // No agent will say hello: the process is recorded from here, and
        // its end from its exit status.
        storage::ProcessInfo info;
        info.pid = target->pid;
        info.ppid = getpid();
        info.exe = *static_exe;
        info.argv = o->command;
        info.start_ns = base::monotonic_ns();
        writer->add_process(info);
    }
    writer->commit();
    SpaceReserve reserve;
    reserve.hold(o->output, kEndReserveBytes); // best effort: the count may still fit
    Session session(*writer, *target, o->output, reserve);
    if (o->off_cpu)
        session.set_off_cpu(fallback && fallback->switch_stacks());
    if (static_exe)
        session.target_unsampled();
    if (plan->kernel)
        session.set_kernel_frames();
    else if (!plan->kernel_missing.empty())
        session.say(plan->kernel_missing, o->quiet);
    if (!ring && plan->backend == "perf_event")
        session.set_ring_hint();
    if (fallback)
        session.add_channel(std::move(watch_channel), [&] { fallback->stop(); });
    // A static program an agent execs or spawns, and a process under a
    // seccomp filter of its own: their rings, made when the first such
    // process is said.
    if (!ring && ring_fallback(*o, *plan))
        session.set_ring_fallback(
            [&](int pid, const storage::ProcessInfo *hello, std::string *why) {
                if (!fallback) {
                    fallback = Attach::open_empty(*o, *plan, why);
                    base::ScopedFd channel = fallback ? fallback->start() : base::ScopedFd();
                    if (!channel.valid()) {
                        if (fallback)
                            *why = std::string("cannot make the recorder's channel: ") +
                                   std::strerror(errno);
                        fallback.reset();
                        return false;
                    }
                    session.add_channel(std::move(channel), [&] { fallback->stop(); });
                }
                return fallback->add(pid, hello, why);
            });
    Summary s = session.run();
    std::vector<std::shared_ptr<const HeldFiles>> held;
    for (const std::unique_ptr<Attach> *a : {&attach, &fallback})
        if (*a)
            held.push_back((*a)->held_files());
    fallback.reset(); // its reader has ended its channel
    if (attach) {
        // As record_attached: the session's end first, then the reader.
        target->channel.reset();
        attach.reset();
    }
    if (!s.write_error.empty())
        return cut_short(*o, *writer, s);
    if (!writer->finish(base::monotonic_ns(), &error))
        return fail("writing " + o->output + ": " + error);
    if (!o->quiet)
        print_summary(*o, s, o->symbolize);
    if (static_exe) // said above: not a process that stopped reporting
        s.silent.erase(std::remove(s.silent.begin(), s.silent.end(), target->pid), s.silent.end());
    if (!s.silent.empty())
        print_silent(s.silent);
    if (o->symbolize) {
        // The targets are gone: ^C may stop the symbolizer, which leaves
        // the file complete and unsymbolized.
        signal(SIGINT, old_int);
        signal(SIGQUIT, old_quit);
        symbolize(*o, held);
    }
    if (o->stats)
        print_stats(s);
    return s.exit_status;
}

} // namespace cpcprof::record
