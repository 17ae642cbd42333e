// SPDX-License-Identifier: MIT
// The command line's progress of debuginfod lookups that take longer than
// a second (symbolize/debuginfod.h): on a terminal one line rewritten in
// place, elsewhere a line at 1 s and every 10 s after, naming the file
// sought, the server and the bytes.  `cpcprof symbolize` and `cpcprof
// annotate` print them.
#pragma once

#include "symbolize/debuginfod.h"

#include <string>

namespace cpcprof::symbolize_profile {

class FetchProgressLines {
  public:
    // servers: named while none has answered; bound: how long it may take
    // and how to stop it ("up to 120 s in all, --debuginfod-wait; ...").
    FetchProgressLines(std::string servers, std::string bound);
    ~FetchProgressLines();
    FetchProgressLines(const FetchProgressLines &) = delete;
    FetchProgressLines &operator=(const FetchProgressLines &) = delete;

    void operator()(const symbolize::FetchProgress &p);
    // Ends a line left open on a terminal.
    void end_line();

  private:
    std::string servers_, bound_;
    bool tty_;
    bool open_line_ = false;
    std::string what_;
    double next_s_ = 0;
};

} // namespace cpcprof::symbolize_profile
