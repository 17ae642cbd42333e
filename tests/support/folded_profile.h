// SPDX-License-Identifier: MIT
// A real .cpcprof made from folded-stack text, for in-process tests of
// what reads profiles (storage's Query and CallTree, the viewer's models).
// The file goes through storage's Writer and SymbolWriter exactly as a
// recording and `cpcprof symbolize` would write it, so what a test reads
// back is what the readers see in a real profile.
//
//   std::string path = make_folded_profile(dir, {"main;a;b 10", "main;c 5"});
//
// A line:   [cpuN/][TID:][...;]FRAME;FRAME;... COUNT [VALUE...]
//   FRAME   root first, as in flame graph tools' folded stacks:
//           NAME[:LINE][[inline]]  a function of the program, /opt/prog
//                                  unless make_folded_profile says (source file
//                                  /src/folded.c, line LINE or unknown);
//                                  [inline]: inlined into the frame before it
//           MODULE+0xHEX           code at offset HEX of /lib/MODULE, a
//                                  module without symbols (Query names it
//                                  "MODULE+0xHEX")
//   ...;    the stack was cut short (truncated): its first frame is no root
//   cpuN/   the samples were taken on processor N; not known when left out
//   TID:    the thread (pid 100; named "t<TID>"); 100 when left out
//   COUNT   how many samples have this stack
//   VALUE   each sample's value of every event, in events' order (all of
//           them or none); none: the sampling event's period, 0 for the others
// Samples are 1 ms apart from the run's start, in the order of the lines.
// Blank lines and lines starting with '#' are skipped.
//
// Independent of any test framework: a line it cannot read throws
// std::invalid_argument naming the line and the problem; a storage failure
// throws std::runtime_error with storage's message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::test {

// An event of the run: the first samples every `period` occurrences; the
// others are counted (period 0).
struct FoldedEvent {
    std::string name;
    uint64_t period = 0;
};

// Writes dir/name (which must not exist) from lines; returns its path.
// program: the path of the profiled program, whose functions the NAME
// frames are (its own module; an absolute path, not under /lib).
std::string make_folded_profile(const std::string &dir, const std::vector<std::string> &lines,
                                const std::vector<FoldedEvent> &events = {{"cycles", 1000}},
                                const std::string &name = "folded.cpcprof",
                                const std::string &program = "/opt/prog");

} // namespace cpcprof::test
