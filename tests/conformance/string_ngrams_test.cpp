// StringNGrams against TensorFlow: tests/data/tf_ngrams (scripts/peers/make_ngram_fixtures.py)
// holds what TensorFlow's kernel gives for sequences of several lengths (empty and short ones),
// widths, fixed, dynamic and clamped pads, separators, short sequences kept, int32 and int64
// splits, and the errors it raises; `af::string_ngrams` built here gives the same. So does
// `af::unsorted_segment_join` for what TensorFlow's UnsortedSegmentJoin gave.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/string_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_test_util.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_ngrams";

Tensor splits_tensor(const std::vector<std::int64_t>& v, const std::string& dtype) {
  const Shape shape{static_cast<std::int64_t>(v.size())};
  if (dtype == "int64") return Tensor::from_vector(v, shape);
  return Tensor::from_vector(std::vector<std::int32_t>(v.begin(), v.end()), shape);
}

std::vector<std::int64_t> as_int64(const Tensor& t) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < t.num_elements(); ++i)
    out.push_back(t.dtype() == DType::int64 ? t.data<std::int64_t>()[i]
                                            : t.data<std::int32_t>()[i]);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(string_ngrams_test)

BOOST_AUTO_TEST_CASE(ngrams_and_errors_are_tensorflows, *boost::unit_test::timeout(60)) {
  std::ifstream in(dir / "reference.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  BOOST_REQUIRE_EQUAL(ref["cases"].size(), 11u);
  for (const auto& c : ref["cases"]) {
    BOOST_TEST_CONTEXT(c["name"].get<std::string>()) {
      af::Graph g;
      const auto words = c["data"].get<std::vector<std::string>>();
      const Output data = g.constant(
          Tensor::from_vector(words, Shape{static_cast<std::int64_t>(words.size())}), "data");
      const std::string stype = c["splits_dtype"].get<std::string>();
      const Output splits =
          g.constant(splits_tensor(c["splits"].get<std::vector<std::int64_t>>(), stype), "splits");
      const auto& a = c["attrs"];
      af::StringNGramsOptions options;
      options.ngram_widths = a["ngram_widths"].get<std::vector<std::int64_t>>();
      options.separator = a["separator"].get<std::string>();
      options.left_pad = a["left_pad"].get<std::string>();
      options.right_pad = a["right_pad"].get<std::string>();
      options.pad_width = a["pad_width"].get<std::int64_t>();
      options.preserve_short_sequences = a["preserve_short_sequences"].get<bool>();
      const af::StringNGramsOutputs out = af::string_ngrams(data, splits, options);
      BOOST_TEST(out.ngrams_splits.dtype() == (stype == "int64" ? DType::int64 : DType::int32));
      af::Session sess(g);
      if (c.contains("error")) {
        af::test::fails_with(sess, out.ngrams, c["error"].get<std::string>());
        continue;
      }
      const std::vector<Tensor> got = sess.run({out.ngrams, out.ngrams_splits});
      const auto want = c["ngrams"].get<std::vector<std::string>>();
      BOOST_REQUIRE_EQUAL(got[0].num_elements(), static_cast<std::int64_t>(want.size()));
      for (std::size_t i = 0; i < want.size(); ++i)
        BOOST_TEST(got[0].data<std::string>()[i] == want[i]);
      BOOST_TEST(as_int64(got[1]) == c["ngrams_splits"].get<std::vector<std::int64_t>>(),
                 boost::test_tools::per_element());
    }
  }
}

// UnsortedSegmentJoin: vectors and matrices, ids of rank 1 and 2, empty segments and strings
// (TensorFlow's separator rule), int32 and int64 ids and counts, and its errors.
BOOST_AUTO_TEST_CASE(unsorted_segment_join_is_tensorflows, *boost::unit_test::timeout(60)) {
  std::ifstream in(dir / "segment_join.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  for (const auto& c : ref["cases"]) {
    BOOST_TEST_CONTEXT(c["name"].get<std::string>()) {
      af::Graph g;
      // The strings, flat, with the JSON's nesting as their shape.
      std::vector<std::string> flat;
      std::vector<std::int64_t> dims{static_cast<std::int64_t>(c["inputs"].size())};
      for (const auto& row : c["inputs"]) {
        if (row.is_string()) {
          flat.push_back(row.get<std::string>());
          continue;
        }
        if (dims.size() == 1) dims.push_back(static_cast<std::int64_t>(row.size()));
        for (const auto& x : row) flat.push_back(x.get<std::string>());
      }
      const Output inputs = g.constant(Tensor::from_vector(flat, Shape{dims}), "inputs");
      std::vector<std::int64_t> ids, id_dims{static_cast<std::int64_t>(c["segment_ids"].size())};
      for (const auto& row : c["segment_ids"]) {
        if (row.is_number()) {
          ids.push_back(row.get<std::int64_t>());
          continue;
        }
        if (id_dims.size() == 1) id_dims.push_back(static_cast<std::int64_t>(row.size()));
        for (const auto& x : row) ids.push_back(x.get<std::int64_t>());
      }
      const Tensor id_tensor =
          c["ids_dtype"] == "int64"
              ? Tensor::from_vector(ids, Shape{id_dims})
              : Tensor::from_vector(std::vector<std::int32_t>(ids.begin(), ids.end()),
                                    Shape{id_dims});
      const std::int64_t n = c["num_segments"].get<std::int64_t>();
      const Tensor n_tensor =
          c["num_segments_dtype"] == "int64" ? Tensor(n) : Tensor(static_cast<std::int32_t>(n));
      // Ids out of range pass the shape function only as placeholders: feed them.
      const Output id_input = g.placeholder(id_tensor.dtype(), af::PartialShape::unknown(), "ids");
      const Output out = af::unsorted_segment_join(inputs, id_input, g.constant(n_tensor, "n"),
                                                   c["separator"].get<std::string>());
      af::Session sess(g);
      if (c.contains("error")) {
        af::test::fails_with(sess, out, c["error"].get<std::string>(), {{id_input, id_tensor}});
        continue;
      }
      const Tensor got = sess.run(out, {{id_input, id_tensor}});
      BOOST_TEST(got.shape().dims() == c["shape"].get<std::vector<std::int64_t>>(),
                 boost::test_tools::per_element());
      const auto want = c["output"].get<std::vector<std::string>>();
      BOOST_REQUIRE_EQUAL(got.num_elements(), static_cast<std::int64_t>(want.size()));
      for (std::size_t i = 0; i < want.size(); ++i)
        BOOST_TEST(got.data<std::string>()[i] == want[i]);
    }
  }
  // The builder: a static shape from a constant count, the count's Const under the op.
  af::Graph g;
  const Output x = g.placeholder(DType::string, af::PartialShape{-1, 3}, "x");
  const Output ids = g.placeholder(DType::int32, af::PartialShape{-1}, "ids");
  const Output joined = af::unsorted_segment_join(x, ids, 4, " ");
  BOOST_TEST(joined.shape().to_string() == "(4, 3)");
  BOOST_TEST(joined.node()->inputs()[2].node()->name() == "UnsortedSegmentJoin/num_segments");
}

BOOST_AUTO_TEST_SUITE_END()
