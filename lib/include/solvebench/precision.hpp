// Precision as data: the one place that maps float/double to LAPACK's letter. Backends
// call precision-specific routines through one-line overloads on T* (lapackpp's way), so
// their template bodies never branch on the type.
#pragma once

#include <string>
#include <type_traits>

namespace solvebench {

template <class T>
struct precision;
template <>
struct precision<float> {
  static constexpr char letter = 's';
  static constexpr char upper = 'S';  // cuBLAS/cuSOLVER spell it in capitals: cublasSgetrfBatched
};
template <>
struct precision<double> {
  static constexpr char letter = 'd';
  static constexpr char upper = 'D';
};

// Routine names in messages: "LAPACKE_" 'd' "getrf", "cusolverDn" 'D' "potrfBatched".
template <class T>
std::string routine_name(const char* prefix, const char* op) {
  return std::string(prefix) + precision<T>::letter + op;
}
template <class T>
std::string nvidia_routine_name(const char* prefix, const char* op) {
  return std::string(prefix) + precision<T>::upper + op;
}

// Calls `f(tag<T>{})` for each precision named in `letters` ("d", "s"), in that order.
template <class T>
struct tag {
  using type = T;
};
// The precisions rows can be asked for (--precisions), as letters and as text for messages.
inline bool is_precision_letter(const std::string& p) { return p == "d" || p == "s"; }
inline std::string precision_letters_text() { return "d, s"; }

template <class Letters, class F>
void for_each_precision(const Letters& letters, F&& f) {
  for (const auto& p : letters) {
    if (p == "d") f(tag<double>{});
    if (p == "s") f(tag<float>{});
  }
}

}  // namespace solvebench
