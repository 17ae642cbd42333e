// SPDX-License-Identifier: MIT
// `cpcprof symbolize FILE [--debug-dir DIR]...`
#include "base/args.h"
#include "profiler/symbolize_profile/symbolize_profile.h"

#include <cstdio>
#include <filesystem>

namespace cpcprof::symbolize_profile {
namespace {

const char kUsage[] = "usage: cpcprof symbolize FILE [--debug-dir DIR]...\n"
                      "\n"
                      "Resolves the code addresses of a recorded profile to functions, inline\n"
                      "chains and file:line again, replacing what the file held (cpcprof record\n"
                      "does it when it ends; run this after installing debug symbols).  Prints\n"
                      "what it did on stderr.\n"
                      "\n"
                      "  --debug-dir DIR  also look for separate debug files in DIR (by build-id:\n"
                      "                   DIR/.build-id/xx/rest.debug, and by .gnu_debuglink),\n"
                      "                   before /usr/lib/debug; may be repeated\n"
                      "\n"
                      "Exit status: 0 done, 1 the file was refused or could not be written,\n"
                      "2 usage error.\n";

int usage_error(const std::string &what) {
    return base::usage_error_then("cpcprof symbolize", what, kUsage);
}

} // namespace

int symbolize_main(const std::vector<std::string> &args) {
    Options options;
    std::vector<std::string> files;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--debug-dir") {
            if (i + 1 >= args.size())
                return usage_error("--debug-dir needs a directory");
            // libdwfl looks up build-ids under absolute directories only.
            std::error_code ec;
            std::filesystem::path dir = std::filesystem::absolute(args[++i], ec);
            options.debug_dirs.push_back(ec ? args[i] : dir.string());
        } else if (!a.empty() && a[0] == '-') {
            return usage_error("unknown option " + a);
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 1)
        return usage_error(files.empty() ? "no file given" : "one file at a time");
    std::string error;
    auto summary = symbolize_profile(files[0], options, &error);
    if (!summary) {
        std::fprintf(stderr, "cpcprof symbolize: %s\n", error.c_str());
        return 1;
    }
    std::fprintf(stderr, "cpcprof: %s: %s\n", files[0].c_str(), describe(*summary).c_str());
    return 0;
}

} // namespace cpcprof::symbolize_profile
