// Mutable lookup tables in checkpoints (MutableHashTable._Saveable and DenseHashTable._Saveable
// of lookup_ops.py): a Saver saves a table as `<name>-keys` and `<name>-values` and restores it
// with LookupTableImportV2. tests/data/tf_graph/lookup_checkpoint was written by TensorFlow
// 2.21's tf.compat.v1 Saver (scripts/peers/make_lookup_fixtures.py): a variable `v`, a
// MutableHashTable `vocab_counts` (string -> int64), one of vectors `emb` (int64 -> float[2])
// and a DenseHashTable `dense` (int64 -> float, 8 buckets).
#include <actorflow/actorflow.hpp>
#include <actorflow/train/meta_graph.hpp>
#include <actorflow/train/saver.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
namespace lookup = af::lookup;

const std::string kPrefix = ACTORFLOW_TEST_DATA_DIR + "/tf_graph/lookup_checkpoint/model";

// The fixture's model built here: the same names, so the same checkpoint keys.
struct Tables {
  af::Graph g;
  af::Variable v;
  Output counts, emb, dense;
  explicit Tables(bool checkpoint_emb = true) {
    v = g.variable(Tensor::from_vector(std::vector<float>{0, 0}), {.name = "v"});
    counts = lookup::mutable_hash_table(g, DType::string, DType::int64, {}, "vocab_counts");
    emb = lookup::mutable_hash_table_of_tensors(g, DType::int64, DType::float32, Shape{2},
                                                {.checkpoint = checkpoint_emb}, "emb");
    dense =
        lookup::mutable_dense_hash_table(g.constant(std::int64_t{-1}), g.constant(std::int64_t{-2}),
                                         DType::float32, {.initial_num_buckets = 8}, {}, "dense");
  }
  std::vector<std::int64_t> counts_of(af::Session& s, std::vector<std::string> words) {
    return s
        .run(lookup::lookup_table_find(counts, g.constant(Tensor::from_vector(words)),
                                       g.constant(std::int64_t{-1})))
        .to_vector<std::int64_t>();
  }
  std::vector<float> emb_of(af::Session& s, std::vector<std::int64_t> ids) {
    return s
        .run(lookup::lookup_table_find(emb, g.constant(Tensor::from_vector(ids)),
                                       g.constant(Tensor::from_vector(std::vector<float>{0, 0}))))
        .to_vector<float>();
  }
  std::vector<float> dense_of(af::Session& s, std::vector<std::int64_t> ids) {
    return s
        .run(lookup::lookup_table_find(dense, g.constant(Tensor::from_vector(ids)),
                                       g.constant(-1.0f)))
        .to_vector<float>();
  }
};

std::vector<std::string> keys_of(const std::string& prefix) {
  std::vector<std::string> keys;
  for (auto& [name, shape] : af::train::list_variables(prefix)) keys.push_back(name);
  return keys;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(table_checkpoint_test)

BOOST_AUTO_TEST_CASE(tables_join_the_saveable_objects_with_their_export,
                     *boost::unit_test::timeout(60)) {
  Tables t(/*checkpoint_emb=*/false);
  const auto& saveables = t.g.get_collection(lookup::kSaveableObjects);
  BOOST_REQUIRE(saveables.size() == 2u);  // emb asked not to be saved
  const auto& counts = std::any_cast<const lookup::SaveableTable&>(saveables[0]);
  BOOST_TEST(counts.name == "vocab_counts");
  BOOST_TEST(counts.keys.name() == "vocab_counts_lookup_table_export_values/LookupTableExportV2:0");
  BOOST_TEST(counts.values.name() ==
             "vocab_counts_lookup_table_export_values/LookupTableExportV2:1");
  BOOST_TEST(std::any_cast<const lookup::SaveableTable&>(saveables[1]).name == "dense");
  // A name scope does not reach the checkpoint key, as TensorFlow's `name` argument.
  {
    auto scope = t.g.name_scope("tower");
    lookup::mutable_hash_table(t.g, DType::int64, DType::int64, {}, "ids");
  }
  BOOST_TEST(std::any_cast<const lookup::SaveableTable&>(saveables[2]).name == "ids");
  BOOST_TEST(std::any_cast<const lookup::SaveableTable&>(saveables[2]).table.name() ==
             "tower/ids:0");
  // The collection is not a MetaGraphDef's, as TensorFlow leaves it out.
  const auto meta = af::train::export_meta_graph(t.g);
  BOOST_TEST(meta.collections.count(lookup::kSaveableObjects) == 0u);
}

BOOST_AUTO_TEST_CASE(a_tensorflow_checkpoint_of_tables_restores, *boost::unit_test::timeout(60)) {
  Tables t;
  af::train::Saver saver(t.g);
  // TensorFlow's restore ops, by name.
  BOOST_CHECK_NO_THROW(t.g.operation("save/vocab_counts_table_restore/LookupTableImportV2"));
  BOOST_CHECK_NO_THROW(t.g.operation("save/dense_table_restore/LookupTableImportV2"));
  af::Session s(t.g);
  saver.restore(s, kPrefix);
  BOOST_TEST(
      t.counts_of(s, {"cat", "dog", "the", "sat"}) == std::vector<std::int64_t>({2, -1, 7, 1}),
      boost::test_tools::per_element());
  BOOST_TEST(t.emb_of(s, {20, 10, 30}) == std::vector<float>({3, 4, 1, 2, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(t.dense_of(s, {11, 3, 4, 19}) == std::vector<float>({0.5f, 0.25f, -1, 0.75f}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(t.v.value()).to_vector<float>() == std::vector<float>({1.5f, -2.0f}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(saved_tables_have_tensorflows_keys_and_restore,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  const std::string path = (dir.path / "model").string();
  {
    Tables t;
    af::train::Saver saver(t.g);
    af::Session s(t.g);
    s.run(t.g.global_variables_initializer());
    s.run(lookup::lookup_table_insert(
        t.counts, t.g.constant(Tensor::from_vector(std::vector<std::string>{"a", "b"})),
        t.g.constant(Tensor::from_vector(std::vector<std::int64_t>{5, 6}))));
    s.run(lookup::lookup_table_insert(
        t.emb, t.g.constant(Tensor::from_vector(std::vector<std::int64_t>{4})),
        t.g.constant(Tensor::from_vector(std::vector<float>{8, 9}, Shape{1, 2}))));
    s.run(lookup::lookup_table_insert(
        t.dense, t.g.constant(Tensor::from_vector(std::vector<std::int64_t>{6})),
        t.g.constant(Tensor::from_vector(std::vector<float>{2.5f}))));
    saver.save(s, path);
  }
  // The keys TensorFlow's Saver writes for the same model.
  BOOST_TEST(keys_of(path) == keys_of(kPrefix), boost::test_tools::per_element());
  Tables fresh;
  af::train::Saver saver(fresh.g);
  af::Session s(fresh.g);
  saver.restore(s, path);
  BOOST_TEST(fresh.counts_of(s, {"b", "a", "c"}) == std::vector<std::int64_t>({6, 5, -1}),
             boost::test_tools::per_element());
  BOOST_TEST(fresh.emb_of(s, {4}) == std::vector<float>({8, 9}), boost::test_tools::per_element());
  BOOST_TEST(fresh.dense_of(s, {6, 7}) == std::vector<float>({2.5f, -1}),
             boost::test_tools::per_element());

  // A Saver of chosen variables and tables; the .meta it wrote restores through import.
  af::Graph g2;
  auto imported = af::train::import_meta_graph(g2, path + ".meta");
  BOOST_REQUIRE(imported);
  af::Session s2(g2);
  imported->restore(s2, path);
  const Output counts2 = g2.output("vocab_counts:0");
  BOOST_TEST(s2.run(lookup::lookup_table_size(counts2)).scalar<std::int64_t>() == 2);
}

BOOST_AUTO_TEST_CASE(tensorflows_meta_graph_of_tables_restores, *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, kPrefix + ".meta");
  BOOST_REQUIRE(saver);
  af::Session s(g);
  saver->restore(s, kPrefix);
  const Output counts = g.output("vocab_counts:0");
  const Output found = lookup::lookup_table_find(
      counts, g.constant(Tensor::from_vector(std::vector<std::string>{"the", "x"})),
      g.constant(std::int64_t{0}));
  BOOST_TEST(s.run(found).to_vector<std::int64_t>() == std::vector<std::int64_t>({7, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(table_names_must_be_unique_in_a_saver, *boost::unit_test::timeout(60)) {
  af::Graph g;
  lookup::mutable_hash_table(g, DType::int64, DType::int64);
  {
    auto scope = g.name_scope("other");
    lookup::mutable_hash_table(g, DType::int64, DType::int64);
  }
  // Both left at TensorFlow's default name: one checkpoint key for two tables.
  BOOST_TEST(af::test::contains(af::test::error_of([&] { af::train::Saver saver(g); }),
                                "At least two variables have the same name: MutableHashTable"));
  // Chosen tables only.
  std::vector<lookup::SaveableTable> one{
      std::any_cast<lookup::SaveableTable>(g.get_collection(lookup::kSaveableObjects)[1])};
  af::train::Saver saver(std::vector<af::Variable>{}, one);
  BOOST_CHECK_NO_THROW(g.operation("save/MutableHashTable_table_restore/LookupTableImportV2"));
}

BOOST_AUTO_TEST_SUITE_END()
