// SPDX-License-Identifier: MIT
// Sending messages to the recorder.  A recorder that has gone away must not
// harm the target: sends use MSG_NOSIGNAL, and the first failure disarms
// the agent (sampling stops, nothing more is sent).
//
// The channel is a descriptor in the program's own table, which the
// program may close or reuse without knowing it (daemons close every
// descriptor they did not open).  fds.cpp keeps the libc calls that would
// close it off it; a send first checks that the descriptor is still the
// recorder's socket, so that nothing is ever written into a file of the
// program's that took its number after a raw close(2).
#pragma once

#include "profiler/protocol/protocol.h"

#include <string>
#include <vector>

namespace cpcprof::agent {

// Takes fd as the channel; false when it is not a SOCK_SEQPACKET socket
// (the variable came from somewhere else, or the descriptor was lost).
bool channel_init(int fd);

// [async-signal-safe] The channel's descriptor number, -1 when none.
int channel_fd();

// Whether move_channel has moved it in this process image.
bool channel_moved();

// Sends one message; false once the recorder is gone.
bool send_message(const std::vector<char> &msg);

// Sends an error text that the recorder prints.
void send_error(const std::string &text);

bool channel_open();
void close_channel();

// Moves the channel to another descriptor number, because the program is
// about to put a file of its own at this one (dup2).  CPCPROF_CHANNEL is
// updated for the programs it starts.  False when no descriptor is free.
bool move_channel();

// Fork child, before anything is sent: the parent's drain thread may have
// held the send lock at the moment of the fork, and nothing in the child
// would ever release it.  The child, single-threaded, starts with it free.
void channel_after_fork();

} // namespace cpcprof::agent
