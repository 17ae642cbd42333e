// SPDX-License-Identifier: MIT
// A recording whose file stops taking writes (a full disk): the recorder
// says so at once, stores nothing more but keeps draining the channel so
// that the program is never blocked, and counts every sample the file
// lacks as dropped, in the file if it can still take that row.
#include "profiler/record/record_session.h"

#include <cstdio>

namespace cpcprof::record {

void Session::commit() {
    if (!storing_)
        return;
    if (w_.commit()) {
        for (auto &[pid, proc] : procs_) {
            proc.committed.add(proc.pending);
            proc.pending = {};
        }
        return;
    }
    check_writer();
}

void Session::check_writer() {
    if (!storing_ || w_.ok())
        return;
    // The open batch is lost with the failure: what is in the file is
    // what the last commit left (Proc::committed).
    storing_ = false;
    sum_.write_error = w_.error();
    std::fprintf(stderr,
                 "cpcprof record: writing %s failed: %s; recording stopped: the program runs on "
                 "unrecorded, and the samples it sends are counted as dropped\n",
                 output_.c_str(), sum_.write_error.c_str());
}

// Per process, the file's accounting is brought up to what the agent
// reported: the samples the file holds without their account message as
// stored, everything else taken since as dropped, so that the file's
// taken == stored + dropped holds and `check` does not claim 0 dropped.
void Session::count_lost() {
    reserve_.release();
    w_.resume_after_failure();
    uint64_t arrived = sum_.stored, stored = 0;
    for (auto &[pid, proc] : procs_) {
        const Tally &c = proc.committed;
        uint64_t unaccounted = c.samples > c.stored ? c.samples - c.stored : 0;
        uint64_t taken = proc.reported_taken > c.taken ? proc.reported_taken - c.taken : 0;
        if (taken < unaccounted)
            taken = unaccounted; // every sample in the file was taken
        if (taken != 0)
            w_.add_accounting(pid, {taken, unaccounted, taken - unaccounted});
        stored += c.samples;
    }
    sum_.lost = arrived - stored;
    sum_.stored = stored;
    sum_.dropped = sum_.taken > stored ? sum_.taken - stored : 0;
    sum_.lost_counted = w_.commit();
}

} // namespace cpcprof::record
