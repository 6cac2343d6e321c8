// The slice assignments: `var[...].assign(value)` on a reference variable (StridedSliceAssign)
// and on a resource variable (ResourceStridedSliceAssign), and TensorStridedSliceUpdate with
// its gradient. tests/data/tf_slice_assign (scripts/peers/make_slice_assign_fixtures.py) is
// TensorFlow's graph of them with the values and errors a sequence of session runs gave
// (shrunk, new and ellipsis axes, negative strides, values that broadcast, empty slices, bounds
// out of range), imported and run here to them; the builders of array_ops.hpp make the same
// ops.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

// A nested JSON list (or a number) as a float tensor of its shape.
Tensor float_tensor(const nlohmann::json& v) {
  std::vector<std::int64_t> dims;
  for (const nlohmann::json* p = &v; p->is_array(); p = &(*p)[0]) {
    dims.push_back(static_cast<std::int64_t>(p->size()));
    if (p->empty()) break;
  }
  std::vector<float> flat;
  const auto flatten = [&](const auto& self, const nlohmann::json& x) -> void {
    if (!x.is_array()) return flat.push_back(x.get<float>());
    for (const auto& e : x) self(self, e);
  };
  flatten(flatten, v);
  return Tensor::from_vector(flat, Shape(dims));
}

// A feed of make_slice_assign_fixtures.py: its placeholder's dtype, the JSON's shape.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  if (name == "i") return Tensor(v.get<std::int32_t>());
  if (name == "s")
    return Tensor::from_vector(v.get<std::vector<std::string>>(),
                               Shape{static_cast<std::int64_t>(v.size())});
  return float_tensor(v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slice_assign_test)

// TensorFlow's graph of slice assignments to a reference and a resource variable (float and
// string) and of TensorStridedSliceUpdate with tf.gradients gives TensorFlow's values and
// errors; a refused assignment leaves the variable as it was.
BOOST_AUTO_TEST_CASE(tensorflows_slice_assignments_give_its_values,
                     *boost::unit_test::timeout(60)) {
  af::test::replay_fixture(
      "tf_slice_assign", "graph.pb", "reference.json",
      {"StridedSliceAssign", "ResourceStridedSliceAssign", "TensorStridedSliceUpdate"}, feed_of);
}

// The builders: a slice of a reference and of a resource variable assigned, a tensor updated,
// and the update differentiated in both inputs.
BOOST_AUTO_TEST_CASE(builders_assign_and_update_slices, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const auto ints = [&](std::vector<std::int32_t> v) { return g.constant(Tensor::from_vector(v)); };
  const Tensor start = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const af::Variable v = g.variable(start, {.name = "v"});
  const af::Variable r = g.variable(start, {.name = "r", .use_resource = true});
  const Output column = af::strided_slice_assign(
      v.ref(), ints({0, 1}), ints({0, 2}), ints({1, 1}), g.constant(Tensor(9.0f)),
      {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  const af::Operation set_row = af::resource_strided_slice_assign(
      r.ref(), ints({1}), ints({2}), ints({1}),
      g.constant(Tensor::from_vector(std::vector<float>{-1, -2, -3})), {.shrink_axis_mask = 1});
  const Output read =
      g.create_op("ReadVariableOp", {r.ref()}, {{"dtype", DType::float32}}, "read").output(0);
  const Output x = g.constant(start);
  const Output value = g.constant(Tensor::from_vector(std::vector<float>{7, 8}, Shape{2, 1}));
  const Output updated =
      af::tensor_strided_slice_update(x, ints({0, 0}), ints({2, 3}), ints({1, 2}), value);
  const std::vector<Output> grads =
      af::gradients({af::reduce_sum(af::mul(updated, x))}, {x, value});
  af::Session sess(g);
  sess.run(v.initializer());
  BOOST_TEST(sess.run(column).to_vector<float>() == (std::vector<float>{1, 9, 3, 4, 9, 6}),
             boost::test_tools::per_element());
  sess.run(r.initializer());
  sess.run(set_row);
  BOOST_TEST(sess.run(read).to_vector<float>() == (std::vector<float>{1, 2, 3, -1, -2, -3}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(updated).to_vector<float>() == (std::vector<float>{7, 2, 7, 8, 5, 8}),
             boost::test_tools::per_element());
  const std::vector<Tensor> got = sess.run(grads);
  // d/dx: x's own factor outside the slice, 0 inside plus the product's other factor.
  BOOST_TEST(got[0].to_vector<float>() == (std::vector<float>{7, 4, 7, 8, 10, 8}),
             boost::test_tools::per_element());
  // d/dvalue: x summed over the slice's columns the value broadcast along (1 + 3, 4 + 6).
  BOOST_TEST(got[1].shape() == (Shape{2, 1}));
  BOOST_TEST(got[1].to_vector<float>() == (std::vector<float>{4, 10}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
