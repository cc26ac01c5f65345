// Private to lib/src/cuda: the element types kernels work on. std::complex has no device
// functions, so a complex T is stored through a plain pair of its real type, which has
// std::complex's layout (an array of two reals: [complex.numbers]) and cuComplex's.
#pragma once

#include <complex>
#include <cstdint>

#include "solvebench/generate.hpp"
#include "solvebench/host_device.hpp"

namespace solvebench::cuda::detail {

template <class R>
struct complex_pair {
  R re, im;
};

template <class T>
struct device_scalar {
  using type = T;
};
template <class R>
struct device_scalar<std::complex<R>> {
  using type = complex_pair<R>;
};
// float -> float, std::complex<double> -> complex_pair<double>.
template <class T>
using device_t = typename device_scalar<T>::type;

template <class T>
device_t<T>* device_ptr(T* p) noexcept {
  return reinterpret_cast<device_t<T>*>(p);
}
template <class T>
const device_t<T>* device_ptr(const T* p) noexcept {
  return reinterpret_cast<const device_t<T>*>(p);
}

template <class S>
inline constexpr bool is_pair_v = false;
template <class R>
inline constexpr bool is_pair_v<complex_pair<R>> = true;

// Entries (i, j) of generate.hpp's matrix and right-hand side, rounded to the stored type S
// as the host's tabulate() rounds them: the real generator, or the complex one part by part.
template <class S>
SB_HOST_DEVICE S matrix_entry_as(matrix_kind kind, std::uint64_t key, std::int64_t n, std::int64_t i, std::int64_t j) {
  if constexpr (is_pair_v<S>) {
    const complex_entry e = complex_matrix_entry(kind, key, n, i, j);
    return {static_cast<decltype(S::re)>(e.re), static_cast<decltype(S::re)>(e.im)};
  } else {
    return static_cast<S>(matrix_entry(kind, key, n, i, j));
  }
}
template <class S>
SB_HOST_DEVICE S rhs_entry_as(std::uint64_t key, std::int64_t n, std::int64_t i, std::int64_t j) {
  if constexpr (is_pair_v<S>) {
    const complex_entry e = complex_rhs_entry(key, n, i, j);
    return {static_cast<decltype(S::re)>(e.re), static_cast<decltype(S::re)>(e.im)};
  } else {
    return static_cast<S>(rhs_entry(key, n, i, j));
  }
}

}  // namespace solvebench::cuda::detail
