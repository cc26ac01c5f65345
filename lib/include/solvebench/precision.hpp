// Precision as data: the one place that maps float, double, std::complex<float> and
// std::complex<double> to LAPACK's letter and to their real type. Backends call
// precision-specific routines through one-line overloads on T* (lapackpp's way), so their
// template bodies never branch on the type.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace solvebench {

template <class T>
struct precision;
template <>
struct precision<float> {
  static constexpr char letter = 's';
  static constexpr char upper = 'S';  // cuBLAS/cuSOLVER spell it in capitals: cublasSgetrfBatched
  static constexpr bool is_complex = false;
  using real = float;
  using wide = double;  // what residuals accumulate in
};
template <>
struct precision<double> {
  static constexpr char letter = 'd';
  static constexpr char upper = 'D';
  static constexpr bool is_complex = false;
  using real = double;
  using wide = double;
};
template <>
struct precision<std::complex<float>> {
  static constexpr char letter = 'c';
  static constexpr char upper = 'C';
  static constexpr bool is_complex = true;
  using real = float;
  using wide = std::complex<double>;
};
template <>
struct precision<std::complex<double>> {
  static constexpr char letter = 'z';
  static constexpr char upper = 'Z';
  static constexpr bool is_complex = true;
  using real = double;
  using wide = std::complex<double>;
};

// True for std::complex<float|double>; false for anything else (no precision<T> needed).
template <class T>
inline constexpr bool is_complex_v = false;
template <class R>
inline constexpr bool is_complex_v<std::complex<R>> = true;

// For the templates that only exist for real T (known solutions, prescribed condition,
// batched and multi-process solvers): `template <class T, real_only<T> = 0>` makes a complex
// use a compile error instead of a missing symbol.
template <class T>
using real_only = std::enable_if_t<!is_complex_v<T>, int>;

// Routine names in messages: "LAPACKE_" 'd' "getrf", "cusolverDn" 'D' "potrfBatched".
template <class T>
std::string routine_name(const char* prefix, const char* op) {
  return std::string(prefix) + precision<T>::letter + op;
}
template <class T>
std::string nvidia_routine_name(const char* prefix, const char* op) {
  return std::string(prefix) + precision<T>::upper + op;
}

// ---- the precisions, one list ----------------------------------------------------------

// The one list, as X-macros: explicit instantiations need the types spelled out, which a
// type list cannot do. `SOLVE_BENCH_FOR_EACH_PRECISION(X)` expands to X(float) X(double)
// X(std::complex<float>) X(std::complex<double>); `..._REAL_PRECISION(X)` to the first two.
// The type lists below are made from them, so the two spellings cannot drift apart.
#define SOLVE_BENCH_FOR_EACH_REAL_PRECISION(X) X(float) X(double)
#define SOLVE_BENCH_FOR_EACH_COMPLEX_PRECISION(X) X(std::complex<float>) X(std::complex<double>)
#define SOLVE_BENCH_FOR_EACH_PRECISION(X) \
  SOLVE_BENCH_FOR_EACH_REAL_PRECISION(X) SOLVE_BENCH_FOR_EACH_COMPLEX_PRECISION(X)

template <class... Ts>
struct precision_list {};
namespace detail {
template <class First, class... Ts>
struct drop_first {
  using type = precision_list<Ts...>;
};
}  // namespace detail
#define SOLVE_BENCH_PRECISION_LIST_ITEM_(T) , T
// Every precision the library knows, in LAPACK's order; the letters below come from it.
using all_precisions = detail::drop_first<void SOLVE_BENCH_FOR_EACH_PRECISION(SOLVE_BENCH_PRECISION_LIST_ITEM_)>::type;
// The subsets for backends or families that have no complex routines, and for complex tests.
using real_precisions =
    detail::drop_first<void SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SOLVE_BENCH_PRECISION_LIST_ITEM_)>::type;
using complex_precisions =
    detail::drop_first<void SOLVE_BENCH_FOR_EACH_COMPLEX_PRECISION(SOLVE_BENCH_PRECISION_LIST_ITEM_)>::type;
#undef SOLVE_BENCH_PRECISION_LIST_ITEM_

template <class... Ts>
constexpr std::array<char, sizeof...(Ts)> letters_of(precision_list<Ts...>) {
  return {precision<Ts>::letter...};
}
inline constexpr auto precision_letters = letters_of(all_precisions{});  // s, d, c, z

// Whether `text` names a precision ("s", "d", "c" or "z"): what the flag parser accepts.
inline bool is_precision_letter(const std::string& text) {
  for (char c : precision_letters)
    if (text.size() == 1 && text[0] == c) return true;
  return false;
}
// The accepted letters for messages: "s, d, c or z".
inline std::string precision_letters_text() {
  std::string out;
  for (std::size_t k = 0; k < precision_letters.size(); ++k) {
    if (k > 0) out += k + 1 == precision_letters.size() ? " or " : ", ";
    out += precision_letters[k];
  }
  return out;
}

// Calls `f(tag<T>{})` for each precision named in `letters` ("d", "s", "z", ...), in that
// order. `Set` narrows the types f is compiled for: a letter outside it is skipped, which is
// how a backend without complex routines (say) passes `real_precisions{}` and has no rows
// of them. Unknown letters are skipped too (the flag parser refuses them first).
template <class T>
struct tag {
  using type = T;
};
template <class Letters, class F, class... Ts>
void for_each_precision(const Letters& letters, F&& f, precision_list<Ts...> = {}) {
  if constexpr (sizeof...(Ts) == 0) {
    for_each_precision(letters, f, all_precisions{});
  } else {
    for (const auto& p : letters) {
      const std::string_view name(p);
      (..., (name.size() == 1 && name[0] == precision<Ts>::letter ? static_cast<void>(f(tag<Ts>{})) : void()));
    }
  }
}

}  // namespace solvebench
