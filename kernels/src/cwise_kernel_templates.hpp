#pragma once

// The element-wise kernels of one functor as the one-parameter templates register_for_types
// takes (Unary<Fn>::Kernel, Binary<Fn>::Kernel), which the registrations of
// cwise_unary_ops.cpp, misc_math_ops.cpp and math_special_ops.cpp share. Private to the
// kernels module.
#include "cwise_ops_common.hpp"

namespace af::cwise {

template <class Fn>
struct Unary {
  template <class T>
  using Kernel = UnaryOp<Fn, T>;
};
template <class Fn>
struct Binary {
  template <class T>
  using Kernel = BinaryOp<Fn, T>;
};

}  // namespace af::cwise
