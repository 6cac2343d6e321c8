#pragma once

// The comparison of a fixture of TensorFlow's ops (scripts/peers/make_op_fixtures.py's
// format: graph.pb, the GraphDef tf.compat.v1 built of each case on constant inputs with
// tf.gradients of a weighted sum of each differentiable case; reference.json, what
// TensorFlow computed for every output and gradient) with what actorflow computes: the
// imported graph run here, and af::gradients built here on its forward ops. Shared by
// op_coverage_conformance_test.cpp (tests/data/tf_ops) and complex_conformance_test.cpp
// (tests/data/tf_complex).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace af::test::fixture {

using af::DType;
using af::Output;
using af::Tensor;

inline double number(const nlohmann::json& v) {
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    return s == "inf" ? std::numeric_limits<double>::infinity()
                      : -std::numeric_limits<double>::infinity();
  }
  return v.get<double>();
}

// A tensor's values as doubles (numbers and bools) or strings.
struct Values {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<double> numbers;
  std::vector<std::string> strings;
};

inline Values expected(const nlohmann::json& j) {
  Values v{j["dtype"].get<std::string>(), j["shape"].get<std::vector<std::int64_t>>(), {}, {}};
  for (const auto& x : j["values"]) {
    if (v.dtype == "string")
      v.strings.push_back(x.get<std::string>());
    else if (v.dtype == "bool")
      v.numbers.push_back(x.get<bool>() ? 1.0 : 0.0);
    else if (x.is_array())  // a complex number: [real, imag]
      for (const auto& part : x) v.numbers.push_back(number(part));
    else
      v.numbers.push_back(number(x));
  }
  return v;
}

inline Values actual(const Tensor& t) {
  Values v{std::string(af::dtype_name(t.dtype())), t.shape().dims(), {}, {}};
  if (v.dtype == "float") v.dtype = "float32";
  if (v.dtype == "double") v.dtype = "float64";
  const auto n = static_cast<std::size_t>(t.num_elements());
  for (std::size_t i = 0; i < n; ++i) {
    if (t.dtype() == DType::string) {
      v.strings.push_back(t.data<std::string>()[i]);
      continue;
    }
    // Every number as a double; a complex one as its two parts.
    const bool known = af::visit_numeric_dtype(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T e = t.data<T>()[i];
      if constexpr (af::is_complex_v<T>) {
        v.numbers.push_back(static_cast<double>(e.real()));
        v.numbers.push_back(static_cast<double>(e.imag()));
      } else if constexpr (af::is_half_like_v<T>) {
        v.numbers.push_back(static_cast<float>(e));
      } else {
        v.numbers.push_back(static_cast<double>(e));
      }
    });
    if (!known) {
      switch (t.dtype()) {
        default:
          BOOST_FAIL("unexpected dtype " << af::dtype_name(t.dtype()));
      }
    }
  }
  return v;
}

// How close a value must be: bit for bit when `exact` (NaN matches NaN, zeros match in
// sign); else within `relative` of the expected value (absolute below 1e-4) or `absolute`.
struct Tolerance {
  bool exact = false;
  double relative = 4e-6;
  double absolute = 0;
};

inline bool same(double got, double want, const Tolerance& t) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (t.exact) return got == want && std::signbit(got) == std::signbit(want);
  const double diff = std::fabs(got - want);
  return diff <= t.relative * std::max(std::fabs(want), 1e-4) || diff <= t.absolute;
}

inline void check(const Tensor& t, const nlohmann::json& want, const Tolerance& tolerance) {
  const Values a = actual(t), e = expected(want);
  BOOST_TEST(a.dtype == e.dtype);
  BOOST_TEST(a.shape == e.shape, boost::test_tools::per_element());
  BOOST_TEST(a.strings == e.strings, boost::test_tools::per_element());
  BOOST_REQUIRE_EQUAL(a.numbers.size(), e.numbers.size());
  for (std::size_t i = 0; i < a.numbers.size(); ++i)
    BOOST_TEST(same(a.numbers[i], e.numbers[i], tolerance),
               "element " << i << ": got " << a.numbers[i] << ", TensorFlow " << e.numbers[i]);
}

// A case's tolerance for a value of `dtype`: its own where the fixture gives one, else 4e-6
// relative for float32 and 1e-12 for float64.
inline Tolerance tolerance_of(const nlohmann::json& c, const std::string& dtype) {
  Tolerance t;
  t.exact = c["exact"].get<bool>();
  t.relative = dtype == "float64" || dtype == "complex128" ? 1e-12 : 4e-6;
  if (!c["tolerance"].is_null()) t.relative = c["tolerance"].get<double>();
  if (c.contains("atol") && !c["atol"].is_null()) t.absolute = c["atol"].get<double>();
  return t;
}

/// A fixture directory: its reference.json and its graph.pb imported.
struct Fixture {
  nlohmann::json ref;  ///< reference.json
  af::Graph g;         ///< graph.pb, imported without a prefix
  /// Reads and imports `dir`.
  explicit Fixture(const std::filesystem::path& dir) {
    std::ifstream in(dir / "reference.json");
    ref = nlohmann::json::parse(in);
    af::import_graph_def(g, af::read_graph_def((dir / "graph.pb").string()), {.name = ""});
  }
};

/// Runs every case's outputs and TensorFlow's gradient graphs as imported; checks each
/// against TensorFlow's value. Returns how many values were checked.
inline std::size_t check_imported_cases(Fixture& m) {
  af::Session sess(m.g);
  // Each fetch with the case it belongs to and TensorFlow's value. As the fixture script ran
  // them, the cases' outputs come first and their gradients after (a stateful op runs once
  // for its outputs and once more for its gradients); many cases share one step, since every
  // new set of fetches costs a pass over the whole graph.
  struct Fetch {
    const nlohmann::json* c;
    const nlohmann::json* want;
  };
  std::vector<Output> fetches;
  std::vector<Fetch> wants;
  auto run_and_check = [&] {
    const auto out = sess.run(fetches);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const nlohmann::json& c = *wants[i].c;
      const nlohmann::json& want = *wants[i].want;
      BOOST_TEST_CONTEXT("case " << c["name"].get<std::string>()) {
        check(out[i], want, tolerance_of(c, want["dtype"].get<std::string>()));
      }
    }
    const std::size_t n = out.size();
    fetches.clear();
    wants.clear();
    return n;
  };
  constexpr std::size_t kPerStep = 256;
  std::size_t checked = 0;
  for (const bool grads : {false, true}) {
    for (const auto& c : m.ref["cases"]) {
      if (grads && !c.contains("grads")) continue;
      for (const auto& o : grads ? c["grads"] : c["outputs"]) {
        if (o.is_null()) continue;
        fetches.push_back(m.g.output(o[0].get<std::string>()));
        wants.push_back({&c, &o[1]});
      }
      if (fetches.size() >= kPerStep) checked += run_and_check();
    }
    if (!fetches.empty()) checked += run_and_check();
  }
  return checked;
}

/// Builds af::gradients of each case's loss through the imported forward ops and checks
/// them against tf.gradients' values (and Nones). Returns how many values were checked.
inline std::size_t check_built_gradients(Fixture& m) {
  std::vector<std::string> names;
  std::vector<Output> fetches;
  std::vector<const nlohmann::json*> wants;
  for (const auto& c : m.ref["cases"]) {
    if (!c.contains("grads")) continue;
    std::vector<Output> xs;
    for (const auto& x : c["grad_inputs"]) xs.push_back(m.g.output(x.get<std::string>()));
    const auto grads = af::gradients({m.g.output(c["loss"].get<std::string>())}, xs);
    BOOST_REQUIRE_EQUAL(grads.size(), c["grads"].size());
    for (std::size_t i = 0; i < grads.size(); ++i) {
      const auto& want = c["grads"][i];
      BOOST_TEST(grads[i].valid() == !want.is_null(), c["name"].get<std::string>());
      if (want.is_null() || !grads[i].valid()) continue;
      names.push_back(c["name"].get<std::string>());
      fetches.push_back(grads[i]);
      wants.push_back(&c);
    }
  }
  af::Session sess(m.g);
  const auto out = sess.run(fetches);
  std::size_t k = 0;
  std::string previous;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& c = *wants[i];
    k = names[i] == previous ? k + 1 : 0;
    previous = names[i];
    // Grads of one case are consecutive; skip the nulls TensorFlow had before this one.
    std::size_t slot = 0, seen = 0;
    for (; slot < c["grads"].size(); ++slot)
      if (!c["grads"][slot].is_null() && seen++ == k) break;
    const auto& want = c["grads"][slot][1];
    BOOST_TEST_CONTEXT("case " << names[i] << ", gradient " << slot) {
      check(out[i], want, tolerance_of(c, want["dtype"].get<std::string>()));
    }
  }
  return out.size();
}

}  // namespace af::test::fixture
