// TensorFlow's stateless samplers: tf.random.stateless_gamma (StatelessRandomGetKeyCounter and
// StatelessRandomGammaV3) with its gradient to alpha, StatelessRandomGammaV2,
// tf.random.stateless_poisson (StatelessRandomPoisson), tf.random.stateless_binomial
// (StatelessRandomBinomial) and tf.random.stateless_parameterized_truncated_normal
// (StatelessParameterizedTruncatedNormal). tests/data/tf_stateless_samplers
// (scripts/peers/make_stateless_sampler_fixtures.py) is TensorFlow's graph of them with the
// values and errors a sequence of session runs gave, imported and run here to them: the same
// samples for the same seeds.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::Shape;
using af::Tensor;

// A feed of nested lists (or a bare number) as a tensor of T of the nesting's shape.
template <class T>
Tensor nested_feed(const nlohmann::json& v) {
  std::vector<std::int64_t> dims;
  for (const nlohmann::json* level = &v; level->is_array(); level = &level->front()) {
    dims.push_back(static_cast<std::int64_t>(level->size()));
    if (level->empty()) break;
  }
  std::vector<T> flat;
  std::function<void(const nlohmann::json&)> add = [&](const nlohmann::json& x) {
    if (x.is_array()) {
      for (const auto& e : x) add(e);
    } else if constexpr (std::is_integral_v<T>) {
      flat.push_back(x.get<T>());
    } else if constexpr (af::is_half_like_v<T>) {
      flat.push_back(T(static_cast<float>(x.get<double>())));
    } else {
      flat.push_back(static_cast<T>(x.get<double>()));
    }
  };
  add(v);
  return Tensor::from_vector(flat, Shape(dims));
}

// A feed of make_stateless_sampler_fixtures.py: its placeholder's dtype, said by the name
// (the parameters of any rank by their suffix _f16, _f32 or _f64).
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  if (name == "seed" || name == "seed_any") return nested_feed<std::int64_t>(v);
  if (name == "seed32") return Tensor::from_vector(v.get<std::vector<std::int32_t>>());
  if (name == "alpha") return Tensor::from_vector(v.get<std::vector<float>>());
  if (name == "lam") return Tensor::from_vector(v.get<std::vector<double>>());
  if (name.ends_with("_f16")) return nested_feed<af::half_t>(v);
  if (name.ends_with("_f32")) return nested_feed<float>(v);
  if (name.ends_with("_f64")) return nested_feed<double>(v);
  return Tensor::from_vector(v.get<std::vector<std::int32_t>>());  // shape
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stateless_sampler_test)

// The samples, their gradients to alpha, and the samplers' errors, as TensorFlow gave them.
BOOST_AUTO_TEST_CASE(tensorflows_stateless_samplers_give_its_values,
                     *boost::unit_test::timeout(60)) {
  af::test::replay_fixture("tf_stateless_samplers", "graph.pb", "reference.json",
                           {"StatelessRandomGammaV2", "StatelessRandomGammaV3",
                            "StatelessRandomPoisson", "StatelessRandomGetKeyCounter",
                            "StatelessRandomBinomial", "StatelessParameterizedTruncatedNormal"},
                           feed_of);
}

BOOST_AUTO_TEST_SUITE_END()
