// SPDX-License-Identifier: MIT
// Buffers: snapshots of a set's virtual counters, and arithmetic on them.
#include "libcpc/src/impl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

using namespace cpc;

namespace {

bool same_shape(const cpc_buf_t *a, const cpc_buf_t *b) {
    return a != nullptr && b != nullptr && a->nreqs == b->nreqs;
}

} // namespace

extern "C" {

cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set) {
    if (!set_in_handle(cpc, set)) {
        errno = EINVAL;
        return nullptr;
    }
    auto b = std::make_unique<__cpc_buf>();
    b->cpc = cpc;
    b->set = set;
    b->nreqs = static_cast<int>(set->requests.size()); // illumos: sized at creation
    b->data = std::make_unique<uint64_t[]>(std::max(b->nreqs, 1));
    cpc_buf_t *raw = b.get();
    std::lock_guard<std::mutex> g(cpc->lock);
    cpc->bufs.push_back(std::move(b));
    return raw;
}

int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf) {
    if (!valid_handle(cpc)) {
        errno = EINVAL;
        return -1;
    }
    std::unique_ptr<cpc_buf_t> dead;
    {
        std::lock_guard<std::mutex> g(cpc->lock);
        auto it = std::find_if(cpc->bufs.begin(), cpc->bufs.end(),
                               [buf](const auto &b) { return b.get() == buf; });
        if (it == cpc->bufs.end()) {
            errno = EINVAL;
            return -1;
        }
        dead = std::move(*it);
        cpc->bufs.erase(it);
    }
    dead->magic = 0;
    return 0;
}

int cpc_buf_get(cpc_t *, cpc_buf_t *buf, int index, uint64_t *val) {
    if (buf == nullptr || val == nullptr || index < 0 || index >= buf->nreqs) {
        errno = EINVAL;
        return -1;
    }
    *val = buf->data[index];
    return 0;
}

int cpc_buf_set(cpc_t *, cpc_buf_t *buf, int index, uint64_t val) {
    if (buf == nullptr || index < 0 || index >= buf->nreqs) {
        errno = EINVAL;
        return -1;
    }
    buf->data[index] = val;
    return 0;
}

hrtime_t cpc_buf_hrtime(cpc_t *, cpc_buf_t *buf) {
    return buf ? buf->hrtime : 0;
}
uint64_t cpc_buf_tick(cpc_t *, cpc_buf_t *buf) {
    return buf ? buf->tick : 0;
}

void cpc_buf_sub(cpc_t *, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b) {
    if (!same_shape(ds, a) || !same_shape(a, b))
        return;
    for (int i = 0; i < ds->nreqs; ++i)
        ds->data[i] = a->data[i] - b->data[i];
    ds->tick = a->tick - b->tick;
    ds->hrtime = std::max(a->hrtime, b->hrtime);
}

void cpc_buf_add(cpc_t *, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b) {
    if (!same_shape(ds, a) || !same_shape(a, b))
        return;
    for (int i = 0; i < ds->nreqs; ++i)
        ds->data[i] = a->data[i] + b->data[i];
    ds->tick = a->tick + b->tick;
    ds->hrtime = std::max(a->hrtime, b->hrtime);
}

void cpc_buf_copy(cpc_t *, cpc_buf_t *ds, cpc_buf_t *src) {
    if (!same_shape(ds, src) || ds == src)
        return;
    std::copy_n(src->data.get(), ds->nreqs, ds->data.get());
    ds->tick = src->tick;
    ds->hrtime = src->hrtime;
}

void cpc_buf_zero(cpc_t *, cpc_buf_t *buf) {
    if (buf == nullptr)
        return;
    std::fill_n(buf->data.get(), buf->nreqs, 0);
    buf->tick = 0;
    buf->hrtime = 0;
}

} // extern "C"
