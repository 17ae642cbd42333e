// SPDX-License-Identifier: MIT
#include "profiler/tools/eventspec.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>

namespace cpcprof::tools {
namespace {

constexpr int kAll = -1; // a token without counter number

// A token that qualifies requests: nouser, sys or an attribute.
struct Directive {
    std::string token;
    std::string name; // "nouser", "sys" or the attribute
    int counter = kAll;
    uint64_t value = 1;
};

struct Split {
    std::string_view base;
    std::optional<int> number; // trailing digits, if any
    bool number_too_big = false;
};

// "umask12" -> ("umask", 12).  Digits only at the end count.
Split split_number(std::string_view key) {
    size_t end = key.size();
    while (end > 0 && key[end - 1] >= '0' && key[end - 1] <= '9')
        --end;
    Split s{key.substr(0, end), std::nullopt};
    if (end == key.size() || end == 0)
        return {key, std::nullopt};
    std::string_view digits = key.substr(end);
    if (digits.size() > 6) {
        s.number_too_big = true;
        return s;
    }
    s.number = std::stoi(std::string(digits));
    return s;
}

bool contains(const std::vector<std::string> &v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string quoted(std::string_view tok) {
    return "'" + std::string(tok) + "'";
}

// strtoll(3) with base 0, the whole text, no overflow.
std::optional<uint64_t> parse_value(const std::string &text) {
    if (text.empty())
        return std::nullopt;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 0);
    if (errno != 0 || *end != '\0')
        return std::nullopt;
    return static_cast<uint64_t>(v);
}

class Parser {
  public:
    explicit Parser(const std::vector<std::string> &attrs) : attrs_(attrs) {}

    bool token(std::string_view tok);
    bool finish();
    const std::string &error() const { return error_; }
    std::vector<EventRequest> take() { return std::move(reqs_); }

  private:
    bool fail(std::string_view tok, const std::string &why) {
        error_ = "token " + quoted(tok) + ": " + why;
        return false;
    }
    bool event(std::string_view tok, int pic, std::string_view name);
    bool directive(std::string_view tok, std::string_view key, bool has_value,
                   std::string_view value);
    int request_of_counter(int n) const;
    bool apply(const Directive &d, EventRequest &r, std::vector<std::string> &given);

    const std::vector<std::string> &attrs_;
    std::vector<EventRequest> reqs_;
    std::vector<std::string> req_tokens_;
    std::vector<Directive> dirs_;
    std::string error_;
};

bool Parser::event(std::string_view tok, int pic, std::string_view name) {
    if (name.empty())
        return fail(tok, "no event name after '='");
    EventRequest r;
    r.event = std::string(name);
    r.pic = pic;
    if (pic >= 0)
        r.attrs.emplace_back("picnum", static_cast<uint64_t>(pic));
    reqs_.push_back(std::move(r));
    req_tokens_.emplace_back(tok);
    return true;
}

bool Parser::directive(std::string_view tok, std::string_view key, bool has_value,
                       std::string_view value) {
    Split s = split_number(key);
    if (s.number_too_big)
        return fail(tok, "counter number too large");
    std::string_view base = s.number ? s.base : key;
    Directive d{std::string(tok), std::string(base), s.number.value_or(kAll), 1};
    if (base == "nouser" || base == "sys") {
        if (has_value)
            return fail(tok, std::string(base) + " takes no value");
    } else if (has_value) {
        std::optional<uint64_t> v = parse_value(std::string(value));
        if (!v)
            return fail(tok, quoted(value) + " is not a number (strtoll syntax: 10, 0x1f, 017)");
        d.value = *v;
    }
    dirs_.push_back(std::move(d));
    return true;
}

bool Parser::token(std::string_view tok) {
    if (tok.empty()) {
        error_ = "empty token (two commas, or a comma at either end)";
        return false;
    }
    size_t eq = tok.find('=');
    bool has_value = eq != std::string_view::npos;
    std::string_view key = tok.substr(0, eq);
    std::string_view value = has_value ? tok.substr(eq + 1) : std::string_view{};
    if (key.empty())
        return fail(tok, "no name before '='");
    Split s = split_number(key);
    if (s.base == "pic" && (s.number || s.number_too_big)) {
        if (s.number_too_big)
            return fail(tok, "counter number too large");
        if (!has_value)
            return fail(tok, "pic" + std::to_string(*s.number) + " needs =event");
        return event(tok, *s.number, value);
    }
    std::string_view base = s.number || s.number_too_big ? s.base : key;
    if (base == "nouser" || base == "sys" || contains(attrs_, key) || contains(attrs_, base))
        return directive(tok, key, has_value, value);
    if (base == "picnum")
        return fail(tok, "choose a counter with picn=event");
    if (has_value)
        return fail(tok, "unknown attribute " + quoted(key) +
                             (attrs_.empty() ? " (this machine has none)" : ""));
    return event(tok, -1, key);
}

int Parser::request_of_counter(int n) const {
    for (size_t i = 0; i < reqs_.size(); ++i)
        if (reqs_[i].counter == n)
            return static_cast<int>(i);
    return -1;
}

// given: names of attributes already set on r by a token of the same scope.
bool Parser::apply(const Directive &d, EventRequest &r, std::vector<std::string> &given) {
    if (d.name == "nouser") {
        r.flags &= ~static_cast<uint_t>(CPC_COUNT_USER);
        return true;
    }
    if (d.name == "sys") {
        r.flags |= CPC_COUNT_SYSTEM;
        return true;
    }
    if (contains(given, d.name))
        return fail(d.token, "attribute " + d.name + " given twice");
    given.push_back(d.name);
    auto it = std::find_if(r.attrs.begin(), r.attrs.end(),
                           [&](const auto &a) { return a.first == d.name; });
    if (it != r.attrs.end())
        it->second = d.value;
    else
        r.attrs.emplace_back(d.name, d.value);
    return true;
}

bool Parser::finish() {
    if (reqs_.empty()) {
        error_ = "no event named";
        return false;
    }
    for (size_t i = 0; i < reqs_.size(); ++i) {
        if (reqs_[i].pic < 0)
            continue;
        if (request_of_counter(reqs_[i].pic) >= 0)
            return fail(req_tokens_[i],
                        "counter " + std::to_string(reqs_[i].pic) + " already has an event");
        reqs_[i].counter = reqs_[i].pic;
    }
    int next = 0;
    for (EventRequest &r : reqs_) {
        if (r.counter >= 0)
            continue;
        while (request_of_counter(next) >= 0)
            ++next;
        r.counter = next++;
    }
    // Tokens for every counter first, so that one naming a counter wins.
    std::vector<std::vector<std::string>> global(reqs_.size()), local(reqs_.size());
    for (const Directive &d : dirs_) {
        if (d.counter != kAll)
            continue;
        for (size_t i = 0; i < reqs_.size(); ++i)
            if (!apply(d, reqs_[i], global[i]))
                return false;
    }
    for (const Directive &d : dirs_) {
        if (d.counter == kAll)
            continue;
        int i = request_of_counter(d.counter);
        if (i < 0)
            return fail(d.token, "no event on counter " + std::to_string(d.counter));
        if (!apply(d, reqs_[i], local[i]))
            return false;
    }
    return true;
}

} // namespace

ParseResult parse_eventspec(std::string_view text, const std::vector<std::string> &attr_names) {
    ParseResult res;
    res.spec.text = std::string(text);
    if (text.empty()) {
        res.error = "empty event specification";
        return res;
    }
    Parser p(attr_names);
    size_t start = 0;
    for (;;) {
        size_t comma = text.find(',', start);
        std::string_view tok = text.substr(start, comma - start);
        if (!p.token(tok)) {
            res.error = p.error();
            return res;
        }
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    if (!p.finish()) {
        res.error = p.error();
        return res;
    }
    res.spec.requests = p.take();
    res.ok = true;
    return res;
}

std::vector<std::string> spec_attr_names(cpc_t *cpc) {
    std::vector<std::string> names;
    cpc_walk_attrs(cpc, &names, [](void *arg, const char *attr) {
        std::string_view a(attr);
        if (a != "picnum" && a != "count_sibling_usr" && a != "count_sibling_sys")
            static_cast<std::vector<std::string> *>(arg)->emplace_back(a);
    });
    return names;
}

std::string request_label(const EventSpec &spec, size_t i) {
    return "pic" + std::to_string(spec.requests[i].counter);
}

int add_to_set(cpc_t *cpc, cpc_set_t *set, const EventSpec &spec, std::vector<int> *indices) {
    if (indices != nullptr)
        indices->clear();
    for (const EventRequest &r : spec.requests) {
        std::vector<cpc_attr_t> attrs;
        attrs.reserve(r.attrs.size());
        for (const auto &[name, value] : r.attrs)
            attrs.push_back(cpc_attr_t{const_cast<char *>(name.c_str()), value});
        int index = cpc_set_add_request(cpc, set, r.event.c_str(), 0, r.flags,
                                        static_cast<uint_t>(attrs.size()),
                                        attrs.empty() ? nullptr : attrs.data());
        if (index < 0)
            return -1;
        if (indices != nullptr)
            indices->push_back(index);
    }
    return 0;
}

} // namespace cpcprof::tools
