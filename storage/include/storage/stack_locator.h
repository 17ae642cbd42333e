// SPDX-License-Identifier: MIT
// StackLocator: sample stacks as paths of code locations, for reports.
//
// The stack trie holds raw addresses, and the same address can be
// different code in different processes or at different times (a module
// unloaded and another loaded there; two non-PIE programs at 0x401000).
// The locator turns each (process context, stack node) into a node of a
// second trie whose frames are CodeAddress (module, file offset) with the
// symbol chain of each, and remembers the answer: a report resolves every
// distinct stack once and then pays one hash lookup per sample.
//
// Equal code gets equal located nodes across processes and times, so
// aggregating samples by located node merges them where the code is the
// same.  The located trie grows as stacks are located; ids are stable.
//
//   StackLocator loc(reader);
//   std::vector<uint64_t> count;
//   reader.for_each_sample([&](const StoredSample &s) {
//       uint32_t n = loc.locate(s);
//       if (n >= count.size()) count.resize(loc.nodes().size());
//       ++count[n];
//   }, &error, Reader::Frames::skip);
//   // loc.nodes()[n].parent: the caller; .leaf_chain (n as a sample's
//   // leaf) and .chain (n as a caller): frames in reader.symbol_table()
//   // (innermost first); 0 = no symbols.
//
// Not thread-safe; holds references into the Reader, which must outlive it.
#pragma once

#include "storage/reader.h"
#include "storage/records.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace cpcprof::storage {

// A node of the located trie.  Node 0 is the root (no frame).
struct LocatedNode {
    uint32_t parent = 0; // the caller's node; 0 = outermost frame
    CodeAddress where;   // module_id 0: no mapping held it (offset = the address)
    // reader.symbol_table() chains, 0 = no symbols stored: chain for the
    // node as a caller's frame (where is a return address), leaf_chain for
    // it as a sample's own leaf (where is the interrupted PC).  A node can
    // be both: one sample's leaf, another's caller.
    uint32_t chain = 0;
    uint32_t depth = 0; // frames from the root: 1 for an outermost frame
    uint32_t leaf_chain = 0;

    bool operator==(const LocatedNode &) const = default;
};

class StackLocator {
  public:
    explicit StackLocator(const Reader &reader);
    ~StackLocator();
    StackLocator(const StackLocator &) = delete;
    StackLocator &operator=(const StackLocator &) = delete;

    // The located node of a sample's stack (its leaf, the interrupted PC);
    // 0 for a sample without frames.
    uint32_t locate(const StoredSample &sample) {
        return locate(sample.pid, sample.time_ns, sample.stack);
    }
    // The same for stack node `stack` reached in pid at time_ns; 0 for an
    // unknown node.
    uint32_t locate(int pid, int64_t time_ns, uint64_t stack) {
        return locate_in(context(pid, time_ns), stack);
    }
    // The two halves of that: the modules loaded in pid at time_ns (equal
    // contexts, equal answers), and the node of `stack` in context.
    uint32_t context(int pid, int64_t time_ns);
    uint32_t locate_in(uint32_t context, uint64_t stack);

    // The located trie: index = node id, [0] = the root.
    const std::vector<LocatedNode> &nodes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace cpcprof::storage
