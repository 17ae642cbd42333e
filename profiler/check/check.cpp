// SPDX-License-Identifier: MIT
#include "profiler/check/check.h"

#include "base/args.h"

#include "storage/file_problems.h"
#include "storage/profile.h"
#include "storage/sample_values.h"

#include "profiler/analysis/accounting_text.h"

#include <cstdio>
#include <map>

namespace cpcprof::check {
namespace {

using storage::Reader;
using storage::StoredSample;

const char kUsage[] = "usage: cpcprof check FILE...\n"
                      "\n"
                      "Verifies profiles: SQLite integrity, format version and schema, the\n"
                      "stack and symbol tables, sample accounting (taken = stored + dropped per\n"
                      "process and in total) and every sample's references.  Prints one line\n"
                      "per problem, or \"FILE: ok: ...\" with what the file holds and its\n"
                      "format version (older versions are read by migration, never written).\n"
                      "\n"
                      "Exit status: 0 all files are sound, 1 problems were found, 2 usage error.\n";

// "recording finished", "recording unfinished" (the recorder stopped
// without a word: killed), or cut short and why.
std::string recording_state(const Reader &r) {
    if (r.complete())
        return "recording finished";
    if (auto why = r.cut_short())
        return "recording cut short: " + *why;
    return "recording unfinished";
}

std::string count(uint64_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "format version 4", and for an older file how it is read: "format
// version 2 (read by migration; this cpcprof writes 4)".
std::string format_text(const storage::FileFormat &f) {
    std::string text = "format version " + std::to_string(f.version);
    if (f.version == storage::format_version() && f.form.empty())
        return text;
    text += " (";
    if (!f.form.empty())
        text += f.form + "; ";
    return text + "read by migration; this cpcprof writes " +
           std::to_string(storage::format_version()) + ")";
}

class FileCheck {
  public:
    FileCheck(const std::string &path, const Reader &r) : path_(path), r_(r) {}

    void run(std::vector<std::string> *problems) {
        problems_ = problems;
        // Reader::open has run PRAGMA integrity_check: a damaged file did
        // not open.
        for (const std::string &p : storage::accounting_problems(r_))
            problem(p);
        if (r_.run().events.empty() && r_.sample_count() > 0)
            problem("no events, though it holds " + std::to_string(r_.sample_count()) +
                    " samples: the list of what was sampled is missing, so they cannot be "
                    "weighed");
        samples();
        stored_counts();
    }

  private:
    void problem(const std::string &what) { problems_->push_back(path_ + ": " + what); }

    void samples() {
        size_t events = r_.run().events.size();
        uint64_t bad = 0, ordinal = 0, impossible = 0;
        std::string first_impossible;
        std::string error;
        bool read = r_.for_each_sample_checked(
            [&](const StoredSample &s) {
                ++ordinal;
                if (s.values.size() != events)
                    ++value_counts_[s.values.size()];
                std::string why = storage::impossible_values(r_.run(), s.values);
                if (!why.empty() && impossible++ == 0)
                    first_impossible = "sample " + std::to_string(ordinal) + " (pid " +
                                       std::to_string(s.pid) + ", tid " + std::to_string(s.tid) +
                                       "): " + why;
            },
            [&](const std::string &what) {
                if (++bad <= kMaxSampleProblems)
                    problem("inconsistent: " + what);
            },
            &error, Reader::Frames::skip);
        if (bad > kMaxSampleProblems)
            problem("... and " + count(bad - kMaxSampleProblems, "more inconsistent sample",
                                       "more inconsistent samples"));
        if (!read)
            problem(error);
        scanned_ = read && bad == 0;
        if (impossible != 0)
            problem(count(impossible, "sample has", "samples have") +
                    " values no recording produces; the first, " + first_impossible);
        for (const auto &[n, samples] : value_counts_)
            problem(storage::value_count_problem(samples, n, events));
    }

    // Every sample that reached the recorder was stored: a finished file
    // holds exactly the accounting's stored count per process.
    void stored_counts() {
        auto per_pid = r_.samples_per_process();
        if (!scanned_ || !per_pid)
            return;
        for (const std::string &p : storage::stored_count_problems(r_, *per_pid))
            problem(p);
    }

    const std::string &path_;
    const Reader &r_;
    std::vector<std::string> *problems_ = nullptr;
    std::map<size_t, uint64_t> value_counts_; // wrong number of values -> samples
    bool scanned_ = false;
};

} // namespace

FileReport check_file(const std::string &path) {
    FileReport report;
    std::string error;
    auto r = Reader::open(path, &error);
    if (!r) {
        report.problems.push_back(error); // "PATH: reason"
        return report;
    }
    FileCheck(path, *r).run(&report.problems);
    if (report.problems.empty()) {
        std::string stacks;
        if (auto complete = r->complete_stack_samples())
            stacks =
                analysis::complete_stacks_text(*complete, r->sample_count(), r->run().call_graph);
        report.summary =
            path + ": ok: " + count(r->sample_count(), "sample", "samples") + ", " +
            count(r->processes().size(), "process", "processes") + ", " +
            count(r->threads().size(), "thread", "threads") + ", " + recording_state(*r) + ", " +
            (r->symbolized() ? "symbolized" : "not symbolized") +
            analysis::losses_text(r->accounting_total()) + (stacks.empty() ? "" : ", " + stacks) +
            (r->run().counters.empty() ? "" : ", counters " + r->run().counters) + ", " +
            format_text(r->file_format());
    }
    return report;
}

int check_main(const std::vector<std::string> &args) {
    std::vector<std::string> files;
    base::ArgWalk walk{.program = "cpcprof check",
                       .operand =
                           [&](const std::string &a) {
                               files.push_back(a);
                               return true;
                           },
                       .unknown =
                           [](const std::string &a) {
                               std::fprintf(stderr, "cpcprof check: unknown option '%s'\n%s",
                                            a.c_str(), kUsage);
                           },
                       .dash_dash_ends_options = true};
    if (int r = base::walk_args(walk, args); r <= 0) {
        if (r == 0)
            std::fputs(kUsage, stdout);
        return r == 0 ? 0 : 2;
    }
    if (files.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    bool sound = true;
    for (const std::string &f : files) {
        FileReport report = check_file(f);
        for (const std::string &p : report.problems)
            std::printf("%s\n", p.c_str());
        if (report.problems.empty())
            std::printf("%s\n", report.summary.c_str());
        sound = sound && report.problems.empty();
    }
    std::fflush(stdout);
    return sound ? 0 : 1;
}

} // namespace cpcprof::check
