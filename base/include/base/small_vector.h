// SPDX-License-Identifier: MIT
// SmallVector: a vector of trivially copyable T that keeps up to N
// elements in itself and allocates only beyond.  For values that almost
// always have a few elements and come by the hundred thousand: a cost's
// one value per event (analysis::Cost) in every tree node, hotspot row and
// function of a profile, where std::vector's allocation per cost was a
// third of building the trees and freeing a profile.
//
// The subset of std::vector's interface those uses need; iterators and
// pointers are invalidated by every change of size, as std::vector's may be.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace cpcprof::base {

template <typename T, size_t N> class SmallVector {
    static_assert(std::is_trivially_copyable_v<T>);

  public:
    using value_type = T;
    using size_type = size_t;
    using reference = T &;
    using const_reference = const T &;
    using iterator = T *;
    using const_iterator = const T *;

    SmallVector() = default;
    explicit SmallVector(size_t n, const T &v = T()) { assign(n, v); }
    SmallVector(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
    template <typename It,
              typename = std::enable_if_t<!std::is_integral_v<It>, decltype(*std::declval<It>())>>
    SmallVector(It first, It last) {
        assign(first, last);
    }
    // Implicit, so that a std::vector of values is one (Cost{0, values}).
    SmallVector(const std::vector<T> &v) { assign(v.begin(), v.end()); }
    SmallVector(const SmallVector &o) { assign(o.begin(), o.end()); }
    SmallVector(SmallVector &&o) noexcept { take(o); }
    SmallVector &operator=(const SmallVector &o) {
        if (this != &o)
            assign(o.begin(), o.end());
        return *this;
    }
    SmallVector &operator=(SmallVector &&o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~SmallVector() { release(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T *data() { return data_; }
    const T *data() const { return data_; }
    iterator begin() { return data_; }
    iterator end() { return data_ + size_; }
    const_iterator begin() const { return data_; }
    const_iterator end() const { return data_ + size_; }
    T &operator[](size_t i) { return data_[i]; }
    const T &operator[](size_t i) const { return data_[i]; }
    T &at(size_t i) {
        check(i);
        return data_[i];
    }
    const T &at(size_t i) const {
        check(i);
        return data_[i];
    }

    void clear() { size_ = 0; }
    void assign(size_t n, const T &v) {
        size_ = 0;
        resize(n, v);
    }
    template <typename It,
              typename = std::enable_if_t<!std::is_integral_v<It>, decltype(*std::declval<It>())>>
    void assign(It first, It last) {
        const size_t n = size_t(std::distance(first, last));
        reserve(n);
        std::copy(first, last, data_);
        size_ = n;
    }
    void resize(size_t n, const T &v = T()) {
        reserve(n);
        if (n > size_)
            std::fill(data_ + size_, data_ + n, v);
        size_ = n;
    }
    void push_back(const T &v) {
        if (size_ == capacity_)
            reserve(std::max<size_t>(2 * capacity_, 1));
        data_[size_++] = v;
    }
    void reserve(size_t n) {
        if (n <= capacity_)
            return;
        T *grown = new T[n];
        if (size_ != 0)
            std::memcpy(grown, data_, size_ * sizeof(T));
        release();
        data_ = grown;
        capacity_ = n;
    }

    friend bool operator==(const SmallVector &a, const SmallVector &b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator==(const SmallVector &a, const std::vector<T> &b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

  private:
    void check(size_t i) const {
        if (i >= size_)
            throw std::out_of_range("SmallVector::at");
    }
    void release() {
        if (data_ != inline_)
            delete[] data_;
        data_ = inline_;
        capacity_ = N;
    }
    // Takes o's elements (o's storage when it has its own); o is left empty.
    void take(SmallVector &o) {
        if (o.data_ == o.inline_) {
            std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
        } else {
            data_ = o.data_;
            capacity_ = o.capacity_;
            o.data_ = o.inline_;
            o.capacity_ = N;
        }
        size_ = o.size_;
        o.size_ = 0;
    }

    T *data_ = inline_;
    size_t size_ = 0, capacity_ = N;
    T inline_[N];
};

} // namespace cpcprof::base
