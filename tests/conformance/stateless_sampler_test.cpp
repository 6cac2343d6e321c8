// TensorFlow's stateless Gamma and Poisson samplers: tf.random.stateless_gamma
// (StatelessRandomGetKeyCounter and StatelessRandomGammaV3) with its gradient to alpha,
// StatelessRandomGammaV2 and tf.random.stateless_poisson (StatelessRandomPoisson).
// tests/data/tf_stateless_samplers (scripts/peers/make_stateless_sampler_fixtures.py) is
// TensorFlow's graph of them with the values and errors a sequence of session runs gave,
// imported and run here to them: the same samples for the same seeds.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::Shape;
using af::Tensor;

// A feed of make_stateless_sampler_fixtures.py: its placeholder's dtype.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  if (name == "seed") return Tensor::from_vector(v.get<std::vector<std::int64_t>>());
  if (name == "alpha") return Tensor::from_vector(v.get<std::vector<float>>());
  if (name == "lam") return Tensor::from_vector(v.get<std::vector<double>>());
  return Tensor::from_vector(v.get<std::vector<std::int32_t>>());  // shape
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stateless_sampler_test)

// The samples, their gradients to alpha, and the samplers' errors, as TensorFlow gave them.
BOOST_AUTO_TEST_CASE(tensorflows_stateless_samplers_give_its_values,
                     *boost::unit_test::timeout(60)) {
  af::test::replay_fixture("tf_stateless_samplers", "graph.pb", "reference.json",
                           {"StatelessRandomGammaV2", "StatelessRandomGammaV3",
                            "StatelessRandomPoisson", "StatelessRandomGetKeyCounter"},
                           feed_of);
}

BOOST_AUTO_TEST_SUITE_END()
