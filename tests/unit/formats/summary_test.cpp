// Summaries as TensorFlow's kernels encode them: the default histogram buckets and their
// encoding (tensorflow/core/lib/histogram/histogram.cc), ScalarSummary, HistogramSummary's
// errors, MergeSummary's duplicate tags (tensorflow/core/kernels/summary_op.cc).
#include "actorflow/formats/summary.hpp"

#include <boost/test/unit_test.hpp>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/tf/summary.pb.h"

namespace {

tensorflow::Summary parse(const std::string& bytes) {
  tensorflow::Summary s;
  BOOST_REQUIRE(s.ParseFromString(bytes));
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(summary_test)

BOOST_AUTO_TEST_CASE(the_default_buckets_are_tensorflows_1551_limits) {
  const auto& limits = af::summary::default_bucket_limits();
  BOOST_TEST(limits.size() == 1551u);
  BOOST_TEST(limits.front() == -DBL_MAX);
  BOOST_TEST(limits.back() == DBL_MAX);
  BOOST_TEST(limits[775] == 0.0);
  BOOST_TEST(limits[776] == 1e-12);
  BOOST_TEST(limits[774] == -1e-12);
  BOOST_TEST(limits[777] == 1e-12 * 1.1);
  // Repeated multiplication: the last finite limit is the 774th product, below 1e20.
  BOOST_TEST(limits[1549] < 1e20);
  BOOST_TEST(limits[1549] * 1.1 >= 1e20);
  for (std::size_t i = 1; i < limits.size(); ++i) BOOST_TEST_REQUIRE(limits[i - 1] < limits[i]);
}

BOOST_AUTO_TEST_CASE(an_empty_histogram_encodes_one_bucket_and_inverted_extremes) {
  tensorflow::HistogramProto h;
  BOOST_REQUIRE(h.ParseFromString(af::summary::Histogram().encode()));
  BOOST_TEST(h.min() == DBL_MAX);
  BOOST_TEST(h.max() == -DBL_MAX);
  BOOST_TEST(h.num() == 0.0);
  BOOST_TEST(h.bucket_limit_size() == 1);
  BOOST_TEST(h.bucket_limit(0) == DBL_MAX);
  BOOST_TEST(h.bucket(0) == 0.0);
}

BOOST_AUTO_TEST_CASE(runs_of_empty_buckets_collapse_to_their_last_limit) {
  // 0 lands in upper_bound(limits, 0) = the bucket ending at 1e-12; the empty buckets before
  // it collapse to (0, 0) and those after it to (DBL_MAX, 0).
  af::summary::Histogram zero;
  zero.add(0.0);
  tensorflow::HistogramProto h;
  BOOST_REQUIRE(h.ParseFromString(zero.encode()));
  BOOST_REQUIRE(h.bucket_limit_size() == 3);
  BOOST_TEST(h.bucket_limit(0) == 0.0);
  BOOST_TEST(h.bucket(0) == 0.0);
  BOOST_TEST(h.bucket_limit(1) == 1e-12);
  BOOST_TEST(h.bucket(1) == 1.0);
  BOOST_TEST(h.bucket_limit(2) == DBL_MAX);
  BOOST_TEST(h.bucket(2) == 0.0);

  // Two values in one bucket and one far away: five pairs, counts in order.
  af::summary::Histogram three;
  for (double x : {1.0, 1.0, -3.0}) three.add(x);
  BOOST_REQUIRE(h.ParseFromString(three.encode()));
  BOOST_TEST(h.min() == -3.0);
  BOOST_TEST(h.max() == 1.0);
  BOOST_TEST(h.num() == 3.0);
  BOOST_TEST(h.sum() == -1.0);
  BOOST_TEST(h.sum_squares() == 11.0);
  std::vector<double> counts(h.bucket().begin(), h.bucket().end());
  BOOST_TEST(counts == (std::vector<double>{0, 1, 0, 2, 0}), boost::test_tools::per_element());
  // Each non-empty bucket's limit is the first limit above its values.
  const auto& limits = af::summary::default_bucket_limits();
  BOOST_TEST(h.bucket_limit(1) > -3.0);
  BOOST_TEST(h.bucket_limit(3) > 1.0);
  BOOST_TEST(h.bucket_limit(3) / 1.1 <= 1.0 + 1e-9);
  BOOST_TEST(h.bucket_limit(4) == limits.back());
}

BOOST_AUTO_TEST_CASE(a_scalar_summary_is_one_simple_value) {
  const auto s = parse(af::summary::scalar("loss", 0.25f));
  BOOST_REQUIRE(s.value_size() == 1);
  BOOST_TEST(s.value(0).tag() == "loss");
  BOOST_TEST(s.value(0).simple_value() == 0.25f);
  BOOST_TEST(!s.value(0).has_metadata());
}

BOOST_AUTO_TEST_CASE(a_histogram_summary_refuses_nan_and_infinity_naming_the_op) {
  const std::vector<double> ok = {0.5, 1.5, 2.5};
  auto good = af::summary::histogram("w", ok);
  BOOST_REQUIRE(good.ok());
  const auto s = parse(good.value());
  BOOST_TEST(s.value(0).tag() == "w");
  BOOST_TEST(s.value(0).histo().num() == 3.0);

  const std::vector<double> nan = {1.0, std::nan("")};
  auto bad = af::summary::histogram("w", nan, "fc1/w_1");
  BOOST_TEST(bad.status().code() == af::Code::invalid_argument);
  BOOST_TEST(bad.status().message() == "Nan in summary histogram for: fc1/w_1");
  const std::vector<double> inf = {std::numeric_limits<double>::infinity()};
  auto worse = af::summary::histogram("w", inf);
  BOOST_TEST(worse.status().message() == "Infinity in summary histogram for: w");
}

BOOST_AUTO_TEST_CASE(text_and_image_summaries_carry_their_payloads) {
  const auto t = parse(af::summary::text("notes", "hello"));
  BOOST_TEST(t.value(0).metadata().plugin_data().plugin_name() == "text");
  BOOST_TEST(t.value(0).tensor().dtype() == tensorflow::DT_STRING);
  BOOST_TEST(t.value(0).tensor().tensor_shape().dim_size() == 0);
  BOOST_TEST(t.value(0).tensor().string_val(0) == "hello");
  const auto i = parse(af::summary::image("digit", 28, 28, 1, std::string("\x89PNG", 4)));
  BOOST_TEST(i.value(0).image().height() == 28);
  BOOST_TEST(i.value(0).image().colorspace() == 1);
  BOOST_TEST(i.value(0).image().encoded_image_string() == std::string("\x89PNG", 4));
}

BOOST_AUTO_TEST_CASE(merge_keeps_the_values_in_order_and_refuses_a_tag_twice) {
  const std::vector<std::string> parts = {
      af::summary::scalar("a", 1), af::summary::scalar("b", 2),
      af::summary::histogram("c", std::vector<double>{1.0}).value()};
  auto merged = af::summary::merge(parts);
  BOOST_REQUIRE(merged.ok());
  const auto s = parse(merged.value());
  BOOST_REQUIRE(s.value_size() == 3);
  BOOST_TEST(s.value(0).tag() == "a");
  BOOST_TEST(s.value(1).simple_value() == 2.0f);
  BOOST_TEST(s.value(2).has_histo());

  const std::vector<std::string> twice = {af::summary::scalar("a", 1), af::summary::scalar("a", 2)};
  auto dup = af::summary::merge(twice);
  BOOST_TEST(dup.status().code() == af::Code::invalid_argument);
  BOOST_TEST(dup.status().message() == "Duplicate tag a found in summary inputs ");

  const std::vector<std::string> garbage = {std::string("\xff\xff\xff", 3)};
  BOOST_TEST(af::summary::merge(garbage).status().message() ==
             "Could not parse one of the summary inputs");
}

BOOST_AUTO_TEST_SUITE_END()
