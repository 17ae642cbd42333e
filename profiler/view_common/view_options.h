// SPDX-License-Identifier: MIT
// What every command that reads a profile shares (report, annotate,
// flamegraph, export, diff): the profile argument, the filter options and
// opening the file.
//
//   --pid PID  --tid TID     keep one process's / thread's samples
//   --cpu N                  keep the samples taken on processor N
//   --time START,END         keep samples in [START, END) seconds since the
//                            run's start; either side may be empty
//   --event NAME             the event that weighs samples (default: the
//                            sampling event, the run's first)
//   --no-inline              inlined calls fold into their caller
//
// Errors are "cpcprof CMD: ..." lines on stderr; usage errors exit 2,
// files that cannot be read exit 1.
#pragma once

#include "base/args.h"
#include "profiler/analysis/query.h"

#include <memory>
#include <string>
#include <vector>

namespace cpcprof::view {

inline constexpr const char kDefaultProfile[] = "out.cpcprof";

// Exit statuses shared by the viewing commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1; // a file refused or unreadable, an output not written
inline constexpr int kExitUsage = 2;

struct ViewOptions {
    analysis::QueryFilter filter;
    std::string event; // empty: the run's first event
};

// Tries args[*i] (and its value, args[*i + 1]) as one of the options
// above.  Returns 1 if it was one (and advances *i past its value), 0 if
// it is not one of them, -1 on a bad value (message printed as "cpcprof
// cmd: ...").
int parse_view_option(const char *cmd, const std::vector<std::string> &args, size_t *i,
                      ViewOptions *out);

// A viewing command's whole argument list: base::walk_args with the
// options above taken into *out first (then walk.shared's, if any); on -h
// or --help, usage (a printf format whose %s is kViewOptionsHelp) is
// printed on stdout.  Returns what walk_args returns (1 parsed, 0 help
// printed, -1 usage error printed).
int walk_view_args(const char *cmd, base::ArgWalk walk, ViewOptions *out, const char *usage,
                   const std::vector<std::string> &args);

// --top N's value (a number of rows, 0 = all) into *top; false after
// "PROGRAM: --top 'V': expected a number of rows (0 = all)".
bool parse_top(const char *program, const std::string &value, size_t *top);

// The help text of those options, for a command's --help.
extern const char kViewOptionsHelp[];

// Opens path with the filter; prints "cpcprof cmd: reason" and returns
// nullptr when refused, and when the profile has no events (the recording
// stopped before it began).  Says on stderr, in `cpcprof check`'s words,
// when the accounting does not balance or disagrees with the samples
// stored ("cpcprof cmd: path: warning: ..."), when the profile was never
// symbolized or when modules reached by the kept samples lack symbols.
std::unique_ptr<analysis::Query> open_profile(const char *cmd, const std::string &path,
                                              const ViewOptions &options);

// A viewing command's profile once its arguments are read: parsed is 1
// when they were (walk_view_args's value, or -1 after the command's own
// checks refused them).  Returns the Query, or nullptr with *status the
// status to end with: kExitOk after help, kExitUsage after a usage error,
// kExitFailed when open_profile refused the file.
std::unique_ptr<analysis::Query> open_parsed(const char *cmd, int parsed, const std::string &path,
                                             const ViewOptions &options, int *status);

// The event index options.event names in q; prints the known events and
// returns -1 when there is no such event.
int pick_event(const char *cmd, const analysis::Query &q, const ViewOptions &options);

// When q kept no sample, says "cpcprof cmd: no samples in the profile;
// consequence" (or "no samples pass the filter; ...") on stderr and
// returns true.
bool warn_no_samples(const char *cmd, const analysis::Query &q, const char *consequence);

// Writes text to path atomically: a temporary file in the same directory,
// renamed over path once complete.  "-" writes to stdout.  false with a
// message "cpcprof cmd: path: reason" on failure (nothing is left).
bool write_output(const char *cmd, const std::string &path, const std::string &text);

} // namespace cpcprof::view
