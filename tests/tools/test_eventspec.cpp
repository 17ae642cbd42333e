// SPDX-License-Identifier: MIT
// The event specification grammar of cputrack/cpustat, with an injected
// attribute list (an Intel-like one) so that no PMU is needed.
#include "profiler/tools/eventspec.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using cpcprof::tools::EventRequest;
using cpcprof::tools::parse_eventspec;
using cpcprof::tools::ParseResult;

const std::vector<std::string> kAttrs = {"edge", "inv", "umask", "cmask"};
constexpr uint_t kUser = CPC_COUNT_USER;
constexpr uint_t kSys = CPC_COUNT_SYSTEM;

using Attrs = std::vector<std::pair<std::string, uint64_t>>;

EventRequest req(std::string ev, int pic, int counter, uint_t flags, Attrs attrs = {}) {
    EventRequest r;
    r.event = std::move(ev);
    r.pic = pic;
    r.counter = counter;
    r.flags = flags;
    r.attrs = std::move(attrs);
    return r;
}

std::vector<EventRequest> ok(const std::string &text) {
    ParseResult r = parse_eventspec(text, kAttrs);
    EXPECT_TRUE(r.ok) << text << ": " << r.error;
    EXPECT_EQ(r.spec.text, text);
    return r.spec.requests;
}

std::string err(const std::string &text) {
    ParseResult r = parse_eventspec(text, kAttrs);
    EXPECT_FALSE(r.ok) << text;
    return r.error;
}

TEST(EventSpec, OneEventCountsUserOnly) {
    EXPECT_EQ(ok("cpu-clock"), (std::vector{req("cpu-clock", -1, 0, kUser)}));
}

TEST(EventSpec, EventsTakeCountersInOrder) {
    EXPECT_EQ(ok("cpu-clock,page-faults,cs"),
              (std::vector{req("cpu-clock", -1, 0, kUser), req("page-faults", -1, 1, kUser),
                           req("cs", -1, 2, kUser)}));
}

TEST(EventSpec, PicAssignmentAddsPicnum) {
    EXPECT_EQ(ok("pic1=cpu-clock,pic0=task-clock"),
              (std::vector{req("cpu-clock", 1, 1, kUser, {{"picnum", 1}}),
                           req("task-clock", 0, 0, kUser, {{"picnum", 0}})}));
}

TEST(EventSpec, UnpinnedEventsTakeTheLowestFreeCounters) {
    EXPECT_EQ(ok("pic0=a,b,pic2=c,d"),
              (std::vector{req("a", 0, 0, kUser, {{"picnum", 0}}), req("b", -1, 1, kUser),
                           req("c", 2, 2, kUser, {{"picnum", 2}}), req("d", -1, 3, kUser)}));
    EXPECT_EQ(ok("a,pic0=b")[0].counter, 1);
}

TEST(EventSpec, NouserAndSysWithoutNumberApplyToAll) {
    EXPECT_EQ(ok("a,b,nouser,sys"), (std::vector{req("a", -1, 0, kSys), req("b", -1, 1, kSys)}));
    EXPECT_EQ(ok("sys,a,b"),
              (std::vector{req("a", -1, 0, kUser | kSys), req("b", -1, 1, kUser | kSys)}));
    EXPECT_EQ(ok("a,nouser")[0].flags, 0u); // libcpc judges a request that counts nothing
}

TEST(EventSpec, NouserAndSysWithNumberApplyToOneCounter) {
    EXPECT_EQ(ok("pic0=a,pic1=b,nouser1,sys1"),
              (std::vector{req("a", 0, 0, kUser, {{"picnum", 0}}),
                           req("b", 1, 1, kSys, {{"picnum", 1}})}));
    EXPECT_EQ(ok("a,b,sys0")[0].flags, kUser | kSys);
    EXPECT_EQ(ok("a,b,sys0")[1].flags, kUser);
}

TEST(EventSpec, AttributeValuesInStrtollSyntax) {
    EXPECT_EQ(ok("a,umask=0x1f")[0].attrs, (Attrs{{"umask", 0x1f}}));
    EXPECT_EQ(ok("a,umask=017")[0].attrs, (Attrs{{"umask", 017}}));
    EXPECT_EQ(ok("a,umask=42")[0].attrs, (Attrs{{"umask", 42}}));
    EXPECT_EQ(ok("a,umask=0")[0].attrs, (Attrs{{"umask", 0}}));
    EXPECT_EQ(ok("a,cmask=-1")[0].attrs, (Attrs{{"cmask", UINT64_MAX}}));
    EXPECT_EQ(ok("a,cmask=+7")[0].attrs, (Attrs{{"cmask", 7}}));
}

TEST(EventSpec, AttributeWithoutValueIsOne) {
    EXPECT_EQ(ok("a,edge")[0].attrs, (Attrs{{"edge", 1}}));
    EXPECT_EQ(ok("a,b,inv1")[1].attrs, (Attrs{{"inv", 1}}));
}

TEST(EventSpec, AttributeWithoutNumberAppliesToEveryCounterWherever) {
    std::vector<EventRequest> r = ok("edge,a,b,umask=3");
    EXPECT_EQ(r[0].attrs, (Attrs{{"edge", 1}, {"umask", 3}}));
    EXPECT_EQ(r[1].attrs, (Attrs{{"edge", 1}, {"umask", 3}}));
}

TEST(EventSpec, AttributeWithNumberAppliesToThatCounter) {
    std::vector<EventRequest> r = ok("pic0=a,umask0=2,pic1=b,cmask1=0x10,edge1");
    EXPECT_EQ(r[0].attrs, (Attrs{{"picnum", 0}, {"umask", 2}}));
    EXPECT_EQ(r[1].attrs, (Attrs{{"picnum", 1}, {"cmask", 16}, {"edge", 1}}));
}

TEST(EventSpec, NumberedAttributeOverridesTheGeneralOne) {
    std::vector<EventRequest> r = ok("a,b,umask1=5,umask=1");
    EXPECT_EQ(r[0].attrs, (Attrs{{"umask", 1}}));
    EXPECT_EQ(r[1].attrs, (Attrs{{"umask", 5}}));
}

TEST(EventSpec, EventNamesKeepTheirPunctuation) {
    EXPECT_EQ(ok("MEM_LOAD_RETIRED:L3_MISS")[0].event, "MEM_LOAD_RETIRED:L3_MISS");
    EXPECT_EQ(ok("PAPI_l1_dcm,0x3c")[1].event, "0x3c");
    EXPECT_EQ(ok("pic3=inst_retired.any")[0].event, "inst_retired.any");
}

TEST(EventSpec, EmptyPieces) {
    EXPECT_EQ(err(""), "empty event specification");
    EXPECT_EQ(err("a,,b"), "empty token (two commas, or a comma at either end)");
    EXPECT_EQ(err("a,"), "empty token (two commas, or a comma at either end)");
    EXPECT_EQ(err(",a"), "empty token (two commas, or a comma at either end)");
    EXPECT_EQ(err("pic0="), "token 'pic0=': no event name after '='");
    EXPECT_EQ(err("a,=3"), "token '=3': no name before '='");
}

TEST(EventSpec, NoEvent) {
    EXPECT_EQ(err("nouser"), "no event named");
    EXPECT_EQ(err("sys,umask=1"), "no event named");
}

TEST(EventSpec, BadCounters) {
    EXPECT_EQ(err("pic0=a,pic0=b"), "token 'pic0=b': counter 0 already has an event");
    EXPECT_EQ(err("pic1"), "token 'pic1': pic1 needs =event");
    EXPECT_EQ(err("pic12345678=a"), "token 'pic12345678=a': counter number too large");
    EXPECT_EQ(err("a,sys1"), "token 'sys1': no event on counter 1");
    EXPECT_EQ(err("a,umask3=1"), "token 'umask3=1': no event on counter 3");
    EXPECT_EQ(err("a,edge99999999"), "token 'edge99999999': counter number too large");
    EXPECT_EQ(err("a,picnum=1"), "token 'picnum=1': choose a counter with picn=event");
}

TEST(EventSpec, BadValues) {
    EXPECT_EQ(err("a,umask=0xZZ"),
              "token 'umask=0xZZ': '0xZZ' is not a number (strtoll syntax: 10, 0x1f, 017)");
    EXPECT_EQ(err("a,umask="),
              "token 'umask=': '' is not a number (strtoll syntax: 10, 0x1f, 017)");
    EXPECT_EQ(err("a,umask=12abc"),
              "token 'umask=12abc': '12abc' is not a number (strtoll syntax: 10, 0x1f, 017)");
    EXPECT_EQ(err("a,umask=99999999999999999999"),
              "token 'umask=99999999999999999999': '99999999999999999999' is not a number "
              "(strtoll syntax: 10, 0x1f, 017)");
    EXPECT_EQ(err("a,sys=1"), "token 'sys=1': sys takes no value");
    EXPECT_EQ(err("a,nouser0=0"), "token 'nouser0=0': nouser takes no value");
}

TEST(EventSpec, UnknownAttributes) {
    EXPECT_EQ(err("a,frob=1"), "token 'frob=1': unknown attribute 'frob'");
    EXPECT_EQ(err("a,frob2=1"), "token 'frob2=1': unknown attribute 'frob2'");
    ParseResult r = parse_eventspec("a,edge=1", {});
    EXPECT_EQ(r.error, "token 'edge=1': unknown attribute 'edge' (this machine has none)");
    // Without the attribute known, a bare word is an event.
    EXPECT_EQ(parse_eventspec("a,edge", {}).spec.requests.size(), 2u);
}

TEST(EventSpec, AttributeTwice) {
    EXPECT_EQ(err("a,umask=1,umask=2"), "token 'umask=2': attribute umask given twice");
    EXPECT_EQ(err("a,umask0=1,umask0=2"), "token 'umask0=2': attribute umask given twice");
}

TEST(EventSpec, LabelsAreCounterNumbers) {
    ParseResult r = parse_eventspec("b,pic0=a", kAttrs);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(cpcprof::tools::request_label(r.spec, 0), "pic1");
    EXPECT_EQ(cpcprof::tools::request_label(r.spec, 1), "pic0");
}

// Against the machine: software events exist everywhere perf does.
TEST(EventSpecMachine, AddsRequestsToASet) {
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    ASSERT_NE(cpc, nullptr);
    std::vector<std::string> attrs = cpcprof::tools::spec_attr_names(cpc);
    EXPECT_EQ(std::count(attrs.begin(), attrs.end(), "picnum"), 0);
    ParseResult r = parse_eventspec("pic0=cpu-clock,page-faults,sys1", attrs);
    ASSERT_TRUE(r.ok) << r.error;
    cpc_set_t *set = cpc_set_create(cpc);
    std::vector<int> indices;
    ASSERT_EQ(cpcprof::tools::add_to_set(cpc, set, r.spec, &indices), 0);
    EXPECT_EQ(indices, (std::vector<int>{0, 1}));
    std::vector<std::string> seen;
    cpc_walk_requests(
        cpc, set, &seen,
        [](void *arg, int, const char *ev, uint64_t, uint_t flags, int, const cpc_attr_t *) {
            static_cast<std::vector<std::string> *>(arg)->push_back(std::string(ev) + ":" +
                                                                    std::to_string(flags));
        });
    // cpc_walk_requests() walks in illumos' order (newest first); only the
    // contents matter here.
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<std::string>{"cpu-clock:2", "page-faults:6"}));
    cpc_set_destroy(cpc, set);

    cpc_seterrhndlr(cpc, [](const char *, int, const char *, va_list) {});
    set = cpc_set_create(cpc);
    r = parse_eventspec("cpu-clock,no-such-event", attrs);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(cpcprof::tools::add_to_set(cpc, set, r.spec), -1);
    cpc_close(cpc);
}

} // namespace
