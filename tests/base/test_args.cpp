// SPDX-License-Identifier: MIT
// The command-line helpers: numbers taken whole or refused, getopt's
// complaints, and the walk over a subcommand's arguments with its errors.
#include "base/args.h"

#include <gtest/gtest.h>

#include <climits>

using namespace cpcprof::base;
using testing::internal::CaptureStderr;
using testing::internal::GetCapturedStderr;

TEST(ParseWhole, TakesAWholeNumberInRange) {
    EXPECT_EQ(parse_whole("12", 0, 100), 12);
    EXPECT_EQ(parse_whole(std::string("0"), 0, 100), 0);
    EXPECT_EQ(parse_whole("100", 0, 100), 100);
    EXPECT_EQ(parse_whole("-5", -10, 10), -5);
    EXPECT_EQ(parse_whole("9223372036854775807", 0, LLONG_MAX), LLONG_MAX);
}

TEST(ParseWhole, RefusesAnythingElse) {
    for (const char *bad : {"", " ", "x", "12x", "1.5", "0x10", "1 "})
        EXPECT_FALSE(parse_whole(bad, LLONG_MIN, LLONG_MAX)) << "'" << bad << "'";
    EXPECT_FALSE(parse_whole("99999999999999999999", 0, LLONG_MAX)); // ERANGE
    EXPECT_FALSE(parse_whole("101", 0, 100));
    EXPECT_FALSE(parse_whole("-1", 0, 100));
    EXPECT_FALSE(parse_whole("0", 1, 100));
    EXPECT_FALSE(parse_whole(static_cast<const char *>(nullptr), 0, 1));
}

TEST(ParseReal, TakesAFiniteNumber) {
    EXPECT_DOUBLE_EQ(*parse_real("0.5"), 0.5);
    EXPECT_DOUBLE_EQ(*parse_real("1e3"), 1000.0);
    EXPECT_DOUBLE_EQ(*parse_real(std::string("-2")), -2.0);
    EXPECT_DOUBLE_EQ(*parse_real("7"), 7.0);
}

TEST(ParseReal, RefusesAnythingElse) {
    for (const char *bad : {"", " ", "x", "1.5s", "inf", "-inf", "nan", "1e999", "1,5"})
        EXPECT_FALSE(parse_real(bad)) << "'" << bad << "'";
}

TEST(GetoptError, SaysWhatGetoptFound) {
    EXPECT_EQ(getopt_error(':', 'T'), "option -T needs a value");
    EXPECT_EQ(getopt_error('?', 'z'), "unknown option -z");
}

TEST(UsageError, PrintsTheProgramAndTheMessage) {
    CaptureStderr();
    EXPECT_FALSE(usage_error("prog sub", "--x '%s': bad (%d)", "v", 3));
    EXPECT_EQ(GetCapturedStderr(), "prog sub: --x 'v': bad (3)\n");
}

namespace {

// What a walk saw, in order: "value OPT=V", "operand X", "shared X".
struct Seen {
    std::vector<std::string> events;
    bool value_ok = true;
    bool operand_ok = true;
    int shared_result = 0; // for "--shared": 1 takes it and its value
};

ArgWalk walk_for(Seen *seen) {
    return ArgWalk{"prog sub",
                   {"--top", "-o"},
                   [seen](const std::vector<std::string> &args, size_t *i) {
                       if (args[*i] != "--shared")
                           return 0;
                       if (seen->shared_result > 0) {
                           seen->events.push_back("shared " + args[*i + 1]);
                           ++*i;
                       }
                       return seen->shared_result;
                   },
                   [seen](const std::string &opt, const std::string &v) {
                       seen->events.push_back("value " + opt + "=" + v);
                       return seen->value_ok;
                   },
                   [seen](const std::string &a) {
                       seen->events.push_back("operand " + a);
                       return seen->operand_ok;
                   }};
}

int walk(Seen *seen, const std::vector<std::string> &args, std::string *err) {
    CaptureStderr();
    int r = walk_args(walk_for(seen), args);
    *err = GetCapturedStderr();
    return r;
}

} // namespace

TEST(UsageErrorThen, PrintsTheMessageThenTheTextAndReturnsTwo) {
    CaptureStderr();
    int status = cpcprof::base::usage_error_then("cpcprof x", "-o needs a value", "usage: x\n");
    EXPECT_EQ(GetCapturedStderr(), "cpcprof x: -o needs a value\nusage: x\n");
    EXPECT_EQ(status, 2);
}

TEST(WalkArgs, HandsEveryArgumentOverInOrder) {
    Seen seen;
    seen.shared_result = 1;
    std::string err;
    EXPECT_EQ(walk(&seen, {"a", "--top", "5", "-", "--shared", "x", "-o", "-", "b"}, &err), 1);
    EXPECT_EQ(seen.events, (std::vector<std::string>{"operand a", "value --top=5", "operand -",
                                                     "shared x", "value -o=-", "operand b"}));
    EXPECT_EQ(err, "");
}

TEST(WalkArgs, HelpStopsTheWalk) {
    for (const char *help : {"-h", "--help"}) {
        Seen seen;
        std::string err;
        EXPECT_EQ(walk(&seen, {"a", help, "--bogus", "b"}, &err), 0);
        EXPECT_EQ(seen.events, std::vector<std::string>{"operand a"});
        EXPECT_EQ(err, "");
    }
}

TEST(WalkArgs, AnOptionWithoutItsValueIsAnError) {
    Seen seen;
    std::string err;
    EXPECT_EQ(walk(&seen, {"a", "--top"}, &err), -1);
    EXPECT_EQ(err, "prog sub: --top needs a value\n");
    EXPECT_EQ(seen.events, std::vector<std::string>{"operand a"});
}

TEST(WalkArgs, AnUnknownOptionIsAnError) {
    Seen seen;
    std::string err;
    EXPECT_EQ(walk(&seen, {"--topp", "5"}, &err), -1);
    EXPECT_EQ(err, "prog sub: unknown option '--topp' (prog sub --help lists them)\n");
    EXPECT_TRUE(seen.events.empty());
}

TEST(WalkArgs, AHintFollowsEachOfItsOwnMessages) {
    Seen seen;
    ArgWalk w = walk_for(&seen);
    w.then = "(prog sub --help for usage)\n";
    CaptureStderr();
    EXPECT_EQ(walk_args(w, {"--topp"}), -1);
    EXPECT_EQ(GetCapturedStderr(),
              "prog sub: unknown option '--topp'\n(prog sub --help for usage)\n");
    CaptureStderr();
    EXPECT_EQ(walk_args(w, {"-o"}), -1);
    EXPECT_EQ(GetCapturedStderr(), "prog sub: -o needs a value\n(prog sub --help for usage)\n");
}

TEST(WalkArgs, AMissingValueCanHaveItsOwnMessage) {
    Seen seen;
    ArgWalk w = walk_for(&seen);
    w.missing = [](const std::string &opt) {
        cpcprof::base::usage_error("prog sub", "%s needs a directory", opt.c_str());
    };
    CaptureStderr();
    EXPECT_EQ(walk_args(w, {"a", "--top"}), -1);
    EXPECT_EQ(GetCapturedStderr(), "prog sub: --top needs a directory\n");
    EXPECT_EQ(seen.events, std::vector<std::string>{"operand a"});
}

TEST(WalkArgs, AnUnknownOptionCanHaveItsOwnMessage) {
    Seen seen;
    ArgWalk w = walk_for(&seen);
    w.unknown = [](const std::string &opt) {
        cpcprof::base::usage_error("prog sub", "unknown argument '%s'", opt.c_str());
    };
    CaptureStderr();
    EXPECT_EQ(walk_args(w, {"a", "--topp", "b"}), -1);
    EXPECT_EQ(GetCapturedStderr(), "prog sub: unknown argument '--topp'\n");
    EXPECT_EQ(seen.events, std::vector<std::string>{"operand a"});
}

TEST(WalkArgs, DashDashCanEndTheOptions) {
    Seen seen;
    ArgWalk w = walk_for(&seen);
    w.dash_dash_ends_options = true;
    CaptureStderr();
    EXPECT_EQ(walk_args(w, {"--top", "1", "--", "-h", "--top", "--"}), 1);
    EXPECT_EQ(GetCapturedStderr(), "");
    EXPECT_EQ(seen.events, (std::vector<std::string>{"value --top=1", "operand -h", "operand --top",
                                                     "operand --"}));
    // Without it "--" is an unknown option.
    Seen plain;
    std::string err;
    EXPECT_EQ(walk(&plain, {"--", "a"}, &err), -1);
    EXPECT_EQ(err, "prog sub: unknown option '--' (prog sub --help lists them)\n");
}

TEST(WalkArgs, ACallbacksRefusalEndsTheWalk) {
    std::string err;
    Seen bad_value;
    bad_value.value_ok = false;
    EXPECT_EQ(walk(&bad_value, {"--top", "x", "b"}, &err), -1);
    EXPECT_EQ(bad_value.events, std::vector<std::string>{"value --top=x"});
    Seen bad_operand;
    bad_operand.operand_ok = false;
    EXPECT_EQ(walk(&bad_operand, {"a", "b"}, &err), -1);
    EXPECT_EQ(bad_operand.events, std::vector<std::string>{"operand a"});
    Seen bad_shared;
    bad_shared.shared_result = -1;
    EXPECT_EQ(walk(&bad_shared, {"--shared", "x", "b"}, &err), -1);
    EXPECT_TRUE(bad_shared.events.empty());
}

TEST(WalkArgs, NotTakenBySharedFallsThrough) {
    // shared returning 0 for "--shared": it is then an unknown option.
    Seen seen;
    std::string err;
    EXPECT_EQ(walk(&seen, {"--shared", "x"}, &err), -1);
    EXPECT_EQ(err, "prog sub: unknown option '--shared' (prog sub --help lists them)\n");
}

TEST(ParsedArgs, AFailureCarriesOnlyItsReason) {
    struct Opts {
        int n = 4;
    };
    auto a = ParsedArgs<Opts>::failure("no -c given");
    EXPECT_FALSE(a.ok);
    EXPECT_EQ(a.error, "no -c given");
    EXPECT_EQ(a.opts.n, 4); // defaults, nothing parsed
    EXPECT_FALSE(ParsedArgs<Opts>{}.ok);
}
