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

} // namespace cpcprof::agent
