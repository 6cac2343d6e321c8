// TensorFlow 2's summary writer in graphs (af::summary::v2, the SummaryWriter ops): the events
// file it names and fills, its queue and flushes, close and reopen, the legacy writes, the v1
// AudioSummaryV2 and TensorSummary ops, and the errors TensorFlow's kernels give.
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstring>
#include <filesystem>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "actorflow/tf/graph.pb.h"
#include "actorflow/tf/summary.pb.h"
#include "actorflow/tf/tensor.pb.h"
#include "temp_dir.hpp"

namespace v2 = af::summary::v2;

namespace {

// Every events file of `dir`, sorted.
std::vector<std::string> files_of(const af::test::TempDir& dir) {
  auto files = af::summary::event_files(dir.path.string());
  std::sort(files.begin(), files.end());
  return files;
}

// The events of the only events file in `dir`.
std::vector<af::summary::Event> only_file_events(const af::test::TempDir& dir) {
  auto files = files_of(dir);
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  return af::summary::read_events(files[0]);
}

// The value of `events` tagged `tag` (the test fails when there is none).
af::summary::SummaryValue value_of(const std::vector<af::summary::Event>& events,
                                   const std::string& tag, std::int64_t* step = nullptr) {
  for (const auto& e : events)
    for (const auto& v : e.summary)
      if (v.tag == tag) {
        if (step) *step = e.step;
        return v;
      }
  BOOST_FAIL("no value tagged " + tag);
  return {};
}

tensorflow::TensorProto tensor_of(const af::summary::SummaryValue& v) {
  tensorflow::TensorProto p;
  BOOST_REQUIRE(v.kind == af::summary::SummaryValue::Kind::tensor);
  BOOST_REQUIRE(p.ParseFromString(v.encoded));
  return p;
}

template <class E>
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    BOOST_FAIL("expected an error containing: " + part);
  } catch (const E& e) {
    BOOST_TEST(std::string(e.what()).find(part) != std::string::npos, e.what());
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(summary_v2_test)

BOOST_AUTO_TEST_CASE(writes_tensorflow_2s_events_file_with_plugin_tensors,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::Graph g;
  af::Output step = g.placeholder(af::DType::int64, af::PartialShape(af::Shape{}), "step");
  auto writer = v2::create_file_writer(g, dir.path.string());
  BOOST_TEST(writer.handle.node()->name() == "create_file_writer/SummaryWriter");
  BOOST_TEST(*writer.handle.op().node_def().attr<std::string>("shared_name") ==
             "create_file_writer");
  BOOST_TEST(writer.init.name() == "create_file_writer/CreateSummaryFileWriter");
  af::Output loss = g.constant(af::Tensor(0.5f), "loss_value");
  af::Output count = g.constant(af::Tensor(std::int64_t{3}), "count");
  af::Output first, raw;
  {
    auto outer = g.name_scope("outer");
    first = v2::scalar(writer, "loss", loss, step);
  }
  v2::scalar(writer, "count", count, step);  // cast to float32
  v2::text(writer, "note", g.constant(af::Tensor("hello")), step);
  raw = v2::write_raw_pb(writer, af::summary::scalar("v1", loss, std::vector<std::string>{}), step);
  BOOST_TEST(first.node()->name() == "outer/loss/write_summary/Const");
  BOOST_TEST(g.contains("outer/loss/write_summary"));
  BOOST_TEST(g.operation("outer/loss/write_summary").type() == "WriteSummary");
  BOOST_TEST(g.contains("count_1/Cast"));  // the Const "count" took the scope; the tag stays
  BOOST_TEST(raw.node()->name() == "write_raw_pb/Const");
  BOOST_TEST(v2::all_v2_summary_ops(g).size() == 4u);
  BOOST_TEST(v2::summary_writer_initializer_ops(g).size() == 1u);

  af::Session sess(g);
  sess.run(writer.init);
  auto done = sess.run(v2::all_v2_summary_ops(g), {{step, af::Tensor(std::int64_t{7})}});
  BOOST_TEST(done[0].data<bool>()[0]);
  sess.run(writer.flush());

  const auto files = files_of(dir);
  BOOST_REQUIRE_EQUAL(files.size(), 1u);
  const std::string name = std::filesystem::path(files[0]).filename().string();
  const std::regex pattern(R"(events\.out\.tfevents\.\d{10}\..+\.)" + std::to_string(::getpid()) +
                           R"(\.\d+\.v2)");
  BOOST_TEST(std::regex_match(name, pattern), name);

  const auto events = af::summary::read_events(files[0]);
  BOOST_REQUIRE_EQUAL(events.size(), 5u);
  BOOST_TEST(events[0].file_version == "brain.Event:2");
  std::int64_t at = 0;
  const auto l = value_of(events, "outer/loss", &at);
  BOOST_TEST(at == 7);
  BOOST_TEST(l.plugin_name == "scalars");
  const auto lp = tensor_of(l);
  BOOST_TEST(lp.dtype() == tensorflow::DT_FLOAT);
  BOOST_TEST(lp.tensor_shape().dim_size() == 0);
  float f = 0;
  BOOST_REQUIRE_EQUAL(lp.tensor_content().size(), 4u);
  std::memcpy(&f, lp.tensor_content().data(), 4);
  BOOST_TEST(f == 0.5f);
  BOOST_TEST(l.tensor.scalar<float>() == 0.5f);  // decoded for the reader too
  const auto cp = tensor_of(value_of(events, "count"));
  BOOST_TEST(cp.dtype() == tensorflow::DT_FLOAT);
  const auto tp = tensor_of(value_of(events, "note"));
  BOOST_TEST(tp.dtype() == tensorflow::DT_STRING);
  BOOST_REQUIRE_EQUAL(tp.string_val_size(), 1);
  BOOST_TEST(tp.string_val(0) == "hello");
  BOOST_TEST(value_of(events, "note").plugin_name == "text");
  BOOST_TEST(value_of(events, "v1").simple_value == 0.5f);
}

BOOST_AUTO_TEST_CASE(events_wait_in_the_queue_until_it_overflows_or_a_flush,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::Graph g;
  v2::FileWriterOptions options;
  options.max_queue = 2;
  auto writer = v2::create_file_writer(g, dir.path.string(), options);
  af::Output write = v2::scalar(writer, "x", g.constant(af::Tensor(1.0f)),
                                g.constant(af::Tensor(std::int64_t{1})));
  af::Session sess(g);
  sess.run(writer.init);
  sess.run({write});
  sess.run({write});
  BOOST_TEST(only_file_events(dir).size() == 1u);  // the file version only
  sess.run({write});                               // three queued: more than max_queue
  BOOST_TEST(only_file_events(dir).size() == 4u);
  sess.run({write});
  BOOST_TEST(only_file_events(dir).size() == 4u);
  sess.run(writer.flush());
  BOOST_TEST(only_file_events(dir).size() == 5u);
}

BOOST_AUTO_TEST_CASE(close_then_write_is_not_found_and_init_opens_a_new_file,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::Graph g;
  auto writer = v2::create_file_writer(g, dir.path.string());
  af::Output write = v2::scalar(writer, "x", g.constant(af::Tensor(1.0f)),
                                g.constant(af::Tensor(std::int64_t{1})));
  af::Operation close = writer.close();
  af::Session sess(g);
  const std::string missing =
      "Resource localhost/create_file_writer/N10tensorflow22SummaryWriterInterfaceE does not "
      "exist.";
  expect_error<af::NotFoundError>([&] { sess.run({write}); }, missing);
  sess.run(writer.init);
  sess.run(writer.init);  // the writer exists: nothing changes
  BOOST_TEST(files_of(dir).size() == 1u);
  sess.run({write});
  sess.run(close);
  BOOST_TEST(only_file_events(dir).size() == 2u);  // close flushed
  expect_error<af::NotFoundError>([&] { sess.run({write}); }, missing);
  expect_error<af::NotFoundError>([&] { sess.run(close); }, "CloseSummaryWriter");
  expect_error<af::NotFoundError>([&] { sess.run(writer.flush()); }, missing);
  sess.run(writer.init);
  BOOST_TEST(files_of(dir).size() == 2u);
}

BOOST_AUTO_TEST_CASE(two_writers_of_one_logdir_never_share_a_file, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::Graph g;
  auto a = v2::create_file_writer(g, dir.path.string());
  auto b = v2::create_file_writer(g, dir.path.string());
  BOOST_TEST(b.handle.node()->name() == "create_file_writer_1/SummaryWriter");
  af::Output one = g.constant(af::Tensor(std::int64_t{1}));
  af::Output wa = v2::scalar(a, "a", g.constant(af::Tensor(1.0f)), one);
  af::Output wb = v2::scalar(b, "b", g.constant(af::Tensor(2.0f)), one);
  af::Session sess(g);
  sess.run({}, {}, {a.init, b.init});
  sess.run({wa, wb});
  sess.run({}, {}, {a.flush(), b.flush()});
  const auto files = files_of(dir);
  BOOST_REQUIRE_EQUAL(files.size(), 2u);
  for (const auto& f : files) BOOST_TEST(af::summary::read_events(f).size() == 2u);
}

BOOST_AUTO_TEST_CASE(legacy_writes_of_histograms_images_audio_and_graphs,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::Graph g;
  af::Output step = g.constant(af::Tensor(std::int64_t{2}));
  auto writer = v2::create_file_writer(g, dir.path.string());
  v2::write_histogram(writer, "h", g.constant(af::Tensor::from_vector<float>({1, 2, 2})), step);
  v2::write_image(writer, "img",
                  g.constant(af::Tensor::from_vector<float>({0, 1, 2, 3}, af::Shape{1, 2, 2, 1})),
                  step, 1);
  v2::write_audio(writer, "snd",
                  g.constant(af::Tensor::from_vector<float>({0, 0.5f, 0, -0.5f}, af::Shape{2, 2})),
                  8000.0f, step);
  tensorflow::GraphDef tiny;
  tiny.add_node()->set_name("n");
  v2::write_graph(writer, g.constant(af::Tensor(tiny.SerializeAsString())), step);
  af::Session sess(g);
  sess.run(writer.init);
  sess.run(v2::all_v2_summary_ops(g));
  sess.run(writer.flush());
  const auto events = only_file_events(dir);
  BOOST_REQUIRE_EQUAL(events.size(), 5u);
  const auto h = value_of(events, "h");
  BOOST_TEST((h.kind == af::summary::SummaryValue::Kind::histogram));
  BOOST_TEST(h.histo_num == 3.0);
  BOOST_TEST(h.histo_max == 2.0);
  const auto im = value_of(events, "img/image");
  BOOST_TEST((im.kind == af::summary::SummaryValue::Kind::image));
  BOOST_TEST(im.image_height == 2);
  BOOST_TEST(im.encoded.substr(1, 3) == "PNG");
  const auto a0 = value_of(events, "snd/audio/0");
  BOOST_TEST((a0.kind == af::summary::SummaryValue::Kind::audio));
  BOOST_TEST(a0.encoded.substr(0, 4) == "RIFF");
  BOOST_TEST(a0.encoded.size() == 44u + 2u * 2u);
  value_of(events, "snd/audio/1");
  int graphs = 0;
  for (const auto& e : events) {
    tensorflow::GraphDef back;
    if (e.graph_def.empty()) continue;
    BOOST_REQUIRE(back.ParseFromString(e.graph_def));
    BOOST_TEST(back.node(0).name() == "n");
    BOOST_TEST(e.step == 2);
    ++graphs;
  }
  BOOST_TEST(graphs == 1);
}

BOOST_AUTO_TEST_CASE(v1_audio_and_tensor_summaries, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output audio = g.constant(af::Tensor::from_vector<float>({0, 1, -1, 0.25f}, af::Shape{1, 4}));
  af::Output v2op =
      g.create_op("AudioSummaryV2",
                  {g.constant(af::Tensor("a")), audio, g.constant(af::Tensor(16000.0f))},
                  {{"max_outputs", std::int64_t{1}}}, "audio")
          .output(0);
  af::Output v1op = g.create_op("AudioSummary", {g.constant(af::Tensor("b")), audio},
                                {{"max_outputs", std::int64_t{3}}, {"sample_rate", 0.5f}}, "old")
                        .output(0);
  af::Output tensor = g.create_op("TensorSummary", {g.constant(af::Tensor(std::int64_t{9}))},
                                  {{"T", af::DType::int64}}, "tensor_summary")
                          .output(0);
  af::Session sess(g);
  auto out = sess.run({v2op, v1op, tensor});
  tensorflow::Summary a, b, t;
  BOOST_REQUIRE(a.ParseFromString(out[0].data<std::string>()[0]));
  BOOST_REQUIRE(b.ParseFromString(out[1].data<std::string>()[0]));
  BOOST_REQUIRE(t.ParseFromString(out[2].data<std::string>()[0]));
  BOOST_REQUIRE_EQUAL(a.value_size(), 1);
  BOOST_TEST(a.value(0).tag() == "a/audio");
  BOOST_TEST(a.value(0).audio().sample_rate() == 16000.0f);
  BOOST_TEST(a.value(0).audio().length_frames() == 4);
  BOOST_TEST(a.value(0).audio().num_channels() == 1);
  BOOST_TEST(a.value(0).audio().content_type() == "audio/wav");
  const std::string& wav = a.value(0).audio().encoded_audio_string();
  BOOST_REQUIRE_EQUAL(wav.size(), 44u + 8u);
  std::uint32_t rate = 0;
  std::memcpy(&rate, wav.data() + 24, 4);
  BOOST_TEST(rate == 16000u);
  std::int16_t second = 0;
  std::memcpy(&second, wav.data() + 46, 2);
  BOOST_TEST(second == 32767);  // 1.0 clamps
  BOOST_TEST(b.value(0).tag() == "b/audio/0");
  std::memcpy(&rate, b.value(0).audio().encoded_audio_string().data() + 24, 4);
  BOOST_TEST(rate == 1u);  // 0.5 rounds to 0, written as 1
  BOOST_TEST(t.value(0).node_name() == "tensor_summary");
  BOOST_TEST(t.value(0).tensor().dtype() == tensorflow::DT_INT64);
  BOOST_TEST(t.value(0).tensor().tensor_content().size() == 8u);
}

BOOST_AUTO_TEST_CASE(errors_are_tensorflows_and_name_the_op, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  const std::string file = dir.write("plain_file", "x");
  af::Graph g;
  af::Output step = g.constant(af::Tensor(std::int64_t{1}));
  auto writer = v2::create_file_writer(g, dir.path.string());
  v2::FileWriterOptions options;
  options.name = "on_a_file";
  auto bad = v2::create_file_writer(g, file, options);
  af::Output garbage = v2::write_raw_pb(writer, g.constant(af::Tensor("\xff\xff")), step);
  af::Output nan = v2::write_histogram(
      writer, "h",
      g.constant(af::Tensor::from_vector<float>({1, std::numeric_limits<float>::quiet_NaN()})),
      step);
  af::Output rate = v2::write_audio(
      writer, "a", g.constant(af::Tensor::from_vector<float>({0, 0}, af::Shape{1, 2})), 0.0f, step);
  af::Output shape =
      v2::write_image(writer, "i", g.constant(af::Tensor::from_vector<float>({0, 0})), step);
  af::Operation empty = g.create_op("WriteScalarSummary",
                                    {writer.handle, step, g.constant(af::Tensor("e")),
                                     g.constant(af::Tensor::from_vector<float>({}))},
                                    {{"T", af::DType::float32}}, "empty_scalar");
  af::Operation db = g.create_op(
      "CreateSummaryDbWriter",
      {writer.handle, g.constant(af::Tensor("file:/tmp/x.sqlite")), g.constant(af::Tensor("e")),
       g.constant(af::Tensor("r")), g.constant(af::Tensor("u"))},
      {}, "db");
  BOOST_CHECK_THROW(g.create_op("WriteSummary",
                                {writer.handle, g.constant(af::Tensor(1)), step,
                                 g.constant(af::Tensor("t")), g.constant(af::Tensor(""))},
                                {{"T", af::DType::int64}}),
                    af::InvalidArgumentError);
  af::Session sess(g);
  sess.run(writer.init);
  expect_error<af::FailedPreconditionError>([&] { sess.run(bad.init); }, "is not a directory");
  expect_error<af::DataLossError>([&] { sess.run({garbage}); },
                                  "Bad tf.compat.v1.Summary binary proto tensor string at index 0");
  expect_error<af::DataLossError>([&] { sess.run({garbage}); }, "write_raw_pb");
  expect_error<af::InvalidArgumentError>([&] { sess.run({nan}); },
                                         "Nan in summary histogram for: h");
  expect_error<af::InvalidArgumentError>([&] { sess.run({rate}); }, "sample_rate must be > 0");
  expect_error<af::InvalidArgumentError>([&] { sess.run({shape}); },
                                         "Tensor must be 4-D with last dim 1, 3, or 4, not [2]");
  expect_error<af::InvalidArgumentError>([&] { sess.run(empty); }, "empty_scalar");
  expect_error<af::UnimplementedError>([&] { sess.run(db); }, "CreateSummaryDbWriter");
  BOOST_CHECK_THROW(
      v2::scalar(writer, "v", g.constant(af::Tensor::from_vector<float>({1, 2})), step),
      af::InvalidArgumentError);
  BOOST_CHECK_THROW(v2::text(writer, "t", g.constant(af::Tensor(1.0f)), step),
                    af::InvalidArgumentError);
  // Nothing the failed writes tried reached the file.
  sess.run(writer.flush());
  BOOST_TEST(only_file_events(dir).size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_meta_graph_keeps_the_writers_collections, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::MetaGraphDef meta;
  {
    af::Graph g;
    af::Output step = g.placeholder(af::DType::int64, af::PartialShape(af::Shape{}), "step");
    auto writer = v2::create_file_writer(g, dir.path.string());
    v2::scalar(writer, "loss", g.constant(af::Tensor(0.25f)), step);
    v2::text(writer, "note", g.constant(af::Tensor("hi")), step);
    writer.flush("flush");
    meta = af::train::export_meta_graph(g);
  }
  af::Graph g;
  af::train::import_meta_graph(g, meta);
  const auto writes = v2::all_v2_summary_ops(g);
  const auto inits = v2::summary_writer_initializer_ops(g);
  BOOST_REQUIRE_EQUAL(writes.size(), 2u);
  BOOST_REQUIRE_EQUAL(inits.size(), 1u);
  BOOST_TEST(inits[0].name() == "create_file_writer/CreateSummaryFileWriter");
  af::Session sess(g);
  sess.run({}, {}, inits);
  sess.run(writes, {{g.output("step"), af::Tensor(std::int64_t{4})}});
  sess.run(g.operation("flush"));
  const auto events = only_file_events(dir);
  std::int64_t at = 0;
  BOOST_TEST(value_of(events, "loss", &at).plugin_name == "scalars");
  BOOST_TEST(at == 4);
  BOOST_TEST(value_of(events, "note").plugin_name == "text");
}

BOOST_AUTO_TEST_SUITE_END()
