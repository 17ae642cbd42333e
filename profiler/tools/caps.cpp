// SPDX-License-Identifier: MIT
#include "profiler/tools/caps.h"

#include <cstddef>
#include <string_view>

namespace cpcprof::tools {
namespace {

constexpr size_t kLineLength = 76;
constexpr size_t kMargin = 17; // "\t\t "
constexpr size_t kTab = 8;

// "\t<label> name name ...", wrapped at kLineLength with kMargin.
void list(std::string &out, const std::string &label, const std::vector<std::string> &names) {
    out += "\t" + label + " ";
    size_t col = kTab + label.size() + 1;
    for (const std::string &n : names) {
        if (col + n.size() + 1 > kLineLength && col > kMargin) {
            out += "\n\t\t ";
            col = kMargin;
        }
        out += n + " ";
        col += n.size() + 1;
    }
    out += "\n";
}

// One "event[0-N]:" line when every counter can count the same events, one
// "eventK:" line per counter otherwise.
void events(std::string &out, const std::vector<std::vector<std::string>> &per_pic) {
    bool same = true;
    for (const auto &pic : per_pic)
        same = same && pic == per_pic.front();
    if (per_pic.empty())
        return;
    if (same) {
        std::string range = per_pic.size() == 1 ? "0" : "0-" + std::to_string(per_pic.size() - 1);
        list(out, "event[" + range + "]:", per_pic.front());
        return;
    }
    for (size_t i = 0; i < per_pic.size(); ++i)
        list(out, "event" + std::to_string(i) + ":", per_pic[i]);
}

// Words of text on lines that start with a tab, wrapped at kLineLength.
void paragraph(std::string &out, const std::string &text) {
    size_t col = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t start = text.find_first_not_of(" \t\n", pos);
        if (start == std::string::npos)
            break;
        size_t end = text.find_first_of(" \t\n", start);
        if (end == std::string::npos)
            end = text.size();
        std::string word = text.substr(start, end - start);
        if (col == 0) {
            out += "\t" + word;
            col = kTab + word.size();
        } else if (col + 1 + word.size() > kLineLength) {
            out += "\n\t" + word;
            col = kTab + word.size();
        } else {
            out += " " + word;
            col += 1 + word.size();
        }
        pos = end;
    }
    if (col > 0)
        out += "\n";
}

void walk_pic(cpc_t *cpc, bool generic, std::vector<std::vector<std::string>> &out) {
    out.assign(cpc_npic(cpc), {});
    auto add = [](void *arg, uint_t pic, const char *ev) {
        (*static_cast<std::vector<std::vector<std::string>> *>(arg))[pic].emplace_back(ev);
    };
    for (uint_t pic = 0; pic < cpc_npic(cpc); ++pic) {
        if (generic)
            cpc_walk_generic_events_pic(cpc, pic, &out, add);
        else
            cpc_walk_events_pic(cpc, pic, &out, add);
    }
}

} // namespace

Capabilities read_capabilities(cpc_t *cpc) {
    Capabilities caps;
    caps.cciname = cpc_cciname(cpc);
    caps.cpuref = cpc_cpuref(cpc);
    walk_pic(cpc, true, caps.generic);
    walk_pic(cpc, false, caps.platform);
    // Generic names are listed under their own heading only.
    for (auto &pic : caps.platform)
        std::erase_if(pic, [](const std::string &e) { return e.rfind("PAPI", 0) == 0; });
    cpc_walk_attrs(cpc, &caps.attrs, [](void *arg, const char *attr) {
        static_cast<std::vector<std::string> *>(arg)->emplace_back(attr);
    });
    return caps;
}

bool has_hardware_pmu(cpc_t *cpc) {
    // libcpc lists the events it could open on this machine; with a PMU
    // at least one of these two is among them.  A walk reports nothing
    // through the handle's error handler, unlike a failed request.
    bool found = false;
    cpc_walk_events_all(cpc, &found, [](void *arg, const char *event) {
        std::string_view e = event;
        if (e == "cycles" || e == "instructions")
            *static_cast<bool *>(arg) = true;
    });
    return found;
}

std::string format_capabilities(const Capabilities &caps) {
    std::string out;
    out += "\tCPU performance counter interface: " + caps.cciname + "\n\n";
    out += "\tevent specification syntax:\n";
    out += "\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]\n\n";
    out += "\tGeneric Events:\n\n";
    events(out, caps.generic);
    out += "\n\tSee generic_events(3CPC) for descriptions of these events\n\n";
    out += "\tPlatform Specific Events:\n\n";
    events(out, caps.platform);
    std::vector<std::string> attrs;
    for (const std::string &a : caps.attrs)
        if (a != "picnum" && a != "count_sibling_usr" && a != "count_sibling_sys")
            attrs.push_back(a);
    attrs.push_back("nouser");
    attrs.push_back("sys");
    out += "\n";
    list(out, "attributes:", attrs);
    out += "\n";
    paragraph(out, caps.cpuref);
    return out;
}

} // namespace cpcprof::tools
