// SPDX-License-Identifier: MIT
// `cpcprof export [FILE] --format folded|pprof|speedscope [-o OUT]
// [filter options]`: the profile in a format other tools read
// (export_formats.h): folded stacks for flamegraph.pl and inferno, pprof's
// gzipped profile.proto for pprof, Pyroscope and Parca, speedscope's JSON.
//
// FILE defaults to out.cpcprof; OUT to stdout ("-"), except that gzipped
// pprof data is not written to a terminal.  Without --format, OUT's name
// picks it (.folded/.collapsed, .pb.gz/.pb, .json).  Files are written
// whole or not at all (temporary file, renamed).
//
// Exit status: 0 written, 1 the profile was refused or the output could
// not be written, 2 usage error (unknown option or format, bad value,
// unknown event).
#pragma once

#include <string>
#include <vector>

namespace cpcprof::exporter {

int export_main(const std::vector<std::string> &args);

} // namespace cpcprof::exporter
