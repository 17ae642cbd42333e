// SPDX-License-Identifier: MIT
#include "tests/support/folded_profile.h"

#include "storage/profile.h"

#include <cctype>
#include <map>
#include <stdexcept>

namespace cpcprof::test {

namespace {

constexpr int kPid = 100;
constexpr int64_t kStartMono = 1'000'000'000'000; // CLOCK_MONOTONIC of the run start
constexpr uint64_t kProg = 0x400000;              // the program, file offset 0
constexpr uint64_t kProgSize = 0x1000000;
constexpr uint64_t kLibs = 0x7f0000000000; // /lib/MODULE, one slot each
constexpr uint64_t kLibSize = 0x100000000;
constexpr char kSource[] = "/src/folded.c";

struct Frame {
    std::string name;    // function, or the module of code without symbols
    uint64_t offset = 0; // in the module, code without symbols
    int line = 0;
    bool inlined = false;
    bool symbolized = true;
};

struct Line {
    int tid = kPid;
    int cpu = -1;
    bool truncated = false;
    std::vector<Frame> frames; // root first
    uint64_t count = 0;
    std::vector<uint64_t> values; // per sample; empty: the defaults
};

[[noreturn]] void bad(size_t lineno, const std::string &text, const std::string &why) {
    throw std::invalid_argument("folded line " + std::to_string(lineno) + " \"" + text +
                                "\": " + why);
}

bool all_digits(const std::string &s) {
    if (s.empty())
        return false;
    for (char c : s)
        if (std::isdigit(static_cast<unsigned char>(c)) == 0)
            return false;
    return true;
}

uint64_t number(const std::string &s, size_t lineno, const std::string &text) {
    try {
        return std::stoull(s);
    } catch (const std::exception &) {
        bad(lineno, text, "\"" + s + "\" is not a number that fits in 64 bits");
    }
}

Frame parse_frame(std::string f, size_t lineno, const std::string &text) {
    Frame frame;
    if (f.empty())
        bad(lineno, text, "an empty frame (two ';' in a row, or one at an end)");
    size_t plus = f.rfind("+0x");
    if (plus != std::string::npos && plus > 0 && plus + 3 < f.size() &&
        f.find_first_not_of("0123456789abcdefABCDEF", plus + 3) == std::string::npos) {
        frame.symbolized = false;
        frame.name = f.substr(0, plus);
        if (frame.name.find('/') != std::string::npos)
            bad(lineno, text, "the module of \"" + f + "\" is a file name, not a path");
        frame.offset = std::stoull(f.substr(plus + 3), nullptr, 16);
        if (frame.offset >= kLibSize)
            bad(lineno, text, "the offset of \"" + f + "\" is past the module's 4 GiB");
        return frame;
    }
    const std::string inl = "[inline]";
    if (f.size() > inl.size() && f.compare(f.size() - inl.size(), inl.size(), inl) == 0) {
        frame.inlined = true;
        f.resize(f.size() - inl.size());
    }
    size_t colon = f.rfind(':');
    if (colon != std::string::npos && colon > 0 && f[colon - 1] != ':' &&
        all_digits(f.substr(colon + 1))) {
        frame.line = static_cast<int>(number(f.substr(colon + 1), lineno, text));
        f.resize(colon);
    }
    if (f.empty())
        bad(lineno, text, "a frame without a function name");
    frame.name = f;
    return frame;
}

Line parse_line(const std::string &text, size_t lineno, size_t nevents) {
    Line l;
    // Numbers from the end: the values, then the count.
    std::string rest = text;
    std::vector<std::string> numbers;
    while (true) {
        size_t end = rest.find_last_not_of(" \t");
        if (end == std::string::npos)
            break;
        rest.resize(end + 1);
        size_t start = rest.find_last_of(" \t");
        std::string word = rest.substr(start == std::string::npos ? 0 : start + 1);
        if (!all_digits(word) || start == std::string::npos)
            break;
        numbers.insert(numbers.begin(), word);
        rest.resize(start);
    }
    size_t first = rest.find_first_not_of(" \t");
    rest = first == std::string::npos ? "" : rest.substr(first);
    if (numbers.empty())
        bad(lineno, text, "no sample count after the stack");
    l.count = number(numbers[0], lineno, text);
    if (l.count == 0)
        bad(lineno, text, "a count of 0 samples");
    for (size_t i = 1; i < numbers.size(); ++i)
        l.values.push_back(number(numbers[i], lineno, text));
    if (!l.values.empty() && l.values.size() != nevents)
        bad(lineno, text,
            std::to_string(l.values.size()) + " values for " + std::to_string(nevents) +
                " events (give every event's value or none)");

    if (rest.rfind("cpu", 0) == 0) {
        size_t slash = rest.find('/');
        if (slash == std::string::npos || slash == 3 || !all_digits(rest.substr(3, slash - 3)))
            bad(lineno, text, "cpuN/ needs a processor number");
        l.cpu = static_cast<int>(number(rest.substr(3, slash - 3), lineno, text));
        rest = rest.substr(slash + 1);
    }
    size_t colon = rest.find(':');
    if (colon != std::string::npos && all_digits(rest.substr(0, colon))) {
        l.tid = static_cast<int>(number(rest.substr(0, colon), lineno, text));
        if (l.tid <= 0)
            bad(lineno, text, "thread id 0");
        rest = rest.substr(colon + 1);
    }
    if (rest.rfind("...;", 0) == 0) {
        l.truncated = true;
        rest = rest.substr(4);
    }
    if (rest.empty())
        bad(lineno, text, "no frames");
    for (size_t at = 0;;) {
        size_t semi = rest.find(';', at);
        l.frames.push_back(parse_frame(rest.substr(at, semi - at), lineno, text));
        if (semi == std::string::npos)
            break;
        at = semi + 1;
    }
    for (size_t i = 0; i < l.frames.size(); ++i)
        if (l.frames[i].inlined && (i == 0 || !l.frames[i - 1].symbolized))
            bad(lineno, text,
                "\"" + l.frames[i].name + "\" is inlined but has no function before it");
    return l;
}

// Addresses of frames: one per distinct chain of a function and the calls
// inlined into it, and per module of code without symbols.
class Addresses {
  public:
    // The stack's addresses, leaf first, as a sample holds them.
    std::vector<uint64_t> of(const std::vector<Frame> &frames) {
        std::vector<uint64_t> out;
        for (size_t end = frames.size(); end > 0;) {
            size_t begin = end - 1;
            while (frames[begin].inlined)
                --begin;
            out.push_back(address(frames, begin, end));
            end = begin;
        }
        return out;
    }

    const std::map<uint64_t, std::vector<storage::SymbolFrame>> &answers() const {
        return answers_;
    }
    const std::vector<std::string> &modules() const { return modules_; }

  private:
    uint64_t address(const std::vector<Frame> &frames, size_t begin, size_t end) {
        const Frame &f = frames[begin];
        if (!f.symbolized) {
            size_t i = 0;
            while (i < modules_.size() && modules_[i] != f.name)
                ++i;
            if (i == modules_.size())
                modules_.push_back(f.name);
            return kLibs + i * kLibSize + f.offset;
        }
        std::vector<storage::SymbolFrame> chain; // innermost first
        std::string key;
        for (size_t i = end; i-- > begin;) {
            chain.push_back({frames[i].name, kSource, frames[i].line, frames[i].inlined});
            key += frames[i].name + '\0' + std::to_string(frames[i].line) + '\0';
        }
        auto [it, fresh] = offsets_.try_emplace(key, 0x1000 + 0x10 * offsets_.size());
        if (fresh)
            answers_[it->second] = chain;
        return kProg + it->second;
    }

    std::map<std::string, uint64_t> offsets_; // chain's names and lines -> offset
    std::map<uint64_t, std::vector<storage::SymbolFrame>> answers_;
    std::vector<std::string> modules_;
};

void check(bool ok, const std::string &what, const std::string &error) {
    if (!ok)
        throw std::runtime_error("make_folded_profile: " + what + ": " + error);
}

} // namespace

std::string make_folded_profile(const std::string &dir, const std::vector<std::string> &lines,
                                const std::vector<FoldedEvent> &events, const std::string &name,
                                const std::string &program) {
    if (events.empty() || events[0].period == 0)
        throw std::invalid_argument("make_folded_profile: the first event samples: it needs a "
                                    "period");
    if (program.size() < 2 || program[0] != '/' || program.rfind("/lib/", 0) == 0)
        throw std::invalid_argument("make_folded_profile: the program \"" + program +
                                    "\" is not an absolute path outside /lib");
    std::vector<Line> parsed;
    for (size_t i = 0; i < lines.size(); ++i) {
        size_t first = lines[i].find_first_not_of(" \t");
        if (first == std::string::npos || lines[i][first] == '#')
            continue;
        parsed.push_back(parse_line(lines[i], i + 1, events.size()));
    }

    storage::RunInfo run;
    run.command = {program};
    for (size_t i = 0; i < events.size(); ++i)
        run.events.push_back({events[i].name, i == 0 ? events[i].period : 0, i == 0});
    run.start_ns = 1'700'000'000'000'000'000;
    run.start_mono_ns = kStartMono;
    run.host = "folded";
    run.call_graph = "folded stacks";
    run.max_depth = 1024;

    const std::string path = dir + "/" + name;
    std::string error;
    auto w = storage::Writer::create(path, &error);
    check(w != nullptr, path, error);
    w->begin_run(run);
    w->add_process({kPid, 1, {program}, program, kStartMono});
    Addresses addresses;
    std::vector<std::vector<uint64_t>> stacks;
    for (const Line &l : parsed)
        stacks.push_back(addresses.of(l.frames));
    w->add_module({kPid, program, "", kProg, kProg + kProgSize, 0, kStartMono});
    for (size_t i = 0; i < addresses.modules().size(); ++i)
        w->add_module({kPid, "/lib/" + addresses.modules()[i], "", kLibs + i * kLibSize,
                       kLibs + (i + 1) * kLibSize, 0, kStartMono});
    std::map<int, bool> named;
    int64_t t = kStartMono;
    uint64_t samples = 0;
    for (size_t i = 0; i < parsed.size(); ++i) {
        const Line &l = parsed[i];
        if (!named[l.tid]) {
            w->add_thread({kPid, l.tid, "t" + std::to_string(l.tid)});
            named[l.tid] = true;
        }
        std::vector<uint64_t> values = l.values;
        if (values.empty()) {
            values.assign(events.size(), 0);
            values[0] = events[0].period;
        }
        for (uint64_t k = 0; k < l.count; ++k)
            w->add_sample({kPid, l.tid, t += 1'000'000, !l.truncated, stacks[i], values, l.cpu});
        samples += l.count;
    }
    w->add_accounting(kPid, {samples, samples, 0});
    check(w->finish(t + 1'000'000, &error), path, error);

    auto s = storage::SymbolWriter::open(path, &error);
    check(s != nullptr, path, error);
    for (const storage::AddressToResolve &a : s->addresses()) {
        bool prog = a.path == program;
        if (prog)
            s->add(a.module_id, a.offset, addresses.answers().at(a.offset));
        s->set_module_symbols(a.module_id, prog);
    }
    check(s->finish(&error), path, error);
    return path;
}

} // namespace cpcprof::test
