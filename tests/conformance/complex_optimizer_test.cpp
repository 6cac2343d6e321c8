// The optimizers' update ops on complex64 and complex128 variables, as TensorFlow's CPU kernels
// take them: one update of each ResourceApply* and ResourceSparseApply* op TensorFlow 2.21 ran
// (tests/data/tf_complex_optimizers, made by scripts/peers/make_complex_optimizer_fixtures.py),
// run here on resource variables and, where the op has one, in its ref form on ref variables.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

const nlohmann::json& fixture() {
  static const nlohmann::json doc = [] {
    std::ifstream in(ACTORFLOW_TEST_DATA_DIR + "/tf_complex_optimizers/values.json");
    return nlohmann::json::parse(in);
  }();
  return doc;
}

template <class C>
Tensor complex_tensor(const nlohmann::json& pairs, const Shape& shape) {
  std::vector<C> values;
  for (const auto& p : pairs) values.emplace_back(p[0].get<double>(), p[1].get<double>());
  return Tensor::from_vector(values, shape);
}

Tensor complex_tensor(DType dtype, const nlohmann::json& pairs, const Shape& shape) {
  return dtype == DType::complex64 ? complex_tensor<std::complex<float>>(pairs, shape)
                                   : complex_tensor<std::complex<double>>(pairs, shape);
}

template <class C>
void check_close(const Tensor& got, const nlohmann::json& want, double tolerance) {
  BOOST_REQUIRE_EQUAL(got.num_elements(), static_cast<std::int64_t>(want.size()));
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::complex<double> w(want[i][0].get<double>(), want[i][1].get<double>());
    const C g = got.data<C>()[i];
    const std::complex<double> d(static_cast<double>(g.real()), static_cast<double>(g.imag()));
    BOOST_TEST(std::abs(d - w) <= tolerance * std::max(1.0, std::abs(w)),
               "element " << i << ": got " << d << ", TensorFlow " << w);
  }
}

// Runs `c` (a case of the fixture) as `op`: on resource variables for a Resource* op, else on
// ref variables; checks every variable against TensorFlow's values after the update.
void run_case(const nlohmann::json& c, const std::string& op) {
  const DType dtype = c["dtype"] == "complex64" ? DType::complex64 : DType::complex128;
  const bool resource = op.rfind("Resource", 0) == 0;
  const bool sparse = op.find("Sparse") != std::string::npos;
  af::Graph g;
  std::vector<Output> inputs;
  std::map<std::string, af::Variable> vars;
  for (const auto& in : c["inputs"]) {
    const std::string name = in["name"];
    if (in.contains("var")) {
      const Tensor init =
          complex_tensor(dtype, in["var"], Shape{static_cast<std::int64_t>(in["var"].size())});
      af::VariableOptions options;
      options.name = name;
      options.use_resource = resource;
      vars[name] = g.variable(init, options);
      inputs.push_back(vars[name].ref());
    } else if (in.contains("indices")) {
      inputs.push_back(
          g.constant(Tensor::from_vector(in["indices"].get<std::vector<std::int32_t>>())));
    } else {
      inputs.push_back(g.constant(complex_tensor(
          dtype, in["tensor"], Shape(in["shape"].get<std::vector<std::int64_t>>()))));
    }
  }
  af::AttrMap attrs{{"T", dtype}, {"use_locking", false}};
  if (sparse) attrs["Tindices"] = DType::int32;
  for (const auto& [k, v] : c["attrs"].items()) attrs[k] = v.get<bool>();
  const auto update = g.create_op(op, inputs, attrs, "update");
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run(update);
  const double tolerance = dtype == DType::complex64 ? 2e-6 : 1e-13;
  for (const auto& [name, want] : c["after"].items()) {
    BOOST_TEST_CONTEXT(name) {
      const Tensor got = sess.run(vars.at(name).value());
      if (dtype == DType::complex64)
        check_close<std::complex<float>>(got, want, tolerance);
      else
        check_close<std::complex<double>>(got, want, tolerance);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(complex_optimizer_test)

BOOST_AUTO_TEST_CASE(complex_updates_give_tensorflows_values, *boost::unit_test::timeout(120)) {
  BOOST_TEST(fixture()["cases"].size() == 36u);
  for (const auto& c : fixture()["cases"]) {
    const std::string op = c["op"];
    BOOST_TEST_CONTEXT(op << " " << c["dtype"] << " " << c["attrs"].dump()) {
      run_case(c, op);
      // The ref form (ApplyAdam, SparseApplyMomentum, ...); KerasMomentum has none.
      if (op.find("KerasMomentum") == std::string::npos) run_case(c, op.substr(8));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
