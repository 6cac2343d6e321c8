#pragma once

// The first checks of an Einsum equation, which the op's shape function
// (ops/src/defs/einsum_ops.cpp) and its CPU kernel (kernels/src/einsum_ops.cpp) share:
// TensorFlow's ValidateEinsumEquation (core/util/einsum_op_util.cc).
#include <algorithm>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af::detail {

/// Splits `equation` at "->" into the input subscripts (split at ',') and the output
/// subscript, as TensorFlow's ValidateEinsumEquation. InvalidArgument "Expecting exactly one
/// '->' in einsum equation: ij" unless one "->" is there, and "Expecting 1 or 2 input
/// subscripts in equation 'ij,jk,kl->il' but got: 3". The subscripts are not otherwise
/// checked: every character but '.' is a label.
inline Status split_einsum_equation(const std::string& equation, std::vector<std::string>* inputs,
                                    std::string* output) {
  std::vector<std::string> parts;
  for (std::size_t from = 0;;) {
    const std::size_t arrow = equation.find("->", from);
    parts.push_back(equation.substr(from, arrow == std::string::npos ? arrow : arrow - from));
    if (arrow == std::string::npos) break;
    from = arrow + 2;
  }
  if (parts.size() != 2)
    return invalid_argument("Expecting exactly one '->' in einsum equation: " + equation);
  *output = parts[1];
  inputs->clear();
  for (std::size_t from = 0;;) {
    const std::size_t comma = parts[0].find(',', from);
    inputs->push_back(parts[0].substr(from, comma == std::string::npos ? comma : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (inputs->size() != 1 && inputs->size() != 2)
    return invalid_argument("Expecting 1 or 2 input subscripts in equation '" + equation +
                            "' but got: " + std::to_string(inputs->size()));
  return {};
}

/// TensorFlow's ValidateEinsumEllipsis (common_shape_fns.cc): a subscript holds at most one
/// ellipsis and no other period. InvalidArgument "Expected at most one ellipsis (...), but
/// found 2 periods (.) in the input subscript: ..ij" or "Periods found outside of ellipsis in
/// subscript: i.j..".
inline Status validate_einsum_ellipsis(const std::string& subscript) {
  const auto periods = std::count(subscript.begin(), subscript.end(), '.');
  if (periods != 0 && periods != 3)
    return invalid_argument("Expected at most one ellipsis (...), but found " +
                            std::to_string(periods) +
                            " periods (.) in the input subscript: " + subscript);
  if (periods == 3 && subscript.find("...") == std::string::npos)
    return invalid_argument("Periods found outside of ellipsis in subscript: " + subscript);
  return {};
}

}  // namespace af::detail
