// LMDB databases (tests/data/lmdb, made by scripts/peers/make_lmdb_fixtures.py with liblmdb's
// Python binding) read by tf.compat.v1's LMDBReader and tf.data's LMDBDataset: every entry's
// key and value in the database's key order, a directory or a single .mdb file, empty
// databases passed over, and the errors of a file that is not an LMDB database. TensorFlow 2.21
// no longer has either op; the reference is TensorFlow 1.x's kernels (lmdb_reader_op.cc,
// lmdb_dataset_op.cc) and the cursor order the fixture recorded.
#include <actorflow/actorflow.hpp>
#include <actorflow/queues/reader.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "matchers.hpp"
#include "reader_fixture.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Tensor;
using Entries = std::vector<std::pair<std::string, std::string>>;

std::string dir() { return ACTORFLOW_TEST_DATA_DIR + "/lmdb"; }

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// The entries the fixture recorded for database `name`, in cursor order.
Entries expected(const std::string& name) {
  std::ifstream in(dir() + "/expected.json");
  const auto doc = nlohmann::json::parse(in);
  Entries out;
  for (const auto& kv : doc.at(name))
    out.emplace_back(from_hex(kv[0].get<std::string>()), from_hex(kv[1].get<std::string>()));
  return out;
}

Entries concat(Entries a, const Entries& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Every element of an LMDBDataset of `files`, through IteratorV2 / MakeIterator /
// IteratorGetNext, until OutOfRange.
Entries dataset_entries(const std::vector<std::string>& files) {
  af::data::register_dataset_ops();
  af::Graph g;
  const std::vector<DType> types{DType::string, DType::string};
  const std::vector<PartialShape> shapes(2, PartialShape(std::vector<std::int64_t>{}));
  af::AttrMap signature{{"output_types", types}, {"output_shapes", shapes}};
  const Output names = g.constant(Tensor::from_vector(files));
  const Output ds = g.create_op("LMDBDataset", {names}, signature).output(0);
  auto attrs = signature;
  attrs["shared_name"] = std::string();
  attrs["container"] = std::string();
  const Output it = g.create_op("IteratorV2", {}, attrs).output(0);
  const auto make = g.create_op("MakeIterator", {ds, it});
  const auto next = g.create_op("IteratorGetNext", {it}, signature);
  af::Session sess(g);
  sess.run(make);
  Entries out;
  try {
    for (;;) {
      const auto kv = sess.run({next.output(0), next.output(1)});
      out.emplace_back(kv[0].scalar<std::string>(), kv[1].scalar<std::string>());
    }
  } catch (const af::OutOfRangeError&) {
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lmdb_test)

// LMDBReader: a directory database, an empty one (passed over) and a single-file one, one
// after another from the work queue; keys are the database's keys.
BOOST_AUTO_TEST_CASE(lmdb_reader_reads_each_entry_in_key_order, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::LMDBReader reader(g);
  BOOST_TEST(reader.reader_ref().op().type() == "LMDBReader");
  auto [key, value] = reader.read(files);
  const Output produced = reader.num_records_produced();
  const Output completed = reader.num_work_units_completed();
  af::Session sess(g);
  for (const std::string name : {"db", "empty.mdb", "single.mdb"})
    files.add(sess, dir() + "/" + name);
  sess.run(files.close());
  Entries got;
  try {
    for (;;) {
      const auto kv = sess.run({key, value});
      got.emplace_back(kv[0].scalar<std::string>(), kv[1].scalar<std::string>());
    }
  } catch (const af::OutOfRangeError&) {
  }
  const Entries want = concat(expected("db"), expected("single.mdb"));
  BOOST_TEST(want.size() == 15u);
  BOOST_TEST(got == want);
  BOOST_TEST(sess.run(produced).scalar<std::int64_t>() == 15);
  BOOST_TEST(sess.run(completed).scalar<std::int64_t>() == 3);
}

// ReaderReadUpTo stops at the end of each database; the state cannot be serialized.
BOOST_AUTO_TEST_CASE(lmdb_reader_reads_up_to_and_refuses_to_serialize,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::LMDBReader reader(g);
  auto [keys, values] = reader.read_up_to(files, 5);
  const Output state = reader.serialize_state();
  af::Session sess(g);
  files.add(sess, dir() + "/db");
  files.add(sess, dir() + "/single.mdb");
  std::vector<std::int64_t> sizes;
  for (int i = 0; i < 4; ++i) sizes.push_back(sess.run(keys).num_elements());
  BOOST_TEST(sizes == (std::vector<std::int64_t>{5, 5, 2, 3}), boost::test_tools::per_element());
  const std::string error = af::test::error_of<af::UnimplementedError>([&] { sess.run(state); });
  BOOST_TEST(af::test::contains(error, "Reader SerializeState"), error);
}

// A file that is not an LMDB database fails the read with LMDB's words and the file's name
// (TensorFlow's reader aborts the process here).
BOOST_AUTO_TEST_CASE(lmdb_reader_names_a_file_that_is_not_lmdb, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::LMDBReader reader(g);
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  files.add(sess, dir() + "/not_lmdb.mdb");
  try {
    sess.run(key);
    BOOST_FAIL("expected an error");
  } catch (const af::InvalidArgumentError& e) {
    const std::string what = e.what();
    BOOST_TEST(af::test::contains(what, "MDB_INVALID"), what);
    BOOST_TEST(af::test::contains(what, "not_lmdb.mdb"), what);
  }
}

// LMDBDataset (and ExperimentalLMDBDataset): (key, value) string scalars of each database in
// turn; an empty database is passed over (TensorFlow's iterator loops on it forever).
BOOST_AUTO_TEST_CASE(lmdb_dataset_yields_keys_and_values, *boost::unit_test::timeout(60)) {
  const Entries got =
      dataset_entries({dir() + "/single.mdb", dir() + "/empty.mdb", dir() + "/db/data.mdb"});
  BOOST_TEST(got == concat(expected("single.mdb"), expected("db")));
  const std::string missing = af::test::error_of([&] { dataset_entries({dir() + "/nope"}); });
  BOOST_TEST(af::test::contains(missing, "No such file or directory (LMDB file "), missing);
  const std::string garbage =
      af::test::error_of([&] { dataset_entries({dir() + "/not_lmdb.mdb"}); });
  BOOST_TEST(af::test::contains(garbage, "MDB_INVALID: File is not an LMDB file"), garbage);
}

BOOST_AUTO_TEST_SUITE_END()
