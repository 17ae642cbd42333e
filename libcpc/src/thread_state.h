// SPDX-License-Identifier: MIT
// The calling thread's bound set (illumos: the LWP's performance counter
// context), every live counting for fork handling, and the process id cache
// used by the overflow path.
#pragma once

#include "libcpc/src/counting.h"

#include <memory>

namespace cpc {

// [async-signal-safe] The calling thread's counting, or null.
Counting *current_counting();

// Makes c the calling thread's counting, destroying the previous one.  The
// thread owns it: it is closed when the thread exits.
void set_current_counting(std::unique_ptr<Counting> c);

// Destroys the calling thread's counting, if any.
void clear_current_counting();

// Registers a counting so that a fork child can close its descriptors.
void track_counting(Counting *c);
void untrack_counting(Counting *c);

// The error handler of cpc if it is still open and has one, else null.
cpc_errhndlr_t *error_handler_of(cpc_t *cpc);

// [async-signal-safe] getpid(), cached (refreshed in fork children).
pid_t cached_pid();

// Installs the fork handlers once.
void init_thread_state();

} // namespace cpc
