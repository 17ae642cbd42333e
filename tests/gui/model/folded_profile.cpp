#include "folded_profile.h"

#include "storage/symbol_writer.h"
#include "storage/writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>

namespace cpcprof::guitest {

using namespace storage;

namespace {

constexpr uint64_t kBase = 0x400000;
constexpr uint64_t kStep = 0x100; // each function's own block of addresses
constexpr int64_t kStart = 9'000'000'000'000;

struct Frame {
    std::string name;
    bool inlined = false;
};

std::vector<Frame> split_stack(const std::string &text) {
    std::vector<Frame> frames;
    std::stringstream in(text);
    std::string f;
    while (std::getline(in, f, ';')) {
        Frame fr{f, false};
        if (f.size() > 3 && f.ends_with("[i]")) {
            fr.name = f.substr(0, f.size() - 3);
            fr.inlined = true;
        }
        frames.push_back(fr);
    }
    return frames;
}

} // namespace

std::vector<EventInfo> folded_events(const std::vector<std::string> &names, uint64_t period) {
    std::vector<EventInfo> events;
    for (size_t i = 0; i < names.size(); ++i)
        events.push_back({names[i], i == 0 ? period : 0, i == 0});
    return events;
}

void write_folded_profile(const std::string &path, const std::vector<EventInfo> &events,
                          const std::string &folded) {
    // Each distinct (name, inlined) is a block of addresses: an inlined
    // call is a frame of its own in the symbols, at the same address as
    // the function it is inlined into, so it gets a block naming both.
    std::map<std::pair<std::string, std::string>, uint64_t> block; // (caller, inlined) -> block
    std::vector<std::pair<std::string, std::string>> names;        // per block
    auto block_of = [&](const std::string &fn, const std::string &inl) {
        auto [it, fresh] = block.try_emplace({fn, inl}, names.size());
        if (fresh)
            names.push_back({fn, inl});
        return kBase + kStep * (it->second + 1) + 0x10;
    };
    std::vector<std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> samples;
    std::stringstream in(folded);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        std::stringstream words(line);
        std::string stack;
        words >> stack;
        std::vector<uint64_t> values;
        uint64_t v = 0;
        while (words >> v)
            values.push_back(v);
        ASSERT_TRUE(words.eof()) << "bad value in folded line '" << line << "'";
        ASSERT_EQ(values.size(), events.size()) << "folded line '" << line << "'";
        std::vector<Frame> frames = split_stack(stack);
        std::vector<uint64_t> pcs; // leaf first
        for (size_t i = frames.size(); i-- > 0;) {
            if (frames[i].inlined) {
                ASSERT_GT(i, 0u) << "inlined root in '" << line << "'";
                pcs.push_back(block_of(frames[i - 1].name, frames[i].name));
                --i; // the caller is the same address
                continue;
            }
            pcs.push_back(block_of(frames[i].name, ""));
        }
        samples.push_back({pcs, values});
    }
    std::string error;
    auto w = Writer::create(path, &error);
    ASSERT_TRUE(w) << error;
    RunInfo run;
    run.command = {"./folded"};
    run.events = events;
    run.start_ns = 1'700'000'000'000'000'000;
    run.start_mono_ns = kStart;
    run.hw_pmu = true;
    run.call_graph = "libunwind";
    run.max_depth = 128;
    w->begin_run(run);
    w->add_process({300, 1, {"./folded"}, "/opt/folded", kStart});
    w->add_thread({300, 300, "folded"});
    w->add_module({300, "/opt/folded", "", kBase, kBase + kStep * (names.size() + 2), 0, kStart});
    for (size_t i = 0; i < samples.size(); ++i)
        w->add_sample({300, 300, kStart + int64_t(i + 1) * 1'000'000, true, samples[i].first,
                       samples[i].second});
    w->add_accounting(300, {samples.size(), samples.size(), 0});
    ASSERT_TRUE(w->finish(kStart + int64_t(samples.size() + 2) * 1'000'000, &error)) << error;

    auto s = SymbolWriter::open(path, &error);
    ASSERT_TRUE(s) << error;
    for (const AddressToResolve &a : s->addresses()) {
        size_t b = size_t(a.offset / kStep) - 1; // offsets in [kStep * (b + 1), + kStep)
        ASSERT_LT(b, names.size()) << "address " << a.offset;
        const auto &[fn, inl] = names[b];
        std::vector<SymbolFrame> frames;
        if (!inl.empty())
            frames.push_back({inl, "/src/folded.h", int(b + 1), true});
        frames.push_back({fn, "/src/folded.c", int(b + 1), false});
        s->add(a.module_id, a.offset, frames);
        s->set_module_symbols(a.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

std::string make_temp_dir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string templ =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/cpcprof-gui-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr)
        return "";
    return templ;
}

} // namespace cpcprof::guitest
