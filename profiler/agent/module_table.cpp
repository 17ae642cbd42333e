// SPDX-License-Identifier: MIT
// The module table sent to the recorder (module_table.h).
#include "profiler/agent/module_table.h"

#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/channel.h"
#include "profiler/agent/module_scan.h"

#include "profiler/protocol/protocol.h"

#include "base/clock.h"

#include <link.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace cpcprof::agent {

namespace {

unsigned long long g_adds = 0, g_subs = 0; // dl_iterate_phdr counters last seen

std::string exe_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, n) : std::string();
}

int count_changes(dl_phdr_info *info, size_t size, void *arg) {
    if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        auto *p = static_cast<unsigned long long *>(arg);
        p[0] = info->dlpi_adds;
        p[1] = info->dlpi_subs;
    }
    return 1; // the counters are the same in every entry
}

// Code mapped by mmap or mprotect (a second mapping of a file, JIT code)
// changes no loader counter: the drain sees it in the samples, as a frame
// in no known module (g_known), and rescans /proc/self/maps.  A scan
// costs ~50 us of CPU for a small program and ~7 ms for 10 000
// executable mappings (tests/record/test_module_scan.cpp prints it), so
// the next rescan waits at least 50 times the last scan's cost (scans take
// at most 2 % of a CPU), and a rescan that finds nothing new (a corrupt
// return address that no mapping holds) doubles the wait, up to 2 s.
constexpr int64_t kRescanMinNs = 20 * 1000 * 1000, kRescanMaxNs = 2000 * 1000 * 1000;
constexpr int64_t kScanCostFactor = 50;
KnownRanges g_known;
std::vector<ModuleEntry> g_sent; // the table last sent
bool g_unknown_seen = false;     // a drained frame lay outside g_known
int64_t g_last_scan_ns = 0, g_rescan_wait_ns = kRescanMinNs;

int64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool same_entry(const ModuleEntry &a, const ModuleEntry &b) {
    return a.start == b.start && a.end == b.end && a.file_offset == b.file_offset &&
           a.path == b.path && a.build_id == b.build_id;
}

void send_table(const std::vector<ModuleEntry> &modules) {
    send_message(module_table_message(getpid(), base::monotonic_ns(), modules));
}

// force: send the table even if it did not change (start, fork).
// rescan: read /proc/self/maps even if the loader's counters did not
// move (a frame lay outside every known mapping).
void send_modules_or_rescan(bool force, bool rescan) {
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(count_changes, c);
    bool loader_changed = c[0] != g_adds || c[1] != g_subs;
    if (!force && !loader_changed && !rescan)
        return;
    g_adds = c[0];
    g_subs = c[1];
    if (force || loader_changed)
        refresh_cfi();
    // The process's first scan, at its start, is the loader's alone: the
    // program has mapped nothing of its own yet, and every process's start
    // is spared reading /proc/self/maps.
    bool first = g_last_scan_ns == 0;
    int64_t cpu0 = thread_cpu_ns();
    std::vector<ModuleEntry> modules = scan_modules(exe_path(), !first);
    int64_t cost = thread_cpu_ns() - cpu0;
    g_last_scan_ns = base::monotonic_ns();
    g_unknown_seen = false;
    bool same = modules.size() == g_sent.size() &&
                std::equal(modules.begin(), modules.end(), g_sent.begin(), same_entry);
    if (rescan && same)
        g_rescan_wait_ns = std::min(2 * g_rescan_wait_ns, kRescanMaxNs);
    else
        g_rescan_wait_ns = kRescanMinNs;
    g_rescan_wait_ns = std::max(g_rescan_wait_ns, kScanCostFactor * cost);
    if (same && !force)
        return;
    g_known = KnownRanges(modules);
    send_table(modules);
    g_sent = std::move(modules);
}

} // namespace

void send_modules(bool force) {
    send_modules_or_rescan(force, false);
}

void send_inherited_modules() {
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(count_changes, c);
    // The parent loaded or unloaded a module after its last table (its
    // drain had not looked yet): the tables are compiled again.  Its
    // anonymous code is named after the parent's pid (jit_map_path): the
    // child's own name needs a scan.
    bool jit = std::any_of(g_sent.begin(), g_sent.end(),
                           [](const ModuleEntry &m) { return m.path.rfind("/tmp/perf-", 0) == 0; });
    if (g_sent.empty() || jit || c[0] != g_adds || c[1] != g_subs) {
        send_modules_or_rescan(true, false);
        return;
    }
    send_table(g_sent);
}

void rescan_modules_if_unknown(bool final) {
    if (!g_unknown_seen)
        return;
    if (!final && base::monotonic_ns() - g_last_scan_ns < g_rescan_wait_ns)
        return;
    send_modules_or_rescan(false, true);
}

void note_drained_sample(const char *p, size_t n) {
    if (g_unknown_seen || n < sizeof(proto::SampleRecord))
        return;
    proto::SampleRecord r;
    std::memcpy(&r, p, sizeof r);
    size_t first = sizeof r + r.nvalues * sizeof(uint64_t);
    for (size_t i = 0; i < r.depth && first + (i + 1) * sizeof(uint64_t) <= n; ++i) {
        uint64_t pc;
        std::memcpy(&pc, p + first + i * sizeof pc, sizeof pc);
        if (!g_known.covers(pc)) {
            g_unknown_seen = true;
            return;
        }
    }
}

} // namespace cpcprof::agent
