// SPDX-License-Identifier: MIT
// The owner of a libcpc handle: cpc_close(3CPC) when it goes away (which
// unbinds and frees every set and buffer of the handle).
#pragma once

#include "base/unique_c.h"

#include <libcpc.h>

namespace cpcprof {

using UniqueCpc = base::UniqueC<cpc_t, cpc_close>;

} // namespace cpcprof
