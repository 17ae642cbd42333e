// SPDX-License-Identifier: MIT
// pprof_text.h: gunzip, protoc --decode, then a parser of protoc's text
// format (nested "name {" ... "}" blocks and "key: value" lines).
#include "tests/view_common/pprof_text.h"

#include "tests/view_common/view_harness.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace cpcprof::test {

namespace {

// A text-format message: scalar fields in order, nested messages in order.
struct TextMessage {
    std::vector<std::pair<std::string, std::string>> fields;
    std::vector<std::pair<std::string, TextMessage>> children;

    std::string get(const std::string &key) const {
        for (const auto &[k, v] : fields)
            if (k == key)
                return v;
        return "";
    }
    int64_t num(const std::string &key) const {
        std::string v = get(key);
        return v.empty() ? 0 : std::stoll(v);
    }
    uint64_t unum(const std::string &key) const {
        std::string v = get(key);
        return v.empty() ? 0 : std::stoull(v);
    }
    std::vector<std::string> all(const std::string &key) const {
        std::vector<std::string> out;
        for (const auto &[k, v] : fields)
            if (k == key)
                out.push_back(v);
        return out;
    }
};

// A quoted text-format string, C escapes (\n, \", \\, \NNN octal) undone.
std::string unquote(const std::string &v) {
    std::string out;
    if (v.size() < 2 || v.front() != '"')
        return v;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
        char c = v[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        char e = v[++i];
        if (e >= '0' && e <= '7') {
            int n = 0;
            for (int k = 0; k < 3 && i < v.size() - 1 && v[i] >= '0' && v[i] <= '7'; ++k, ++i)
                n = n * 8 + (v[i] - '0');
            --i;
            out += char(n);
        } else {
            out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        }
    }
    return out;
}

TextMessage parse_text(const std::string &text) {
    TextMessage root;
    std::vector<TextMessage *> open = {&root};
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        size_t b = line.find_first_not_of(' ');
        if (b == std::string::npos)
            continue;
        line = line.substr(b);
        if (line == "}") {
            open.pop_back();
        } else if (line.size() > 2 && line.compare(line.size() - 2, 2, " {") == 0) {
            auto &kids = open.back()->children;
            kids.emplace_back(line.substr(0, line.size() - 2), TextMessage{});
            open.push_back(&kids.back().second);
        } else {
            size_t colon = line.find(": ");
            if (colon != std::string::npos)
                open.back()->fields.emplace_back(line.substr(0, colon),
                                                 unquote(line.substr(colon + 2)));
        }
    }
    return root;
}

// Runs a shell command line; its exit status.
int shell(const std::string &command) {
    int rc = std::system(command.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

} // namespace

std::vector<std::string> PprofSample::names() const {
    std::vector<std::string> out;
    for (const PprofLocation *l : locations)
        for (const PprofLine &line : l->lines)
            out.push_back(line.function);
    return out;
}

std::string pprof_proto_path() {
    const char *p = "/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto";
    return std::filesystem::exists(p) ? p : "";
}

std::string protoc_path() {
    for (const char *dir : {"/usr/bin", "/usr/local/bin"}) {
        std::string p = std::string(dir) + "/protoc";
        if (access(p.c_str(), X_OK) == 0)
            return p;
    }
    return "";
}

bool decode_pprof(const std::string &path, const std::string &workdir, PprofProfile *out,
                  std::string *error) {
    std::filesystem::path proto = pprof_proto_path();
    std::string raw = workdir + "/decoded.pb", text = workdir + "/decoded.txt",
                err = workdir + "/decode.err";
    if (shell("gzip -dc '" + path + "' > '" + raw + "' 2> '" + err + "'") != 0) {
        *error = "gzip -dc: " + read_file(err);
        return false;
    }
    if (shell(protoc_path() + " --decode perftools.profiles.Profile --proto_path '" +
              proto.parent_path().string() + "' profile.proto < '" + raw + "' > '" + text +
              "' 2> '" + err + "'") != 0) {
        *error = "protoc: " + read_file(err);
        return false;
    }
    TextMessage m = parse_text(read_file(text));
    PprofProfile &p = *out;
    p.strings = m.all("string_table");
    auto s = [&](int64_t i) { return size_t(i) < p.strings.size() ? p.strings[size_t(i)] : "?"; };
    std::map<uint64_t, std::pair<std::string, std::string>> functions; // id -> name, file
    std::map<uint64_t, std::string> system_names, mapping_files;
    for (const auto &[k, c] : m.children) {
        if (k == "function") {
            functions[c.unum("id")] = {s(c.num("name")), s(c.num("filename"))};
            system_names[c.unum("id")] = s(c.num("system_name"));
        } else if (k == "mapping") {
            PprofMapping mp{c.unum("id"),
                            c.unum("memory_start"),
                            c.unum("memory_limit"),
                            s(c.num("filename")),
                            c.get("has_functions") == "true",
                            c.get("has_line_numbers") == "true",
                            c.get("has_inline_frames") == "true"};
            mapping_files[mp.id] = mp.filename;
            p.mappings.push_back(mp);
        } else if (k == "sample_type") {
            p.sample_types.emplace_back(s(c.num("type")), s(c.num("unit")));
        } else if (k == "period_type") {
            p.period_type = {s(c.num("type")), s(c.num("unit"))};
        }
    }
    for (const auto &[k, c] : m.children) {
        if (k != "location")
            continue;
        PprofLocation &l = p.locations[c.unum("id")];
        l.id = c.unum("id");
        l.address = c.unum("address");
        l.mapping = mapping_files[c.unum("mapping_id")];
        for (const auto &[lk, lc] : c.children)
            if (lk == "line") {
                uint64_t f = lc.unum("function_id");
                l.lines.push_back(
                    {functions[f].first, system_names[f], functions[f].second, lc.num("line")});
            }
    }
    for (const auto &[k, c] : m.children) {
        if (k != "sample")
            continue;
        PprofSample &smp = p.samples.emplace_back();
        for (const std::string &id : c.all("location_id"))
            smp.locations.push_back(&p.locations[std::stoull(id)]);
        for (const std::string &v : c.all("value"))
            smp.values.push_back(std::stoll(v));
        for (const auto &[lk, lc] : c.children)
            if (lk == "label") {
                if (lc.get("str").empty())
                    smp.num_labels[s(lc.num("key"))] = lc.num("num");
                else
                    smp.str_labels[s(lc.num("key"))] = s(lc.num("str"));
            }
    }
    p.period = m.num("period");
    p.time_nanos = m.num("time_nanos");
    p.duration_nanos = m.num("duration_nanos");
    p.default_sample_type = s(m.num("default_sample_type"));
    for (const std::string &c : m.all("comment"))
        p.comments.push_back(s(std::stoll(c)));
    return true;
}

} // namespace cpcprof::test
