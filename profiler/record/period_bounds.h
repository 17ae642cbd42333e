// SPDX-License-Identifier: MIT
// Sampling rates and periods bounded by what the kernel and this machine
// can deliver, with perf's kind of message, before the target starts.
#pragma once

#include "profiler/record/signal_cost.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace cpcprof::record {

// The kernel's bound on sampling rates (Hz): the number in
// /proc/sys/kernel/perf_event_max_sample_rate (which the kernel itself
// lowers when its sampling interrupts take too long); nullopt where it
// cannot be read.
std::optional<uint64_t> kernel_max_sample_rate();

// -F HZ against that bound.
bool check_frequency(uint64_t hz, std::optional<uint64_t> max_rate, std::string *error);

// The kernel runs the cpu-clock and task-clock timers at most every 10 us
// (kernel/events/core.c, perf_swevent_start_hrtimer): a shorter period is
// silently made 10 us.
constexpr uint64_t kKernelMinClockPeriodNs = 10 * 1000;
// Periods at least this long are accepted without measuring anything.
constexpr uint64_t kMeasureBelowNs = 100 * 1000;

// The sampling period of a cpu-clock or task-clock event (ns): refused
// when shorter than the kernel can deliver (the timer's 10 us, the
// maximum sample rate) or than twice the overflow round trip measured on
// this machine (`measure` is called only for periods below
// kMeasureBelowNs).  The message names the lowest period accepted.
// from_freq: the period came from -F (the message then speaks of -F).
// An accepted period whose measured round trips take more than
// kWarnAboveShare of the program's CPU sets *warning (when not null): the
// program runs that much slower, its samples per CPU-second stay right.
bool check_clock_period(const std::string &event, uint64_t period_ns, bool from_freq,
                        std::optional<uint64_t> max_rate,
                        const std::function<std::optional<OverflowCost>(std::string *)> &measure,
                        std::string *error, std::string *warning = nullptr);
constexpr double kWarnAboveShare = 0.10;

} // namespace cpcprof::record
