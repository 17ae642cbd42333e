// SPDX-License-Identifier: MIT
// Command-line parsing shared by the subcommands (base/args.h).
#include "base/args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace cpcprof::base {

std::optional<long long> parse_whole(const char *text, long long min, long long max) {
    if (text == nullptr || *text == '\0')
        return std::nullopt;
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0 || v < min || v > max)
        return std::nullopt;
    return v;
}

std::optional<double> parse_real(const char *text) {
    if (text == nullptr || *text == '\0')
        return std::nullopt;
    char *end = nullptr;
    errno = 0;
    double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !std::isfinite(v))
        return std::nullopt;
    return v;
}

bool usage_error(const char *program, const char *fmt, ...) {
    std::fprintf(stderr, "%s: ", program);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    return false;
}

int usage_error_then(const char *program, std::string_view message, const char *then) {
    std::fprintf(stderr, "%s: %.*s\n%s", program, int(message.size()), message.data(), then);
    return 2;
}

std::string getopt_error(int returned, int optopt) {
    if (returned == ':')
        return std::string("option -") + char(optopt) + " needs a value";
    return std::string("unknown option -") + char(optopt);
}

int walk_args(const ArgWalk &walk, const std::vector<std::string> &args) {
    auto fail = [&](const std::string &message) {
        if (walk.error != nullptr)
            *walk.error = message;
        else if (walk.then != nullptr)
            usage_error_then(walk.program, message, walk.then);
        else
            usage_error(walk.program, "%s", message.c_str());
        return -1;
    };
    auto operands_from = [&](size_t i) {
        for (; i < args.size(); ++i)
            if (!walk.operand(args[i]))
                return -1;
        return 1;
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (walk.dash_dash_ends_options && a == "--")
            return operands_from(i + 1);
        if (a == "-h" || a == "--help")
            return 0;
        if (walk.shared) {
            int taken = walk.shared(args, &i);
            if (taken < 0)
                return -1;
            if (taken > 0)
                continue;
        }
        if (std::find(walk.valued.begin(), walk.valued.end(), a) != walk.valued.end()) {
            if (i + 1 >= args.size()) {
                if (!walk.missing)
                    return fail(a + " needs a value");
                walk.missing(a);
                return -1;
            }
            if (!walk.value(a, args[++i]))
                return -1;
        } else if (a[0] == '-' && (a.size() > 1 || walk.dash_is_option)) {
            if (walk.unknown) {
                walk.unknown(a);
                return -1;
            }
            if (walk.then != nullptr)
                return fail("unknown option '" + a + "'");
            return fail("unknown option '" + a + "' (" + walk.program + " --help lists them)");
        } else if (walk.operand_ends_options) {
            return operands_from(i);
        } else if (!walk.operand(a)) {
            return -1;
        }
    }
    return 1;
}

} // namespace cpcprof::base
