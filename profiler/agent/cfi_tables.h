// SPDX-License-Identifier: MIT
// The process's CFI tables: every loaded module's rows (compiled by
// eh_frame.h, or mapped from the recording's cache, cfi_cache.h), indexed
// and published for the overflow handler's find_cfi (cfi.h).  Ordinary
// context only.
#pragma once

namespace cpcprof::agent {

// Rebuilds the index from the loaded modules (tables of modules already
// seen are reused) and publishes it.  Called at start (the agent's
// constructor) and by the drain thread when it sees the modules change;
// safe against concurrent calls.
void refresh_cfi();

} // namespace cpcprof::agent
