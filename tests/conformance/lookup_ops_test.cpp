// Lookup tables (tf.lookup): HashTableV2 filled from tensors and from text files,
// MutableHashTable(OfTensors)V2 and MutableDenseHashTableV2 changed by the LookupTable* ops,
// and the index helpers. Expected values and messages are what TensorFlow 2.21 gave for the
// same graphs (tf.raw_ops under tf.compat.v1 sessions); the dense tables' exports are bucket
// for bucket TensorFlow's.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "matchers.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
namespace lookup = af::lookup;
using af::test::construction_error;
using af::test::contains;
using af::test::error_of;

Tensor strings(std::vector<std::string> v, std::optional<Shape> shape = {}) {
  return Tensor::from_vector(v, shape);
}
Tensor int64s(std::vector<std::int64_t> v, std::optional<Shape> shape = {}) {
  return Tensor::from_vector(v, shape);
}
Tensor floats(std::vector<float> v, std::optional<Shape> shape = {}) {
  return Tensor::from_vector(v, shape);
}

// A file under the test's temporary directory holding `text`.
std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "af_lookup_ops_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The table's content as a sorted map (exports come in no set order).
std::map<std::string, std::string> exported(af::Session& s, const Output& table, DType k, DType v) {
  auto [keys, values] = lookup::lookup_table_export(table, k, v);
  auto out = s.run({k == DType::string ? keys : af::as_string(keys),
                    v == DType::string ? values : af::as_string(values)});
  std::map<std::string, std::string> m;
  auto ks = out[0].to_vector<std::string>();
  auto vs = out[1].to_vector<std::string>();
  for (std::size_t i = 0; i < ks.size(); ++i) m[ks[i]] = vs[i];
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lookup_ops_test)

// InitializeTableV2 fills a HashTable once; finds read it, with one default or one per key.
BOOST_AUTO_TEST_CASE(hash_table_from_tensors, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output t = lookup::hash_table(g, DType::string, DType::int64);
  BOOST_TEST(t.dtype() == DType::resource);
  const af::Operation init =
      lookup::initialize_table(t, g.constant(strings({"a", "b"})), g.constant(int64s({1, 2})));
  const Output find =
      lookup::lookup_table_find(t, g.constant(strings({"a", "c", "b", "a"}, Shape{2, 2})),
                                g.constant(Tensor(std::int64_t{-1})));
  const Output per_key =
      lookup::lookup_table_find(t, g.constant(strings({"a", "c"})), g.constant(int64s({7, 8})));
  const Output size = lookup::lookup_table_size(t);
  af::Session s(g);
  BOOST_TEST(s.run(size).scalar<std::int64_t>() == 0);
  BOOST_TEST(error_of<af::FailedPreconditionError>([&] { s.run(find); }) ==
             "Table not initialized.\n\t [[{{node LookupTableFindV2}}]]");
  s.run(lookup::tables_initializer(g));
  const Tensor found = s.run(find);
  BOOST_TEST(found.shape() == (Shape{2, 2}));
  BOOST_TEST(found.to_vector<std::int64_t>() == (std::vector<std::int64_t>{1, -1, 2, 1}));
  // A default per key is taken, but a HashTable uses its first value (TensorFlow 2.21).
  BOOST_TEST(s.run(per_key).to_vector<std::int64_t>() == (std::vector<std::int64_t>{1, 7}));
  BOOST_TEST(s.run(size).scalar<std::int64_t>() == 2);
  // Again with as many entries: silently kept; with another count: refused.
  s.run(init);
  const af::Operation other =
      lookup::initialize_table(t, g.constant(strings({"a"})), g.constant(int64s({1})));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { s.run(other); }),
                      "Table was already initialized with different data."));
  BOOST_TEST((exported(s, t, DType::string, DType::int64) ==
              std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
}

// TensorFlow's checks, word for word.
BOOST_AUTO_TEST_CASE(hash_table_errors, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output t = lookup::hash_table(g, DType::string, DType::int64);
  const Output f = lookup::hash_table(g, DType::int64, DType::float32);
  const auto dup =
      lookup::initialize_table(t, g.constant(strings({"a", "a"})), g.constant(int64s({1, 2})));
  const auto dup_float =
      lookup::initialize_table(f, g.constant(int64s({3, 3})), g.constant(floats({1.5f, 2.5f})));
  const auto wrong_type = lookup::initialize_table(
      t, g.constant(strings({"a"})), g.constant(Tensor::from_vector(std::vector<std::int32_t>{1})));
  const auto bad_default =
      lookup::lookup_table_find(t, g.constant(strings({"a", "c"})), g.constant(int64s({7, 8, 9})));
  const auto insert =
      lookup::lookup_table_insert(t, g.constant(strings({"a"})), g.constant(int64s({1})));
  const auto [keys, values] = lookup::lookup_table_export(f, DType::int64, DType::float32);
  af::Session s(g);
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { s.run(dup); }),
                      "HashTable has different value for same key. Key a has 1 and trying to add "
                      "value 2"));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { s.run(dup_float); }),
                      "Key 3 has 1.5 and trying to add value 2.5"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(wrong_type); }),
                      "Signature mismatch, have: resource, string, int32-> expected: resource, "
                      "string, int64->"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(bad_default); }),
                      "Expected shape [] or [2] for default value, got [3]"));
  BOOST_TEST(contains(error_of<af::UnimplementedError>([&] { s.run(insert); }),
                      "Insert not supported by InitializableLookupTable implementations"));
  BOOST_TEST(
      contains(error_of<af::AbortedError>([&] { s.run(keys); }), "HashTable is not initialized."));
  // The shape function: keys and values are vectors of one length.
  BOOST_TEST(contains(
      construction_error([&] {
        lookup::initialize_table(t, g.constant(strings({"a", "b"})), g.constant(int64s({1})));
      }),
      "Dimension 0 in both shapes must be equal, but are 2 and 1"));
}

// Tables of one shared name are one table; a second dtype pair for it is refused.
BOOST_AUTO_TEST_CASE(shared_tables, *boost::unit_test::timeout(60)) {
  af::Graph g;
  lookup::TableOptions shared;
  shared.shared_name = "vocab";
  const Output a = lookup::hash_table(g, DType::string, DType::int64, shared);
  const Output b = lookup::hash_table(g, DType::string, DType::int64, shared);
  const Output c = lookup::hash_table(g, DType::string, DType::float32, shared);
  const auto init =
      lookup::initialize_table(a, g.constant(strings({"x"})), g.constant(int64s({4})));
  af::Session s(g);
  s.run(init);
  BOOST_TEST(s.run(lookup::lookup_table_size(b)).scalar<std::int64_t>() == 1);
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(c); }),
                      "Conflicting key/value dtypes string->float with string-int64 for table "
                      "vocab"));
}

// InitializeTableFromTextFileV2: whole lines, line numbers, columns, offsets, vocab_size.
BOOST_AUTO_TEST_CASE(text_file_initializer, *boost::unit_test::timeout(60)) {
  const std::string vocab = write_file("vocab.txt", "emerson\r\nlake\npalmer");
  const std::string cols = write_file("cols.txt", "a\t1\t10\nb\t2\t20\nc\t3\n");
  af::Graph g;
  auto table = [&](DType k, DType v) { return lookup::hash_table(g, k, v); };
  const Output words = table(DType::string, DType::int64);
  const Output lines = table(DType::int64, DType::string);
  const Output second = table(DType::string, DType::float64);
  const Output third = table(DType::string, DType::int64);
  const Output file = g.constant(Tensor(vocab));
  af::Session s(g);
  s.run(lookup::initialize_table_from_text_file(words, file, lookup::kWholeLine,
                                                lookup::kLineNumber, -1, "\t", 1));
  BOOST_TEST(
      (exported(s, words, DType::string, DType::int64) ==
       std::map<std::string, std::string>{{"emerson", "1"}, {"lake", "2"}, {"palmer", "3"}}));
  s.run(lookup::initialize_table_from_text_file(lines, file, lookup::kLineNumber,
                                                lookup::kWholeLine, 2));
  BOOST_TEST((exported(s, lines, DType::int64, DType::string) ==
              std::map<std::string, std::string>{{"0", "emerson"}, {"1", "lake"}}));
  s.run(lookup::initialize_table_from_text_file(second, g.constant(Tensor(cols)), 0, 1));
  BOOST_TEST(s.run(lookup::lookup_table_find(second, g.constant(strings({"b", "z"})),
                                             g.constant(Tensor(-1.0))))
                 .to_vector<double>() == (std::vector<double>{2.0, -1.0}));
  const auto short_line =
      lookup::initialize_table_from_text_file(third, g.constant(Tensor(cols)), 0, 2);
  BOOST_TEST(contains(
      error_of<af::InvalidArgumentError>([&] { s.run(short_line); }),
      "Invalid number of columns in " + cols + " line 2 (c\t3) : expected at least 3 got 2"));
  const auto too_many = lookup::initialize_table_from_text_file(third, file, lookup::kWholeLine,
                                                                lookup::kLineNumber, 5);
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(too_many); }),
                      "Invalid vocab_size in " + vocab + ": expected 5 but got 3"));
}

BOOST_AUTO_TEST_CASE(text_file_errors, *boost::unit_test::timeout(60)) {
  const std::string bad = write_file("bad.txt", "x 5\ny notnum\n");
  const std::string blank = write_file("blank.txt", "a\nb\n\n");
  const std::string empty = write_file("empty.txt", "");
  af::Graph g;
  auto init = [&](const std::string& f, std::int64_t k, std::int64_t v, DType kd = DType::string,
                  DType vd = DType::int64) {
    return lookup::initialize_table_from_text_file(lookup::hash_table(g, kd, vd),
                                                   g.constant(Tensor(f)), k, v, -1, " ");
  };
  const auto bad_field = init(bad, 0, 1);
  const auto blank_line = init(blank, -2, -1);
  const auto empty_file = init(empty, -2, -1);
  const auto missing = init("/nonexistent/vocab.txt", -2, -1);
  const auto line_number_key = init(bad, -1, -2);
  const auto whole_line_float = init(bad, -1, -2, DType::int64, DType::float32);
  af::Session s(g);
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(bad_field); }),
                      "Field notnum in line 1 is not a valid int64."));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(blank_line); }),
                      ": empty line found at position 5."));
  BOOST_TEST(contains(error_of<af::OutOfRangeError>([&] { s.run(empty_file); }),
                      "Read less bytes than requested"));
  BOOST_TEST(contains(error_of<af::NotFoundError>([&] { s.run(missing); }),
                      "/nonexistent/vocab.txt; No such file or directory"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(line_number_key); }),
                      "Key index for line number requires table key dtype of int64, got string"));
  BOOST_TEST(contains(
      error_of<af::InvalidArgumentError>([&] { s.run(whole_line_float); }),
      "Value index for whole line requires table value dtype of integer or string, got float"));
  BOOST_TEST(contains(construction_error([&] { init(bad, -3, -1); }),
                      "Value for attr 'key_index' of -3 must be at least minimum -2"));
}

// MutableHashTableV2: insert (the last of duplicate keys wins), remove, import replaces.
BOOST_AUTO_TEST_CASE(mutable_hash_table, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output t = lookup::mutable_hash_table(g, DType::string, DType::int64);
  const auto insert = lookup::lookup_table_insert(t, g.constant(strings({"a", "b", "a"})),
                                                  g.constant(int64s({1, 2, 3})));
  const auto find =
      lookup::lookup_table_find(t, g.constant(strings({"a", "b", "c", "a"}, Shape{2, 2})),
                                g.constant(Tensor(std::int64_t{-1})));
  const auto remove = lookup::lookup_table_remove(t, g.constant(strings({"a", "zz"})));
  const auto import =
      lookup::lookup_table_import(t, g.constant(strings({"x", "y"})), g.constant(int64s({7, 8})));
  const auto mismatch =
      lookup::lookup_table_insert(t, g.constant(strings({"a", "b"})), g.constant(int64s({1})));
  af::Session s(g);
  BOOST_TEST(s.run(find).to_vector<std::int64_t>() == (std::vector<std::int64_t>{-1, -1, -1, -1}));
  s.run(insert);
  BOOST_TEST(s.run(find).to_vector<std::int64_t>() == (std::vector<std::int64_t>{3, 2, -1, 3}));
  s.run(remove);
  BOOST_TEST(s.run(lookup::lookup_table_size(t)).scalar<std::int64_t>() == 1);
  s.run(import);
  BOOST_TEST((exported(s, t, DType::string, DType::int64) ==
              std::map<std::string, std::string>{{"x", "7"}, {"y", "8"}}));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(mismatch); }),
                      "Expected shape [2] for value, got [1]"));
}

// MutableHashTableOfTensorsV2: vector values and defaults.
BOOST_AUTO_TEST_CASE(mutable_hash_table_of_tensors, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output t =
      lookup::mutable_hash_table_of_tensors(g, DType::string, DType::float32, Shape{2});
  const auto insert = lookup::lookup_table_insert(t, g.constant(strings({"a", "b"})),
                                                  g.constant(floats({1, 2, 3, 4}, Shape{2, 2})));
  const Output find =
      lookup::lookup_table_find(t, g.constant(strings({"a", "c"})), g.constant(floats({0, -1})));
  BOOST_TEST(find.shape() == af::PartialShape(std::vector<std::int64_t>{2, 2}));
  const auto scalar_default =
      lookup::lookup_table_find(t, g.constant(strings({"a"})), g.constant(Tensor(0.0f)));
  const Output matrix =
      lookup::mutable_hash_table_of_tensors(g, DType::string, DType::float32, Shape{2, 2});
  af::Session s(g);
  s.run(insert);
  BOOST_TEST(s.run(find).to_vector<float>() == (std::vector<float>{1, 2, 0, -1}));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(scalar_default); }),
                      "Expected shape [2] or [1,2] for default value, got []"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(matrix); }),
                      "Default value must be a vector, got shape [2,2]"));
}

// MutableDenseHashTableV2: TensorFlow's buckets after growth and removal, string keys placed
// by TensorFlow's Hash64, vector keys by Hash64Combine.
BOOST_AUTO_TEST_CASE(dense_hash_table_layout, *boost::unit_test::timeout(60)) {
  af::Graph g;
  lookup::DenseTableOptions eight;
  eight.initial_num_buckets = 8;
  const Output t =
      lookup::mutable_dense_hash_table(g.constant(Tensor(std::int64_t{-1})),
                                       g.constant(Tensor(std::int64_t{-2})), DType::float32, eight);
  std::vector<std::int64_t> keys;
  for (std::int64_t k = 1; k <= 7; ++k) keys.push_back(5 * k);
  const auto insert = lookup::lookup_table_insert(t, g.constant(int64s(keys)),
                                                  g.constant(floats({0, 1, 2, 3, 4, 5, 6})));
  const auto remove = lookup::lookup_table_remove(t, g.constant(int64s({10})));
  auto [k, v] = lookup::lookup_table_export(t, DType::int64, DType::float32);
  af::Session s(g);
  s.run(insert);  // 7 entries past 8 * 0.8: 16 buckets
  s.run(remove);
  auto out = s.run({k, v});
  BOOST_TEST(out[0].shape() == (Shape{16, 1}));
  BOOST_TEST(
      out[0].to_vector<std::int64_t>() ==
      (std::vector<std::int64_t>{-1, -1, -1, 35, 20, 5, -1, -1, -1, 25, -2, -1, -1, -1, 30, 15}));
  BOOST_TEST(out[1].to_vector<float>() ==
             (std::vector<float>{0, 0, 0, 6, 3, 0, 0, 0, 0, 4, 1, 0, 0, 0, 5, 2}));
  BOOST_TEST(s.run(lookup::lookup_table_size(t)).scalar<std::int64_t>() == 6);

  lookup::DenseTableOptions four;
  four.initial_num_buckets = 4;
  const Output st = lookup::mutable_dense_hash_table(g.constant(Tensor("")),
                                                     g.constant(Tensor("$")), DType::int64, four);
  s.run(lookup::lookup_table_insert(st, g.constant(strings({"a", "b", "c"})),
                                    g.constant(int64s({1, 2, 3}))));
  auto [sk, sv] = lookup::lookup_table_export(st, DType::string, DType::int64);
  auto sout = s.run({sk, sv});
  BOOST_TEST(sout[0].to_vector<std::string>() == (std::vector<std::string>{"a", "c", "b", ""}));
  BOOST_TEST(sout[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{1, 3, 2, 0}));

  four.value_shape = Shape{2};
  const Output vt = lookup::mutable_dense_hash_table(
      g.constant(int64s({0, 0})), g.constant(int64s({-1, -1})), DType::float32, four);
  s.run(lookup::lookup_table_insert(vt, g.constant(int64s({1, 2, 3, 4}, Shape{2, 2})),
                                    g.constant(floats({1, 1, 2, 2}, Shape{2, 2}))));
  auto [vk, vv] = lookup::lookup_table_export(vt, DType::int64, DType::float32);
  BOOST_TEST(s.run(vk).to_vector<std::int64_t>() ==
             (std::vector<std::int64_t>{3, 4, 0, 0, 0, 0, 1, 2}));
  BOOST_TEST(s.run(lookup::lookup_table_find(vt, g.constant(int64s({3, 4, 5, 6}, Shape{2, 2})),
                                             g.constant(floats({9, 9}))))
                 .to_vector<float>() == (std::vector<float>{2, 2, 9, 9}));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s.run(lookup::lookup_table_insert(t, g.constant(int64s({-1})),
                                                          g.constant(floats({1}))));
                      }),
                      "Using the empty_key as a table key is not allowed"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s.run(lookup::lookup_table_find(t, g.constant(int64s({-2})),
                                                        g.constant(Tensor(0.0f))));
                      }),
                      "Using the deleted_key as a table key is not allowed"));
  lookup::DenseTableOptions ten;
  ten.initial_num_buckets = 10;
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s.run(lookup::mutable_dense_hash_table(g.constant(Tensor(std::int64_t{-1})),
                                                               g.constant(Tensor(std::int64_t{-2})),
                                                               DType::float32, ten));
                      }),
                      "Number of buckets must be at least 4 and a power of 2, got: 10"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s.run(lookup::mutable_dense_hash_table(g.constant(Tensor(std::int64_t{-1})),
                                                               g.constant(Tensor(std::int64_t{-1})),
                                                               DType::float32));
                      }),
                      "Empty and deleted keys cannot be equal"));
}

// index_table_from_tensor / _file with out-of-vocabulary buckets (FarmHash buckets after the
// vocabulary, as TensorFlow's IdTableWithHashBuckets) and the reverse tables.
BOOST_AUTO_TEST_CASE(index_tables, *boost::unit_test::timeout(60)) {
  const std::string vocab = write_file("index_vocab.txt", "emerson\nlake\npalmer\n");
  af::Graph g;
  const Output words = g.constant(strings({"emerson", "lake", "palmer"}));
  const auto by_tensor = lookup::index_table_from_tensor(words, 2);
  const auto by_file = lookup::index_table_from_file(g, vocab);
  const auto ints = lookup::index_table_from_tensor(g.constant(int64s({10, 20, 30})), 3);
  const auto names = lookup::index_to_string_table_from_tensor(words);
  const auto names_file = lookup::index_to_string_table_from_file(g, vocab);
  const Output query = g.constant(strings({"emerson", "lake", "palmer", "king", "crimson"}));
  const Output ids = by_tensor.lookup(query);
  BOOST_TEST(ids.shape() == af::PartialShape(std::vector<std::int64_t>{5}));
  af::Session s(g);
  s.run(lookup::tables_initializer(g));
  BOOST_TEST(s.run(ids).to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1, 2, 3, 3}));
  BOOST_TEST(s.run(by_tensor.size()).scalar<std::int64_t>() == 5);
  BOOST_TEST(s.run(by_file.lookup(query)).to_vector<std::int64_t>() ==
             (std::vector<std::int64_t>{0, 1, 2, -1, -1}));
  BOOST_TEST(s.run(ints.lookup(g.constant(int64s({20, 40, 50, 60})))).to_vector<std::int64_t>() ==
             (std::vector<std::int64_t>{1, 4, 4, 3}));
  const Output back = g.constant(int64s({2, 0, 7}));
  BOOST_TEST(s.run(names.lookup(back)).to_vector<std::string>() ==
             (std::vector<std::string>{"palmer", "emerson", "UNK"}));
  BOOST_TEST(s.run(names_file.lookup(back)).to_vector<std::string>() ==
             (std::vector<std::string>{"palmer", "emerson", "UNK"}));
}

// A GraphDef TensorFlow 2.21 wrote with tf.compat.v1's tables (index_table_from_file with
// out-of-vocabulary buckets, index_table_from_tensor, index_to_string_table_from_tensor, a
// MutableHashTable filled in the step), imported, initialized by its "init_all_tables" and run
// to TensorFlow's values (tests/data/tf_graph/lookup, scripts/peers/make_lookup_fixtures.py).
BOOST_AUTO_TEST_CASE(tensorflow_graph_of_tables, *boost::unit_test::timeout(60)) {
  const auto dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "lookup";
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((dir / "graph.pb").string()), {.name = ""});
  af::Session s(g);
  const af::FeedDict feeds = {{g.output("vocab_path:0"), Tensor((dir / "vocab.txt").string())}};
  s.run(g.operation("init_all_tables"), feeds);
  const auto out = s.run({g.output("ids_file:0"), g.output("ids_tensor:0"), g.output("names:0"),
                          g.output("scores_found:0")},
                         feeds);
  BOOST_TEST(out[0].shape() == (Shape{3, 2}));
  BOOST_TEST(out[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{1, 6, 5, 7, 0, 8}));
  BOOST_TEST(out[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{2, -7, 0}));
  BOOST_TEST(out[2].to_vector<std::string>() == (std::vector<std::string>{"c", "UNK", "a"}));
  BOOST_TEST(out[3].to_vector<float>() == (std::vector<float>{1.5f, -1.0f, 0.5f}));
}

// Tables are not differentiable: a gradient through a find stops there.
BOOST_AUTO_TEST_CASE(no_gradient_through_tables, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output t = lookup::mutable_hash_table(g, DType::string, DType::float32);
  const Output d = g.constant(Tensor(1.0f), "d");
  const Output y = lookup::lookup_table_find(t, g.constant(strings({"a"})), d);
  const auto grads = af::gradients({y}, {d});
  BOOST_REQUIRE(grads.size() == 1u);
  BOOST_TEST(!grads[0].valid());
}

BOOST_AUTO_TEST_SUITE_END()
