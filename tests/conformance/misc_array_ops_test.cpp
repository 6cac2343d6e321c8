// Bucketize, HistogramFixedWidth, CumulativeLogsumexp, BroadcastArgs, EnsureShape, Snapshot,
// the FakeQuant family, Print and PrintV2 through their builders: values, TensorFlow 2.21's
// error messages (the strings below are what TensorFlow gave), the gradients' graphs, and
// what Print and PrintV2 write (std::cerr and std::cout redirected, the log sink captured).
// (The fixture comparison of every case is tests/data/tf_ops, built by
// scripts/peers/op_cases_misc_array.py.)
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/misc_array_ops.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "log_capture.hpp"
#include "op_test_util.hpp"
#include "temp_dir.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::refuses;
using af::test::vec;

// Swaps `stream`'s buffer for a string's while alive: what a kernel writes to std::cerr or
// std::cout.
class StreamCapture {
 public:
  explicit StreamCapture(std::ostream& stream) : stream_(stream) {
    previous_ = stream_.rdbuf(captured_.rdbuf());
  }
  ~StreamCapture() { stream_.rdbuf(previous_); }
  std::string text() const { return captured_.str(); }

 private:
  std::ostream& stream_;
  std::ostringstream captured_;
  std::streambuf* previous_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(misc_array_ops_test)

// The index of the first boundary above each value; values on a boundary go above it, NaN
// past the last; unsorted boundaries fail the kernel.
BOOST_AUTO_TEST_CASE(bucketize_counts_boundaries_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Output x = g.constant(vec<float>({-2.0f, -1.0f, 0.0f, 0.25f, 3.0f, 4.0f, nan}), "x");
  const Output y = af::bucketize(x, {-1.0f, 0.0f, 0.5f, 3.0f});
  BOOST_TEST(y.name() == "Bucketize:0");
  BOOST_TEST(y.dtype() == DType::int32);
  const Output ints = af::bucketize(g.constant(vec<std::int64_t>({9, 10, 11})), {10.0f});
  const Output unsorted = af::bucketize(x, {2.0f, 1.0f}, "unsorted");
  af::Session s(g);
  BOOST_TEST(s.run(y).to_vector<std::int32_t>() == (std::vector<std::int32_t>{0, 1, 2, 2, 4, 4, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(ints).to_vector<std::int32_t>() == (std::vector<std::int32_t>{0, 1, 1}),
             boost::test_tools::per_element());
  refuses([&] { s.run(unsorted); }, "Expected sorted boundaries");
}

// Bins of (v - lo) / step clipped to the range; TensorFlow's checks when run and built.
BOOST_AUTO_TEST_CASE(histogram_fixed_width_checks_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const float inf = std::numeric_limits<float>::infinity();
  const Output values = g.constant(vec<float>({-1.0f, 0.0f, 1.5f, 2.0f, 5.0f, 15.0f, inf}), "v");
  const Output range = g.placeholder(DType::float32, af::PartialShape{-1}, "range");
  const Output h = af::histogram_fixed_width(values, range, 5);
  BOOST_TEST(h.name() == "histogram_fixed_width:0");
  BOOST_TEST(h.shape() == af::PartialShape{5});
  const Output nan_values =
      g.constant(vec<float>({1.0f, std::numeric_limits<float>::quiet_NaN()}), "nan_v");
  const Output h_nan = af::histogram_fixed_width(nan_values, range, 3, DType::int64);
  af::Session s(g);
  BOOST_TEST(s.run(h, {{range, vec<float>({0.0f, 5.0f})}}).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{2, 1, 1, 0, 3}),
             boost::test_tools::per_element());
  refuses(
      [&] {
        s.run(h, {{range, vec<float>({2.0f, 1.0f})}});
      },
      "value_range should satisfy value_range[0] < value_range[1], but got '[2, 1]'");
  refuses(
      [&] {
        s.run(h, {{range, vec<float>({2.0f, 1.0f, 3.0f})}});
      },
      "value_range should be a vector of 2 elements.");
  refuses(
      [&] {
        s.run(h_nan, {{range, vec<float>({0.0f, 1.0f})}});
      },
      "Histogram values must not contain NaN");
  refuses(
      [&] {
        af::histogram_fixed_width(values, g.constant(vec<float>({0, 1})), 0);
      },
      "Requires nbins > 0: 0");
  refuses(
      [&] {
        af::histogram_fixed_width(values, g.constant(vec<float>({0, 1, 2})), 3);
      },
      "Dimension must be 2 but is 3");
}

// log(cumsum(exp(x))) as TensorFlow's scan: -inf first when exclusive, a NaN after a number
// read as that number again, inf + inf giving NaN; the axis checked when run.
BOOST_AUTO_TEST_CASE(cumulative_logsumexp_scans_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Output x = g.constant(vec<float>({0.0f, 0.0f, std::log(2.0f)}), "x");
  const Output y = af::cumulative_logsumexp(x);
  BOOST_TEST(y.name() == "CumulativeLogsumexp:0");
  const Output ex = af::cumulative_logsumexp(x, 0, true, true, "ex");
  const Output edge =
      af::cumulative_logsumexp(g.constant(vec<float>({1.0f, nan, -inf, inf, inf}), "edge"));
  const Output bad_axis = af::cumulative_logsumexp(x, 1, false, false, "bad_axis");
  af::Session s(g);
  const auto v = s.run(y).to_vector<float>();
  BOOST_TEST(v[0] == 0.0f);
  BOOST_TEST(v[1] == std::log(2.0f), boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(v[2] == std::log(4.0f), boost::test_tools::tolerance(1e-6f));
  const auto e = s.run(ex).to_vector<float>();
  BOOST_TEST(e[2] == -inf);
  BOOST_TEST(e[0] == std::log(3.0f), boost::test_tools::tolerance(1e-6f));
  const auto d = s.run(edge).to_vector<float>();
  // lse(1, NaN): std::min and std::max both pick 1, so 1 + log(2).
  BOOST_TEST(d[1] == 1.0f + std::log(2.0f), boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(d[2] == d[1]);
  BOOST_TEST(d[3] == inf);
  BOOST_TEST(std::isnan(d[4]));
  refuses([&] { s.run(bad_axis); }, "ScanOp: Expected scan axis in the range [-1, 1), but got 1");
}

// _CumulativeLogsumexpGrad's graph: the gradient's positive and negative parts (SelectV2 on
// Greater / Less), each scanned in reverse, then Exp; none for the axis.
BOOST_AUTO_TEST_CASE(cumulative_logsumexp_gradient_is_tensorflows, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({0.5f, -1.0f, 2.0f}), "x");
  const Output y = af::cumulative_logsumexp(x);
  const Output w = g.constant(vec<float>({1.0f, -2.0f, 0.5f}), "w");
  const Output dx = af::gradients({af::mul(y, w)}, {x})[0];
  BOOST_REQUIRE(dx.valid());
  BOOST_TEST(dx.op().type() == "Sub");
  int scans = 0, selects = 0;
  for (af::Node* n : g.nodes()) {
    if (n->type() == "CumulativeLogsumexp" && n->name() != "CumulativeLogsumexp") {
      ++scans;
      BOOST_TEST(*n->def().attr<bool>("reverse"));
    }
    if (n->type() == "SelectV2") ++selects;
  }
  BOOST_TEST(scans == 2);
  BOOST_TEST(selects == 2);
  // d/dx_j sum_i w_i lse(x_0..x_i) = sum_{i >= j} w_i softmax(x_0..x_i)_j.
  af::Session s(g);
  const auto got = s.run(dx).to_vector<float>();
  const std::vector<double> xs{0.5, -1.0, 2.0}, ws{1.0, -2.0, 0.5};
  for (std::size_t j = 0; j < 3; ++j) {
    double want = 0.0;
    for (std::size_t i = j; i < 3; ++i) {
      double z = 0.0;
      for (std::size_t k = 0; k <= i; ++k) z += std::exp(xs[k]);
      want += ws[i] * std::exp(xs[j]) / z;
    }
    BOOST_TEST(got[j] == want, boost::test_tools::tolerance(1e-5));
  }
}

// BCast of two shape vectors; incompatible dimensions fail when run, non-vectors when built.
BOOST_AUTO_TEST_CASE(broadcast_dynamic_shape_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output r = af::broadcast_dynamic_shape(g.constant(vec<std::int32_t>({2, 1, 3})),
                                               g.constant(vec<std::int32_t>({4, 1})));
  BOOST_TEST(r.name() == "BroadcastArgs:0");
  BOOST_TEST(r.shape() == af::PartialShape{3});
  const Output bad = af::broadcast_dynamic_shape(g.constant(vec<std::int64_t>({2, 3})),
                                                 g.constant(vec<std::int64_t>({4, 3})), "bad");
  af::Session s(g);
  BOOST_TEST(s.run(r).to_vector<std::int32_t>() == (std::vector<std::int32_t>{2, 4, 3}),
             boost::test_tools::per_element());
  refuses([&] { s.run(bad); }, "Incompatible shapes: [2,3] vs. [4,3]");
  refuses(
      [&] {
        af::broadcast_dynamic_shape(g.constant(vec<std::int32_t>({2, 3}, Shape{1, 2})),
                                    g.constant(vec<std::int32_t>({4})));
      },
      "Shape must be rank 1 but is rank 2");
}

// The static shape merged when built, TensorFlow's message when the fed value disagrees; the
// gradient passes through. Snapshot copies.
BOOST_AUTO_TEST_CASE(ensure_shape_checks_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output p = g.placeholder(DType::float32, af::PartialShape::unknown(), "p");
  const Output y = af::ensure_shape(p, af::PartialShape{3, -1});
  BOOST_TEST(y.shape() == (af::PartialShape{3, -1}));
  const Output any = af::ensure_shape(p, af::PartialShape::unknown(), "any");
  refuses(
      [&] {
        af::ensure_shape(g.constant(vec<float>({1, 2}, Shape{1, 2})), {3, -1});
      },
      "Dimension 0 in both shapes must be equal, but are 3 and 1. Shapes are [3,?] and "
      "[1,2].");
  refuses(
      [&] {
        af::ensure_shape(g.constant(vec<float>({1, 2}, Shape{1, 2})), {2});
      },
      "Shape must be rank 1 but is rank 2");
  refuses(
      [&] {
        af::ensure_shape(g.constant(vec<float>({1, 2}, Shape{1, 2})), af::PartialShape::unknown());
      },
      "Shape must be rank -1 but is rank 2");
  const Output x = g.constant(vec<float>({1, 2, 3}), "x");
  const Output dx = af::gradients({af::ensure_shape(x, {3}, "e")}, {x})[0];
  const Output snap = af::snapshot(x);
  af::Session s(g);
  const Tensor ok = vec<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  BOOST_TEST(s.run(y, {{p, ok}}).shape() == (Shape{3, 2}));
  BOOST_TEST(s.run(any, {{p, ok}}).shape() == (Shape{3, 2}));
  // TensorFlow names the input as its NodeDef does ("p"; a fed one "_arg_p_0_0").
  refuses(
      [&] {
        s.run(y, {{p, vec<float>({1, 2, 3, 4}, Shape{2, 2})}});
      },
      " [2,2] is not compatible with expected shape [3,?].");
  refuses(
      [&] {
        s.run(y, {{p, vec<float>({1, 2}, Shape{2})}});
      },
      "Shape of tensor p [2] is not compatible with expected shape [3,?].");
  BOOST_TEST(s.run(dx).to_vector<float>() == (std::vector<float>{1, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(snap).to_vector<float>() == (std::vector<float>{1, 2, 3}),
             boost::test_tools::per_element());
}

// The nudged range (0 exactly representable) and TensorFlow's refusals.
BOOST_AUTO_TEST_CASE(fake_quant_nudges_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({0.0f, 1.0f, 2.0f, 3.5f, 5.0f}), "x");
  const Output args = af::fake_quant_with_min_max_args(x, 1.0f, 3.0f);
  const Output zero = af::fake_quant_with_min_max_vars(x, g.constant(Tensor(0.0f)),
                                                       g.constant(Tensor(0.0f)), 8, false, "zero");
  const Output bad_range = af::fake_quant_with_min_max_args(x, 2.0f, 1.0f, 8, false, "bad_range");
  const Output bad_bits = af::fake_quant_with_min_max_args(x, -1.0f, 1.0f, 17, false, "bad_bits");
  const Output min_v = g.placeholder(DType::float32, af::PartialShape::unknown(), "min_v");
  const Output vars_rank =
      af::fake_quant_with_min_max_vars(x, min_v, g.constant(Tensor(1.0f)), 8, false, "vars_rank");
  const Output mins = g.placeholder(DType::float32, af::PartialShape::unknown(), "mins");
  const Output per_channel = af::fake_quant_with_min_max_vars_per_channel(
      g.constant(vec<float>({1, 2}, Shape{1, 2}), "pc_x"), mins,
      g.constant(vec<float>({1, 1}), "maxs"));
  const af::FakeQuantGradients dvars =
      af::fake_quant_with_min_max_vars_gradient(g.constant(vec<float>({1, 1, 1, 1, 1})), x,
                                                g.constant(Tensor(0.5f)), g.constant(Tensor(2.0f)));
  const Output args_grad = af::fake_quant_with_min_max_args_gradient(
      g.constant(vec<float>({1, 2})), g.constant(vec<float>({1})), -6.0f, 6.0f, 8, false, "ag");
  af::Session s(g);
  const auto v = s.run(args).to_vector<float>();
  BOOST_TEST(v[0] == 0.0f);
  BOOST_TEST(v[1] == 1.0039216f, boost::test_tools::tolerance(1e-7f));
  BOOST_TEST(v[2] == 2.0f);
  BOOST_TEST(v[4] == 2.0f);
  BOOST_TEST(s.run(zero).to_vector<float>() == (std::vector<float>(5, 0.0f)),
             boost::test_tools::per_element());
  const auto d = s.run({dvars.backprops_wrt_input, dvars.backprop_wrt_min, dvars.backprop_wrt_max});
  // [0.5, 2] nudges to [0, 1.5] (the zero point clamps to 0): 2, 3.5 and 5 are above it.
  BOOST_TEST(d[0].to_vector<float>() == (std::vector<float>{1, 1, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(d[1].scalar<float>() == 0.0f);
  BOOST_TEST(d[2].scalar<float>() == 3.0f);
  refuses([&] { s.run(bad_range); }, "min has to be smaller than max, was: 2 >= 1");
  refuses([&] { s.run(bad_bits); }, "num_bits must be between 2 and 16, inclusive");
  refuses(
      [&] {
        s.run(vars_rank, {{min_v, vec<float>({0})}});
      },
      "`min` must be rank 0 but is rank 1");
  refuses(
      [&] {
        s.run(per_channel, {{mins, vec<float>({0, 0, 0})}});
      },
      "min has incorrect size, expected 2 was 3");
  refuses([&] { s.run(args_grad); },
          "Inputs to operation ag of type FakeQuantWithMinMaxArgsGradient must have the same "
          "size and shape.  Input 0: [2] != input 1: [1]");
  refuses(
      [&] {
        af::fake_quant_with_min_max_vars_per_channel(g.constant(vec<float>({1, 2}, Shape{1, 2})),
                                                     g.constant(vec<float>({0, 0, 0})),
                                                     g.constant(vec<float>({1, 1, 1})));
      },
      "Dimensions must be equal, but are 2 and 3");
}

// The gradients go through the *Gradient ops with the forward op's attrs.
BOOST_AUTO_TEST_CASE(fake_quant_gradients_use_gradient_ops, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({-7.0f, 0.3f, 7.0f}), "x");
  const Output mn = g.constant(Tensor(-6.0f), "mn");
  const Output mx = g.constant(Tensor(6.0f), "mx");
  const Output a = af::fake_quant_with_min_max_args(x, -6.0f, 6.0f, 4, true);
  const Output v = af::fake_quant_with_min_max_vars(x, mn, mx);
  const auto da = af::gradients({a}, {x});
  const auto dv = af::gradients({v}, {x, mn, mx});
  BOOST_TEST(da[0].op().type() == "FakeQuantWithMinMaxArgsGradient");
  BOOST_TEST(*da[0].op().node_def().attr<std::int64_t>("num_bits") == 4);
  BOOST_TEST(*da[0].op().node_def().attr<bool>("narrow_range"));
  BOOST_TEST(dv[0].op().type() == "FakeQuantWithMinMaxVarsGradient");
  af::Session s(g);
  BOOST_TEST(s.run(da[0]).to_vector<float>() == (std::vector<float>{0, 1, 0}),
             boost::test_tools::per_element());
  const auto r = s.run(dv);
  BOOST_TEST(r[1].scalar<float>() == 1.0f);
  BOOST_TEST(r[2].scalar<float>() == 1.0f);
}

// Print writes message + "[summary]" per data input to std::cerr, the legacy summaries of
// Tensor::SummarizeValue, on the first `first_n` runs only; its output is its input.
BOOST_AUTO_TEST_CASE(print_writes_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({1.5f, 2.0f}), "x");
  std::vector<std::int32_t> iota(24);
  for (std::size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<std::int32_t>(i);
  const Output ten = g.constant(vec<std::int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), "ten");
  const Output cube = g.constant(vec<std::int32_t>(iota, Shape{2, 3, 4}), "cube");
  const Output strings = g.constant(vec<std::string>({"a\nb", "c\"d"}), "strings");
  const Output floats = g.constant(vec<float>({0.1f, 1.0f / 3, 1e10f}), "floats");
  const Output p = af::print(x,
                             {ten, cube, g.constant(Tensor(std::int32_t{7})), strings, floats,
                              g.constant(Tensor(DType::float32, Shape{2, 0}))},
                             "msg: ", 2, 3);
  BOOST_TEST(p.name() == "Print:0");
  const Output s1 = af::print(x, {cube}, "s1 ", -1, 1, "s1");
  const Output s5 = af::print(x, {cube}, "s5 ", -1, 5, "s5");
  const Output all = af::print(x, {cube}, "all ", -1, -1, "all");
  const Output none = af::print(x, {}, "nothing", -1, 3, "none");
  af::Session s(g);
  std::string written;
  {
    StreamCapture err(std::cerr);
    for (int i = 0; i < 3; ++i)
      BOOST_TEST(s.run(p).to_vector<float>() == (std::vector<float>{1.5f, 2.0f}),
                 boost::test_tools::per_element());
    written = err.text();
  }
  const std::string line =
      "msg: [0 1 2...][[[0 1 2...]]...][7][a\\nb c\\\"d][0.1 0.333333343 1e+10][]\n";
  BOOST_TEST(written == line + line);
  {
    StreamCapture err(std::cerr);
    for (const Output& one : {s1, s5, all, none}) s.run(one);  // one writer at a time
    written = err.text();
  }
  for (const char* want :
       {"s1 [[[0...]]...]\n", "s5 [[[0 1 2 3][4...]]...]\n",
        "all [[[0 1 2 3][4 5 6 7][8 9 10 11]][[12 13 14 15][16 17 18 19][20 21 22 23]]]\n",
        "nothing\n"})
    BOOST_TEST(written.find(want) != std::string::npos, written);
}

// Print's gradient reaches input 0 only.
BOOST_AUTO_TEST_CASE(print_gradient_passes_through, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({1.0f, 2.0f}), "x");
  const Output d = g.constant(vec<float>({3.0f}), "d");
  const auto grads = af::gradients({af::print(x, {d, x}, "")}, {x, d});
  BOOST_REQUIRE(grads[0].valid());
  BOOST_TEST(!grads[1].valid());
  af::Session s(g);
  BOOST_TEST(s.run(grads[0]).to_vector<float>() == (std::vector<float>{1.0f, 1.0f}),
             boost::test_tools::per_element());
}

// PrintV2 writes the formatted string and `end` to the stream its attr names: std::cout,
// the log sink, or a file; an unknown stream fails the kernel.
BOOST_AUTO_TEST_CASE(print_v2_writes_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output text = af::string_format("v2 {}", g.constant(vec<std::int32_t>({1, 2})), "{}");
  const af::Operation out = af::print_v2(text, "stdout", "|END|\n");
  const af::Operation info = af::print_v2(g.constant(Tensor("to info")), "log(info)", "");
  af::test::TempDir dir;
  const std::string path = dir.file("printed.txt").string();
  const af::Operation file = af::print_v2(g.constant(Tensor("line")), "file://" + path);
  const af::Operation bogus = af::print_v2(g.constant(Tensor("x")), "bogus", "\n", "bogus");
  refuses([&] { af::print_v2(g.constant(vec<std::string>({"a"}))); },
          "input must be a scalar, but has rank: 1");
  af::Session s(g);
  {
    StreamCapture cout(std::cout);
    s.run(out);
    BOOST_TEST(cout.text() == "v2 [1 2]|END|\n");
  }
  {
    af::test::LogCapture log;
    s.run(info);
    const auto lines = log.take();
    BOOST_TEST((std::find(lines.begin(), lines.end(), "to info") != lines.end()));
  }
  s.run(file);
  s.run(file);
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  BOOST_TEST(content.str() == "line\nline\n");
  refuses([&] { s.run(bogus); },
          "Unknown output stream: bogus, Valid streams are: stdout stderr log(info) "
          "log(warning) log(error)");
}

// tf.timestamp: a float64 scalar of the seconds since the epoch, new at each run.
BOOST_AUTO_TEST_CASE(timestamp_gives_the_time_of_each_run, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output t = af::timestamp(g);
  BOOST_TEST(t.node()->name() == "Timestamp");
  BOOST_TEST(t.dtype() == DType::float64);
  BOOST_TEST(t.shape().rank() == 0);
  BOOST_TEST(af::timestamp(g).node()->name() == "Timestamp_1");
  af::Session sess(g);
  const auto now = [] {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const double before = now();
  const double first = sess.run(t).scalar<double>();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double second = sess.run(t).scalar<double>();
  const double after = now();
  BOOST_TEST(before - 0.001 <= first);
  BOOST_TEST(first + 0.004 < second);
  BOOST_TEST(second <= after + 0.001);
}

BOOST_AUTO_TEST_SUITE_END()
