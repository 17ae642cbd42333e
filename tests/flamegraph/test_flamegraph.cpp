// SPDX-License-Identifier: MIT
// cpcprof flamegraph run as a user runs it: SVG and HTML from the known
// profile (tests/storage/helpers.h: every sample documented), widths and
// tooltips that follow from those samples, pruning, escaping of hostile
// names, refused options and outputs; and the pages loaded in headless
// Chromium (skipped, with the reason, when it is not installed), driven
// through their URL-fragment actions (profiler/analysis/flame_render.h).
#include "tests/view_common/view_harness.h"

#include "storage/symbol_writer.h"
#include "storage/writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace cpcprof::test {
namespace {

using namespace storagetest;

// The known profile's documented samples: 11 in all; cpu-clock 1e6 each;
// page faults 6 x 2 (compute > square) + 5 (libx.so) = 17.
constexpr double kSamples = 11;
constexpr double kFaults = 17;
constexpr double kSvgSpan = 1180; // drawing width of the SVG: 1200 minus the margins

// A frame of an SVG as drawn without scripts.
struct SvgFrame {
    std::string name, tooltip, cls;
    double x = 0, y = 0, width = 0;
};

std::string unescape_xml(std::string s) {
    static const std::pair<const char *, const char *> kEntities[] = {
        {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
    for (auto [from, to] : kEntities)
        for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += std::strlen(to))
            s.replace(at, std::strlen(from), to);
    return s;
}

std::vector<SvgFrame> svg_frames(const std::string &svg) {
    static const std::regex kFrame(
        "<g(?: class=\"([a-z]+)\")?><title>([^<]*)</title><rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" "
        "width=\"([0-9.]+)\"");
    std::vector<SvgFrame> out;
    for (std::sregex_iterator it(svg.begin(), svg.end(), kFrame), end; it != end; ++it) {
        SvgFrame f;
        f.cls = (*it)[1];
        f.tooltip = unescape_xml((*it)[2]);
        f.name = f.tooltip.substr(0, f.tooltip.find('\n'));
        f.x = std::stod((*it)[3]);
        f.y = std::stod((*it)[4]);
        f.width = std::stod((*it)[5]);
        out.push_back(f);
    }
    return out;
}

std::vector<SvgFrame> named(const std::vector<SvgFrame> &frames, const std::string &name) {
    std::vector<SvgFrame> out;
    for (const SvgFrame &f : frames)
        if (f.name == name)
            out.push_back(f);
    return out;
}

std::string share(double part, double whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "(%.2f%%)", 100 * part / whole);
    return buf;
}

// A symbolized profile with the given stacks (function names, outermost
// first) and sample counts, in /opt/prog (pid 100), cpu-clock period 1e6.
void write_named_profile(const std::string &file,
                         const std::vector<std::pair<std::vector<std::string>, int>> &stacks) {
    constexpr uint64_t kProg = 0x400000;
    std::map<std::string, uint64_t> offset; // function -> its code at offset .. offset + 0xff
    std::map<uint64_t, std::string> by_offset;
    for (const auto &s : stacks)
        for (const std::string &fn : s.first)
            if (offset.try_emplace(fn, 0x1000 + 0x100 * offset.size()).second)
                by_offset[offset[fn]] = fn;
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run());
    w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
    w->add_thread({100, 100, "prog"});
    w->add_module({100, "/opt/prog", "", kProg, kProg + 0x100000, 0, kStartMono});
    uint64_t n = 0;
    const std::vector<uint64_t> values = {1'000'000, 0};
    for (const auto &[names, count] : stacks) {
        std::vector<uint64_t> frames;
        for (auto it = names.rbegin(); it != names.rend(); ++it)
            frames.push_back(kProg + offset[*it] + 0x10);
        for (int i = 0; i < count; ++i, ++n)
            w->add_sample({100, 100, kStartMono + int64_t(n) * 1000, true, frames, values});
    }
    w->add_accounting(100, {n, n, 0});
    ASSERT_TRUE(w->finish(kStartMono + int64_t(n) * 1000 + 1, &error)) << error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    for (const AddressToResolve &a : s->addresses()) {
        auto it = by_offset.upper_bound(a.offset);
        ASSERT_NE(it, by_offset.begin()) << "offset " << a.offset;
        const std::vector<SymbolFrame> answer = {{std::prev(it)->second, "/src/p.c", 1, false}};
        s->add(a.module_id, a.offset, answer);
        s->set_module_symbols(a.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

// Names a profile may hold that break careless HTML, SVG, JSON or JS.
const std::vector<std::string> kHostile = {
    "operator<<(std::ostream&, char const*)",
    "</script><script>alert(1)</script>",
    "</script><script>document.title='pwned'</script>",
    "<img src=x onerror=\"document.title='pwned'\">",
    "a\"b'c\\d<!--e]]>f\xe2\x80\xa8g",
};

struct FlamegraphTest : ::testing::Test {
    TempDir dir;
    std::string known;
    void SetUp() override {
        known = dir.file("known.cpcprof");
        write_known_profile(known);
    }
    RunResult run(std::vector<std::string> args) { return cpcprof(dir, args); }
    // The test directory's files, but cpcprof's stdout and stderr.
    std::vector<std::string> files() const {
        std::vector<std::string> names;
        for (const auto &e : std::filesystem::directory_iterator(dir.path()))
            if (e.path().filename() != "stdout" && e.path().filename() != "stderr")
                names.push_back(e.path().filename().string()); // the harness's files
        std::sort(names.begin(), names.end());
        return names;
    }
};

TEST_F(FlamegraphTest, SvgFramesAreAsWideAsTheirSamples) {
    RunResult r = run({"flamegraph", known, "-o", dir.file("f.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string svg = read_file(dir.file("f.svg"));
    auto frames = svg_frames(svg);
    ASSERT_FALSE(frames.empty()) << svg.substr(0, 3000);

    auto width_of = [&](const std::string &name) {
        auto f = named(frames, name);
        return f.size() == 1 ? f[0].width : -1.0;
    };
    EXPECT_NEAR(width_of("all"), kSvgSpan, 0.01);
    EXPECT_NEAR(width_of("main"), kSvgSpan * 10 / kSamples, 0.01);
    EXPECT_NEAR(width_of("compute"), kSvgSpan * 6 / kSamples, 0.01);
    EXPECT_NEAR(width_of("square"), kSvgSpan * 6 / kSamples, 0.01);
    EXPECT_NEAR(width_of("libx.so+0x500"), kSvgSpan * 1 / kSamples, 0.01);
    // recurse: 3 deep under main (3 samples), and the truncated stack's 2 (1 sample).
    auto recurse = named(frames, "recurse");
    ASSERT_EQ(recurse.size(), 5u);
    std::vector<double> widths;
    for (const SvgFrame &f : recurse)
        widths.push_back(std::round(f.width * kSamples / kSvgSpan));
    std::sort(widths.begin(), widths.end());
    EXPECT_EQ(widths, (std::vector<double>{1, 1, 3, 3, 3}));
    // The cut stack sits under "[truncated]", a root beside main (same row,
    // one sample wide), not as a second "recurse" root beside main.
    auto cut = named(frames, "[truncated]");
    ASSERT_EQ(cut.size(), 1u) << svg.substr(0, 3000);
    EXPECT_NEAR(cut[0].width, kSvgSpan * 1 / kSamples, 0.01);
    EXPECT_NEAR(cut[0].y, named(frames, "main")[0].y, 0.01);
    size_t on_main_row = 0;
    for (const SvgFrame &f : frames)
        on_main_row += std::abs(f.y - cut[0].y) < 0.01 ? 1 : 0;
    EXPECT_EQ(on_main_row, 2u); // main and [truncated]
    for (const SvgFrame &f : recurse)
        if (std::round(f.width * kSamples / kSvgSpan) == 1) {
            EXPECT_LT(f.y, cut[0].y);
            EXPECT_GE(f.x, cut[0].x - 0.01);
            EXPECT_LE(f.x + f.width, cut[0].x + cut[0].width + 0.01);
        }
    // The share of complete stacks is stated under the title: 10 of 11.
    EXPECT_NE(svg.find("complete stacks: 90.9 %, the cut ones under [truncated]"),
              std::string::npos)
        << svg.substr(0, 3000);

    // Callers below their callees; callees start where their caller starts.
    auto main = named(frames, "main")[0], compute = named(frames, "compute")[0],
         square = named(frames, "square")[0], all = named(frames, "all")[0];
    EXPECT_GT(all.y, main.y);
    EXPECT_GT(main.y, compute.y);
    EXPECT_GT(compute.y, square.y);
    EXPECT_NEAR(compute.x, main.x, 0.01);
    // Inlined and unsymbolized frames are told apart.
    EXPECT_EQ(square.cls, "inl");
    EXPECT_EQ(named(frames, "libx.so+0x500")[0].cls, "nosym");
    EXPECT_EQ(compute.cls, "");

    // Tooltips: samples and each event with shares of the whole.
    EXPECT_NE(compute.tooltip.find("samples: 6 " + share(6, kSamples)), std::string::npos)
        << compute.tooltip;
    EXPECT_NE(compute.tooltip.find("page-faults: 12 " + share(12, kFaults)), std::string::npos)
        << compute.tooltip;
    EXPECT_NE(compute.tooltip.find("cpu-clock: 6,000,000"), std::string::npos) << compute.tooltip;
    EXPECT_NE(compute.tooltip.find("file: /src/a.c"), std::string::npos) << compute.tooltip;
    EXPECT_NE(compute.tooltip.find("module: /opt/prog"), std::string::npos) << compute.tooltip;
    EXPECT_NE(square.tooltip.find("inlined"), std::string::npos) << square.tooltip;

    // Labels are drawn as SVG text, not by the script; the script is inline.
    EXPECT_NE(svg.find(">main</text>"), std::string::npos);
    EXPECT_EQ(svg.find("xlink:href"), std::string::npos);
    EXPECT_EQ(svg.find(" src="), std::string::npos);
}

TEST_F(FlamegraphTest, EventPicksTheWidth) {
    RunResult r = run({"flamegraph", known, "--event", "page-faults", "-o", dir.file("f.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    auto frames = svg_frames(read_file(dir.file("f.svg")));
    ASSERT_EQ(named(frames, "main").size(), 1u);
    EXPECT_NEAR(named(frames, "main")[0].width, kSvgSpan, 0.01); // every fault is under main
    EXPECT_NEAR(named(frames, "compute")[0].width, kSvgSpan * 12 / kFaults, 0.01);
    EXPECT_NEAR(named(frames, "libx.so+0x500")[0].width, kSvgSpan * 5 / kFaults, 0.01);
    // The recursion took no page faults: its 5 frames are not drawn, nor
    // the [truncated] root that holds 2 of them: 6 nodes, and said so.
    EXPECT_TRUE(named(frames, "recurse").empty());
    EXPECT_TRUE(named(frames, "[truncated]").empty());
    EXPECT_NE(r.err.find("6 call tree nodes"), std::string::npos) << r.err;

    r = run({"flamegraph", known, "--event", "no-such-event", "-o", dir.file("g.svg")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("no-such-event"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("page-faults"), std::string::npos) << r.err; // the known ones listed
    EXPECT_FALSE(std::filesystem::exists(dir.file("g.svg")));
}

TEST_F(FlamegraphTest, InvertedPutsTheSampledFunctionsOnTop) {
    RunResult r = run({"flamegraph", known, "--inverted", "-o", dir.file("i.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    auto frames = svg_frames(read_file(dir.file("i.svg")));
    // Bottom-up roots: square (6 samples), recurse (3 + the truncated 1), libx.so (1).
    auto all = named(frames, "all"), square = named(frames, "square");
    ASSERT_EQ(all.size(), 1u);
    ASSERT_EQ(square.size(), 1u);
    EXPECT_NEAR(square[0].width, kSvgSpan * 6 / kSamples, 0.01);
    double root_row = all[0].y + 16;
    std::vector<std::string> roots;
    for (const SvgFrame &f : frames)
        if (std::abs(f.y - root_row) < 0.01)
            roots.push_back(f.name + ":" +
                            std::to_string(std::lround(f.width * kSamples / kSvgSpan)));
    std::sort(roots.begin(), roots.end());
    EXPECT_EQ(roots, (std::vector<std::string>{"libx.so+0x500:1", "recurse:4", "square:6"}));
    // Callers hang below: square < compute < main.
    auto compute = named(frames, "compute");
    ASSERT_EQ(compute.size(), 1u);
    EXPECT_LT(all[0].y, square[0].y);
    EXPECT_LT(square[0].y, compute[0].y);
    // The cut stack recurse < recurse ends in "[truncated]", its third row
    // below "all", one sample wide; the complete ones end in main.
    auto cut = named(frames, "[truncated]");
    ASSERT_EQ(cut.size(), 1u);
    EXPECT_NEAR(cut[0].width, kSvgSpan * 1 / kSamples, 0.01);
    EXPECT_NEAR(cut[0].y, all[0].y + 3 * 16, 0.01);
}

TEST_F(FlamegraphTest, NarrowFramesArePrunedAndCounted) {
    // 20,000 samples: "tiny" has 0.05 % of them, "dust" 0.005 %.
    std::string p = dir.file("wide.cpcprof");
    write_named_profile(p,
                        {{{"main", "big"}, 19'989}, {{"main", "tiny"}, 10}, {{"main", "dust"}, 1}});
    RunResult r = run({"flamegraph", p, "-o", dir.file("w.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string svg = read_file(dir.file("w.svg"));
    auto frames = svg_frames(svg);
    EXPECT_EQ(named(frames, "big").size(), 1u);
    EXPECT_TRUE(named(frames, "tiny").empty()); // under 0.1 %
    EXPECT_TRUE(named(frames, "dust").empty());
    EXPECT_NE(svg.find("2 frames narrower than 0.1% not drawn"), std::string::npos);
    EXPECT_NE(r.err.find("2 call tree nodes"), std::string::npos) << r.err;

    // The HTML page keeps frames down to 0.01 %.
    r = run({"flamegraph", p, "-o", dir.file("w.html")});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string html = read_file(dir.file("w.html"));
    EXPECT_NE(html.find("[\"tiny\","), std::string::npos);
    EXPECT_EQ(html.find("[\"dust\","), std::string::npos);
    EXPECT_NE(html.find("\"pruned\":1,"), std::string::npos);
}

TEST_F(FlamegraphTest, HtmlIsSelfContained) {
    RunResult r = run({"flamegraph", known, "-o", "-"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string &html = r.out;
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 200);
    EXPECT_TRUE(files() == std::vector<std::string>{"known.cpcprof"}); // stdout only
    // Nothing to fetch: no URL, no external script, style or font.
    EXPECT_EQ(html.find("://"), std::string::npos);
    EXPECT_EQ(html.find(" src="), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
    EXPECT_EQ(html.find("@import"), std::string::npos);
    EXPECT_EQ(html.find("url("), std::string::npos);
    // The call tree's functions travel in the page's data.
    for (const char *fn : {"main", "compute", "square", "recurse", "libx.so+0x500"})
        EXPECT_NE(html.find("[\"" + std::string(fn) + "\","), std::string::npos) << fn;
}

TEST_F(FlamegraphTest, HostileNamesAreEscaped) {
    std::string p = dir.file("hostile.cpcprof");
    std::vector<std::pair<std::vector<std::string>, int>> stacks;
    for (const std::string &name : kHostile)
        stacks.push_back({{"main", name}, 2});
    write_named_profile(p, stacks);
    ASSERT_EQ(run({"flamegraph", p, "-o", dir.file("h.html")}).status, 0);
    ASSERT_EQ(run({"flamegraph", p, "-o", dir.file("h.svg"), "--title", "<b>&</b>"}).status, 0);
    std::string html = read_file(dir.file("h.html")), svg = read_file(dir.file("h.svg"));

    // HTML: exactly the page's two scripts, no markup from a name.
    auto count = [](const std::string &s, const std::string &what) {
        size_t n = 0;
        for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size())
            ++n;
        return n;
    };
    EXPECT_EQ(count(html, "<script"), 2u);
    EXPECT_EQ(count(html, "</script"), 2u);
    EXPECT_EQ(count(html, "<img"), 0u);
    EXPECT_EQ(count(html, "<!--"), 0u);
    EXPECT_EQ(count(html, "\xe2\x80\xa8"), 0u); // a line separator ends JS lines
    // SVG: names only as escaped text; the one CDATA section is the script.
    EXPECT_EQ(count(svg, "<script"), 1u);
    EXPECT_EQ(count(svg, "]]>"), 1u);
    EXPECT_EQ(count(svg, "<img"), 0u);
    EXPECT_EQ(count(svg, "<b>"), 0u);
    EXPECT_NE(svg.find("operator&lt;&lt;(std::ostream&amp;, char const*)"), std::string::npos);
    auto frames = svg_frames(svg);
    for (const std::string &name : kHostile)
        EXPECT_EQ(named(frames, name).size(), 1u) << name;
}

TEST_F(FlamegraphTest, BadOutputsAreRefusedAndLeaveNothing) {
    // Not .svg or .html: usage error, nothing written.
    RunResult r = run({"flamegraph", known, "-o", dir.file("f.png")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(".svg"), std::string::npos) << r.err;
    r = run({"flamegraph", known});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("-o"), std::string::npos) << r.err;

    // A directory that cannot hold the file (a regular file, a missing one;
    // the tests may run as root, who ignores permission bits).
    for (const std::string &out :
         {dir.file("known.cpcprof") + "/f.svg", dir.file("missing/f.html")}) {
        r = run({"flamegraph", known, "-o", out});
        EXPECT_EQ(r.status, 1) << out;
        EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
    }
    // Profiles that cannot be read.
    r = run({"flamegraph", dir.file("none.cpcprof"), "-o", dir.file("n.svg")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("none.cpcprof"), std::string::npos) << r.err;
    {
        std::FILE *f = std::fopen(dir.file("text.cpcprof").c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("not a profile\n", f);
        std::fclose(f);
    }
    r = run({"flamegraph", dir.file("text.cpcprof"), "-o", dir.file("t.html")});
    EXPECT_EQ(r.status, 1);
    r = run({"flamegraph", known, "--time", "2,1", "-o", dir.file("t.html")});
    EXPECT_EQ(r.status, 2);
    r = run({"flamegraph", known, "--bogus", "-o", dir.file("t.html")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
    EXPECT_EQ(files(), (std::vector<std::string>{"known.cpcprof", "text.cpcprof"}));

    r = run({"flamegraph", "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--inverted"), std::string::npos);
}

TEST_F(FlamegraphTest, FilterNarrowsTheGraph) {
    // Thread 101 has libx.so (1 sample) and the truncated recursion (1).
    RunResult r = run({"flamegraph", known, "--tid", "101", "-o", dir.file("t.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    auto frames = svg_frames(read_file(dir.file("t.svg")));
    EXPECT_TRUE(named(frames, "compute").empty());
    ASSERT_EQ(named(frames, "libx.so+0x500").size(), 1u);
    EXPECT_NEAR(named(frames, "libx.so+0x500")[0].width, kSvgSpan / 2, 0.01);
    EXPECT_NE(named(frames, "all")[0].tooltip.find("samples: 2 "), std::string::npos);

    // A filter that keeps nothing: said, and an empty graph.
    r = run({"flamegraph", known, "--time", "1,2", "-o", dir.file("e.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("no samples"), std::string::npos) << r.err;
    std::string svg = read_file(dir.file("e.svg"));
    EXPECT_TRUE(svg_frames(svg).empty());
    EXPECT_NE(svg.find("No cpu-clock in the kept samples"), std::string::npos);
}

TEST_F(FlamegraphTest, DemoRecording) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &demo = demo_profile();
    ASSERT_FALSE(demo.empty());
    RunResult r = run({"flamegraph", demo, "-o", dir.file("d.svg")});
    ASSERT_EQ(r.status, 0) << r.err;
    auto frames = svg_frames(read_file(dir.file("d.svg")));
    for (const char *fn : {"main", "matrix_multiply", "walk_list", "checksum"})
        EXPECT_FALSE(named(frames, fn).empty()) << fn;
    // Two threads' work: main's share and checksum's add up to at most all.
    double main_w = 0, checksum_w = 0;
    for (const SvgFrame &f : named(frames, "main"))
        main_w += f.width;
    for (const SvgFrame &f : named(frames, "checksum"))
        checksum_w += f.width;
    EXPECT_GT(main_w, 0.2 * kSvgSpan);
    EXPECT_GT(checksum_w, 0.05 * kSvgSpan);
    EXPECT_LE(main_w + checksum_w, kSvgSpan + 0.1);
}

// --- In a browser ---------------------------------------------------------

std::string chromium_path() {
    for (const char *p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
        if (::access(p, X_OK) == 0)
            return p;
    return {};
}

// Loads url in headless Chromium; the DOM after scripts ran, and its stderr.
struct Loaded {
    std::string dom, log;
};
Loaded load_in_chromium(const TempDir &dir, const std::string &url,
                        const std::string &window = "1200,800") {
    std::string profile = dir.file("chromium-profile"), out = dir.file("dom.txt"),
                err = dir.file("chromium.log");
    std::vector<std::string> argv = {chromium_path(),
                                     "--headless=new",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--no-first-run",
                                     "--user-data-dir=" + profile,
                                     "--window-size=" + window,
                                     "--virtual-time-budget=3000",
                                     "--enable-logging=stderr",
                                     "--v=0",
                                     "--dump-dom",
                                     url};
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        std::vector<char *> args;
        for (std::string &a : argv)
            args.push_back(a.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            ADD_FAILURE() << "chromium did not finish within 30 s: " << url;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(-pid, SIGKILL); // helpers it may have left behind
    return {read_file(out), read_file(err)};
}

// The page's #test-state lines (flame_render.h), unescaped.
std::vector<std::string> test_state(const std::string &dom) {
    size_t at = dom.find("id=\"test-state\"");
    if (at == std::string::npos)
        return {};
    size_t begin = dom.find('>', at) + 1, end = dom.find('<', begin);
    std::string text = unescape_xml(dom.substr(begin, end - begin));
    std::vector<std::string> lines;
    for (size_t p = 0; p < text.size();) {
        size_t nl = text.find('\n', p);
        if (nl == std::string::npos)
            nl = text.size();
        lines.push_back(text.substr(p, nl - p));
        p = nl + 1;
    }
    return lines;
}

struct Shown {
    double x = 0, w = 0;
    std::string flags;
    int row = 0;
};
// The dumps of a test state: frame name -> how each frame of that name is
// shown, plus "matched", "tip" and "zoom" with their text as flags.
std::vector<std::multimap<std::string, Shown>> dumps(const std::vector<std::string> &lines) {
    std::vector<std::multimap<std::string, Shown>> out(1);
    for (const std::string &l : lines) {
        std::vector<std::string> f;
        for (size_t p = 0;;) {
            size_t tab = l.find('\t', p);
            f.push_back(l.substr(p, tab - p));
            if (tab == std::string::npos)
                break;
            p = tab + 1;
        }
        if (f[0] == "frame" && f.size() == 6)
            out.back().insert({f[1], {std::stod(f[2]), std::stod(f[3]), f[4], std::stoi(f[5])}});
        else if ((f[0] == "matched" || f[0] == "tip") && f.size() == 2)
            out.back().insert({f[0], {0, 0, f[1], 0}});
        else if (f[0] == "zoom" && f.size() == 2) {
            out.back().insert({"zoom", {0, 0, f[1], 0}});
            out.emplace_back();
        }
    }
    out.pop_back();
    return out;
}

std::set<std::string> frame_names(const std::multimap<std::string, Shown> &d) {
    std::set<std::string> names;
    for (const auto &[k, v] : d)
        if (k != "matched" && k != "zoom" && k != "tip")
            names.insert(k);
    return names;
}

std::string no_errors(const Loaded &l) {
    std::string errors;
    for (const std::string &line : test_state(l.dom))
        if (line.rfind("error\t", 0) == 0)
            errors += line + "\n";
    size_t at = l.log.find("Uncaught");
    if (at != std::string::npos)
        errors += l.log.substr(at, l.log.find('\n', at) - at);
    return errors;
}

struct BrowserTest : FlamegraphTest {
    void SetUp() override {
        if (chromium_path().empty())
            GTEST_SKIP() << "chromium is not installed (packaging/install-deps.sh installs it); "
                            "the pages are not loaded in a browser";
        FlamegraphTest::SetUp();
    }
};

TEST_F(BrowserTest, HtmlZoomSearchAndEvents) {
    ASSERT_EQ(run({"flamegraph", known, "-o", dir.file("k.html")}).status, 0);
    Loaded l = load_in_chromium(dir, "file://" + dir.file("k.html") +
                                         "#tip=compute&dump&click=compute&dump&search=rec&"
                                         "dump&reset&event=page-faults&dump");
    EXPECT_EQ(no_errors(l), "");
    auto d = dumps(test_state(l.dom));
    ASSERT_EQ(d.size(), 4u) << l.dom.substr(0, 4000) << l.log;

    // Loaded: every function, widths from the samples, callers below.
    EXPECT_EQ(frame_names(d[0]),
              (std::set<std::string>{"all", "main", "compute", "square", "recurse", "libx.so+0x500",
                                     "[truncated]"}));
    EXPECT_NEAR(d[0].find("main")->second.w, 10 / kSamples, 0.002);
    EXPECT_NEAR(d[0].find("compute")->second.w, 6 / kSamples, 0.002);
    EXPECT_EQ(d[0].find("square")->second.flags, "inl");
    EXPECT_EQ(d[0].find("libx.so+0x500")->second.flags, "nosym");
    EXPECT_LT(d[0].find("compute")->second.row, d[0].find("main")->second.row);
    // Hovering over compute: where it is, and each weight's value and share.
    char pct[16];
    std::string tip = d[0].find("tip")->second.flags;
    EXPECT_NE(tip.find("compute | module: /opt/prog | file: /src/a.c"), std::string::npos) << tip;
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * 6 / kSamples);
    EXPECT_NE(tip.find("samples: 6 (" + std::string(pct) + " of all)"), std::string::npos) << tip;
    EXPECT_NE(tip.find("cpu-clock: 6,000,000 (" + std::string(pct)), std::string::npos) << tip;
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * 12 / kFaults);
    EXPECT_NE(tip.find("page-faults: 12 (" + std::string(pct)), std::string::npos) << tip;

    // Clicked compute: only main > compute and what it calls, at full width,
    // its callers faded under it.
    EXPECT_EQ(frame_names(d[1]), (std::set<std::string>{"all", "main", "compute", "square"}));
    EXPECT_NEAR(d[1].find("compute")->second.x, 0, 0.002);
    EXPECT_NEAR(d[1].find("compute")->second.w, 1, 0.002);
    EXPECT_NEAR(d[1].find("square")->second.w, 1, 0.002);
    EXPECT_EQ(d[1].find("main")->second.flags, "anc");
    EXPECT_EQ(d[1].find("zoom")->second.flags, "compute");

    // Search "rec": recurse is on 4 of the 11 samples' stacks (3 + the truncated one).
    char expect[64];
    std::snprintf(expect, sizeof expect, "Matched: %.1f%% (4,000,000 of 11,000,000 cpu-clock)",
                  100 * 4 / kSamples);
    EXPECT_EQ(d[2].find("matched")->second.flags, expect);

    // Weighed by page faults after reset: the recursion took none, compute 12 of 17.
    EXPECT_EQ(frame_names(d[3]),
              (std::set<std::string>{"all", "main", "compute", "square", "libx.so+0x500"}));
    EXPECT_NEAR(d[3].find("main")->second.w, 1, 0.002);
    EXPECT_NEAR(d[3].find("compute")->second.w, 12 / kFaults, 0.002);
    EXPECT_NEAR(d[3].find("libx.so+0x500")->second.w, 5 / kFaults, 0.002);
    EXPECT_EQ(d[3].find("zoom")->second.flags, "");
    std::snprintf(expect, sizeof expect, "Matched: %.1f%% (0 of 17 page-faults)", 0.0);
    EXPECT_EQ(d[3].find("matched")->second.flags, expect);
}

// The page fits its window at every width: frames are never wider than
// the chart, also when the graph is taller than the window (a scrollbar
// narrows the page after the frames were placed) or a zoom's crumbs wrap
// onto another line.  The dump measures what was drawn (bounding boxes).
TEST_F(BrowserTest, HtmlFramesFitThePage) {
    std::vector<std::string> deep;
    for (int i = 0; i < 70; ++i)
        deep.push_back("function_with_a_long_name_" + std::to_string(i));
    std::vector<std::string> other(deep.begin(), deep.begin() + 40);
    other.push_back("side");
    std::string p = dir.file("deep.cpcprof");
    write_named_profile(p, {{deep, 3}, {other, 1}});
    ASSERT_EQ(run({"flamegraph", p, "-o", dir.file("deep.html")}).status, 0);
    for (const char *window : {"1200,800", "1013,700", "731,900", "480,600"}) {
        Loaded l = load_in_chromium(dir,
                                    "file://" + dir.file("deep.html") +
                                        "#dump&click=function_with_a_long_name_50&dump",
                                    window);
        EXPECT_EQ(no_errors(l), "") << window;
        auto d = dumps(test_state(l.dom));
        ASSERT_EQ(d.size(), 2u) << window << l.dom.substr(0, 4000) << l.log;
        for (size_t k = 0; k < d.size(); ++k) {
            EXPECT_NEAR(d[k].find("all")->second.w, 1.0, 0.002) << window << " dump " << k;
            for (const auto &[name, f] : d[k])
                if (name != "matched" && name != "tip" && name != "zoom") {
                    EXPECT_GE(f.x, -0.0005) << name << " at " << window << " dump " << k;
                    EXPECT_LE(f.x + f.w, 1.0005) << name << " at " << window << " dump " << k;
                }
        }
        // The zoomed frame spans the chart; "side" (1 of 4) a quarter of it unzoomed.
        EXPECT_NEAR(d[1].find("function_with_a_long_name_50")->second.w, 1.0, 0.002) << window;
        EXPECT_NEAR(d[0].find("side")->second.w, 0.25, 0.002) << window;
    }
}

TEST_F(BrowserTest, SvgZoomAndSearch) {
    ASSERT_EQ(run({"flamegraph", known, "-o", dir.file("k.svg")}).status, 0);
    Loaded l = load_in_chromium(dir, "file://" + dir.file("k.svg") +
                                         "#dump&click=compute&dump&search=rec&dump");
    EXPECT_EQ(no_errors(l), "");
    auto d = dumps(test_state(l.dom));
    ASSERT_EQ(d.size(), 3u) << l.dom.substr(0, 4000) << l.log;
    EXPECT_EQ(frame_names(d[0]),
              (std::set<std::string>{"all", "main", "compute", "square", "recurse", "libx.so+0x500",
                                     "[truncated]"}));
    EXPECT_EQ(frame_names(d[1]), (std::set<std::string>{"all", "main", "compute", "square"}));
    EXPECT_NEAR(d[1].find("compute")->second.w, 1, 0.002);
    EXPECT_NEAR(d[1].find("square")->second.x, 0, 0.002);
    EXPECT_NEAR(d[1].find("square")->second.w, 1, 0.002);
    EXPECT_EQ(d[1].find("main")->second.flags, "anc");
    char expect[32];
    std::snprintf(expect, sizeof expect, "Matched: %.1f%%", 100 * 4 / kSamples);
    EXPECT_EQ(d[2].find("matched")->second.flags, expect);
}

TEST_F(BrowserTest, HostileNamesShowAsText) {
    std::string p = dir.file("hostile.cpcprof");
    std::vector<std::pair<std::vector<std::string>, int>> stacks;
    for (const std::string &name : kHostile)
        stacks.push_back({{"main", name}, 2});
    stacks.push_back({{"main", "bad\xff utf-8"}, 2});
    write_named_profile(p, stacks);
    for (const char *out : {"h.html", "h.svg"}) {
        ASSERT_EQ(run({"flamegraph", p, "-o", dir.file(out)}).status, 0);
        Loaded l = load_in_chromium(dir, "file://" + dir.file(out) + "#dump");
        EXPECT_EQ(no_errors(l), "") << out;
        // No injected script ran (it would have set the title) and the SVG parsed.
        EXPECT_EQ(l.dom.find("<title>pwned"), std::string::npos) << out;
        EXPECT_EQ(l.dom.find("parsererror"), std::string::npos) << out << l.dom.substr(0, 2000);
        auto d = dumps(test_state(l.dom));
        ASSERT_EQ(d.size(), 1u) << out << l.dom.substr(0, 4000);
        for (const std::string &name : kHostile)
            EXPECT_EQ(d[0].count(name), 1u) << out << ": " << name;
        EXPECT_EQ(d[0].count("bad\xef\xbf\xbd utf-8"), 1u) << out; // shown with U+FFFD
    }
}

} // namespace
} // namespace cpcprof::test
