// Profiles built from folded-stack text for the viewer's model tests:
//   "main;a;b 10 5"   one sample, frames root first, one value per event.
// Every distinct name becomes a function of the module /opt/folded with
// its own address (symbolized: name, /src/folded.c, line = its number in
// order of appearance); samples are complete, of pid 300 / tid 300, 1 ms
// apart.  A frame written "name[i]" is an inlined call.
#pragma once

#include "storage/records.h"

#include <string>
#include <vector>

namespace cpcprof::guitest {

// The events of a fixture: the first samples (every sample's value of it
// must be its period, as a recording's are), the others count.
std::vector<storage::EventInfo> folded_events(const std::vector<std::string> &names,
                                              uint64_t period = 10);

// Writes the profile; fails the test (ASSERT) on a malformed line or a
// storage error.
void write_folded_profile(const std::string &path, const std::vector<storage::EventInfo> &events,
                          const std::string &folded);

// A fresh directory under $TMPDIR; removed by the caller.
std::string make_temp_dir();

} // namespace cpcprof::guitest
