#pragma once

// Error and text matchers, and a float comparison, shared by the tests.
#include <boost/test/unit_test.hpp>
#include <functional>
#include <string>
#include <vector>

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

/// Checks `got` against `want` element by element, within `tolerance` (relative, as
/// Boost.Test's floating-point tolerance), after requiring equal sizes.
inline void check_close(const std::vector<float>& got, const std::vector<float>& want,
                        float tolerance = 2e-6f) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(got[i] == want[i], boost::test_tools::tolerance(tolerance));
}

}  // namespace af::test
