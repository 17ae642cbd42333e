// SPDX-License-Identifier: MIT
#include "libcpc/src/machine.h"

#include "base/scoped_fd.h"
#include "libcpc/src/counting_timer.h"
#include "libcpc/src/events.h"
#include "libcpc/src/perf_open.h"
#include "libcpc/src/pfm_events.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <mutex>
#include <string_view>

namespace cpc {

const char *backend_name(Backend b) {
    return b == Backend::timer ? "posix-timer" : "perf_event";
}

std::string perf_refusal_reason(int err) {
    switch (err) {
    case EPERM:
        return "EPERM: a seccomp filter (a container's default profile) or no CAP_PERFMON";
    case EACCES:
        return "EACCES: /proc/sys/kernel/perf_event_paranoid is above what this user may use";
    case ENOSYS:
        return "ENOSYS: this kernel or sandbox has no perf_event_open";
    case 0:
        return "CPC_BACKEND=timer";
    default:
        return std::strerror(err);
    }
}

std::string perf_refusal_remedy(int err) {
    switch (err) {
    case EPERM:
        return "CAP_PERFMON (docker run --cap-add PERFMON) or a seccomp profile that allows "
               "perf_event_open";
    case EACCES:
        return "CAP_PERFMON, or perf_event_paranoid at 2 or lower "
               "(sysctl kernel.perf_event_paranoid=2)";
    case ENOSYS:
        return "a kernel with perf events (CONFIG_PERF_EVENTS), outside such a sandbox";
    case 0:
        return "the perf_event backend (unset CPC_BACKEND)";
    default:
        return "perf_event_open";
    }
}

int FormatField::width() const {
    int w = 0;
    for (auto [lo, hi] : ranges)
        w += hi - lo + 1;
    return w;
}

bool FormatField::apply(uint64_t value, perf_event_attr *attr) const {
    int w = width();
    if (w < 64 && (value >> w) != 0)
        return false;
    __u64 *words[] = {&attr->config, &attr->config1, &attr->config2};
    __u64 &dst = *words[word];
    for (auto [lo, hi] : ranges) {
        int n = hi - lo + 1;
        uint64_t mask = n >= 64 ? ~0ull : ((1ull << n) - 1);
        dst = (dst & ~(mask << lo)) | ((value & mask) << lo);
        value = n >= 64 ? 0 : value >> n;
    }
    return true;
}

bool parse_format(const std::string &text, FormatField *out) {
    std::string s = text;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    auto colon = s.find(':');
    if (colon == std::string::npos)
        return false;
    std::string word = s.substr(0, colon);
    FormatField f;
    if (word == "config")
        f.word = 0;
    else if (word == "config1")
        f.word = 1;
    else if (word == "config2")
        f.word = 2;
    else
        return false;
    std::string_view rest(s);
    rest.remove_prefix(colon + 1);
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string r(rest.substr(0, comma));
        rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
        int lo = 0, hi = 0;
        if (std::sscanf(r.c_str(), "%d-%d", &lo, &hi) == 2) {
        } else if (std::sscanf(r.c_str(), "%d", &lo) == 1) {
            hi = lo;
        } else {
            return false;
        }
        if (lo < 0 || hi > 63 || hi < lo)
            return false;
        f.ranges.push_back({lo, hi});
    }
    if (f.ranges.empty())
        return false;
    *out = f;
    return true;
}

bool Machine::has_attr(const std::string &name) const {
    return std::find(attrs.begin(), attrs.end(), name) != attrs.end();
}

namespace {

// The first line of a small file (sysfs, procfs), without its newline:
// read(2), not a stream, whose first use sets up the C++ locale.
bool first_line_of(const std::string &path, std::string *line) {
    cpcprof::base::ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return false;
    char buf[4096];
    ssize_t n = read(fd.get(), buf, sizeof buf - 1);
    if (n < 0)
        return false;
    std::string_view text(buf, size_t(n));
    *line = std::string(text.substr(0, text.find('\n')));
    return true;
}

} // namespace

int probe_open(const perf_event_attr &attr) {
    perf_event_attr a = attr;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    cpcprof::base::ScopedFd fd(perf_event_open_cloexec(&a, 0, -1, -1));
    return fd.valid() ? 0 : errno;
}

bool cpu_is_online(int id, const std::string &sysfs_cpus) {
    std::string text;
    if (!first_line_of(sysfs_cpus + "/cpu" + std::to_string(id) + "/online", &text))
        return true; // cpu0 often has no such file: it cannot go offline
    return std::atoi(text.c_str()) != 0;
}

namespace {

bool probe_overflow_host() {
    perf_event_attr a{};
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 1000000;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.sigtrap = 1;
    a.remove_on_exec = 1;
    cpcprof::base::ScopedFd fd(perf_event_open_cloexec(&a, 0, -1, -1));
    return fd.valid();
}

// The processor's brand string, as the kernel's "model name" shows it:
// from cpuid where there is one (reading /proc/cpuinfo makes the kernel
// compute every processor's clock, about 0.1 ms in a VM, in every
// process that opens libcpc).
std::string cpu_model_name() {
    std::string name;
#if defined(__x86_64__) || defined(__i386__)
    unsigned regs[12] = {};
    if (__get_cpuid_max(0x80000000, nullptr) >= 0x80000004) {
        for (unsigned i = 0; i < 3; ++i)
            __get_cpuid(0x80000002 + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2],
                        &regs[4 * i + 3]);
        char text[sizeof regs + 1] = {};
        std::memcpy(text, regs, sizeof regs);
        name = text;
        size_t a = name.find_first_not_of(' '), b = name.find_last_not_of(' ');
        name = a == std::string::npos ? std::string() : name.substr(a, b - a + 1);
    }
#endif
    if (name.empty())
        name = first_cpuinfo_field("model name");
    return name.empty() ? "unknown processor" : name;
}

// sysfs names the "any thread" bit "any"; illumos calls it "anythr".
std::string illumos_attr_name(const std::string &sysfs) {
    return sysfs == "any" ? "anythr" : sysfs;
}

void read_sysfs_format(const std::string &pmu_dir, Machine &m) {
    std::string dir = pmu_dir + "/format";
    DIR *d = opendir(dir.c_str());
    if (d == nullptr)
        return;
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name == "." || name == ".." || name == "event")
            continue;
        std::string text;
        FormatField f;
        if (first_line_of(dir + "/" + name, &text) && parse_format(text, &f))
            m.format[illumos_attr_name(name)] = f;
    }
    closedir(d);
}

// The Intel/AMD core layout, for a PMU libpfm4 knows when sysfs has none.
void default_x86_format(Machine &m) {
    const std::pair<const char *, const char *> fields[] = {{"umask", "config:8-15"},
                                                            {"edge", "config:18"},
                                                            {"inv", "config:23"},
                                                            {"cmask", "config:24-31"}};
    for (auto [name, text] : fields) {
        FormatField f;
        parse_format(text, &f);
        m.format[name] = f;
    }
}

// libpfm4 gives the most counters a core can have (8 on Skylake, with
// hyper-threading off).  On the real host CPUID leaf 0xA tells how many
// this logical processor has.
void intel_counters_from_cpuid(unsigned *ngp, unsigned *nfixed) {
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0xa, &eax, &ebx, &ecx, &edx) || (eax & 0xff) == 0)
        return;
    *ngp = (eax >> 8) & 0xff;
    if ((eax & 0xff) > 1)
        *nfixed = edx & 0x1f;
#else
    (void)ngp;
    (void)nfixed;
#endif
}

void describe_hw(Machine &m, const MachineEnv &env, const std::string &model) {
    auto pmu = pfm_core_pmu();
    m.use_pfm = pmu.has_value();
    m.ngp = pmu ? pmu->num_gp : 4;
    unsigned nfixed = pmu ? pmu->num_fixed : 0;
    if (pmu && pmu->intel && std::getenv("LIBPFM_FORCE_PMU") == nullptr)
        intel_counters_from_cpuid(&m.ngp, &nfixed);
    if (pmu && pmu->intel) {
        const char *fixed[] = {"instructions", "cycles", "ref-cycles"};
        for (unsigned i = 0; i < nfixed && i < 3; ++i)
            m.fixed_events.push_back(fixed[i]);
    }
    m.npic = m.ngp + static_cast<unsigned>(m.fixed_events.size());
    m.cciname = (pmu ? pmu->desc : model) + " (Linux perf_event)";
    if (pmu && pmu->amd)
        m.cpuref = "See the Processor Programming Reference (PPR) for AMD Family " +
                   std::string("processors, section Performance Monitor Counters.");
    else if (pmu && pmu->intel)
        m.cpuref = "See Chapter 20 and Appendix A of the Intel 64 and IA-32 Architectures "
                   "Software Developer's Manual, Volume 3B: System Programming Guide.";
    else
        m.cpuref = "See the processor vendor's performance monitoring documentation.";
    read_sysfs_format(env.sysfs_cpu_pmu, m);
    if (m.format.empty() && pmu)
        default_x86_format(m);
}

// perf_event_open's answer for a counting task-clock: from the injected
// probes, or the host's.
int probe_perf(const MachineEnv &env) {
    if (env.probe_perf)
        return env.probe_perf();
    perf_event_attr a{};
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    return env.probe ? env.probe(a) : probe_open(a);
}

bool refused(int err) {
    return err == EPERM || err == EACCES || err == ENOSYS;
}

Backend choose_backend(const char *choice, int perf_err) {
    std::string c = choice != nullptr ? choice : "";
    if (c == "perf" || c == "perf_event")
        return Backend::perf;
    if (c == "timer" || c == "posix-timer")
        return Backend::timer;
    if (!c.empty() && c != "auto")
        std::fprintf(stderr,
                     "libcpc: CPC_BACKEND=%s is not a backend (perf, timer or auto); "
                     "choosing on its own\n",
                     choice);
    return refused(perf_err) ? Backend::timer : Backend::perf;
}

void describe_timer(Machine &m, const std::string &model, int refusal) {
    m.backend = Backend::timer;
    m.ngp = kSoftwarePics;
    m.npic = kSoftwarePics;
    m.caps = CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE;
    m.cciname = "Linux POSIX CPU timers on " + model + " (" +
                (refusal != 0 ? "perf_event_open refused, " : "") + perf_refusal_reason(refusal) +
                ")";
    m.cpuref = "perf_event_open(2) is not used (" + perf_refusal_reason(refusal) +
               "): cpu-clock and task-clock are the thread's CPU time, sampled with POSIX "
               "CPU-time timers (at the kernel's tick), and page-faults, minor-faults, "
               "major-faults and context-switches come from getrusage(2).  Hardware events "
               "need " +
               perf_refusal_remedy(refusal) + ".";
    m.perf_refusal = refusal;
    m.backend_reason = refusal != 0
                           ? "perf_event_open refused (" + perf_refusal_reason(refusal) + ")"
                           : perf_refusal_reason(refusal);
    m.backend_remedy = perf_refusal_remedy(refusal);
    m.probe = [refusal](const perf_event_attr &a) {
        if (TimerCounting::source_of(a) >= 0)
            return 0;
        return refusal != 0 ? refusal : ENOENT;
    };
}

void describe_sw(Machine &m, const std::string &model) {
    m.ngp = kSoftwarePics;
    m.npic = kSoftwarePics;
    m.cciname = "Linux perf_event software events only (no hardware PMU on " + model + ")";
    m.cpuref = "This system has no accessible hardware performance counters (a virtual "
               "machine, or a kernel without PMU support); only the software events of "
               "perf_event_open(2) are available.";
}

} // namespace

void list_machine_events(Machine &m) {
    if (m.events_listed)
        return;
    m.events_listed = true;
    for (const SymbolicEvent &e : symbolic_events()) {
        perf_event_attr a{};
        a.type = e.type;
        a.config = e.config;
        if (m.probe(a) == 0)
            m.platform_events.push_back(e.name);
    }
    if (m.use_pfm)
        pfm_for_each_event([&m](const std::string &n) { m.platform_events.push_back(n); });
    for (const GenericEvent &g : generic_events()) {
        auto a = encode_name(m, g.papi);
        if (a && m.probe(*a) == 0)
            m.generic_events.push_back(g.papi);
    }
}

Machine detect_machine(const MachineEnv &env) {
    Machine m;
    int perf_err = probe_perf(env);
    if (choose_backend(env.backend_choice, perf_err) == Backend::timer) {
        describe_timer(m, kModelName, refused(perf_err) ? perf_err : 0);
        m.attrs.emplace_back("picnum");
        if (env.list_events)
            list_machine_events(m);
        return m;
    }
    m.probe = env.probe ? env.probe : probe_open;
    perf_event_attr cycles{};
    cycles.type = PERF_TYPE_HARDWARE;
    cycles.config = PERF_COUNT_HW_CPU_CYCLES;
    perf_event_attr ins = cycles;
    ins.config = PERF_COUNT_HW_INSTRUCTIONS;
    m.hw_pmu = m.probe(cycles) == 0 || m.probe(ins) == 0;
    std::string model = kModelName;
    if (m.hw_pmu)
        describe_hw(m, env, model);
    else
        describe_sw(m, model);
    m.task_clock_opens = perf_err == 0;
    m.caps = CPC_CAP_OVERFLOW_PRECISE;
    m.overflow_probed = !env.overflow_when_asked;
    if (m.overflow_probed && (env.probe_overflow ? env.probe_overflow() : probe_overflow_host()))
        m.caps |= CPC_CAP_OVERFLOW_INTERRUPT;
    for (const auto &[name, field] : m.format)
        m.attrs.push_back(name);
    m.attrs.push_back("picnum");
    if (env.list_events)
        list_machine_events(m);
    return m;
}

std::string cciname_text(const std::string &cciname) {
    size_t at = cciname.find(kModelName);
    if (at == std::string::npos)
        return cciname;
    static const std::string model = cpu_model_name();
    return cciname.substr(0, at) + model + cciname.substr(at + std::strlen(kModelName));
}

std::string first_cpuinfo_field(const char *key) {
    // The first processor's entry is at the start: one read(2), not a
    // stream (whose first use sets up the C++ locale in every process).
    cpcprof::base::ScopedFd fd(open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return {};
    char buf[8192];
    size_t n = 0;
    for (ssize_t r; n < sizeof buf - 1 && (r = read(fd.get(), buf + n, sizeof buf - 1 - n)) > 0;)
        n += size_t(r);
    std::string_view text(buf, n), k(key);
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        std::string_view line = text.substr(at, end == std::string_view::npos ? end : end - at);
        if (end == std::string_view::npos && n == sizeof buf - 1)
            break; // cut by the buffer
        if (line.substr(0, k.size()) == k) {
            size_t colon = line.find(':');
            if (colon == std::string_view::npos)
                return {};
            size_t v = line.find_first_not_of(" \t", colon + 1);
            return v == std::string_view::npos ? std::string() : std::string(line.substr(v));
        }
        if (end == std::string_view::npos)
            break;
        at = end + 1;
    }
    return {};
}

const Machine &host_machine(bool *built) {
    bool here = false;
    static const Machine m = [&here] {
        MachineEnv env;
        env.list_events = false;
        env.overflow_when_asked = true;
        env.backend_choice = std::getenv("CPC_BACKEND");
        here = true;
        return detect_machine(env);
    }();
    if (built != nullptr)
        *built = here;
    return m;
}

unsigned machine_caps(const Machine &m) {
    if (m.overflow_probed)
        return m.caps;
    static const bool interrupt = probe_overflow_host();
    return m.caps | (interrupt ? CPC_CAP_OVERFLOW_INTERRUPT : 0);
}

} // namespace cpc
