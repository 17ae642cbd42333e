// SPDX-License-Identifier: MIT
// cpustat(8): counts events on every CPU the process may run on.
//
// One thread per CPU opens its own libcpc handle, cpc_bind_cpu()s the
// first set (which also moves it to that CPU), and then samples at absolute
// deadlines that the main thread publishes round by round; the main thread
// prints each round in CPU order once every CPU has sampled it, and keeps
// the totals.  A thread that sigwait()s turns SIGINT/SIGTERM into a stop
// that wakes every wait.
#include "base/args.h"
#include "profiler/tools/caps.h"
#include "profiler/tools/cpc_messages.h"
#include "profiler/tools/cpustat_options.h"
#include "profiler/tools/eventspec.h"

#include "profiler/tools/unique_cpc.h"

#include <libcpc.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <signal.h>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace cpcprof::tools;
using Clock = std::chrono::steady_clock; // CLOCK_MONOTONIC, libcpc's hrtime base

const char *const kProg = "cpustat";
// The message of a failed libcpc call: its own, or errno's.
std::string failure_text(const std::string &what) {
    int saved = errno;
    std::string m = cpcprof::tools::take_message();
    return m.empty() ? what + ": " + std::strerror(saved) : m;
}

[[noreturn]] void usage_error(const std::string &why) {
    std::exit(cpcprof::base::usage_error_then(kProg, why, kCpustatUsage));
}

// Online CPUs that the affinity mask allows (the illumos processor set).
std::vector<int> usable_cpus() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    sched_getaffinity(0, sizeof mask, &mask);
    std::vector<int> cpus;
    std::ifstream in("/sys/devices/system/cpu/online");
    std::string list;
    std::getline(in, list);
    size_t pos = 0;
    while (pos < list.size()) {
        size_t comma = list.find(',', pos);
        std::string part = list.substr(pos, comma - pos);
        int lo = 0, hi = 0;
        if (std::sscanf(part.c_str(), "%d-%d", &lo, &hi) != 2)
            hi = lo = std::atoi(part.c_str());
        for (int c = lo; c <= hi; ++c)
            if (c < CPU_SETSIZE && CPU_ISSET(c, &mask))
                cpus.push_back(c);
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return cpus;
}

struct Plan {
    CpustatOptions opts;
    std::vector<EventSpec> sets;
    int64_t interval_ns = 0;
    int64_t period_ns = 0;
    int64_t start_ns = 0; // CLOCK_MONOTONIC

    size_t set_of(long r) const { return static_cast<size_t>(r) % sets.size(); }
    // Deadline of round r; its window opens one interval before.
    int64_t deadline(long r) const {
        if (period_ns == 0)
            return start_ns + (r + 1) * interval_ns;
        long cycle = r / static_cast<long>(sets.size());
        return start_ns + cycle * period_ns +
               (r % static_cast<long>(sets.size()) + 1) * interval_ns;
    }
    int64_t window(long r) const { return deadline(r) - interval_ns; }
    bool system_only(size_t s) const {
        return std::all_of(sets[s].requests.begin(), sets[s].requests.end(), [](const auto &q) {
            return (q.flags & CPC_COUNT_USER) == 0 && (q.flags & CPC_COUNT_SYSTEM) != 0;
        });
    }
};

// What a CPU's thread hands to the main thread for one round.
struct Sample {
    long round = -1;
    size_t set = 0;
    int64_t hrtime = 0;
    uint64_t tick = 0;
    std::vector<uint64_t> values;
    std::string error;
};

struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    bool go = false;
    long round = -1; // the round to sample
    int ready = 0;   // threads that bound (or failed to)
    int reported = 0;
};

Shared g;
std::atomic<bool> g_stopping{false}; // soakers poll it

Clock::time_point at(int64_t ns) {
    return Clock::time_point(std::chrono::nanoseconds(ns));
}
int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
        .count();
}

// Sleeps until ns unless stopped; true when stopped.
bool sleep_until(std::unique_lock<std::mutex> &lk, int64_t ns) {
    return g.cv.wait_until(lk, at(ns), [] { return g.stop; });
}

class CpuThread {
  public:
    CpuThread(const Plan &plan, int cpu) : plan_(plan), cpu_(cpu) {}
    void run();
    Sample sample; // guarded by g.mu once started
    std::string setup_error;
    std::atomic<bool> soak{false};

  private:
    bool bind(size_t s);
    bool take(cpc_buf_t *buf);
    void finish_round(long r, Sample s);

    const Plan &plan_;
    int cpu_;
    cpc_t *cpc_ = nullptr;
    std::vector<cpc_set_t *> sets_;
    std::vector<std::vector<int>> indices_;
    std::vector<cpc_buf_t *> before_, after_, diff_;
    int cur_ = -1;               // bound set
    int64_t last_deadline_ = -1; // of the last round sampled with cur_
};

bool CpuThread::bind(size_t s) {
    if (cur_ >= 0)
        cpc_unbind(cpc_, sets_[cur_]);
    cur_ = -1;
    soak.store(false, std::memory_order_relaxed);
    if (cpc_bind_cpu(cpc_, cpu_, sets_[s], 0) != 0)
        return false;
    cur_ = static_cast<int>(s);
    soak.store(plan_.opts.soak && plan_.system_only(s), std::memory_order_relaxed);
    last_deadline_ = -1;
    return cpc_set_sample(cpc_, sets_[s], before_[s]) == 0;
}

void CpuThread::finish_round(long r, Sample s) {
    std::lock_guard lk(g.mu);
    s.round = r;
    sample = std::move(s);
    ++g.reported;
    g.cv.notify_all();
}

void CpuThread::run() {
    cpc_ = cpc_open(CPC_VER_CURRENT);
    bool ok = cpc_ != nullptr;
    if (!ok)
        setup_error = failure_text("cannot access performance counter library");
    if (ok) {
        cpc_seterrhndlr(cpc_, cpcprof::tools::keep_message);
        for (const EventSpec &spec : plan_.sets) {
            sets_.push_back(cpc_set_create(cpc_));
            indices_.emplace_back();
            ok = ok && add_to_set(cpc_, sets_.back(), spec, &indices_.back()) == 0;
            before_.push_back(cpc_buf_create(cpc_, sets_.back()));
            after_.push_back(cpc_buf_create(cpc_, sets_.back()));
            diff_.push_back(cpc_buf_create(cpc_, sets_.back()));
        }
        if (ok && !bind(0))
            ok = false;
        if (!ok && setup_error.empty())
            setup_error = failure_text("cannot bind counters to cpu " + std::to_string(cpu_));
    }
    std::unique_lock lk(g.mu);
    ++g.ready;
    g.cv.notify_all();
    g.cv.wait(lk, [] { return g.go || g.stop; });
    long done = -1;
    while (ok && !g.stop) {
        g.cv.wait(lk, [&] { return g.stop || g.round > done; });
        if (g.stop)
            break;
        long r = g.round;
        size_t s = plan_.set_of(r);
        Sample out;
        out.set = s;
        if (cur_ != static_cast<int>(s) || last_deadline_ != plan_.window(r)) {
            // A new window: the counters start again at its opening.
            if (sleep_until(lk, plan_.window(r)))
                break;
            lk.unlock();
            bool bound = cur_ == static_cast<int>(s)
                             ? cpc_set_sample(cpc_, sets_[s], before_[s]) == 0
                             : bind(s);
            if (!bound)
                out.error = failure_text("cpu " + std::to_string(cpu_) + ": cannot count");
            lk.lock();
        }
        if (sleep_until(lk, plan_.deadline(r)))
            break;
        lk.unlock();
        done = r;
        if (out.error.empty() && cpc_set_sample(cpc_, sets_[s], after_[s]) != 0)
            out.error = failure_text("cpu " + std::to_string(cpu_) + ": cannot sample counters");
        if (out.error.empty()) {
            cpc_buf_sub(cpc_, diff_[s], after_[s], before_[s]);
            cpc_buf_copy(cpc_, before_[s], after_[s]);
            out.hrtime = cpc_buf_hrtime(cpc_, after_[s]);
            out.tick = cpc_buf_tick(cpc_, diff_[s]);
            for (int idx : indices_[s]) {
                uint64_t v = 0;
                cpc_buf_get(cpc_, diff_[s], idx, &v);
                out.values.push_back(v);
            }
            last_deadline_ = plan_.deadline(r);
        }
        // Several sets without -p: the next set counts from this deadline on.
        if (plan_.sets.size() > 1 && plan_.period_ns == 0 && !bind(plan_.set_of(r + 1)))
            out.error = failure_text("cpu " + std::to_string(cpu_) + ": cannot count");
        else if (plan_.sets.size() > 1 && plan_.period_ns == 0)
            last_deadline_ = plan_.deadline(r);
        finish_round(r, std::move(out));
        lk.lock();
    }
    lk.unlock();
    soak.store(false);
    if (cpc_ != nullptr)
        cpc_close(cpc_); // unbinds and frees every set and buffer
}

// Soaks up a CPU's idle time while a system-only set counts there, so that
// the idle loop is not what gets counted (illumos: an FX-class soaker).
void soaker(CpuThread *t, int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    sched_param p{};
    sched_setscheduler(0, SCHED_IDLE, &p);
    while (!g_stopping.load(std::memory_order_relaxed)) {
        if (!t->soak.load(std::memory_order_relaxed)) {
            timespec ts{0, 10 * 1000 * 1000};
            nanosleep(&ts, nullptr);
        }
    }
}

void signal_thread(sigset_t set) {
    int sig = 0;
    sigwait(&set, &sig);
    std::lock_guard lk(g.mu);
    g.stop = true;
    g.cv.notify_all();
}

std::string columns(const Plan &plan, size_t s) {
    char buf[64];
    std::string h;
    std::snprintf(buf, sizeof buf, "%7s %3s %5s ", "time", "cpu", "event");
    h += buf;
    if (plan.opts.tsc) {
        std::snprintf(buf, sizeof buf, "%9s ", "tsc");
        h += buf;
    }
    for (size_t i = 0; i < plan.sets[s].requests.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%9s ", request_label(plan.sets[s], i).c_str());
        h += buf;
    }
    return h;
}

void print_line(const Plan &plan, double secs, int cpu, const char *label, uint64_t tick,
                const std::vector<uint64_t> &values, size_t s) {
    std::printf("%7.3f %3d %5s ", secs, cpu, label);
    if (plan.opts.tsc)
        std::printf("%9lld ", static_cast<long long>(tick));
    for (uint64_t v : values)
        std::printf("%9lld ", static_cast<long long>(v));
    if (plan.sets.size() > 1)
        std::printf(" # %s\n", plan.sets[s].text.c_str());
    else
        std::printf("\n");
}

void print_timestamp(char fmt) {
    time_t t = time(nullptr);
    if (fmt == 'u') {
        std::printf("%lld\n", static_cast<long long>(t));
        return;
    }
    char buf[128];
    struct tm tm;
    localtime_r(&t, &tm);
    std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Z %Y", &tm);
    std::printf("%s\n", buf);
}

// Checks every specification: a syntax error is a usage error (exit 2); an
// event or attribute that libcpc refuses here exits 1 with libcpc's message.
std::vector<EventSpec> build_sets(cpc_t *cpc, const std::vector<std::string> &texts) {
    std::vector<std::string> attrs = spec_attr_names(cpc);
    std::vector<EventSpec> sets;
    for (const std::string &text : texts) {
        ParseResult r = parse_eventspec(text, attrs);
        if (!r.ok)
            usage_error("-c " + text + ": " + r.error);
        cpc_set_t *set = cpc_set_create(cpc);
        if (add_to_set(cpc, set, r.spec) != 0) {
            std::string why = failure_text("cannot add the request");
            std::fprintf(stderr, "%s: -c %s: %s\n", kProg, text.c_str(), why.c_str());
            std::exit(1);
        }
        cpc_set_destroy(cpc, set);
        sets.push_back(std::move(r.spec));
    }
    return sets;
}

int run(Plan &plan) {
    std::vector<int> cpus = usable_cpus();
    if (cpus.empty()) {
        std::fprintf(stderr, "%s: no online CPU in this process's affinity mask\n", kProg);
        return 1;
    }
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
    std::thread(signal_thread, sigs).detach();

    std::vector<std::unique_ptr<CpuThread>> workers;
    std::vector<std::thread> threads;
    for (int cpu : cpus) {
        workers.push_back(std::make_unique<CpuThread>(plan, cpu));
        threads.emplace_back(&CpuThread::run, workers.back().get());
    }
    if (plan.opts.soak)
        for (size_t i = 0; i < cpus.size(); ++i)
            threads.emplace_back(soaker, workers[i].get(), cpus[i]);
    std::unique_lock lk(g.mu);
    g.cv.wait(lk, [&] { return g.ready == static_cast<int>(cpus.size()); });
    std::set<std::string> errors;
    for (const auto &w : workers)
        if (!w->setup_error.empty() && errors.insert(w->setup_error).second)
            std::fprintf(stderr, "%s: %s\n", kProg, w->setup_error.c_str());
    int status = errors.empty() ? 0 : 1;

    plan.start_ns = now_ns();
    size_t nsets = plan.sets.size();
    std::vector<std::vector<uint64_t>> totals(nsets);
    std::vector<uint64_t> tick_totals(nsets, 0);
    for (size_t s = 0; s < nsets; ++s)
        totals[s].assign(plan.sets[s].requests.size(), 0);
    if (status == 0 && !plan.opts.no_header)
        for (size_t s = 0; s < nsets; ++s)
            std::printf("%s%s%s\n", columns(plan, s).c_str(), nsets > 1 ? " # " : "",
                        nsets > 1 ? plan.sets[s].text.c_str() : "");
    std::fflush(stdout);
    long limit = plan.opts.count * static_cast<long>(plan.period_ns ? nsets : 1);
    long printed = 0;
    g.go = true;
    g.stop = g.stop || status != 0;
    for (long r = 0; !g.stop; ++printed) {
        g.reported = 0;
        g.round = r;
        g.cv.notify_all();
        g.cv.wait(lk, [&] { return g.stop || g.reported == static_cast<int>(cpus.size()); });
        if (g.stop)
            break;
        if (plan.opts.timestamp)
            print_timestamp(plan.opts.timestamp);
        for (size_t i = 0; i < workers.size(); ++i) {
            const Sample &smp = workers[i]->sample;
            if (!smp.error.empty()) {
                std::fprintf(stderr, "%s: %s\n", kProg, smp.error.c_str());
                continue;
            }
            double secs = static_cast<double>(smp.hrtime - plan.start_ns) / 1e9;
            print_line(plan, secs, cpus[i], "tick", smp.tick, smp.values, smp.set);
            for (size_t k = 0; k < smp.values.size(); ++k)
                totals[smp.set][k] += smp.values[k];
            tick_totals[smp.set] += smp.tick;
        }
        std::fflush(stdout);
        if (limit > 0 && printed + 1 >= limit)
            break;
        // A round whose deadline has passed is skipped, not sampled late.
        int64_t now = now_ns();
        do
            ++r;
        while (plan.deadline(r) <= now);
    }
    g.stop = true;
    g.cv.notify_all();
    lk.unlock();
    g_stopping = true;
    for (std::thread &t : threads)
        t.join();
    if (status != 0)
        return status;
    double secs = static_cast<double>(now_ns() - plan.start_ns) / 1e9;
    for (size_t s = 0; s < nsets; ++s)
        print_line(plan, secs, static_cast<int>(cpus.size()), "total", tick_totals[s], totals[s],
                   s);
    std::fflush(stdout);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    CpustatArgs args = parse_cpustat_args(argc, argv);
    if (!args.ok)
        usage_error(args.error);
    cpcprof::tools::set_message_debug(args.opts.debug);
    cpcprof::UniqueCpc cpc(cpc_open(CPC_VER_CURRENT));
    if (!cpc) {
        std::fprintf(stderr, "%s: cannot access performance counter library - %s\n", kProg,
                     std::strerror(errno));
        return 1;
    }
    cpc_seterrhndlr(cpc.get(), cpcprof::tools::keep_message);
    if (args.opts.help) {
        std::printf("%s\n%s", kCpustatUsage,
                    format_capabilities(read_capabilities(cpc.get())).c_str());
        return 0;
    }
    Plan plan;
    plan.opts = args.opts;
    plan.sets = build_sets(cpc.get(), args.opts.specs);
    cpc.reset(); // each CPU's thread opens its own
    plan.interval_ns = static_cast<int64_t>(args.opts.interval * 1e9);
    plan.period_ns = static_cast<int64_t>(args.opts.period * 1e9);
    return run(plan);
}
