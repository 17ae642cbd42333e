// SPDX-License-Identifier: MIT
// The distinct code addresses that samples' stacks reach, each placed in
// the mapping of the sample's process at the sample's time.
//
// Cost: one pass over the samples (three integer columns), a sort of the
// distinct (process context, leaf node) pairs, then one walk up the trie
// per pair that stops at the first node already reached in that context:
// every (context, node) is located once, whatever the number of samples.
#pragma once

#include "storage/src/profile_load.h"

#include <sqlite3.h>

#include <string>
#include <vector>

namespace cpcprof::storage {

// Sorted by (module_id, offset).  false with *reason on a read error or a
// sample that refers to a missing thread or stack node.
bool collect_addresses(sqlite3 *db, const LoadedProfile &profile,
                       std::vector<AddressToResolve> *out, std::string *reason);

} // namespace cpcprof::storage
