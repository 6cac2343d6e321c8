// Element-wise kernels and buffer forwarding (TensorFlow's forward_input_or_allocate_output,
// kernels/src/cwise_ops_common.hpp): which inputs a kernel may write its output into.
#include <boost/test/unit_test.hpp>
#include <utility>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "kernel_runner.hpp"

namespace {

using af::DType;
using af::Graph;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::KernelResult;

}  // namespace

BOOST_AUTO_TEST_SUITE(cwise_forwarding_test)

// TensorFlow's forward_input_or_allocate_output: an input no one else holds becomes the
// output (so an initializer's `RandomUniform * scale + min` needs one buffer); an input
// another tensor shares is left as it was.
BOOST_AUTO_TEST_CASE(element_wise_kernels_write_into_an_input_no_one_else_holds) {
  Graph g;
  Output x = g.placeholder(DType::float32, PartialShape{3}, "x");
  Output twice = af::mul(x, g.constant(Tensor(2.0f)), "twice");
  Output negated = af::neg(x, "negated");
  Output sum = af::add(x, x, "sum");
  Output less = af::less(x, g.constant(Tensor(2.5f)), "less");
  for (const Output& op : {twice, negated}) {
    Tensor sole = af::test::tensor<float>({1, 2, 3}, Shape{3});
    const void* bytes = sole.raw_data();
    std::vector<Tensor> inputs;
    inputs.push_back(std::move(sole));  // not through an initializer list, which copies
    KernelResult r = af::test::run_kernel(op.op(), std::move(inputs));
    af::test::require_ok(r);
    BOOST_TEST(r.out().raw_data() == bytes, op.op().name());
    Tensor kept = af::test::tensor<float>({1, 2, 3}, Shape{3});
    r = af::test::run_kernel(op.op(), {kept});
    af::test::require_ok(r);
    BOOST_TEST(r.out().raw_data() != kept.raw_data(), op.op().name());
    BOOST_TEST(kept.to_vector<float>() == (std::vector<float>{1, 2, 3}),
               boost::test_tools::per_element());
  }
  BOOST_TEST(
      af::test::eval(twice, {af::test::tensor<float>({1, 2, 3}, Shape{3})}).to_vector<float>() ==
          (std::vector<float>{2, 4, 6}),
      boost::test_tools::per_element());
  // Both inputs of x + x are one buffer: two holders, so a fresh output.
  Tensor one = af::test::tensor<float>({1, 2, 3}, Shape{3});
  KernelResult r = af::test::run_kernel(sum.op(), {one, one});
  af::test::require_ok(r);
  BOOST_TEST(r.out().to_vector<float>() == (std::vector<float>{2, 4, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(one.to_vector<float>() == (std::vector<float>{1, 2, 3}),
             boost::test_tools::per_element());
  // Another dtype out (bool): never the input's buffer.
  Tensor ints = af::test::tensor<float>({1, 2, 3}, Shape{3});
  const void* bytes = ints.raw_data();
  std::vector<Tensor> inputs;
  inputs.push_back(std::move(ints));
  r = af::test::run_kernel(less.op(), std::move(inputs));
  af::test::require_ok(r);
  BOOST_TEST(r.out().raw_data() != bytes);
  BOOST_TEST(r.out().to_vector<bool>() == (std::vector<bool>{true, true, false}),
             boost::test_tools::per_element());
}

// -- unary math ---------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE_END()
