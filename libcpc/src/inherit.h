// SPDX-License-Identifier: MIT
// CPC_BIND_LWP_INHERIT works through libcpc's pthread_create wrapper
// (inherit.cpp), which only sees the threads created through it.
#pragma once

namespace cpc {

// The object whose pthread_create the program calls when it is not
// libcpc's (a sanitizer runtime or an LD_PRELOAD library loaded first), or
// null when libcpc's wrapper is the one in use.
const char *pthread_create_interposer();

} // namespace cpc
