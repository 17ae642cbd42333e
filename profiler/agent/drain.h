// SPDX-License-Identifier: MIT
// The drain thread (ordinary context): rings -> recorder.
#pragma once

#include <sys/types.h>

namespace cpcprof::agent {

void start_drain();
// Whether the drain thread ended within kStopWaitSeconds (or none ran);
// false leaves it behind, and a drain_once would wait for its lock.
inline constexpr int kStopWaitSeconds = 10;
bool stop_drain();
// Fork child: the parent's drain thread does not exist here.
void drain_forget_thread();
// One pass over every slot; final = at exit or exec: slots are not freed,
// and the handler costs are sent (--stats).  Safe from any thread.
void drain_once(bool final);
void send_thread_now(pid_t tid);
void send_modules_now();

} // namespace cpcprof::agent
