// Sending messages to the recorder.  A recorder that has gone away must not
// harm the target: sends use MSG_NOSIGNAL, and the first failure disarms
// the agent (sampling stops, nothing more is sent).
#pragma once

#include "../common/protocol.h"

#include <string>
#include <vector>

namespace cpcprof::agent {

// Sends one message; false once the recorder is gone.
bool send_message(const std::vector<char> &msg);

// Sends an error text that the recorder prints.
void send_error(const std::string &text);

bool channel_open();
void close_channel();

// Fork child, before anything is sent: the parent's drain thread may have
// held the send lock at the moment of the fork, and nothing in the child
// would ever release it.  The child, single-threaded, starts with it free.
void channel_after_fork();

} // namespace cpcprof::agent
