// TensorFlow 2's summary API from a graph TensorFlow built (tests/data/tf_summary_v2,
// scripts/peers/make_summary_v2_fixtures.py): tf.summary.create_file_writer, TensorBoard's v2
// scalar, text, histogram, image and audio summaries, write_raw_pb of v1 summaries
// (ScalarSummary, AudioSummaryV2, TensorSummary), the legacy Write*Summary ops, ImportEvent and
// WriteGraphSummary. actorflow imports the GraphDef, runs it as TensorFlow did and must write
// the events TensorFlow wrote: the same steps, tags, metadata and tensors (wall times aside, and
// PNGs compared by their pixels).
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "actorflow/tf/event.pb.h"
#include "actorflow/tf/summary.pb.h"
#include "actorflow/tf/tensor.pb.h"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

const std::filesystem::path fixture_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_summary_v2";

nlohmann::json reference() {
  std::ifstream in(fixture_dir / "reference.json");
  return nlohmann::json::parse(in);
}

std::vector<tensorflow::Event> raw_events(const std::string& path) {
  af::summary::EventFileReader reader(path);
  std::vector<tensorflow::Event> out;
  while (auto record = reader.next_record()) {
    out.emplace_back();
    BOOST_REQUIRE(out.back().ParseFromString(*record));
  }
  return out;
}

// The feeds of one of the fixture's runs: its step and its x, float [rows, 3].
af::FeedDict feeds_of(const nlohmann::json& run, const af::Output& step, const af::Output& x) {
  std::vector<float> values;
  for (const auto& row : run["x"])
    for (const auto& v : row) values.push_back(v.get<float>());
  const auto rows = static_cast<std::int64_t>(run["x"].size());
  return {{step, af::Tensor(run["step"].get<std::int64_t>())},
          {x, af::Tensor::from_vector(values, af::Shape{rows, 3})}};
}

// What an event is about: its step and first tag ("graph_def" for a graph).
std::string key_of(const tensorflow::Event& e) {
  std::string what = e.has_summary() && e.summary().value_size() > 0 ? e.summary().value(0).tag()
                     : e.graph_def().empty()                         ? "?"
                                                                     : "graph_def";
  return std::to_string(e.step()) + " " + what;
}

// The pixels of a PNG, decoded by actorflow's DecodePng.
std::vector<std::uint8_t> pixels(const std::string& png) {
  af::Graph g;
  af::Output decoded = af::image::decode_png(g.constant(af::Tensor(png)));
  af::Session sess(g);
  return sess.run(decoded).to_vector<std::uint8_t>();
}

// A float64 tensor's values (TensorBoard's histogram buckets).
std::vector<double> doubles(const tensorflow::TensorProto& t) {
  std::vector<double> v(t.tensor_content().size() / sizeof(double));
  std::memcpy(v.data(), t.tensor_content().data(), v.size() * sizeof(double));
  return v;
}

void compare_values(const std::string& key, const tensorflow::Summary::Value& ours,
                    const tensorflow::Summary::Value& theirs) {
  BOOST_TEST_CONTEXT(key << " value " << theirs.tag()) {
    BOOST_TEST(ours.tag() == theirs.tag());
    BOOST_TEST(ours.node_name() == theirs.node_name());
    BOOST_TEST(ours.metadata().SerializeAsString() == theirs.metadata().SerializeAsString());
    BOOST_REQUIRE(ours.value_case() == theirs.value_case());
    if (theirs.has_image()) {
      BOOST_TEST(ours.image().height() == theirs.image().height());
      BOOST_TEST(ours.image().width() == theirs.image().width());
      BOOST_TEST(ours.image().colorspace() == theirs.image().colorspace());
      BOOST_TEST(pixels(ours.image().encoded_image_string()) ==
                     pixels(theirs.image().encoded_image_string()),
                 boost::test_tools::per_element());
    } else if (theirs.has_tensor() && theirs.metadata().plugin_data().plugin_name() == "images") {
      const auto &a = ours.tensor(), &b = theirs.tensor();
      BOOST_REQUIRE_EQUAL(a.string_val_size(), b.string_val_size());
      BOOST_TEST(a.tensor_shape().SerializeAsString() == b.tensor_shape().SerializeAsString());
      for (int i = 0; i < b.string_val_size(); ++i)
        if (i < 2)  // width and height, then the PNGs
          BOOST_TEST(a.string_val(i) == b.string_val(i));
        else
          BOOST_TEST(pixels(a.string_val(i)) == pixels(b.string_val(i)),
                     boost::test_tools::per_element());
    } else if (theirs.has_tensor() && theirs.tensor().dtype() == tensorflow::DT_DOUBLE) {
      const auto &a = ours.tensor(), &b = theirs.tensor();
      BOOST_TEST(a.tensor_shape().SerializeAsString() == b.tensor_shape().SerializeAsString());
      BOOST_TEST(doubles(a) == doubles(b), boost::test_tools::tolerance(1e-12)
                                               << boost::test_tools::per_element());
    } else if (theirs.has_tensor()) {
      BOOST_TEST(ours.tensor().SerializeAsString() == theirs.tensor().SerializeAsString());
    } else {
      // simple_value, histo and audio: byte for byte.
      tensorflow::Summary::Value a = ours, b = theirs;
      BOOST_TEST(a.SerializeAsString() == b.SerializeAsString());
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(summary_v2_conformance_test)

BOOST_AUTO_TEST_CASE(tensorflows_summary_graph_writes_tensorflows_events,
                     *boost::unit_test::timeout(120)) {
  const auto ref = reference();
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((fixture_dir / "graph.pb").string()), {.name = ""});
  af::test::TempDir logdir;
  af::Session sess(g);
  sess.run(g.operation(ref["init"].get<std::string>()),
           {{g.output("logdir"), af::Tensor(logdir.path.string())}});
  std::vector<af::Output> fetches;
  for (const auto& name : ref["summary_ops"]) fetches.push_back(g.output(name.get<std::string>()));
  std::vector<af::Operation> targets;
  for (const auto& name : ref["legacy_ops"])
    targets.push_back(g.operation(name.get<std::string>()));
  for (const auto& run : ref["runs"]) {
    auto done = sess.run(fetches, feeds_of(run, g.output("step"), g.output("x")), targets);
    // Each returns whether it wrote: false for the record_if(step % 2 == 0) one at step 1.
    std::vector<bool> recorded;
    for (const auto& d : done) recorded.push_back(d.data<bool>()[0]);
    BOOST_TEST(recorded == run["recorded"].get<std::vector<bool>>(),
               boost::test_tools::per_element());
  }
  sess.run(g.operation(ref["flush"].get<std::string>()));
  sess.run(g.operation(ref["close"].get<std::string>()));

  const auto files = af::summary::event_files(logdir.path.string());
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  const std::string name = std::filesystem::path(files[0]).filename().string();
  BOOST_TEST(
      std::regex_match(name, std::regex(R"(events\.out\.tfevents\.\d{10}\..+\.\d+\.\d+\.v2)")),
      name);

  // scripts/peers/make_summary_v2_fixtures.py --check DIR reads a copy with TensorBoard.
  if (const char* keep = std::getenv("ACTORFLOW_SUMMARY_V2_OUT")) {
    std::filesystem::create_directories(keep);
    std::filesystem::copy_file(files[0], std::filesystem::path(keep) / name,
                               std::filesystem::copy_options::overwrite_existing);
  }
  auto ours = raw_events(files[0]);
  auto theirs = raw_events((fixture_dir / ref["events_file"].get<std::string>()).string());
  BOOST_REQUIRE_EQUAL(ours.size(), theirs.size());
  BOOST_TEST(ours[0].file_version() == theirs[0].file_version());
  BOOST_TEST(ours[0].source_metadata().writer() == theirs[0].source_metadata().writer());
  // Within a run the writes are unordered (TensorFlow's too): compare by step and tag.
  auto by_key = [](const tensorflow::Event& a, const tensorflow::Event& b) {
    return key_of(a) < key_of(b);
  };
  std::sort(ours.begin() + 1, ours.end(), by_key);
  std::sort(theirs.begin() + 1, theirs.end(), by_key);
  for (std::size_t i = 1; i < theirs.size(); ++i) {
    const std::string key = key_of(theirs[i]);
    BOOST_TEST_CONTEXT("event " << key) {
      BOOST_REQUIRE_EQUAL(key_of(ours[i]), key);
      BOOST_TEST(ours[i].step() == theirs[i].step());
      BOOST_TEST(ours[i].graph_def() == theirs[i].graph_def());
      if (key.ends_with(" imported")) BOOST_TEST(ours[i].wall_time() == 12.5);  // as given
      BOOST_REQUIRE_EQUAL(ours[i].summary().value_size(), theirs[i].summary().value_size());
      for (int v = 0; v < theirs[i].summary().value_size(); ++v)
        compare_values(key, ours[i].summary().value(v), theirs[i].summary().value(v));
    }
  }
}

// EventFileReader decodes TensorFlow 2's tensor summaries: the scalar "loss" at step 1 is the
// mean of that run's x, the text a string scalar.
BOOST_AUTO_TEST_CASE(the_reader_decodes_tensorflows_tensor_summaries,
                     *boost::unit_test::timeout(60)) {
  const auto ref = reference();
  int found = 0;
  for (const auto& e :
       af::summary::read_events((fixture_dir / ref["events_file"].get<std::string>()).string()))
    for (const auto& v : e.summary) {
      if (e.step != 1) continue;
      if (v.tag == "loss") {
        BOOST_TEST(v.plugin_name == "scalars");
        BOOST_TEST(v.tensor.dtype() == af::DType::float32);
        BOOST_TEST(v.tensor.shape().is_scalar());
        BOOST_TEST(v.tensor.scalar<float>() == 4.0f / 6.0f, boost::test_tools::tolerance(1e-6f));
        ++found;
      } else if (v.tag == "note") {
        BOOST_TEST(v.tensor.scalar<std::string>() == "4.000000");  // tf.strings.as_string(sum)
        ++found;
      }
    }
  BOOST_TEST(found == 2);
}

// af::summary::v2::histogram builds TensorBoard's buckets here: the same [30, 3] tensors as
// TensorFlow's graph wrote for the fixture's runs, plus the cases of one repeated value and of
// no values.
BOOST_AUTO_TEST_CASE(histograms_built_here_bucket_as_tensorboards,
                     *boost::unit_test::timeout(120)) {
  const auto ref = reference();
  std::map<std::int64_t, tensorflow::TensorProto> want;
  for (const auto& e : raw_events((fixture_dir / ref["events_file"].get<std::string>()).string()))
    for (const auto& v : e.summary().value())
      if (v.tag() == "x") want[e.step()] = v.tensor();
  BOOST_REQUIRE_EQUAL(want.size(), 2u);

  af::test::TempDir logdir;
  af::Graph g;
  af::Output step = g.placeholder(af::DType::int64, af::PartialShape(af::Shape{}), "step");
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape{-1, 3}, "x");
  auto writer = af::summary::v2::create_file_writer(g, logdir.path.string());
  af::Output write = af::summary::v2::histogram(writer, "x", x, step);
  BOOST_TEST(g.operation("x_1/write_summary").type() == "WriteSummary");  // TensorFlow's scopes
  int in_buckets = 0;
  for (const af::Node* n : g.nodes())
    in_buckets += n->name().starts_with("x_1/write_summary/buckets/");
  BOOST_TEST(in_buckets > 10);
  af::Session sess(g);
  sess.run(writer.init);
  for (const auto& run : ref["runs"]) sess.run({write}, feeds_of(run, step, x));
  sess.run({write}, {{step, af::Tensor(std::int64_t{3})},
                     {x, af::Tensor::from_vector<float>({2, 2, 2}, af::Shape{1, 3})}});
  sess.run({write}, {{step, af::Tensor(std::int64_t{4})},
                     {x, af::Tensor(af::DType::float32, af::Shape{0, 3})}});
  sess.run(writer.flush());
  const auto files = af::summary::event_files(logdir.path.string());
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  int compared = 0;
  for (const auto& e : raw_events(files[0]))
    for (const auto& v : e.summary().value()) {
      BOOST_TEST(v.metadata().plugin_data().plugin_name() == "histograms");
      const auto got = doubles(v.tensor());
      BOOST_TEST(v.tensor().tensor_shape().dim(0).size() == 30);
      BOOST_TEST(v.tensor().tensor_shape().dim(1).size() == 3);
      BOOST_TEST_REQUIRE(got.size() == 90u);
      if (want.count(e.step())) {
        BOOST_TEST(got == doubles(want.at(e.step())), boost::test_tools::per_element());
        ++compared;
      } else if (e.step() == 3) {  // one value: every edge 2, all three in the last bucket
        for (int b = 0; b < 30; ++b) {
          BOOST_TEST(got[3 * b] == 2.0);
          BOOST_TEST(got[3 * b + 2] == (b == 29 ? 3.0 : 0.0));
        }
      } else {
        for (double d : got) BOOST_TEST(d == 0.0);
      }
    }
  BOOST_TEST(compared == 2);
}

// af::summary::v2::image builds TensorBoard's image summary here: the fixture's float images,
// two of them, give TensorFlow's [width, height, PNG, PNG] tensors (PNGs by their pixels).
BOOST_AUTO_TEST_CASE(images_built_here_encode_as_tensorboards, *boost::unit_test::timeout(120)) {
  const auto ref = reference();
  std::map<std::int64_t, tensorflow::Summary::Value> want;
  for (const auto& e : raw_events((fixture_dir / ref["events_file"].get<std::string>()).string()))
    for (const auto& v : e.summary().value())
      if (v.tag() == "img") want[e.step()] = v;
  BOOST_REQUIRE_EQUAL(want.size(), 2u);
  af::test::TempDir logdir;
  af::Graph g;
  af::Output step = g.placeholder(af::DType::int64, af::PartialShape(af::Shape{}), "step");
  af::Output x = g.placeholder(af::DType::float32, af::PartialShape{-1, 3}, "x");
  auto writer = af::summary::v2::create_file_writer(g, logdir.path.string());
  af::Output write = af::summary::v2::image(
      writer, "img", af::reshape(x, std::vector<std::int64_t>{-1, 1, 3, 1}), step, 2);
  BOOST_CHECK_THROW(af::summary::v2::image(writer, "flat", x, step), af::InvalidArgumentError);
  af::Session sess(g);
  sess.run(writer.init);
  for (const auto& run : ref["runs"]) sess.run({write}, feeds_of(run, step, x));
  sess.run(writer.flush());
  const auto files = af::summary::event_files(logdir.path.string());
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  int compared = 0;
  for (const auto& e : raw_events(files[0]))
    for (const auto& v : e.summary().value()) {
      compare_values("step " + std::to_string(e.step()), v, want.at(e.step()));
      ++compared;
    }
  BOOST_TEST(compared == 2);
}

BOOST_AUTO_TEST_CASE(writing_before_init_fails_as_tensorflows_lookup,
                     *boost::unit_test::timeout(60)) {
  const auto ref = reference();
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((fixture_dir / "graph.pb").string()), {.name = ""});
  af::Session sess(g);
  try {
    sess.run({g.output(ref["summary_ops"][0].get<std::string>())},
             {{g.output("step"), af::Tensor(std::int64_t{1})},
              {g.output("x"), af::Tensor::from_vector<float>({1, 2, 3}, af::Shape{1, 3})}});
    BOOST_FAIL("expected NotFound");
  } catch (const af::NotFoundError& e) {
    BOOST_TEST(std::string(e.what()).find("Resource localhost/create_file_writer/"
                                          "N10tensorflow22SummaryWriterInterfaceE does not "
                                          "exist.") != std::string::npos,
               e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()
