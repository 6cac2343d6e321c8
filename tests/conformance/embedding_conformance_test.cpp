// Partitioned variables and embedding lookups against TensorFlow 1.x: the partitioners,
// the parts' names, shapes and slice specs (partitioned_variables.py, variable_scope.py),
// DynamicPartition / DynamicStitch, and `tf.nn.embedding_lookup` with both partition
// strategies, its per-part gradients and max_norm (embedding_ops.py). The values come from
// scripts/peers/make_embedding_references.py (TensorFlow, tf.compat.v1, reference variables).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/partition_ops.hpp>
#include <actorflow/ops/string_ops.hpp>
#include <actorflow/train/embedding_ops.hpp>
#include <actorflow/train/partitioned_variables.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::contains;
using af::test::error_of;
namespace train = af::train;

using af::test::check_close;

std::vector<std::int64_t> ints(const Tensor& t) {
  std::vector<std::int64_t> out;
  if (t.dtype() == DType::int64)
    for (auto x : t.flat<std::int64_t>()) out.push_back(x);
  else
    for (auto x : t.flat<std::int32_t>()) out.push_back(x);
  return out;
}

// The [10,4] table arange(40) / 10, its rows `first, first + step, ...` below `end`.
Tensor table_rows(int first, int end, int step) {
  std::vector<float> v;
  for (int r = first; r < end; r += step)
    for (int c = 0; c < 4; ++c) v.push_back(static_cast<float>(r * 4 + c) / 10.0f);
  return Tensor::from_vector(v, Shape{static_cast<std::int64_t>(v.size() / 4), 4});
}

struct StrategyCase {
  std::string strategy;
  std::vector<Tensor> parts;
  std::vector<std::vector<float>> grad_values;
  std::vector<std::vector<std::int64_t>> grad_indices;
  std::vector<std::vector<float>> after_step;
};

// make_embedding_references.py, part 2.
const std::vector<float> kLookup = {
    3.5999999f,   3.70000005f,  3.79999995f, 3.9000001f,  0,           0.100000001f, 0.200000003f,
    0.300000012f, 1.60000002f,  1.70000005f, 1.79999995f, 1.89999998f, 1.60000002f,  1.70000005f,
    1.79999995f,  1.89999998f,  2.79999995f, 2.9000001f,  3,           3.0999999f,   0.400000006f,
    0.5f,         0.600000024f, 0.699999988f};

std::vector<StrategyCase> strategy_cases() {
  return {
      {"mod",
       {table_rows(0, 10, 3), table_rows(1, 10, 3), table_rows(2, 10, 3)},
       {{-1, -0.875f, -0.75f, -0.625f, -0.5f, -0.375f, -0.25f, -0.125f},
        {0, 0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f, 1, 1.125f, 1.25f, 1.375f, 1.5f,
         1.625f, 1.75f, 1.875f},
        {}},
       {{3, 0}, {1, 1, 2, 0}, {}},
       {{0.0500000007f, 0.137500003f, 0.225000009f, 0.3125f, 1.20000005f, 1.29999995f, 1.39999998f,
         1.5f, 2.4000001f, 2.5f, 2.5999999f, 2.70000005f, 3.69999981f, 3.78750014f, 3.875f,
         3.9625001f},
        {0.25f, 0.337499976f, 0.425000012f, 0.512499988f, 1.55000007f, 1.625f, 1.69999993f,
         1.77499998f, 2.70000005f, 2.78750014f, 2.875f, 2.96249986f},
        {0.800000012f, 0.899999976f, 1, 1.10000002f, 2, 2.0999999f, 2.20000005f, 2.29999995f,
         3.20000005f, 3.29999995f, 3.4000001f, 3.5f}}},
      {"div",
       {table_rows(0, 4, 1), table_rows(4, 7, 1), table_rows(7, 10, 1)},
       {{-0.5f, -0.375f, -0.25f, -0.125f, 1.5f, 1.625f, 1.75f, 1.875f},
        {0, 0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 0.875f},
        {-1, -0.875f, -0.75f, -0.625f, 1, 1.125f, 1.25f, 1.375f}},
       {{0, 1}, {0, 0}, {2, 0}},
       {{0.0500000007f, 0.137500003f, 0.225000009f, 0.3125f, 0.25f, 0.337499976f, 0.425000012f,
         0.512499988f, 0.800000012f, 0.899999976f, 1, 1.10000002f, 1.20000005f, 1.29999995f,
         1.39999998f, 1.5f},
        {1.55000007f, 1.625f, 1.69999993f, 1.77499998f, 2, 2.0999999f, 2.20000005f, 2.29999995f,
         2.4000001f, 2.5f, 2.5999999f, 2.70000005f},
        {2.70000005f, 2.78750014f, 2.875f, 2.96249986f, 3.20000005f, 3.29999995f, 3.4000001f, 3.5f,
         3.69999981f, 3.78750014f, 3.875f, 3.9625001f}}},
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(embedding_conformance_test)

BOOST_AUTO_TEST_CASE(partitioners_count_parts_as_tensorflow_does, *boost::unit_test::timeout(60)) {
  using V = std::vector<std::int64_t>;
  BOOST_TEST(train::fixed_size_partitioner(3)(Shape{10, 4}, DType::float32) == (V{3, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(train::fixed_size_partitioner(30)(Shape{10, 4}, DType::float32) == (V{10, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(
      train::min_max_variable_partitioner(100)(Shape{1024, 1024}, DType::float32) == (V{16, 1}),
      boost::test_tools::per_element());
  BOOST_TEST(train::variable_axis_size_partitioner((64 << 20) - 1)(Shape{10000000, 64},
                                                                   DType::float32) == (V{39, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(train::variable_axis_size_partitioner(100, 0, 16, 2)(Shape{10, 4}, DType::string) ==
                 (V{2, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(
      contains(error_of<af::InvalidArgumentError>([] { train::variable_axis_size_partitioner(0); }),
               "Both max_shard_bytes and bytes_per_string_element must be positive."));
}

// sparse-notes Ex.4: the parts' names, shapes and slice specs.
BOOST_AUTO_TEST_CASE(parts_are_named_shaped_and_sliced_as_tensorflow_does,
                     *boost::unit_test::timeout(60)) {
  for (std::int64_t n : {3, 2}) {
    af::Graph g;
    auto emb = train::get_partitioned_variable(g, "emb", Shape{10, 4},
                                               {.partitioner = train::fixed_size_partitioner(n)});
    std::vector<std::string> names, specs;
    std::vector<std::int64_t> rows;
    for (auto& p : emb.parts()) {
      names.push_back(p.name());
      rows.push_back(p.shape().dim(0));
    }
    for (auto& s : emb.save_slice_infos()) specs.push_back(s.spec());
    if (n == 3) {
      BOOST_TEST(names == (std::vector<std::string>{"emb/part_0", "emb/part_1", "emb/part_2"}),
                 boost::test_tools::per_element());
      BOOST_TEST(rows == (std::vector<std::int64_t>{4, 3, 3}), boost::test_tools::per_element());
      BOOST_TEST(
          specs == (std::vector<std::string>{"10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"}),
          boost::test_tools::per_element());
    } else {
      BOOST_TEST(specs == (std::vector<std::string>{"10 4 0,5:0,4", "10 4 5,5:0,4"}),
                 boost::test_tools::per_element());
    }
    // Only the parts are variables; the whole reads as their concatenation.
    BOOST_TEST(g.global_variables().size() == static_cast<std::size_t>(n));
    af::Session sess(g);
    sess.run(g.global_variables_initializer());
    BOOST_TEST(sess.run(emb.as_tensor()).shape() == (Shape{10, 4}));
  }
  af::Graph g;
  auto bad = [&](train::Partitioner p) {
    return error_of<af::InvalidArgumentError>([&] {
      train::get_partitioned_variable(g, "bad", Shape{10, 4}, {.partitioner = p});
    });
  };
  BOOST_TEST(contains(bad([](const Shape&, DType) { return std::vector<std::int64_t>{2}; }),
                      "Partitioner returned a partition list that does not match the Variable's "
                      "rank: [2] vs. (10, 4)"));
  BOOST_TEST(contains(bad([](const Shape&, DType) {
                        return std::vector<std::int64_t>{0, 1};
                      }),
                      "Partitioner returned zero partitions for some axes: [0, 1]"));
  BOOST_TEST(contains(bad([](const Shape&, DType) {
                        return std::vector<std::int64_t>{2, 2};
                      }),
                      "Can only slice a variable along one dimension: shape: (10, 4), "
                      "partitioning: [2, 2]"));
}

BOOST_AUTO_TEST_CASE(dynamic_partition_and_stitch_round_trip, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output data = g.constant(Tensor::from_vector(std::vector<float>{10, 20, 30, 40, 50}));
  Output parts = g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 0, 1, 1, 0}));
  auto split = af::dynamic_partition(data, parts, 2);
  auto where = af::dynamic_partition(af::range(g, 5), parts, 2);
  Output back = af::dynamic_stitch(where, split);
  Output bad = af::dynamic_partition(data, g.placeholder(DType::int32), 2)[0];
  af::Session sess(g);
  BOOST_TEST(sess.run(split[0]).to_vector<float>() == (std::vector<float>{20, 50}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(split[1]).to_vector<float>() == (std::vector<float>{10, 30, 40}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(back).to_vector<float>() == (std::vector<float>{10, 20, 30, 40, 50}),
             boost::test_tools::per_element());
  Output feed = bad.node()->inputs()[1];
  const std::string e = error_of<af::InvalidArgumentError>([&] {
    sess.run(bad, {{feed, Tensor::from_vector(std::vector<std::int32_t>{0, 2, 0, 0, 0})}});
  });
  BOOST_TEST(contains(e, "partitions[1] = 2 is not in [0, 2)"), e);
}

// make_embedding_references.py, part 2: both strategies over the [10,4] table cut into rows
// 4, 3 and 3; each part's gradient holds its own rows with local ids; one GradientDescent
// step of 0.1 moves only those rows.
BOOST_AUTO_TEST_CASE(lookups_and_their_gradients_match_tensorflow, *boost::unit_test::timeout(60)) {
  for (const auto& c : strategy_cases()) {
    BOOST_TEST_CONTEXT(c.strategy) {
      af::Graph g;
      std::vector<af::Variable> parts;
      std::vector<Output> values, refs;
      for (std::size_t i = 0; i < c.parts.size(); ++i) {
        parts.push_back(g.variable(c.parts[i], {.name = "part_" + std::to_string(i)}));
        values.push_back(parts.back().value());
        refs.push_back(parts.back().ref());
      }
      Output ids =
          g.constant(Tensor::from_vector(std::vector<std::int64_t>{9, 0, 4, 4, 7, 1}, Shape{3, 2}));
      Output looked = train::embedding_lookup(values, ids, {.partition_strategy = c.strategy});
      BOOST_TEST(looked.shape() == af::PartialShape({3, 2, 4}));
      std::vector<float> w(24);
      for (int i = 0; i < 24; ++i) w[static_cast<std::size_t>(i)] = i / 8.0f - 1.0f;
      Output loss = af::reduce_sum(looked * g.constant(Tensor::from_vector(w, Shape{3, 2, 4})));
      // The same ids fed, their shape unknown while building.
      Output fed_ids = g.placeholder(DType::int64);
      Output fed = train::embedding_lookup(values, fed_ids, {.partition_strategy = c.strategy});
      auto grads = af::gradients_with_slices({loss}, refs);
      af::Operation step = train::GradientDescentOptimizer(0.1).minimize(loss);
      af::Session sess(g);
      sess.run(g.global_variables_initializer());
      check_close(sess.run(looked).to_vector<float>(), kLookup);
      Tensor fed_value = sess.run(fed, {{fed_ids, sess.run(ids)}});
      BOOST_TEST(fed_value.shape() == (Shape{3, 2, 4}));
      check_close(fed_value.to_vector<float>(), kLookup);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        BOOST_TEST_CONTEXT("part " << i) {
          BOOST_REQUIRE(grads[i].is_slices());
          check_close(sess.run(grads[i].slices().values).to_vector<float>(), c.grad_values[i]);
          BOOST_TEST(ints(sess.run(grads[i].slices().indices)) == c.grad_indices[i],
                     boost::test_tools::per_element());
        }
      }
      sess.run(step);
      for (std::size_t i = 0; i < parts.size(); ++i)
        check_close(sess.run(values[i]).to_vector<float>(), c.after_step[i]);
    }
  }
  af::Graph g;
  Output p = g.constant(table_rows(0, 10, 1));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        train::embedding_lookup({p, p}, g.constant(Tensor(std::int64_t{1})),
                                                {.partition_strategy = "hash"});
                      }),
                      "Unrecognized partition strategy: hash"));
}

BOOST_AUTO_TEST_CASE(max_norm_scales_down_the_rows_it_returns, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable p = g.variable(
      Tensor::from_vector(std::vector<float>{3, 4, 1, 0, 0.3f, 0.4f}, Shape{3, 2}), {.name = "p"});
  Output one = train::embedding_lookup(
      {p.value()}, g.constant(Tensor::from_vector(std::vector<std::int32_t>{0, 1, 2, 0})),
      {.max_norm = 1.0});
  Output two = train::embedding_lookup(
      {p.value(), p.value()},
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{0, 1, 2, 3}, Shape{2, 2})),
      {.max_norm = 1.0});
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  check_close(sess.run(one).to_vector<float>(), {0.600000024f, 0.800000012f, 1, 0, 0.300000012f,
                                                 0.400000006f, 0.600000024f, 0.800000012f});
  check_close(sess.run(two).to_vector<float>(),
              {0.600000024f, 0.800000012f, 0.600000024f, 0.800000012f, 1, 0, 1, 0});
  check_close(sess.run(p.value()).to_vector<float>(), {3, 4, 1, 0, 0.3f, 0.4f});
}

// A partitioned variable under replica_device_setter: the parts take the ps tasks in turn,
// and each part's gather runs beside its part.
BOOST_AUTO_TEST_CASE(parts_spread_over_ps_tasks_and_lookups_gather_beside_them,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto setter = af::replica_device_setter({.ps_tasks = 2});
  train::PartitionedVariable emb;
  Output looked;
  {
    auto scope = g.device(setter);
    emb = train::get_partitioned_variable(g, "emb", Shape{10, 4},
                                          {.partitioner = train::fixed_size_partitioner(3)});
    looked = train::embedding_lookup(
        emb, g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, 5})));
  }
  std::vector<std::string> devices;
  for (auto& p : emb.parts()) devices.push_back(p.op().device());
  BOOST_TEST(
      devices == (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"}),
      boost::test_tools::per_element());
  std::vector<std::string> gathers, groups;
  for (af::Node* n : g.nodes())
    if (n->type() == "GatherV2") {
      gathers.push_back(n->def().device);
      for (auto& c : n->colocation_names()) groups.push_back(c);
    }
  BOOST_TEST(gathers == devices, boost::test_tools::per_element());
  BOOST_TEST(groups == (std::vector<std::string>{"emb/part_0", "emb/part_1", "emb/part_2"}),
             boost::test_tools::per_element());
  BOOST_TEST(looked.shape() == af::PartialShape({2, 4}));
}

// make_embedding_references.py, part 4: FarmHash's Fingerprint64, so the buckets are
// TensorFlow's on any machine (sparse-notes: "Hello" is 0xd5c87c1e326b2087).
BOOST_AUTO_TEST_CASE(string_hash_buckets_match_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output words = g.constant(Tensor::from_vector(std::vector<std::string>{
      "Hello", "TensorFlow", "2.x", "", "actorflow",
      "a much longer string of more than sixty-four bytes, to reach FarmHash's long-input loop "
      "......"}));
  Output three = af::string_to_hash_bucket_fast(words, 3);
  Output all = af::string_to_hash_bucket_fast(words, 1000003);
  Output many = af::string_to_hash_bucket_fast(
      g.constant(Tensor::from_vector(
          std::vector<std::string>{"Hello", "TensorFlow", "2.x", "", "actorflow"}, Shape{5, 1})),
      1000003);
  af::Session sess(g);
  BOOST_TEST(ints(sess.run(three)) == (std::vector<std::int64_t>{0, 2, 2, 2, 2, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(ints(sess.run(all)) ==
                 (std::vector<std::int64_t>{184354, 387482, 628455, 377723, 63254, 10389}),
             boost::test_tools::per_element());
  Tensor m = sess.run(many);
  BOOST_TEST(m.shape() == (Shape{5, 1}));
  BOOST_TEST(ints(m) == (std::vector<std::int64_t>{184354, 387482, 628455, 377723, 63254}),
             boost::test_tools::per_element());
  BOOST_TEST(
      contains(af::test::construction_error([&] { af::string_to_hash_bucket_fast(words, 0); }),
               "Value for attr 'num_buckets' of 0 must be at least minimum 1"));
}

BOOST_AUTO_TEST_SUITE_END()
