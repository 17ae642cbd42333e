// SPDX-License-Identifier: MIT
// Architectures without a parking implementation: fork children are not
// followed (see pctx_park.h).
#include "libcpc/src/pctx_park.h"

#include <cerrno>

namespace pctx {

int park(pid_t, Parked *) {
    return ENOSYS;
}
int unpark(pid_t, const Parked &) {
    return ENOSYS;
}

} // namespace pctx
