// White-box tests of the ops behind TensorFlow's input producers (Range, GatherV2,
// RandomShuffle, CountUpTo, Size, Shape) and of local variables: shape inference and node
// naming through the builders, and the CPU kernels constructed and run directly.
//
// The RandomShuffle reference permutations were produced with TensorFlow 2.21.0 (pip
// tensorflow-cpu, Linux x86-64) in TF1 graph mode, running each op several times in one
// session:
//
//   import numpy as np, tensorflow as tf
//   tf1 = tf.compat.v1; tf1.disable_eager_execution()
//   with tf1.Graph().as_default():
//     tf1.set_random_seed(1)
//     a = tf1.random_shuffle(tf.constant(np.arange(10, dtype=np.int32)), seed=7)  # (1, 7)
//     b = tf1.random_shuffle(tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2)),
//                            seed=3)                                                # (1, 3)
//     c = tf1.random_shuffle(tf.constant([b"a", b"b", b"c", b"d", b"e"]), seed=5)   # (1, 5)
//     with tf1.Session() as s:
//       for i in range(3): print(s.run(a).tolist())
//       for i in range(2): print(s.run(b).tolist())
//       for i in range(2): print(s.run(c).tolist())
//   with tf1.Graph().as_default():   # no graph seed: seeds (87654321, 42)
//     a = tf1.random_shuffle(tf.constant(np.arange(100, dtype=np.int64)), seed=42)
//     with tf1.Session() as s: print(s.run(a).tolist())
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/kernels/cpu_kernels.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource.hpp"
#include "matchers.hpp"

namespace {

using af::DType;
using af::Graph;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;

// The CPU kernel of one node, constructed once and run any number of times (so stateful
// kernels keep their state across runs, as in a session). Inputs produced by Const nodes
// take the constant's value; the others take the tensors given to `run`, in order.
class KernelUnderTest {
 public:
  explicit KernelUnderTest(const Output& out) : node_(out.node()) {
    std::vector<DType> input_types;
    for (auto& in : node_->inputs()) input_types.push_back(in.dtype());
    af::OpKernelConstruction c{node_->def(), input_types, node_->output_types(), "CPU",
                               "/job:localhost/replica:0/task:0/device:CPU:0"};
    af::Status created = af::KernelRegistry::global().create(c, &kernel_);
    BOOST_REQUIRE_MESSAGE(created.ok(), created.to_string());
  }

  /// Runs the kernel; the status and (when OK) output 0.
  std::pair<af::Status, Tensor> try_run(std::vector<Tensor> given = {}) {
    std::vector<Tensor> inputs;
    std::size_t next = 0;
    for (auto& in : node_->inputs()) {
      if (in.node()->type() == "Const") {
        inputs.push_back(*in.node()->def().attr<Tensor>("value"));
      } else {
        BOOST_REQUIRE_LT(next, given.size());
        inputs.push_back(given[next++]);
      }
    }
    af::OpKernelContext ctx(node_->def(), std::move(inputs));
    ctx.set_num_outputs(node_->num_outputs());
    kernel_->compute(ctx);
    if (!ctx.ok()) return {ctx.status(), Tensor()};
    return {ctx.status(), ctx.outputs().at(0)};
  }

  /// Runs the kernel and requires success.
  Tensor run(std::vector<Tensor> given = {}) {
    auto [status, out] = try_run(std::move(given));
    BOOST_REQUIRE_MESSAGE(status.ok(), status.to_string());
    return out;
  }

 private:
  const af::Node* node_;
  std::unique_ptr<af::OpKernel> kernel_;
};

using af::test::construction_error;
using af::test::starts_with;

std::vector<std::string> inputs_of(const Output& o) { return o.op().node_def().inputs; }

}  // namespace

BOOST_AUTO_TEST_SUITE(input_ops_test)

// -- Range ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(range_of_numbers_builds_tensorflows_scope_and_knows_its_length) {
  Graph g;
  Output r = af::range(g, 5);
  BOOST_TEST(r.op().type() == "Range");
  BOOST_TEST(r.op().name() == "range");
  BOOST_TEST(
      inputs_of(r) == std::vector<std::string>({"range/start", "range/limit", "range/delta"}),
      boost::test_tools::per_element());
  BOOST_TEST(r.dtype() == af::int32);
  BOOST_TEST(*r.op().node_def().attr<DType>("Tidx") == af::int32);
  BOOST_TEST(r.shape() == PartialShape({5}));
  Output r2 = af::range(g, 1, 10, 3);
  BOOST_TEST(r2.op().name() == "range_1");
  BOOST_TEST(r2.shape() == PartialShape({3}));
  BOOST_TEST(af::range(g, 10, 1, -4).shape() == PartialShape({3}));
  BOOST_TEST(af::range(g, 0, 0, 1).shape() == PartialShape({0}));
  // A limit beyond int32 makes that Const int64 and the others are cast to it.
  Output wide = af::range(g, 0, std::int64_t{1} << 33, std::int64_t{1} << 30, "wide");
  BOOST_TEST(wide.dtype() == af::int64);
  BOOST_TEST(
      inputs_of(wide) == std::vector<std::string>({"wide/Cast", "wide/limit", "wide/Cast_1"}),
      boost::test_tools::per_element());
  // Shape inference reads only Const inputs (TensorFlow also folds the Casts).
  BOOST_TEST(wide.shape() == PartialShape({-1}));
}

BOOST_AUTO_TEST_CASE(range_of_tensors_widens_to_the_highest_dtype) {
  Graph g;
  Output limit = g.placeholder(af::int64, PartialShape({}), "limit");
  Output r = af::range(limit);
  // As tf.range(limit): start and delta are int32 Consts cast to int64.
  BOOST_TEST(inputs_of(r) == std::vector<std::string>({"range/Cast", "limit", "range/Cast_1"}),
             boost::test_tools::per_element());
  BOOST_TEST(r.dtype() == af::int64);
  BOOST_TEST(r.shape() == PartialShape({-1}));
  Output f = af::range(g.constant(0.0f), g.constant(2.5f), g.constant(0.5f));
  BOOST_TEST(f.dtype() == af::float32);
  BOOST_TEST(f.shape() == PartialShape({5}));
  // Casts are no Consts, so a widened range has a length only when it runs.
  Output d = af::range(g.constant(1.0f), g.constant(2.0), g.constant(std::int64_t{1}));
  BOOST_TEST(d.dtype() == af::float64);
  BOOST_TEST(d.shape() == PartialShape({-1}));
  BOOST_TEST(starts_with(construction_error([&] { af::range(g.constant("a")); }), "range: Const_"));
}

BOOST_AUTO_TEST_CASE(range_with_constant_inputs_in_the_wrong_direction_fails_at_construction) {
  Graph g;
  BOOST_TEST(construction_error([&] { af::range(g, 3, 1, 1); }) ==
             "Requires start <= limit when delta > 0: 3/1 for 'range' (op: 'Range') with input "
             "shapes: [], [], [].");
  BOOST_TEST(starts_with(construction_error([&] { af::range(g, 1, 3, -1); }),
                         "Requires start >= limit when delta < 0: 1/3 for 'range_1'"));
  BOOST_TEST(starts_with(construction_error([&] { af::range(g, 1, 3, 0); }),
                         "Requires delta != 0 for 'range_2'"));
  BOOST_TEST(starts_with(
      construction_error([&] { af::range(g.constant(3.5f), g.constant(1.0f), g.constant(0.5f)); }),
      "Requires start <= limit when delta > 0: 3.5/1 for"));
  BOOST_TEST(starts_with(construction_error([&] {
                           af::range(g.constant(Tensor::from_vector<std::int32_t>({1, 2})),
                                     g.constant(3), g.constant(1));
                         }),
                         "Shape must be rank 0 but is rank 1\n\t for 'start'"));
}

BOOST_AUTO_TEST_CASE(range_kernel_counts_from_start_by_delta) {
  Graph g;
  Output start = g.placeholder(af::int32, PartialShape({}), "start");
  Output limit = g.placeholder(af::int32, PartialShape({}), "limit");
  Output delta = g.placeholder(af::int32, PartialShape({}), "delta");
  KernelUnderTest k(af::range(start, limit, delta));
  BOOST_TEST(k.run({Tensor(0), Tensor(5), Tensor(1)}).to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({0, 1, 2, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(k.run({Tensor(10), Tensor(-3), Tensor(-4)}).to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({10, 6, 2, -2}),
             boost::test_tools::per_element());
  BOOST_TEST(k.run({Tensor(4), Tensor(4), Tensor(2)}).shape() == Shape({0}));
  // TensorFlow 1.x accepts a one-element vector where a scalar is expected.
  BOOST_TEST(k.run({Tensor::from_vector<std::int32_t>({2}), Tensor(4), Tensor(1)}).num_elements() ==
             2);
}

BOOST_AUTO_TEST_CASE(range_kernel_supports_int64_float_and_double) {
  Graph g;
  Output l64 = g.placeholder(af::int64, PartialShape({}));
  Output r64 = af::range(g.constant(std::int64_t{0}), l64, g.constant(std::int64_t{1}));
  BOOST_TEST(KernelUnderTest(r64).run({Tensor(std::int64_t{3})}).to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({0, 1, 2}),
             boost::test_tools::per_element());
  Output f = g.placeholder(af::float32, PartialShape({}));
  BOOST_TEST(KernelUnderTest(af::range(f, g.constant(4.0f), g.constant(0.5f)))
                     .run({Tensor(1.5f)})
                     .to_vector<float>() == std::vector<float>({1.5f, 2.0f, 2.5f, 3.0f, 3.5f}),
             boost::test_tools::per_element());
  Output d = g.placeholder(af::float64, PartialShape({}));
  BOOST_TEST(KernelUnderTest(af::range(g.constant(0.0), d, g.constant(0.25)))
                     .run({Tensor(1.0)})
                     .to_vector<double>() == std::vector<double>({0.0, 0.25, 0.5, 0.75}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(range_kernel_reports_tensorflows_errors) {
  Graph g;
  Output start = g.placeholder(af::int32, PartialShape({}), "s");
  Output limit = g.placeholder(af::int32, PartialShape({}), "l");
  Output delta = g.placeholder(af::int32, PartialShape({}), "d");
  KernelUnderTest k(af::range(start, limit, delta));
  auto [backwards, _1] = k.try_run({Tensor(0), Tensor(-1), Tensor(1)});
  BOOST_TEST((backwards.code() == af::Code::invalid_argument));
  BOOST_TEST(backwards.message() ==
             "Requires start <= limit when delta > 0: 0/-1\n\t [[{{node range}}]]");
  BOOST_TEST(k.try_run({Tensor(0), Tensor(5), Tensor(-1)}).first.message() ==
             "Requires start >= limit when delta < 0: 0/5\n\t [[{{node range}}]]");
  BOOST_TEST(k.try_run({Tensor(0), Tensor(5), Tensor(0)}).first.message() ==
             "Requires delta != 0: 0\n\t [[{{node range}}]]");
  BOOST_TEST(k.try_run({Tensor::from_vector<std::int32_t>({1, 2}), Tensor(5), Tensor(1)})
                 .first.message() ==
             "start must be a scalar, not shape [2]\n\t [[{{node range}}]]");
  // Floats print as TensorFlow 1.x's StrCat does: %g, with more digits when %g loses bits.
  Output f = g.placeholder(af::float32, PartialShape({}));
  KernelUnderTest kf(af::range(f, g.constant(1.0f), g.constant(-0.25f), "fr"));
  BOOST_TEST(kf.try_run({Tensor(0.5f)}).first.message() ==
             "Requires start >= limit when delta < 0: 0.5/1\n\t [[{{node fr}}]]");
  BOOST_TEST(kf.try_run({Tensor(1.0f / 3)}).first.message() ==
             "Requires start >= limit when delta < 0: 0.333333343/1\n\t [[{{node fr}}]]");
}

// -- GatherV2 -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(gather_names_its_axis_const_and_infers_the_output_shape) {
  Graph g;
  Output params = g.placeholder(af::float32, {3, 4, 5}, "params");
  Output indices = g.placeholder(af::int64, {2, -1}, "indices");
  Output out = af::gather(params, indices);
  BOOST_TEST(out.op().type() == "GatherV2");
  BOOST_TEST(out.op().name() == "GatherV2");
  BOOST_TEST(inputs_of(out) == std::vector<std::string>({"params", "indices", "GatherV2/axis"}),
             boost::test_tools::per_element());
  BOOST_TEST(*out.op().node_def().attr<DType>("Tparams") == af::float32);
  BOOST_TEST(*out.op().node_def().attr<DType>("Tindices") == af::int64);
  BOOST_TEST(*out.op().node_def().attr<DType>("Taxis") == af::int32);
  BOOST_TEST(*out.op().node_def().attr<std::int64_t>("batch_dims") == 0);
  BOOST_TEST(out.shape() == PartialShape({2, -1, 4, 5}));
  BOOST_TEST(af::gather(params, indices, 1).shape() == PartialShape({3, 2, -1, 5}));
  BOOST_TEST(af::gather(params, indices, -1).shape() == PartialShape({3, 4, 2, -1}));
  BOOST_TEST(af::gather(params, g.constant(1)).shape() == PartialShape({4, 5}));
  BOOST_TEST(af::gather(g.placeholder(af::string), indices).shape() == PartialShape::unknown());
}

BOOST_AUTO_TEST_CASE(gather_rejects_scalars_and_axes_beyond_the_rank_at_construction) {
  Graph g;
  BOOST_TEST(starts_with(construction_error([&] { af::gather(g.constant(1), g.constant(0)); }),
                         "Shape must be at least rank 1 but is rank 0 for 'GatherV2'"));
  BOOST_TEST(starts_with(
      construction_error([&] {
        af::gather(g.constant(Tensor::from_vector<std::int32_t>({1, 2})), g.constant(0), 1);
      }),
      "Shape must be at least rank 2 but is rank 1 for 'GatherV2_1'"));
  BOOST_TEST(starts_with(
      construction_error([&] {
        af::gather(g.constant(Tensor::from_vector<std::int32_t>({1, 2})), g.constant(0.5f));
      }),
      "Value for attr 'Tindices' of float is not in the list of allowed values: "
      "int32, int64"));
}

BOOST_AUTO_TEST_CASE(gather_kernel_picks_rows_of_any_dtype) {
  Graph g;
  Output words = g.constant(Tensor::from_vector<std::string>({"a", "b", "c"}));
  Output idx = g.placeholder(af::int32, {-1});
  Tensor picked =
      KernelUnderTest(af::gather(words, idx)).run({Tensor::from_vector<std::int32_t>({2, 0, 2})});
  BOOST_TEST(picked.to_vector<std::string>() == std::vector<std::string>({"c", "a", "c"}),
             boost::test_tools::per_element());
  Output matrix = g.constant(Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2}));
  Output idx64 = g.placeholder(af::int64, {-1, -1});
  Tensor rows = KernelUnderTest(af::gather(matrix, idx64))
                    .run({Tensor::from_vector<std::int64_t>({0, 2, 1, 1}, Shape{2, 2})});
  BOOST_TEST(rows.shape() == Shape({2, 2, 2}));
  BOOST_TEST(rows.to_vector<float>() == std::vector<float>({1, 2, 5, 6, 3, 4, 3, 4}),
             boost::test_tools::per_element());
  Output cols =
      af::gather(g.constant(Tensor::from_vector<std::int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3})),
                 g.constant(Tensor::from_vector<std::int32_t>({2, 0})), 1);
  Tensor c = KernelUnderTest(cols).run();
  BOOST_TEST(c.shape() == Shape({2, 2}));
  BOOST_TEST(c.to_vector<std::int32_t>() == std::vector<std::int32_t>({3, 1, 6, 4}),
             boost::test_tools::per_element());
  Tensor scalar = KernelUnderTest(af::gather(words, g.constant(1))).run();
  BOOST_TEST(scalar.shape() == Shape({}));
  BOOST_TEST(scalar.scalar<std::string>() == "b");
}

BOOST_AUTO_TEST_CASE(gather_kernel_names_the_first_index_out_of_range) {
  Graph g;
  Output params = g.constant(Tensor::from_vector<std::int32_t>({1, 2, 3}));
  KernelUnderTest vec(af::gather(params, g.placeholder(af::int32, {-1})));
  auto [status, _1] = vec.try_run({Tensor::from_vector<std::int32_t>({0, 5, 7})});
  BOOST_TEST((status.code() == af::Code::invalid_argument));
  BOOST_TEST(status.message() == "indices[1] = 5 is not in [0, 3)\n\t [[{{node GatherV2}}]]");
  BOOST_TEST(vec.try_run({Tensor::from_vector<std::int32_t>({-1})}).first.message() ==
             "indices[0] = -1 is not in [0, 3)\n\t [[{{node GatherV2}}]]");
  KernelUnderTest mat(af::gather(params, g.placeholder(af::int64, {-1, -1}), "g2"));
  BOOST_TEST(
      mat.try_run({Tensor::from_vector<std::int64_t>({0, 1, 2, 3}, Shape{2, 2})}).first.message() ==
      "indices[1,1] = 3 is not in [0, 3)\n\t [[{{node g2}}]]");
}

// -- RandomShuffle --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(random_shuffle_keeps_the_shape_and_takes_seeds_from_the_graph) {
  Graph g;
  g.set_random_seed(1);
  Output x = g.placeholder(af::string, {-1, 3}, "x");
  Output s = af::random_shuffle(x, 7);
  BOOST_TEST(s.op().type() == "RandomShuffle");
  BOOST_TEST(s.op().name() == "RandomShuffle");
  BOOST_TEST(s.dtype() == af::string);
  BOOST_TEST(s.shape() == PartialShape({-1, 3}));
  BOOST_TEST(*s.op().node_def().attr<std::int64_t>("seed") == 1);
  BOOST_TEST(*s.op().node_def().attr<std::int64_t>("seed2") == 7);
  Graph unseeded;
  Output u = af::random_shuffle(unseeded.constant(Tensor::from_vector<std::int32_t>({1, 2})));
  BOOST_TEST(*u.op().node_def().attr<std::int64_t>("seed") == 0);
  BOOST_TEST(*u.op().node_def().attr<std::int64_t>("seed2") == 0);
}

BOOST_AUTO_TEST_CASE(random_shuffle_repeats_tensorflows_permutations_run_after_run) {
  Graph g;
  g.set_random_seed(1);
  std::vector<std::int32_t> ten(10);
  for (int i = 0; i < 10; ++i) ten[static_cast<std::size_t>(i)] = i;
  KernelUnderTest k(af::random_shuffle(g.constant(Tensor::from_vector(ten)), 7));
  const std::vector<std::vector<std::int32_t>> expected = {{1, 6, 4, 2, 8, 0, 7, 5, 3, 9},
                                                           {3, 1, 7, 9, 2, 6, 8, 4, 0, 5},
                                                           {0, 5, 7, 1, 3, 4, 8, 6, 9, 2}};
  for (auto& e : expected)
    BOOST_TEST(k.run().to_vector<std::int32_t>() == e, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(random_shuffle_moves_whole_rows_and_strings) {
  Graph g;
  g.set_random_seed(1);
  std::vector<float> twelve(12);
  for (int i = 0; i < 12; ++i) twelve[static_cast<std::size_t>(i)] = static_cast<float>(i);
  KernelUnderTest rows(af::random_shuffle(g.constant(Tensor::from_vector(twelve, Shape{6, 2})), 3));
  Tensor first = rows.run();
  BOOST_TEST(first.shape() == Shape({6, 2}));
  BOOST_TEST(first.to_vector<float>() == std::vector<float>({10, 11, 6, 7, 0, 1, 2, 3, 4, 5, 8, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(
      rows.run().to_vector<float>() == std::vector<float>({4, 5, 6, 7, 2, 3, 0, 1, 10, 11, 8, 9}),
      boost::test_tools::per_element());
  KernelUnderTest words(af::random_shuffle(
      g.constant(Tensor::from_vector<std::string>({"a", "b", "c", "d", "e"})), 5));
  BOOST_TEST(
      words.run().to_vector<std::string>() == std::vector<std::string>({"b", "e", "a", "d", "c"}),
      boost::test_tools::per_element());
  BOOST_TEST(
      words.run().to_vector<std::string>() == std::vector<std::string>({"e", "b", "d", "c", "a"}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(random_shuffle_of_a_hundred_matches_tensorflow_without_a_graph_seed) {
  Graph g;
  std::vector<std::int64_t> hundred(100);
  for (int i = 0; i < 100; ++i) hundred[static_cast<std::size_t>(i)] = i;
  Output s = af::random_shuffle(g.constant(Tensor::from_vector(hundred)), 42);
  BOOST_TEST(*s.op().node_def().attr<std::int64_t>("seed") == 87654321);
  const std::vector<std::int64_t> expected = {
      72, 83, 19, 74, 33, 93, 86, 63, 77, 51, 96, 38, 53, 87, 35, 22, 89, 91, 60, 8,
      11, 45, 24, 18, 78, 73, 69, 81, 64, 95, 36, 52, 23, 43, 94, 55, 58, 31, 15, 97,
      29, 14, 46, 79, 16, 44, 34, 26, 59, 17, 13, 32, 0,  10, 70, 27, 92, 57, 98, 80,
      48, 21, 4,  68, 2,  54, 9,  3,  61, 65, 42, 62, 71, 85, 20, 47, 37, 90, 76, 5,
      30, 6,  88, 1,  99, 28, 75, 41, 7,  66, 25, 12, 49, 39, 67, 40, 82, 84, 56, 50};
  BOOST_TEST(KernelUnderTest(s).run().to_vector<std::int64_t>() == expected,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(random_shuffle_passes_scalars_and_single_rows_through) {
  Graph g;
  Tensor scalar(5);
  Tensor out = KernelUnderTest(af::random_shuffle(g.placeholder(af::int32), 1)).run({scalar});
  BOOST_TEST(out.shares_buffer_with(scalar));
  Tensor row = Tensor::from_vector<float>({1, 2, 3}, Shape{1, 3});
  BOOST_TEST(KernelUnderTest(af::random_shuffle(g.placeholder(af::float32), 1)).run({row}) == row);
  Tensor empty(af::int32, Shape{0});
  BOOST_TEST(KernelUnderTest(af::random_shuffle(g.placeholder(af::int32), 1))
                 .run({empty})
                 .num_elements() == 0);
}

// -- CountUpTo ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(count_up_to_takes_the_variables_reference_and_is_colocated_with_it) {
  Graph g;
  af::Variable v = g.variable(Tensor(0), {.name = "counter"});
  Output c = af::count_up_to(v, 3);
  BOOST_TEST(c.op().type() == "CountUpTo");
  BOOST_TEST(c.op().name() == "CountUpTo");
  BOOST_TEST(inputs_of(c) == std::vector<std::string>({"counter"}),
             boost::test_tools::per_element());
  BOOST_TEST(c.node()->input_is_ref(0));
  BOOST_TEST(*c.op().node_def().attr<std::int64_t>("limit") == 3);
  BOOST_TEST(*c.op().node_def().attr<DType>("T") == af::int32);
  BOOST_TEST(c.node()->colocation_names() == std::vector<std::string>({"counter"}),
             boost::test_tools::per_element());
  BOOST_TEST(c.dtype() == af::int32);
  BOOST_TEST(c.shape() == PartialShape({}));
}

BOOST_AUTO_TEST_CASE(count_up_to_rejects_non_integer_non_scalar_and_non_reference_inputs) {
  Graph g;
  af::Variable f = g.variable(Tensor(0.0f), {.name = "f"});
  BOOST_TEST(starts_with(
      construction_error([&] { af::count_up_to(f, 3); }),
      "Value for attr 'T' of float is not in the list of allowed values: int32, int64"));
  af::Variable vec = g.variable(Tensor::from_vector<std::int32_t>({1, 2}), {.name = "vec"});
  BOOST_TEST(starts_with(construction_error([&] { af::count_up_to(vec, 3); }),
                         "Shape must be rank 0 but is rank 1 for 'CountUpTo"));
  af::Variable i = g.variable(Tensor(0), {.name = "i"});
  BOOST_TEST(starts_with(construction_error([&] { af::count_up_to(i.value(), 3); }),
                         "Input 0 of 'CountUpTo"));
}

BOOST_AUTO_TEST_CASE(count_up_to_kernel_increments_until_the_limit) {
  Graph g;
  af::Variable v = g.variable(Tensor(std::int64_t{5}), {.name = "c64"});
  KernelUnderTest k(af::count_up_to(v, 7));
  auto var = std::make_shared<af::Var>("c64", af::int64);
  const Tensor ref = Tensor::from_resource(var);
  auto [uninitialized, _1] = k.try_run({ref});
  BOOST_TEST((uninitialized.code() == af::Code::failed_precondition));
  BOOST_TEST(uninitialized.message() ==
             "Attempting to use uninitialized value c64\n\t [[{{node CountUpTo}}]]");
  var->assign(Tensor(std::int64_t{5}));
  BOOST_TEST(k.run({ref}).scalar<std::int64_t>() == 5);
  BOOST_TEST(k.run({ref}).scalar<std::int64_t>() == 6);
  auto [limit, _2] = k.try_run({ref});
  BOOST_TEST((limit.code() == af::Code::out_of_range));
  BOOST_TEST(limit.message() == "Reached limit of 7\n\t [[{{node CountUpTo}}]]");
  Tensor value;
  BOOST_REQUIRE(var->read(&value).ok());
  BOOST_TEST(value.scalar<std::int64_t>() == 7);
}

// -- Size and Shape -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(size_and_shape_of_a_fully_defined_shape_are_constants) {
  Graph g;
  Output x = g.constant(Tensor::from_vector<std::int32_t>({1, 2, 3, 4}, Shape{2, 2}));
  Output s = af::size(x);
  BOOST_TEST(s.op().type() == "Const");
  BOOST_TEST(s.op().name() == "Size");
  BOOST_TEST(s.op().node_def().attr<Tensor>("value")->scalar<std::int32_t>() == 4);
  Output sh = af::shape(x, af::int64);
  BOOST_TEST(sh.op().type() == "Const");
  BOOST_TEST(sh.op().name() == "Shape");
  BOOST_TEST(sh.op().node_def().attr<Tensor>("value")->to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({2, 2}),
             boost::test_tools::per_element());
  Output zero = af::size(g.placeholder(af::float32, {-1, 0}));
  BOOST_TEST(zero.op().type() == "Const");
  BOOST_TEST(zero.op().name() == "Size_1");
  BOOST_TEST(starts_with(construction_error([&] { af::size(x, af::float32); }),
                         "size: out_type must be int32 or int64"));
}

BOOST_AUTO_TEST_CASE(size_and_shape_of_a_partial_shape_are_ops) {
  Graph g;
  Output p = g.placeholder(af::float32, {-1, 3}, "p");
  Output s = af::size(p);
  BOOST_TEST(s.op().type() == "Size");
  BOOST_TEST(*s.op().node_def().attr<DType>("out_type") == af::int32);
  BOOST_TEST(*s.op().node_def().attr<DType>("T") == af::float32);
  BOOST_TEST(s.shape() == PartialShape({}));
  Output sh = af::shape(p);
  BOOST_TEST(sh.op().type() == "Shape");
  BOOST_TEST(sh.shape() == PartialShape({2}));
  BOOST_TEST(af::shape(g.placeholder(af::string)).shape() == PartialShape({-1}));
  Tensor fed(af::float32, Shape{4, 3});
  BOOST_TEST(KernelUnderTest(s).run({fed}).scalar<std::int32_t>() == 12);
  BOOST_TEST(
      KernelUnderTest(sh).run({fed}).to_vector<std::int32_t>() == std::vector<std::int32_t>({4, 3}),
      boost::test_tools::per_element());
  Output s64 = af::size(p, af::int64, "n");
  BOOST_TEST(s64.op().name() == "n");
  BOOST_TEST(KernelUnderTest(s64).run({fed}).scalar<std::int64_t>() == 12);
  BOOST_TEST(KernelUnderTest(af::shape(p, af::int64)).run({fed}).to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({4, 3}),
             boost::test_tools::per_element());
}

// -- local variables ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(variables_join_tensorflows_collections) {
  BOOST_TEST(std::string(af::kGlobalVariables) == "variables");
  BOOST_TEST(std::string(af::kLocalVariables) == "local_variables");
  BOOST_TEST(std::string(af::kTrainableVariables) == "trainable_variables");
  BOOST_TEST(std::string(af::kQueueRunners) == "queue_runners");
  Graph g;
  g.variable(Tensor(1.0f), {.name = "w"});
  g.variable(Tensor(std::int64_t{0}),
             {.name = "epochs",
              .trainable = false,
              .collections = std::vector<std::string>{af::kLocalVariables}});
  // As RefVariable: an explicit list still gains TRAINABLE_VARIABLES when trainable.
  g.variable(Tensor(2.0f),
             {.name = "both",
              .collections = std::vector<std::string>{af::kLocalVariables, af::kGlobalVariables}});
  g.variable(Tensor(3.0f),
             {.name = "none", .trainable = false, .collections = std::vector<std::string>{}});
  auto names = [](const std::vector<af::Variable>& vars) {
    std::vector<std::string> out;
    for (auto& v : vars) out.push_back(v.name());
    return out;
  };
  BOOST_TEST(names(g.global_variables()) == std::vector<std::string>({"w", "both"}),
             boost::test_tools::per_element());
  BOOST_TEST(names(g.local_variables()) == std::vector<std::string>({"epochs", "both"}),
             boost::test_tools::per_element());
  std::vector<std::string> trainable;
  for (auto& a : g.get_collection(af::kTrainableVariables))
    trainable.push_back(std::any_cast<af::Variable>(a).name());
  BOOST_TEST(trainable == std::vector<std::string>({"w", "both"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(local_variables_initializer_groups_the_local_initializers) {
  Graph g;
  g.variable(Tensor(1.0f), {.name = "w"});
  g.variable(Tensor(std::int64_t{0}),
             {.name = "epochs",
              .trainable = false,
              .collections = std::vector<std::string>{af::kLocalVariables}});
  af::Operation global_init = g.global_variables_initializer();
  af::Operation local_init = g.local_variables_initializer();
  BOOST_TEST(global_init.name() == "init");
  BOOST_TEST(local_init.name() == "init_1");
  BOOST_TEST(local_init.type() == "NoOp");
  BOOST_TEST(local_init.node_def().inputs == std::vector<std::string>({"^epochs/Assign"}),
             boost::test_tools::per_element());
  BOOST_TEST(global_init.node_def().inputs == std::vector<std::string>({"^w/Assign"}),
             boost::test_tools::per_element());
  Graph empty;
  BOOST_TEST(empty.local_variables_initializer().node_def().inputs.empty());
}

BOOST_AUTO_TEST_SUITE_END()
