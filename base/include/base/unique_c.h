// SPDX-License-Identifier: MIT
// Owners of C library resources: a std::unique_ptr whose deleter is the
// library's own release function, named once per type where it is used
// (cpc_t, Dwfl, Elf: their aliases live with their users, so that base
// depends on no library's headers).
//
//   using UniqueCpc = cpcprof::base::UniqueC<cpc_t, cpc_close>;
//   UniqueCpc cpc(cpc_open(CPC_VER_CURRENT)); // cpc_close on every exit
#pragma once

#include <memory>

namespace cpcprof::base {

// Calls Fn on a non-null pointer; Fn's result (often an int status) is
// ignored: there is nobody left to tell.
template <auto Fn> struct CDeleter {
    template <typename T> void operator()(T *p) const {
        if (p != nullptr)
            Fn(p);
    }
};

template <typename T, auto Fn> using UniqueC = std::unique_ptr<T, CDeleter<Fn>>;

} // namespace cpcprof::base
