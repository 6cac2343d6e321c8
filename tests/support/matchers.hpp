#pragma once

// Error and text matchers shared by the tests.
#include <functional>
#include <string>

#include "actorflow/ops/errors.hpp"
#include "matchers.hpp"

namespace af::test {

/// Whether `haystack` contains `needle`.
inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Whether `s` starts with `prefix`.
inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

/// The message of the `E` that `f` throws, or "<no error>" when it throws none (any other
/// exception propagates and fails the test).
template <class E = af::Error, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no error>";
}

/// The InvalidArgument message of building a graph with `build` (shape and type checks at
/// construction), or "<no error>".
inline std::string construction_error(const std::function<void()>& build) {
  return error_of<af::InvalidArgumentError>(build);
}

}  // namespace af::test
