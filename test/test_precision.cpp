// Precision as a type: letters, real types, the one list of precisions and its dispatch.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "solvebench/precision.hpp"

namespace sb = solvebench;

static_assert(sb::precision<float>::letter == 's' && sb::precision<double>::letter == 'd');
static_assert(sb::precision<std::complex<float>>::letter == 'c' && sb::precision<std::complex<double>>::letter == 'z');
static_assert(sb::precision<std::complex<double>>::upper == 'Z' && sb::precision<float>::upper == 'S');
static_assert(std::is_same_v<sb::precision<std::complex<float>>::real, float>);
static_assert(std::is_same_v<sb::precision<std::complex<double>>::real, double>);
static_assert(std::is_same_v<sb::precision<float>::wide, double>);
static_assert(std::is_same_v<sb::precision<std::complex<float>>::wide, std::complex<double>>);
static_assert(sb::precision<std::complex<float>>::is_complex && !sb::precision<double>::is_complex);
static_assert(sb::is_complex_v<std::complex<double>> && !sb::is_complex_v<double> && !sb::is_complex_v<int>);
// The type lists come from the instantiation macros: the same four, in LAPACK's order.
static_assert(
    std::is_same_v<sb::all_precisions, sb::precision_list<float, double, std::complex<float>, std::complex<double>>>);
static_assert(std::is_same_v<sb::real_precisions, sb::precision_list<float, double>>);
static_assert(std::is_same_v<sb::complex_precisions, sb::precision_list<std::complex<float>, std::complex<double>>>);

namespace {

// The letters for_each_precision visits, as the type it passes says them.
std::string visited(const std::vector<std::string>& letters) {
  std::string out;
  sb::for_each_precision(letters, [&out](auto tag) {
    using T = typename decltype(tag)::type;
    out += sb::precision<T>::letter;
  });
  return out;
}

}  // namespace

TEST(Precision, ForEachPrecisionVisitsTheNamedOnesInTheirOrder) {
  EXPECT_EQ(visited({"d", "s"}), "ds");
  EXPECT_EQ(visited({"z", "c", "d", "s"}), "zcds");
  EXPECT_EQ(visited({"c"}), "c");
  EXPECT_EQ(visited({}), "");
  EXPECT_EQ(visited({"q", "zz", "", "Z"}), "") << "what is not a letter of the list names nothing";
}

TEST(Precision, ARealOnlyListSkipsTheComplexLetters) {
  std::string out;
  sb::for_each_precision(
      std::vector<std::string>{"z", "d", "c", "s"},
      [&out](auto tag) {
        using T = typename decltype(tag)::type;
        static_assert(!sb::is_complex_v<T>, "only real types are compiled for real_precisions");
        out += sb::precision<T>::letter;
      },
      sb::real_precisions{});
  EXPECT_EQ(out, "ds");
}

TEST(Precision, TheFlagParserAcceptsExactlyTheListsLetters) {
  for (const char* p : {"s", "d", "c", "z"}) EXPECT_TRUE(sb::is_precision_letter(p)) << p;
  for (const char* p : {"", "S", "D", "x", "dd", "d,s", "h"}) EXPECT_FALSE(sb::is_precision_letter(p)) << p;
  EXPECT_EQ(sb::precision_letters_text(), "s, d, c or z");
  EXPECT_EQ(std::string(sb::precision_letters.begin(), sb::precision_letters.end()), "sdcz");
}

TEST(Precision, RoutineNamesSpellTheLetter) {
  EXPECT_EQ(sb::routine_name<std::complex<double>>("LAPACKE_", "gesv"), "LAPACKE_zgesv");
  EXPECT_EQ(sb::nvidia_routine_name<std::complex<float>>("cusolverDn", "getrf"), "cusolverDnCgetrf");
  EXPECT_EQ(sb::routine_name<float>("LAPACKE_", "potrf"), "LAPACKE_spotrf");
}

TEST(Precision, TheInstantiationMacrosExpandEveryPrecisionInOrder) {
  std::string all, real, complex;
#define SB_LETTER_OF(T) all += sb::precision<T>::letter;
  SOLVE_BENCH_FOR_EACH_PRECISION(SB_LETTER_OF)
#undef SB_LETTER_OF
#define SB_LETTER_OF(T) real += sb::precision<T>::letter;
  SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_LETTER_OF)
#undef SB_LETTER_OF
#define SB_LETTER_OF(T) complex += sb::precision<T>::letter;
  SOLVE_BENCH_FOR_EACH_COMPLEX_PRECISION(SB_LETTER_OF)
#undef SB_LETTER_OF
  EXPECT_EQ(all, "sdcz");
  EXPECT_EQ(real, "sd");
  EXPECT_EQ(complex, "cz");
}
