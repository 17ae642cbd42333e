// SPDX-License-Identifier: MIT
// The -h capability text, from made-up capabilities and from this machine.
#include "profiler/tools/caps.h"
#include "tests/support/files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace {

using cpcprof::tools::Capabilities;
using cpcprof::tools::format_capabilities;

// Display width of a line, a tab moving to the next multiple of 8.
size_t width(const std::string &line) {
    size_t col = 0;
    for (char c : line)
        col = c == '\t' ? (col / 8 + 1) * 8 : col + 1;
    return col;
}

// The interface line and the syntax line are printed whole, as illumos does.
bool wrapped(const std::string &line) {
    return line.rfind("\tCPU performance counter interface:", 0) != 0 &&
           line.rfind("\t[picn=]", 0) != 0;
}

std::vector<std::string> lines(const std::string &text) {
    return cpcprof::test::split_lines(text);
}

TEST(Caps, SmallMachineExactText) {
    Capabilities c;
    c.cciname = "Test PMU";
    c.cpuref = "See the manual.";
    c.generic = {{"PAPI_tot_cyc", "PAPI_tot_ins"}, {"PAPI_tot_cyc", "PAPI_tot_ins"}};
    c.platform = {{"cycles", "instructions"}, {"cycles", "instructions"}};
    c.attrs = {"picnum", "edge", "count_sibling_usr", "count_sibling_sys", "umask"};
    EXPECT_EQ(format_capabilities(c),
              "\tCPU performance counter interface: Test PMU\n"
              "\n"
              "\tevent specification syntax:\n"
              "\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]\n"
              "\n"
              "\tGeneric Events:\n"
              "\n"
              "\tevent[0-1]: PAPI_tot_cyc PAPI_tot_ins \n"
              "\n"
              "\tSee generic_events(3CPC) for descriptions of these events\n"
              "\n"
              "\tPlatform Specific Events:\n"
              "\n"
              "\tevent[0-1]: cycles instructions \n"
              "\n"
              "\tattributes: edge umask nouser sys \n"
              "\n"
              "\tSee the manual.\n");
}

TEST(Caps, UnequalCountersGetOneLineEach) {
    Capabilities c;
    c.generic = {{"PAPI_tot_ins"}, {}, {"PAPI_tot_cyc"}};
    c.platform = {{"a"}, {"a", "b"}, {"a"}};
    std::string t = format_capabilities(c);
    EXPECT_NE(t.find("\tevent0: PAPI_tot_ins \n\tevent1: \n\tevent2: PAPI_tot_cyc \n"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("\tevent0: a \n\tevent1: a b \n\tevent2: a \n"), std::string::npos) << t;
}

TEST(Caps, OneCounter) {
    Capabilities c;
    c.platform = {{"a"}};
    EXPECT_NE(format_capabilities(c).find("\tevent[0]: a \n"), std::string::npos);
}

TEST(Caps, LongListsWrapAtColumn76WithMargin17) {
    Capabilities c;
    std::vector<std::string> evs;
    for (int i = 0; i < 60; ++i)
        evs.push_back("event_name_" + std::to_string(i * 37));
    c.platform = {evs, evs};
    c.cpuref = std::string(30, 'x') + " " + std::string(30, 'y') + " " + std::string(30, 'z') +
               "\n  more   words";
    std::vector<std::string> ls = lines(format_capabilities(c));
    std::vector<std::string> listed;
    bool in_list = false;
    for (const std::string &l : ls) {
        if (wrapped(l)) {
            EXPECT_LE(width(l), 76u) << l;
        }
        if (l.rfind("\tevent[0-1]: ", 0) == 0 && l.find("event_name") != std::string::npos)
            in_list = true;
        else if (in_list && l.rfind("\t\t ", 0) != 0)
            in_list = false;
        if (!in_list)
            continue;
        std::istringstream words(l.substr(l.rfind("\t\t ", 0) == 0 ? 3 : 13));
        for (std::string w; words >> w;)
            listed.push_back(w);
    }
    EXPECT_EQ(listed, evs);
    // The reference text is re-flowed, one tab in front of each line.
    EXPECT_NE(format_capabilities(c).find("\t" + std::string(30, 'x') + " " + std::string(30, 'y') +
                                          "\n\t" + std::string(30, 'z') + " more words\n"),
              std::string::npos);
}

TEST(CapsMachine, ListsWhatLibcpcWalks) {
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    ASSERT_NE(cpc, nullptr);
    Capabilities c = cpcprof::tools::read_capabilities(cpc);
    EXPECT_EQ(c.cciname, cpc_cciname(cpc));
    ASSERT_EQ(c.platform.size(), cpc_npic(cpc));
    EXPECT_NE(std::find(c.platform[0].begin(), c.platform[0].end(), "cpu-clock"),
              c.platform[0].end());
    std::string t = format_capabilities(c);
    EXPECT_NE(t.find("attributes: "), std::string::npos);
    EXPECT_NE(t.find("nouser sys \n"), std::string::npos);
    EXPECT_EQ(t.find("picnum"), std::string::npos);
    for (const std::string &l : lines(t)) {
        if (wrapped(l)) {
            EXPECT_LE(width(l), 76u) << l;
        }
    }
    cpc_close(cpc);
}

} // namespace
