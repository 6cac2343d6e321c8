// tf.data's op types built node by node (tf.raw_ops): the element orders and the errors of
// TensorFlow 2.21's kernels for what the written fixtures (tf_data_test.cpp) do not reach:
// raw ShuffleDataset, ShuffleAndRepeatDataset and RandomDataset seeds, cardinalities, bad
// arguments, an iterator used before MakeIterator, a dataset of the wrong signature, optionals
// from get_next_as_optional, TensorFlow 2's anonymous iterators and seed generators.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Tensor;
using af::test::contains;

const std::vector<DType> kInt64 = {DType::int64};
const std::vector<PartialShape> kScalar = {PartialShape(std::vector<std::int64_t>{})};

af::AttrMap signature(const std::vector<DType>& types = kInt64,
                      const std::vector<PartialShape>& shapes = kScalar) {
  return {{"output_types", types}, {"output_shapes", shapes}};
}

Output i64(af::Graph& g, std::int64_t v) { return g.constant(Tensor(v)); }

Output range_dataset(af::Graph& g, std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
  return g.create_op("RangeDataset", {i64(g, start), i64(g, stop), i64(g, step)}, signature())
      .output(0);
}

/// Every element of `dataset` (int64 scalars), through IteratorV2 / MakeIterator /
/// IteratorGetNext, until OutOfRange.
std::vector<std::int64_t> elements(af::Graph& g, const Output& dataset, std::size_t limit = 100) {
  af::data::register_dataset_ops();
  auto attrs = signature();
  attrs["shared_name"] = std::string();
  attrs["container"] = std::string();
  const Output it = g.create_op("IteratorV2", {}, attrs).output(0);
  const auto make = g.create_op("MakeIterator", {dataset, it});
  const Output next = g.create_op("IteratorGetNext", {it}, signature()).output(0);
  af::Session sess(g);
  sess.run(make);
  std::vector<std::int64_t> out;
  try {
    while (out.size() < limit) out.push_back(sess.run(next).scalar<std::int64_t>());
  } catch (const af::OutOfRangeError& e) {
    const std::string what = e.what();
    BOOST_TEST(what.substr(0, what.find('\n')) == "End of sequence");
  }
  return out;
}

std::vector<std::int64_t> shuffled(std::int64_t n, std::int64_t buffer, std::int64_t seed,
                                   std::int64_t seed2, bool reshuffle = true,
                                   std::int64_t count = 0) {
  af::data::register_dataset_ops();
  af::Graph g;
  auto attrs = signature();
  attrs["reshuffle_each_iteration"] = reshuffle;
  std::vector<Output> inputs{range_dataset(g, 0, n), i64(g, buffer), i64(g, seed), i64(g, seed2)};
  if (count != 0) inputs.push_back(i64(g, count));
  const Output ds =
      g.create_op(count != 0 ? "ShuffleAndRepeatDataset" : "ShuffleDataset", inputs, attrs)
          .output(0);
  return elements(g, ds, 20);
}

using V = std::vector<std::int64_t>;

/// The error message of running `dataset`'s op.
std::string dataset_error(const std::function<Output(af::Graph&)>& build) {
  af::data::register_dataset_ops();
  af::Graph g;
  const Output ds = build(g);
  af::Session sess(g);
  return af::test::error_of([&] { sess.run(ds); });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tf_data_ops_test)

// TensorFlow 2.21's orders for raw seeds (tf.raw_ops.ShuffleDataset, ShuffleAndRepeatDataset).
BOOST_AUTO_TEST_CASE(raw_shuffle_seeds_give_tensorflows_orders, *boost::unit_test::timeout(60)) {
  BOOST_TEST(shuffled(10, 3, 12345, 67890) == (V{2, 3, 0, 5, 1, 7, 4, 8, 9, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(shuffled(10, 3, -1, -7) == (V{2, 1, 0, 5, 3, 4, 8, 7, 9, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(shuffled(10, 4, 0, 9) == (V{1, 2, 5, 0, 4, 8, 9, 3, 7, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(shuffled(10, 4, 9, 0) == (V{3, 0, 2, 5, 7, 1, 9, 6, 8, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(shuffled(5, 3, 1, 2, true, 3) == (V{1, 3, 2, 0, 4, 1, 3, 4, 0, 2, 1, 3, 0, 4, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(shuffled(5, 3, 1, 2, false, 3) == (V{2, 3, 0, 4, 1, 2, 3, 0, 4, 1, 2, 3, 0, 4, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(shuffled(3, 100, 1, 2, true, -1) ==
                 (V{1, 2, 0, 1, 0, 2, 1, 2, 0, 0, 1, 2, 1, 0, 2, 2, 0, 1, 1, 0}),
             boost::test_tools::per_element());
  // An empty input repeated forever ends at once.
  BOOST_TEST(shuffled(0, 3, 1, 2, true, -1).empty());
  // buffer_size -2 (UNKNOWN_CARDINALITY): the whole input shuffled.
  BOOST_TEST(shuffled(4, -2, 1, 2, true, 3) == (V{0, 3, 2, 1, 3, 0, 2, 1, 0, 3, 1, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(ranges_take_skip_and_repeat, *boost::unit_test::timeout(60)) {
  {
    af::Graph g;
    BOOST_TEST(elements(g, range_dataset(g, 10, 0, -3)) == (V{10, 7, 4, 1}),
               boost::test_tools::per_element());
  }
  {
    af::Graph g;
    const Output take =
        g.create_op("TakeDataset", {range_dataset(g, 0, 5), i64(g, -1)}, signature()).output(0);
    const Output skip = g.create_op("SkipDataset", {take, i64(g, 3)}, signature()).output(0);
    const Output rep = g.create_op("RepeatDataset", {skip, i64(g, 2)}, signature()).output(0);
    BOOST_TEST(elements(g, rep) == (V{3, 4, 3, 4}), boost::test_tools::per_element());
  }
  {
    af::Graph g;  // an empty input repeated forever ends
    const Output empty =
        g.create_op("TakeDataset", {range_dataset(g, 0, 5), i64(g, 0)}, signature()).output(0);
    BOOST_TEST(elements(g, g.create_op("RepeatDataset", {empty, i64(g, -1)}, signature()).output(0))
                   .empty());
  }
}

BOOST_AUTO_TEST_CASE(cardinalities_follow_tensorflow, *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  af::Graph g;
  auto card = [&](const Output& ds) { return g.create_op("DatasetCardinality", {ds}).output(0); };
  const Output r = range_dataset(g, 0, 10, 3);  // 0 3 6 9
  auto batch_attrs = signature(kInt64, {PartialShape(std::vector<std::int64_t>{-1})});
  batch_attrs["parallel_copy"] = false;
  const Output batched =
      g.create_op("BatchDatasetV2", {r, i64(g, 3), g.constant(Tensor(false))}, batch_attrs)
          .output(0);
  const Output forever = g.create_op("RepeatDataset", {r, i64(g, -1)}, signature()).output(0);
  const Output taken = g.create_op("TakeDataset", {forever, i64(g, 7)}, signature()).output(0);
  af::Session sess(g);
  const auto out = sess.run({card(r), card(batched), card(forever), card(taken)});
  BOOST_TEST(out[0].scalar<std::int64_t>() == 4);
  BOOST_TEST(out[1].scalar<std::int64_t>() == 2);
  BOOST_TEST(out[2].scalar<std::int64_t>() == -1);
  BOOST_TEST(out[3].scalar<std::int64_t>() == 7);
}

BOOST_AUTO_TEST_CASE(bad_arguments_get_tensorflows_errors, *boost::unit_test::timeout(60)) {
  BOOST_TEST(contains(dataset_error([](af::Graph& g) { return range_dataset(g, 0, 5, 0); }),
                      "step must be a non-zero integer."));
  BOOST_TEST(contains(dataset_error([](af::Graph& g) {
                        return g
                            .create_op(
                                "BatchDatasetV2",
                                {range_dataset(g, 0, 5), i64(g, 0), g.constant(Tensor(false))},
                                signature(kInt64, {PartialShape::unknown()}))
                            .output(0);
                      }),
                      "Batch size must be greater than zero."));
  BOOST_TEST(contains(
      dataset_error([](af::Graph& g) {
        return g
            .create_op("TensorSliceDataset",
                       {g.constant(Tensor::from_vector<std::int64_t>({1, 2})),
                        g.constant(Tensor::from_vector<float>({1, 2, 3}))},
                       {{"Toutput_types", std::vector<DType>{DType::int64, DType::float32}},
                        {"output_shapes", std::vector<PartialShape>{kScalar[0], kScalar[0]}}})
            .output(0);
      }),
      "All components must have the same size in the 0th dimension"));
  BOOST_TEST(contains(dataset_error([](af::Graph& g) {
                        auto attrs = signature();
                        attrs["reshuffle_each_iteration"] = true;
                        return g
                            .create_op("ShuffleDataset",
                                       {range_dataset(g, 0, 5), i64(g, 0), i64(g, 1), i64(g, 2)},
                                       attrs)
                            .output(0);
                      }),
                      "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"));
}

BOOST_AUTO_TEST_CASE(iterators_refuse_use_before_init_and_other_signatures,
                     *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  af::Graph g;
  auto attrs = signature({DType::float32});
  attrs["shared_name"] = std::string("it");
  attrs["container"] = std::string();
  const Output it = g.create_op("IteratorV2", {}, attrs).output(0);
  const Output next = g.create_op("IteratorGetNext", {it}, signature({DType::float32})).output(0);
  const auto make = g.create_op("MakeIterator", {range_dataset(g, 0, 3), it});
  af::Session sess(g);
  BOOST_TEST(contains(af::test::error_of<af::FailedPreconditionError>([&] { sess.run(next); }),
                      "GetNext() failed because the iterator has not been initialized."));
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] { sess.run(make); }),
                      "Data type mismatch at component 0: expected float but got int64."));
}

// tf.raw_ops.RandomDataset(seed=1, seed2=2): TensorFlow 2.21's first five elements.
BOOST_AUTO_TEST_CASE(random_dataset_gives_tensorflows_stream, *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  af::Graph g;
  const Output rnd = g.create_op("RandomDataset", {i64(g, 1), i64(g, 2)}, signature()).output(0);
  BOOST_TEST(elements(g, rnd, 5) == (V{3878945999, 2364392915, 1057429302, 168492509, 3082076531}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shard_window_unbatch_cardinalities, *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  af::Graph g;
  auto card = [&](const Output& ds) { return g.create_op("DatasetCardinality", {ds}).output(0); };
  auto shard = [&](std::int64_t n, std::int64_t i) {
    return g.create_op("ShardDataset", {range_dataset(g, 0, 10), i64(g, n), i64(g, i)}, signature())
        .output(0);
  };
  auto window = [&](std::int64_t n, std::int64_t size, std::int64_t shift, std::int64_t stride,
                    bool drop) {
    return g
        .create_op("WindowDataset",
                   {range_dataset(g, 0, n), i64(g, size), i64(g, shift), i64(g, stride),
                    g.constant(Tensor(drop))},
                   signature({DType::variant}))
        .output(0);
  };
  auto batch_attrs = signature(kInt64, {PartialShape(std::vector<std::int64_t>{3})});
  const Output batched =
      g.create_op("BatchDatasetV2", {range_dataset(g, 0, 10), i64(g, 3), g.constant(Tensor(true))},
                  batch_attrs)
          .output(0);
  const Output unbatched = g.create_op("UnbatchDataset", {batched}, signature()).output(0);
  af::Session sess(g);
  const auto out =
      sess.run({card(shard(3, 1)), card(shard(3, 0)), card(window(7, 3, 2, 1, false)),
                card(window(7, 3, 2, 1, true)), card(window(10, 2, 3, 2, true)), card(unbatched)});
  const V want{3, 4, 4, 3, 3, 9};
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(out[i].scalar<std::int64_t>() == want[i], "cardinality " << i);
  BOOST_TEST(elements(g, unbatched) == (V{0, 1, 2, 3, 4, 5, 6, 7, 8}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shard_window_and_selector_errors, *boost::unit_test::timeout(60)) {
  BOOST_TEST(contains(dataset_error([](af::Graph& g) {
                        return g
                            .create_op("ShardDataset",
                                       {range_dataset(g, 0, 10), i64(g, 0), i64(g, 0)}, signature())
                            .output(0);
                      }),
                      "Number of shards must be greater than zero (currently num_shards = 0)."));
  BOOST_TEST(contains(dataset_error([](af::Graph& g) {
                        return g
                            .create_op("ShardDataset",
                                       {range_dataset(g, 0, 10), i64(g, 3), i64(g, 3)}, signature())
                            .output(0);
                      }),
                      "Index must be between 0 and 2 (currently index = 3)."));
  BOOST_TEST(contains(dataset_error([](af::Graph& g) {
                        return g
                            .create_op("WindowDataset",
                                       {range_dataset(g, 0, 3), i64(g, 0), i64(g, 1), i64(g, 1),
                                        g.constant(Tensor(false))},
                                       signature({DType::variant}))
                            .output(0);
                      }),
                      "Window size must be greater than zero."));
  // A selector naming a third input of two.
  af::data::register_dataset_ops();
  af::Graph g;
  const Output choice =
      g.create_op("TensorSliceDataset", {g.constant(Tensor::from_vector<std::int64_t>({0, 2}))},
                  {{"Toutput_types", kInt64}, {"output_shapes", kScalar}})
          .output(0);
  auto attrs = signature();
  attrs["N"] = std::int64_t{2};
  attrs["stop_on_empty_dataset"] = true;
  const Output chosen = g.create_op("DirectedInterleaveDataset",
                                    {choice, range_dataset(g, 0, 3), range_dataset(g, 5, 8)}, attrs)
                            .output(0);
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] { elements(g, chosen); }),
                      "Selector index out of range: 2 >= 2"));
}

// A prefetching iterator made again, or its session closed, while its thread runs ahead: the
// thread stops, the new iterator starts over.
BOOST_AUTO_TEST_CASE(prefetch_threads_stop_with_their_iterator, *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  for (int round = 0; round < 20; ++round) {
    af::Graph g;
    const Output prefetched =
        g.create_op("PrefetchDataset", {range_dataset(g, 0, 1000000), i64(g, 8)}, signature())
            .output(0);
    auto attrs = signature();
    attrs["shared_name"] = std::string();
    attrs["container"] = std::string();
    const Output it = g.create_op("IteratorV2", {}, attrs).output(0);
    const auto make = g.create_op("MakeIterator", {prefetched, it});
    const Output next = g.create_op("IteratorGetNext", {it}, signature()).output(0);
    af::Session sess(g);
    for (int again = 0; again < 2; ++again) {
      sess.run(make);
      for (std::int64_t want = 0; want < 3; ++want)
        BOOST_TEST(sess.run(next).scalar<std::int64_t>() == want);
    }
  }
  BOOST_TEST(contains(
      dataset_error([](af::Graph& g) {
        return g.create_op("PrefetchDataset", {range_dataset(g, 0, 3), i64(g, -2)}, signature())
            .output(0);
      }),
      "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"));
}

// Iterator.get_next_as_optional: a value while there are elements, then none.
BOOST_AUTO_TEST_CASE(get_next_as_optional, *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  af::Graph g;
  auto attrs = signature();
  attrs["shared_name"] = std::string();
  attrs["container"] = std::string();
  const Output it = g.create_op("IteratorV2", {}, attrs).output(0);
  const auto make = g.create_op("MakeIterator", {range_dataset(g, 7, 9), it});
  const Output opt = g.create_op("IteratorGetNextAsOptional", {it}, signature()).output(0);
  // One optional per step, read twice: has_value and get_value.
  const Output id = g.create_op("Identity", {opt}, {{"T", DType::variant}}).output(0);
  const Output has = g.create_op("OptionalHasValue", {id}).output(0);
  const Output value = g.create_op("OptionalGetValue", {id}, signature()).output(0);
  af::Session sess(g);
  sess.run(make);
  for (std::int64_t want : {7, 8}) {
    const auto out = sess.run({has, value});
    BOOST_TEST(out[0].scalar<bool>());
    BOOST_TEST(out[1].scalar<std::int64_t>() == want);
  }
  BOOST_TEST(!sess.run(has).scalar<bool>());
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] { sess.run(value); }),
                      "does not have a value"));
}

// TensorFlow 2's anonymous resources: a deleted iterator is gone (NotFound, as TensorFlow's
// lookup of its handle), a Delete* op wants its Anonymous* op's deleter, a seed generator input
// must be a resource, and ShuffleDatasetV2 with a DummySeedGenerator shuffles with fresh seeds.
BOOST_AUTO_TEST_CASE(tensorflow2_anonymous_resources, *boost::unit_test::timeout(60)) {
  af::data::register_dataset_ops();
  {
    af::Graph g;
    auto v2 = g.create_op("AnonymousIteratorV2", {}, signature());
    const Output it = v2.output(0);
    const auto make = g.create_op("MakeIterator", {range_dataset(g, 0, 5), it});
    const Output next = g.create_op("IteratorGetNext", {it}, signature(), "next", {make}).output(0);
    const auto del =
        g.create_op("DeleteIterator", {it, v2.output(1)}, {}, "delete", {af::Operation(next)});
    const Output after =
        g.create_op("IteratorGetNext", {it}, signature(), "after", {del}).output(0);
    af::Session sess(g);
    // The iterator lives for one step (its handle's), made, read and deleted in it.
    BOOST_TEST(sess.run(next).scalar<std::int64_t>() == 0);
    BOOST_TEST(sess.run(next).scalar<std::int64_t>() == 0);  // a new one each step
    BOOST_TEST(contains(af::test::error_of<af::NotFoundError>([&] { sess.run(after); }),
                        "does not exist"));
  }
  {
    af::Graph g;
    auto gen =
        g.create_op("AnonymousSeedGenerator", {i64(g, 1), i64(g, 2), g.constant(Tensor(true))});
    const auto bad = g.create_op("DeleteSeedGenerator", {gen.output(0), range_dataset(g, 0, 1)});
    af::Session sess(g);
    BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] { sess.run(bad); }),
                        "deleter must be a scalar variant holding a ResourceDeleter"));
  }
  BOOST_TEST(contains(dataset_error([](af::Graph& g) {
                        return g
                            .create_op("ShuffleDatasetV2",
                                       {range_dataset(g, 0, 3), i64(g, 2), i64(g, 0)}, signature())
                            .output(0);
                      }),
                      "seed_generator must be a scalar resource handle"));
  af::Graph g;
  const Output shuffled = g.create_op("ShuffleDatasetV2",
                                      {range_dataset(g, 0, 10), i64(g, 4),
                                       g.create_op("DummySeedGenerator", {}).output(0)},
                                      signature())
                              .output(0);
  V got = elements(g, shuffled);
  std::sort(got.begin(), got.end());
  BOOST_TEST(got == (V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
