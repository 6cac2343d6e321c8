// tf.compat.v1.summary's ops in graphs: names and tags as TensorFlow gives them
// (summary_op_util.summary_scope), the kernels' outputs and errors (summary_op.cc), the
// "summaries" collection and merge_all, and a FileWriter fed by a session.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "actorflow/tf/summary.pb.h"
#include "temp_dir.hpp"

namespace {

tensorflow::Summary parse(const af::Tensor& t) {
  tensorflow::Summary s;
  BOOST_REQUIRE(t.dtype() == af::DType::string);
  BOOST_REQUIRE(s.ParseFromString(t.data<std::string>()[0]));
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(summary_ops_test)

BOOST_AUTO_TEST_CASE(names_and_tags_follow_tensorflows_summary_scope,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output loss = g.constant(af::Tensor(0.5f), "loss_value");
  af::Output s1 = af::summary::scalar("loss", loss);
  af::Output s2 = af::summary::scalar("loss", loss);  // uniquified: loss_1
  af::Output s3;
  {
    auto scope = g.name_scope("fc1");
    s3 = af::summary::scalar("w mean", loss);  // the space becomes '_'
  }
  BOOST_TEST(s1.node()->name() == "loss");
  BOOST_TEST(s1.node()->type() == "ScalarSummary");
  BOOST_TEST(g.contains("loss/tags"));
  BOOST_TEST(s2.node()->name() == "loss_1");
  BOOST_TEST(s3.node()->name() == "fc1/w_mean");
  af::Session sess(g);
  auto v = sess.run({s1, s2, s3});
  BOOST_TEST(parse(v[0]).value(0).tag() == "loss");
  BOOST_TEST(parse(v[0]).value(0).simple_value() == 0.5f);
  BOOST_TEST(parse(v[1]).value(0).tag() == "loss_1");
  BOOST_TEST(parse(v[2]).value(0).tag() == "fc1/w_mean");
}

BOOST_AUTO_TEST_CASE(histograms_merge_all_and_their_errors, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape{-1}, "x");
  af::summary::histogram("x_hist", x);
  af::summary::scalar("x_first", af::reduce_sum(x));
  af::summary::scalar("not_collected", af::reduce_sum(x), std::vector<std::string>{});
  auto all = af::summary::merge_all(g);
  BOOST_REQUIRE(all.has_value());
  BOOST_TEST(all->node()->name() == "Merge/MergeSummary");
  af::Session sess(g);
  auto v = sess.run(std::vector<af::Output>{*all},
                    {{x, af::Tensor::from_vector(std::vector<float>{1, 2, 3})}});
  const auto s = parse(v[0]);
  BOOST_REQUIRE(s.value_size() == 2);
  BOOST_TEST(s.value(0).tag() == "x_hist");
  BOOST_TEST(s.value(0).histo().num() == 3.0);
  BOOST_TEST(s.value(0).histo().max() == 3.0);
  BOOST_TEST(s.value(1).simple_value() == 6.0f);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  try {
    sess.run({*all}, {{x, af::Tensor::from_vector(std::vector<float>{1, nan})}});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(
        std::string(e.what()).find("Nan in summary histogram for: x_hist") != std::string::npos,
        e.what());
  }

  af::Graph empty;
  BOOST_TEST(!af::summary::merge_all(empty).has_value());
}

BOOST_AUTO_TEST_CASE(scalar_summary_checks_tags_against_values, *boost::unit_test::timeout(30)) {
  af::summary::register_summary_ops();
  af::Graph g;
  af::Output tags = g.constant(af::Tensor::from_vector(std::vector<std::string>{"a", "b"}), "tags");
  af::Output values = g.constant(af::Tensor::from_vector(std::vector<float>{1, 2, 3}), "values");
  af::Output s =
      g.create_op("ScalarSummary", {tags, values}, {{"T", af::DType::float32}}, "bad").output(0);
  af::Session sess(g);
  try {
    sess.run({s});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("tags and values are not the same shape: [2] != [3]") !=
                   std::string::npos,
               e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_session_feeds_a_file_writer, *boost::unit_test::timeout(30)) {
  af::test::TempDir dir("af_summary_ops");
  af::Graph g;
  af::Variable step_var = g.variable(0.0f, {.name = "v"});
  af::summary::scalar("v", step_var.value());
  auto all = af::summary::merge_all(g).value();
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  std::string path;
  {
    af::summary::FileWriter writer(dir.path.string());
    path = writer.path();
    for (int step = 0; step < 3; ++step)
      writer.add_summary(sess.run(all).data<std::string>()[0], step);
  }
  const auto events = af::summary::read_events(path);
  BOOST_REQUIRE(events.size() == 4u);
  BOOST_TEST(events[3].step == 2);
  // The variable took the name "v", so the summary's scope (and tag) is "v_1", as TensorFlow
  // tags `tf.summary.scalar("fc1/w", w)` with "fc1/w_1".
  BOOST_TEST(events[3].summary.at(0).tag == "v_1");
}

BOOST_AUTO_TEST_CASE(audio_and_tensor_summaries_as_tensorflows_v1_api,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output clips = g.placeholder(af::DType::float32, af::PartialShape{-1, 3}, "clips");
  af::Output a = af::summary::audio("snd", clips, 8000.0f, 1);
  af::Output t =
      af::summary::tensor_summary("shape", af::shape(clips), "the batch's shape", "Shape");
  BOOST_TEST(a.node()->name() == "snd");
  BOOST_TEST(a.node()->type() == "AudioSummaryV2");
  BOOST_TEST(g.contains("snd/tag"));
  BOOST_TEST(g.contains("snd/sample_rate"));
  BOOST_TEST(t.node()->type() == "TensorSummaryV2");
  BOOST_TEST(af::summary::merge_all(g).has_value());
  af::Session sess(g);
  auto v = sess.run(
      {a, t}, {{clips, af::Tensor::from_vector<float>({0, 0.5f, -1, 1, 0, 0}, af::Shape{2, 3})}});
  const auto audio = parse(v[0]);
  BOOST_REQUIRE_EQUAL(audio.value_size(), 1);  // max_outputs 1 of 2 clips
  BOOST_TEST(audio.value(0).tag() == "snd/audio");
  BOOST_TEST(audio.value(0).audio().sample_rate() == 8000.0f);
  BOOST_TEST(audio.value(0).audio().length_frames() == 3);
  BOOST_TEST(audio.value(0).audio().encoded_audio_string().size() == 44u + 6u);
  const auto tensor = parse(v[1]);
  BOOST_TEST(tensor.value(0).tag() == "shape_1");  // "Shape" took it: names count case-blind
  BOOST_TEST(tensor.value(0).metadata().display_name() == "Shape");
  BOOST_TEST(tensor.value(0).metadata().summary_description() == "the batch's shape");
  BOOST_TEST(tensor.value(0).tensor().tensor_content().size() == 8u);  // int32 [2, 3]
  af::Output flat = af::summary::audio("flat", g.constant(af::Tensor::from_vector<float>({0, 1})),
                                       8000.0f, 3, std::vector<std::string>{});
  try {
    sess.run({flat});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(
        std::string(e.what()).find("Tensor must be 3-D or 2-D, got: [2]") != std::string::npos,
        e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()
