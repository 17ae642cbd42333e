// SPDX-License-Identifier: MIT
// libcpc's error messages as cputrack and cpustat report them: the error
// handler (cpc_seterrhndlr(3CPC)) keeps the last message of each thread
// instead of printing it, and the tool prints it with its own context when
// the call turns out to have failed.
#pragma once

#include <cstdarg>
#include <string>

namespace cpcprof::tools {

// -D: messages start with the name of the libcpc function that failed.
void set_message_debug(bool on);
bool message_debug();

// A cpc_errhandler_t: keeps the message (without its trailing newlines)
// as the calling thread's last one.
void keep_message(const char *fn, int subcode, const char *fmt, va_list ap);

// The calling thread's last kept message, cleared; "" when there is none.
std::string take_message();

} // namespace cpcprof::tools
