// SPDX-License-Identifier: MIT
#include "profiler/record/period_bounds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace cpcprof::record {

namespace {

std::string us(double ns) {
    char buf[32];
    if (ns < 1000)
        std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    else
        std::snprintf(buf, sizeof buf, ns < 10000 ? "%.1f us" : "%.0f us", ns / 1000);
    return buf;
}

} // namespace

std::optional<uint64_t> kernel_max_sample_rate() {
    std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
    uint64_t v = 0;
    if (!(in >> v) || v == 0)
        return std::nullopt;
    return v;
}

bool check_frequency(uint64_t hz, std::optional<uint64_t> max_rate, std::string *error) {
    if (!max_rate || hz <= *max_rate)
        return true;
    *error = "-F " + std::to_string(hz) + ": maximum frequency rate (" + std::to_string(*max_rate) +
             " Hz) exceeded; use -F with a lower value, or raise "
             "/proc/sys/kernel/perf_event_max_sample_rate";
    return false;
}

bool check_clock_period(const std::string &event, uint64_t period_ns, bool from_freq,
                        std::optional<uint64_t> max_rate,
                        const std::function<std::optional<OverflowCost>(std::string *)> &measure,
                        std::string *error, std::string *warning) {
    if (period_ns >= kMeasureBelowNs)
        return true;
    // What the kernel delivers at most.
    double floor = double(kKernelMinClockPeriodNs);
    std::string why = "the kernel fires " + event + " at most every " + us(floor);
    if (max_rate && 1e9 / double(*max_rate) > floor) {
        floor = 1e9 / double(*max_rate);
        why = "the kernel samples at most " + std::to_string(*max_rate) +
              " times a second (/proc/sys/kernel/perf_event_max_sample_rate)";
    }
    // What this machine sustains: the round trip at most half the CPU.
    std::string measure_error;
    std::optional<OverflowCost> cost = measure(&measure_error);
    if (!cost) {
        *error = "cannot tell whether a " + event + " period of " + us(double(period_ns)) +
                 " can be sampled here: " + measure_error;
        return false;
    }
    double sustained = 1e9 / sustainable_rate(*cost);
    if (sustained > floor) {
        floor = sustained;
        why = "one overflow costs " + us(cost->ns_per_overflow) +
              " of CPU time on this machine (measured), so sampling would take more than "
              "half of the program's CPU";
    }
    uint64_t lowest = static_cast<uint64_t>(std::ceil(floor / 1000)) * 1000;
    if (period_ns >= lowest) {
        double share = cost->ns_per_overflow / double(period_ns);
        if (warning != nullptr && share > kWarnAboveShare) {
            double cheap = std::ceil(cost->ns_per_overflow / kWarnAboveShare / 1000) * 1000;
            *warning = "one overflow costs " + us(cost->ns_per_overflow) +
                       " of CPU time on this machine (measured): at a period of " +
                       us(double(period_ns)) + " sampling takes about " +
                       std::to_string(std::lround(share * 100)) +
                       "% of the program's CPU time, which runs that much slower (its samples "
                       "per CPU-second stay right); periods of " +
                       us(cheap) + " and up cost under " +
                       std::to_string(int(kWarnAboveShare * 100)) + "%";
        }
        return true;
    }
    std::string asked = from_freq ? "-F " + std::to_string(1000000000 / period_ns) + " (a " +
                                        event + " period of " + us(double(period_ns)) + ")"
                                  : "a " + event + " period of " + us(double(period_ns));
    *error = asked + " is too short: " + why + "; the lowest period accepted here is " +
             us(double(lowest)) + " (-c " + std::to_string(lowest) + ", or -F " +
             std::to_string(1000000000 / lowest) + " at most)";
    return false;
}

} // namespace cpcprof::record
