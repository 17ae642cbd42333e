// SPDX-License-Identifier: MIT
// Command-line parsing shared by the subcommands: numbers taken whole from
// an argument, and the walk over a subcommand's argument list with its
// "PROGRAM: ..." usage errors on stderr.  Not for signal context.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::base {

// A whole number in [min, max] that is all of text (strtoll(3), base 10:
// leading blanks and a sign are taken as strtoll takes them); nothing for
// empty text, trailing characters, overflow or a number out of range.
std::optional<long long> parse_whole(const char *text, long long min, long long max);
inline std::optional<long long> parse_whole(const std::string &text, long long min, long long max) {
    return parse_whole(text.c_str(), min, max);
}

// A finite number that is all of text (strtod(3) syntax); nothing for empty
// text, trailing characters, out of range (ERANGE), infinity or NaN.
std::optional<double> parse_real(const char *text);
inline std::optional<double> parse_real(const std::string &text) {
    return parse_real(text.c_str());
}

// What a getopt(3)-style tool's parser returns: the options, or why the
// command line is wrong.
template <typename Options> struct ParsedArgs {
    bool ok = false;
    Options opts;
    std::string error; // why the command line is wrong, when !ok

    static ParsedArgs failure(std::string why) {
        ParsedArgs a;
        a.error = std::move(why);
        return a;
    }
};

// Prints "PROGRAM: " and the printf(3)-formatted message, then a newline,
// on stderr; returns false (so that `return usage_error(...)` ends a
// parser's step).
bool usage_error(const char *program, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Prints "PROGRAM: MESSAGE" and a newline on stderr, then `then` as it is
// (a usage text, or a hint such as "(cpcprof export --help for usage)\n");
// returns 2, the exit status of a usage error.
int usage_error_then(const char *program, std::string_view message, const char *then);

// getopt(3)'s complaint, given what it returned (':' for a missing value,
// '?' otherwise, with ":" first in its option string) and optopt:
// "option -X needs a value" or "unknown option -X".
std::string getopt_error(int returned, int optopt);

// How a cpcprof subcommand reads its arguments ("cpcprof report FILE --top
// 5"): every argument in order; -h or --help stops the walk.  Written with
// designated initializers, naming only what the command has; the messages
// are the command's own where it says so (missing, unknown, then).
struct ArgWalk {
    const char *program = nullptr; // "cpcprof report": the prefix of every message
    // Options that take the next argument as their value.
    std::vector<std::string_view> valued = {};
    // Offered every argument first (args, index; it may take a value and
    // advance the index): 1 taken, 0 not its own, -1 a usage error that it
    // printed.  May be empty.
    std::function<int(const std::vector<std::string> &, size_t *)> shared = {};
    // One of `valued` and its value; false after printing a usage error.
    std::function<bool(const std::string &option, const std::string &value)> value = {};
    // An argument that is not an option ("-" alone is one, unless
    // dash_is_option); false after printing a usage error.
    std::function<bool(const std::string &operand)> operand = {};
    // One of `valued` given last, with no value: prints its own message
    // (the walk then fails).  Empty: "PROGRAM: OPTION needs a value".
    std::function<void(const std::string &option)> missing = {};
    // An argument that looks like an option ("-x", "--xyz") and is none of
    // the above: prints its own message (the walk then fails).  Empty:
    // "PROGRAM: unknown option 'X' (PROGRAM --help lists them)".
    std::function<void(const std::string &option)> unknown = {};
    // "-" alone is an option (an unknown one), not an operand.
    bool dash_is_option = false;
    // "--" ends the options: every argument after it is an operand.
    bool dash_dash_ends_options = false;
    // The first operand ends the options: it and every argument after it
    // are operands (a command and its arguments, as `cpcprof record` takes).
    bool operand_ends_options = false;
    // Where the walk's own messages go, without "PROGRAM: " and `then`,
    // instead of stderr (the callbacks then write theirs there too).
    std::string *error = nullptr;
    // Printed as it is after each message of the walk's own (a hint such as
    // "(cpcprof export --help for usage)\n"); with it, an unknown option's
    // message leaves out "(PROGRAM --help lists them)".  nullptr: nothing.
    const char *then = nullptr;
};

// Walks args with walk: 1 all taken; 0 -h or --help was seen (the caller
// prints its help); -1 a usage error was printed ("PROGRAM: X needs a
// value", "PROGRAM: unknown option 'X' (PROGRAM --help lists them)", or
// what a callback printed).  -h and --help are seen anywhere but as the
// value of an option in `valued`, or after "--" when that ends the options.
int walk_args(const ArgWalk &walk, const std::vector<std::string> &args);

} // namespace cpcprof::base
