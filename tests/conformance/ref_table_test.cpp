// TensorFlow's first lookup-table ops, whose handles are Ref(string) where the V2 ops' are
// resources (HashTable, MutableHashTable, MutableHashTableOfTensors, InitializeTable,
// InitializeTableFromTextFile, LookupTableFind, LookupTableInsert, LookupTableImport,
// LookupTableSize, LookupTableExport), as GraphDefs written before the V2 ops hold them:
// tests/data/tf_ref_tables (scripts/peers/make_ref_table_fixtures.py) is TensorFlow's graph of
// them with the values and errors a sequence of session runs gave, imported and run here to
// them (the vocabulary file written again in a temporary directory).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"
#include "temp_dir.hpp"

namespace {

using af::Shape;
using af::Tensor;

}  // namespace

BOOST_AUTO_TEST_SUITE(ref_table_test)

// The tables' values, defaults and sizes, a text-file initialization, inserts and an import,
// and TensorFlow's errors (an uninitialized table, values of the wrong shape).
BOOST_AUTO_TEST_CASE(tensorflows_ref_tables_give_its_values, *boost::unit_test::timeout(60)) {
  af::test::TempDir tmp("af_ref_tables");
  const std::string vocab = (tmp.path / "vocab.txt").string();
  std::ofstream(vocab) << "emerson\nlake\npalmer\n";
  const auto feed_of = [&](const std::string& name, const nlohmann::json& v) -> Tensor {
    if (name == "vocab") return Tensor(vocab);
    const auto n = static_cast<std::int64_t>(v.size());
    if (name == "keys") return Tensor::from_vector(v.get<std::vector<std::string>>(), Shape{n});
    if (name == "ids") return Tensor::from_vector(v.get<std::vector<std::int64_t>>(), Shape{n});
    if (name == "floats") return Tensor::from_vector(v.get<std::vector<float>>(), Shape{n});
    std::vector<std::int64_t> flat;  // pairs: rows of int64
    for (const auto& row : v)
      for (const auto& x : row) flat.push_back(x.get<std::int64_t>());
    return Tensor::from_vector(flat, Shape{n, n == 0 ? 0 : static_cast<std::int64_t>(v[0].size())});
  };
  af::test::replay_fixture(
      "tf_ref_tables", "graph.pb", "reference.json",
      {"HashTable", "MutableHashTable", "MutableHashTableOfTensors", "InitializeTable",
       "InitializeTableFromTextFile", "LookupTableFind", "LookupTableInsert", "LookupTableImport",
       "LookupTableSize", "LookupTableExport"},
      feed_of);
}

BOOST_AUTO_TEST_SUITE_END()
