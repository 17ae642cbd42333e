// SPDX-License-Identifier: MIT
// Event specifications of cputrack(1) and cpustat(8):
//
//   [picn=]eventn[,attr[n][=val]][,[picn=]eventn[,attr[n][=val]],...]
//
// Each event starts a request.  A request's counter number is n when it was
// written picn=event; the others take the lowest numbers left, in order.
// `nouser` turns CPC_COUNT_USER off and `sys` turns CPC_COUNT_SYSTEM on;
// an attribute sets a value (strtoll syntax, 1 when no value is given).  A
// token with a counter number applies to that counter's request only; one
// without applies to every request of the specification, wherever it stands.
#pragma once

#include <libcpc.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cpcprof::tools {

struct EventRequest {
    std::string event;
    int pic = -1;     // the n of picn=, or -1
    int counter = -1; // its counter number: pic, or the one it was given
    uint_t flags = CPC_COUNT_USER;
    // In the order first given; "picnum" is added for picn=.
    std::vector<std::pair<std::string, uint64_t>> attrs;

    bool operator==(const EventRequest &) const = default;
};

struct EventSpec {
    std::string text; // as the user wrote it
    std::vector<EventRequest> requests;
};

struct ParseResult {
    bool ok = false;
    EventSpec spec;
    std::string error; // names the offending token when !ok
};

// attr_names: the attributes a token may name (cpc_walk_attrs() of the
// machine, without "picnum", which only picn= sets).  Injected so that the
// grammar is tested without the machine.
ParseResult parse_eventspec(std::string_view text, const std::vector<std::string> &attr_names);

// The attribute names of cpc_walk_attrs() that a specification may use.
std::vector<std::string> spec_attr_names(cpc_t *cpc);

// The header label of request i: "picN" (N = its counter number).
std::string request_label(const EventSpec &spec, size_t i);

// Adds every request of spec to set, with preset 0, and stores in *indices
// (when given) the buffer index of each, in the specification's order.
// Returns 0, or -1 with errno set by cpc_set_add_request() (which has
// reported the reason through the handle's error handler).
int add_to_set(cpc_t *cpc, cpc_set_t *set, const EventSpec &spec,
               std::vector<int> *indices = nullptr);

} // namespace cpcprof::tools
