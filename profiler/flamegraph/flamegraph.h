// SPDX-License-Identifier: MIT
// `cpcprof flamegraph [FILE] -o OUT.svg|OUT.html|- [--inverted] [--title T]
// [filter options]`: the profile as a flame graph (flame_render.h).
//
// FILE defaults to out.cpcprof.  The output's extension picks the format:
// .svg a static picture with <title> tooltips and a click-to-zoom script,
// .html (or .htm) an interactive page; "-" writes the HTML page to stdout.
// Files are written whole or not at all (temporary file, renamed).
//
// Exit status: 0 written, 1 the profile was refused or the output could
// not be written, 2 usage error (unknown option, bad value, unknown
// event, an output that is neither .svg nor .html).
#pragma once

#include <string>
#include <vector>

namespace cpcprof::flamegraph {

int flamegraph_main(const std::vector<std::string> &args);

} // namespace cpcprof::flamegraph
