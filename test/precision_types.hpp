// GoogleTest's Types<...> from the library's precision lists, so that a typed test runs over
// exactly the precisions the library instantiates: TYPED_TEST_SUITE(X, AllPrecisions,
// PrecisionLetter).
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <string>

#include "solvebench/precision.hpp"

template <class List>
struct gtest_types_of;
template <class... Ts>
struct gtest_types_of<solvebench::precision_list<Ts...>> {
  using type = ::testing::Types<Ts...>;
};

using AllPrecisions = gtest_types_of<solvebench::all_precisions>::type;
using RealPrecisions = gtest_types_of<solvebench::real_precisions>::type;
using ComplexPrecisions = gtest_types_of<solvebench::complex_precisions>::type;

// Test names by LAPACK letter (Cusolver/z.GemmAndItsCheck), not by index (Cusolver/3...).
struct PrecisionLetter {
  template <class T>
  static std::string GetName(int) {
    return std::string(1, solvebench::precision<T>::letter);
  }
};

// One unit off an entry, in its imaginary part for complex T: a planted error of the same size.
template <class T>
T one_off() {
  if constexpr (solvebench::is_complex_v<T>) return T(0, 1);
  else return T(1);
}
