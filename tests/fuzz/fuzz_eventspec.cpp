// SPDX-License-Identifier: MIT
// libFuzzer target: event specifications as users type them.  The first
// byte picks the parser: even, cputrack/cpustat's -c grammar
// (profiler/tools/eventspec.h, with a fixed list of attribute names so
// that the machine does not matter); odd, `cpcprof record`'s command line
// (profiler/record/options.h), the rest of the input split at NUL bytes
// into arguments (-e EVENT[,PERIOD], -c, -F, ...).  Either must answer
// every input with a result or an error message, never a crash.
#include "profiler/record/options.h"
#include "profiler/tools/eventspec.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
    if ((data[0] & 1) == 0) {
        static const std::vector<std::string> kAttrs = {"edge", "inv", "umask", "cmask", "any"};
        cpcprof::tools::ParseResult r = cpcprof::tools::parse_eventspec(text, kAttrs);
        if (r.ok)
            for (size_t i = 0; i < r.spec.requests.size(); ++i)
                (void)cpcprof::tools::request_label(r.spec, i);
        return 0;
    }
    std::vector<std::string> args;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == '\0') {
            args.emplace_back(text.substr(start, i - start));
            start = i + 1;
        }
    std::string error;
    (void)cpcprof::record::parse_options(args, &error);
    return 0;
}
