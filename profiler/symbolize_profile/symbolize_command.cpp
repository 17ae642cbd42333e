// SPDX-License-Identifier: MIT
// `cpcprof symbolize FILE [--debug-dir DIR]... [--kallsyms FILE]`
#include "base/args.h"
#include "profiler/symbolize_profile/symbolize_profile.h"

#include <cstdio>
#include <filesystem>

namespace cpcprof::symbolize_profile {
namespace {

const char kUsage[] = "usage: cpcprof symbolize FILE [--debug-dir DIR]... [--kallsyms FILE]\n"
                      "\n"
                      "Resolves the code addresses of a recorded profile to functions, inline\n"
                      "chains and file:line again, replacing what the file held (cpcprof record\n"
                      "does it when it ends; run this after installing debug symbols).  Prints\n"
                      "what it did on stderr.\n"
                      "\n"
                      "  --debug-dir DIR  also look for separate debug files in DIR (by build-id:\n"
                      "                   DIR/.build-id/xx/rest.debug, and by .gnu_debuglink),\n"
                      "                   before /usr/lib/debug; may be repeated\n"
                      "  --kallsyms FILE  name kernel frames from FILE, a copy of /proc/kallsyms\n"
                      "                   taken during the recording's boot (default\n"
                      "                   /proc/kallsyms)\n"
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
    base::ArgWalk walk{
        .program = "cpcprof symbolize",
        .valued = {"--debug-dir", "--kallsyms"},
        .value =
            [&](const std::string &option, const std::string &value) {
                if (option == "--kallsyms") {
                    options.kallsyms = value;
                    return true;
                }
                // libdwfl looks up build-ids under absolute directories only.
                std::error_code ec;
                std::filesystem::path absolute = std::filesystem::absolute(value, ec);
                options.debug_dirs.push_back(ec ? value : absolute.string());
                return true;
            },
        .operand =
            [&](const std::string &a) {
                files.push_back(a);
                return true;
            },
        .missing =
            [](const std::string &option) {
                usage_error(option == "--kallsyms" ? "--kallsyms needs a file"
                                                   : "--debug-dir needs a directory");
            },
        .unknown = [](const std::string &a) { usage_error("unknown option " + a); },
        .dash_is_option = true}; // not standard input: the file is rewritten in place
    if (int r = base::walk_args(walk, args); r <= 0) {
        if (r == 0)
            std::fputs(kUsage, stdout);
        return r == 0 ? 0 : 2;
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
