// TensorFlow's first queue and reader ops, whose handles are Ref(string) where the V2 ops'
// are resources (FIFOQueue, QueueEnqueue, ..., TextLineReader, ReaderRead, ...), as GraphDefs
// written before the V2 ops hold them: tests/data/tf_ref_queues
// (scripts/peers/make_ref_queue_fixtures.py) is TensorFlow's graph of FIFO, padding and
// priority queues with the values and errors a sequence of session runs gave, imported and run
// here to them; the first readers (which TensorFlow no longer lets Python build) read files
// here as the V2 readers do.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_test_util.hpp"
#include "session_steps.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

// A feed of make_ref_queue_fixtures.py: its placeholder's dtype, the JSON's shape.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  const auto n = static_cast<std::int64_t>(v.size());
  if (name == "y" || name == "v") return Tensor::from_vector(v.get<std::vector<std::int32_t>>());
  if (name == "p") return Tensor::from_vector(v.get<std::vector<std::int64_t>>());
  if (name == "w") return Tensor::from_vector(v.get<std::vector<std::string>>(), Shape{n});
  std::vector<float> flat;
  for (const auto& row : v)
    for (const auto& x : row) flat.push_back(x.get<float>());
  return Tensor::from_vector(flat, Shape{n, 2});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ref_queue_test)

// TensorFlow's GraphDef of FIFOQueue, PaddingFIFOQueue and PriorityQueue with the first
// enqueue, dequeue, size, close and is-closed ops gives TensorFlow's values and errors.
BOOST_AUTO_TEST_CASE(tensorflows_ref_queues_give_its_values, *boost::unit_test::timeout(60)) {
  af::test::replay_fixture("tf_ref_queues", "graph.pb", "reference.json",
                           {"FIFOQueue", "QueueEnqueueMany", "QueueDequeueUpTo", "QueueIsClosed"},
                           feed_of);
}

// TextLineReader and WholeFileReader with ReaderRead, ReaderReadUpTo and the state ops, over
// a FIFOQueue of file names, read what TextLineReaderV2 and WholeFileReaderV2 read.
BOOST_AUTO_TEST_CASE(first_readers_read_files, *boost::unit_test::timeout(60)) {
  af::test::TempDir tmp("af_ref_readers");
  const std::string a = (tmp.path / "a.txt").string(), b = (tmp.path / "b.txt").string();
  std::ofstream(a) << "one\ntwo\nthree\n";
  std::ofstream(b) << "four\n";
  af::Graph g;
  const af::AttrMap queue_attrs{{"component_types", std::vector<DType>{DType::string}},
                                {"shapes", std::vector<af::PartialShape>{}},
                                {"capacity", std::int64_t{-1}},
                                {"container", std::string()},
                                {"shared_name", std::string()}};
  const Output files = g.create_op("FIFOQueue", {}, queue_attrs, "files").output(0);
  const Output names = g.constant(Tensor::from_vector(std::vector<std::string>{a, b}, Shape{2}));
  const af::Operation fill = g.create_op(
      "QueueEnqueueMany", {files, names},
      {{"Tcomponents", std::vector<DType>{DType::string}}, {"timeout_ms", std::int64_t{-1}}},
      "fill");
  const af::Operation close =
      g.create_op("QueueClose", {files}, {{"cancel_pending_enqueues", false}}, "close");
  const af::AttrMap reader_attrs{{"container", std::string()}, {"shared_name", std::string()}};
  af::AttrMap text_attrs = reader_attrs;
  text_attrs["skip_header_lines"] = std::int64_t{0};
  const Output lines = g.create_op("TextLineReader", {}, text_attrs, "lines").output(0);
  const af::Operation read = g.create_op("ReaderRead", {lines, files}, {}, "read");
  const af::Operation read_up_to = g.create_op(
      "ReaderReadUpTo", {lines, files, g.constant(Tensor(std::int64_t{5}))}, {}, "read_up_to");
  const Output produced =
      g.create_op("ReaderNumRecordsProduced", {lines}, {}, "produced").output(0);
  const Output completed =
      g.create_op("ReaderNumWorkUnitsCompleted", {lines}, {}, "completed").output(0);
  const af::Operation reset = g.create_op("ReaderReset", {lines}, {}, "reset");
  const Output state = g.create_op("ReaderSerializeState", {lines}, {}, "state").output(0);
  const Output whole = g.create_op("WholeFileReader", {}, reader_attrs, "whole").output(0);
  const af::Operation read_whole = g.create_op("ReaderRead", {whole, files}, {}, "read_whole");

  af::Session sess(g);
  sess.run(fill);
  std::vector<Tensor> got = sess.run({read.output(0), read.output(1)});
  BOOST_TEST(got[0].scalar<std::string>() == a + ":1");
  BOOST_TEST(got[1].scalar<std::string>() == "one");
  got = sess.run({read_up_to.output(0), read_up_to.output(1)});
  BOOST_TEST(got[1].num_elements() == 2);  // the rest of a.txt
  BOOST_TEST(got[0].flat<std::string>()[1] == a + ":3");
  BOOST_TEST(got[1].flat<std::string>()[1] == "three");
  BOOST_TEST(sess.run(produced).scalar<std::int64_t>() == 3);
  // As TensorFlow's TextLineReader, which keeps ReaderBase's SerializeState.
  af::test::fails_with(sess, state, "Reader SerializeState");
  sess.run(reset);
  BOOST_TEST(sess.run(produced).scalar<std::int64_t>() == 0);
  got = sess.run({read.output(0), read.output(1)});  // a new work unit: b.txt
  BOOST_TEST(got[0].scalar<std::string>() == b + ":1");
  BOOST_TEST(got[1].scalar<std::string>() == "four");
  BOOST_TEST(sess.run(completed).scalar<std::int64_t>() == 0);
  sess.run(fill);
  sess.run(close);
  got = sess.run({read_whole.output(0), read_whole.output(1)});
  BOOST_TEST(got[0].scalar<std::string>() == a);
  BOOST_TEST(got[1].scalar<std::string>() == "one\ntwo\nthree\n");
  BOOST_TEST(sess.run(read_whole.output(1)).scalar<std::string>() == "four\n");
  af::test::fails_with(sess, read_whole.output(1), "is closed and has insufficient elements");
}

BOOST_AUTO_TEST_SUITE_END()
