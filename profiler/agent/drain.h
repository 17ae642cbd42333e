// SPDX-License-Identifier: MIT
// The drain thread (ordinary context): rings -> recorder.
#pragma once

#include <sys/types.h>

namespace cpcprof::agent {

void start_drain();
// The process's end: the last pass, after the drain thread's pass under
// way if any (at most kStopWaitSeconds: false when it did not end by
// then); the thread does nothing more.
inline constexpr int kStopWaitSeconds = 10;
bool finish_drain();
// Fork child: the parent's drain thread does not exist here.
void drain_forget_thread();
// One pass over every slot; final = at exit or exec: slots are not freed,
// and the handler costs are sent (--stats).  Safe from any thread.
void drain_once(bool final);
// drain_once's pass, for a caller that holds the drain lock.
void drain_locked(bool final);
void send_thread_now(pid_t tid);
void send_modules_now();

} // namespace cpcprof::agent
