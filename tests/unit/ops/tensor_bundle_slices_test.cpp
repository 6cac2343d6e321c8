// White-box tests of tensors saved in slices (partitioned variables) in V2 checkpoints:
// TensorSlice and shape-and-slice specs, the OrderedCode slice keys, BundleWriter::add_slice,
// BundleReader::lookup_slice, merges, and the files real TensorFlow 2.21 wrote
// (tests/data/checkpoints/tf_partitioned, made by
// scripts/peers/make_partitioned_checkpoint_fixture.py).
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/tensor_bundle.hpp"
#include "actorflow/ops/tensor_slice.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using af::BundleReader;
using af::BundleWriter;
using af::DType;
using af::Shape;
using af::Tensor;
using af::TensorSlice;

const std::string kFixtureDir = ACTORFLOW_TEST_DATA_DIR + "/checkpoints/tf_partitioned";

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TensorSlice slice(const std::string& text) { return TensorSlice::parse(text).value(); }

// The fixture's values (make_partitioned_checkpoint_fixture.py's VALUES).
Tensor emb_values() {
  std::vector<float> v(40);
  std::iota(v.begin(), v.end(), 0.0f);
  return Tensor::from_vector(v, Shape{10, 4});
}
Tensor big_values() {
  std::vector<float> v(600);
  for (int i = 0; i < 600; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i) / 2;
  return Tensor::from_vector(v, Shape{200, 3});
}
Tensor ids_values() {
  std::vector<std::int64_t> v(7);
  for (int i = 0; i < 7; ++i) v[static_cast<std::size_t>(i)] = 1000 * i - 3;
  return Tensor::from_vector(v, Shape{7});
}
Tensor cols_values() {
  std::vector<float> v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 6; ++j) v.push_back(static_cast<float>(10 * i + j));
  return Tensor::from_vector(v, Shape{2, 6});
}

// Rows [begin, begin + n) of `full` along `axis`.
Tensor part_of(const Tensor& full, int axis, std::int64_t begin, std::int64_t n) {
  std::vector<std::int64_t> starts(static_cast<std::size_t>(full.rank()), 0);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(full.rank()),
                                    TensorSlice::kFullExtent);
  starts[static_cast<std::size_t>(axis)] = begin;
  lengths[static_cast<std::size_t>(axis)] = n;
  const TensorSlice want(starts, lengths);
  Tensor out(full.dtype(), want.slice_shape(full.shape()).value());
  BOOST_REQUIRE(af::copy_slice_data(full.shape(), TensorSlice(full.rank()), full, want, out));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_bundle_slices_test)

// TensorFlow's TensorSlice::Parse, DebugString, SliceTensorShape and Intersect, with its texts.
BOOST_AUTO_TEST_CASE(slice_specs_parse_print_and_fail_as_tensorflows) {
  const TensorSlice s = slice("4,3:-");
  BOOST_TEST(s.rank() == 2);
  BOOST_TEST(s.start(0) == 4);
  BOOST_TEST(s.length(0) == 3);
  BOOST_TEST(s.is_full_at(1));
  BOOST_TEST(s.to_string() == "4,3:-");
  BOOST_TEST(s.slice_shape(Shape{10, 4}).value().to_string() == "[3,4]");
  BOOST_TEST(slice("-:-").is_full());
  BOOST_TEST(TensorSlice::parse("").value().rank() == 0);

  BOOST_TEST(TensorSlice::parse("1,2:x").status().message() ==
             "Expected a pair of numbers or '-' but got 'x': string = 1,2:x");
  BOOST_TEST(TensorSlice::parse("-1,2").status().message() ==
             "Expected non-negative start and positive length but got start = -1, length = 2: "
             "string = -1,2");
  BOOST_TEST(TensorSlice::parse("0,0").status().message() ==
             "Expected non-negative start and positive length but got start = 0, length = 0: "
             "string = 0,0");
  BOOST_TEST(slice("8,4:-").slice_shape(Shape{10, 4}).status().message() ==
             "Extent in dimension 0 out of bounds: shape = [10,4], slice = 8,4:-");
  BOOST_TEST(slice("0,4").slice_shape(Shape{10, 4}).status().message() ==
             "Mismatching ranks: shape = [10,4], slice = 0,4");

  TensorSlice both;
  BOOST_TEST(slice("2,5:-").intersect(slice("4,3:0,4"), &both));
  BOOST_TEST(both.to_string() == "4,3:0,4");
  BOOST_TEST(!slice("0,4:-").intersect(slice("4,3:-"), &both));
  BOOST_TEST(!slice("0,4").intersect(slice("0,4:-"), nullptr));

  auto parsed = af::parse_shape_and_slice("10 4 4,3:0,4").value();
  BOOST_TEST(parsed.full_shape.to_string() == "[10,4]");
  BOOST_TEST(parsed.slice.to_string() == "4,3:0,4");
  BOOST_TEST(parsed.slice_shape.to_string() == "[3,4]");
  BOOST_TEST(af::parse_shape_and_slice("10").status().message() ==
             "Need least two elements in shape_and_slice specification: 10");
  BOOST_TEST(af::parse_shape_and_slice("10 x 0,4:-").status().message() ==
             "Non numerical dimension in shape_and_slice: 10 x 0,4:-");
  BOOST_TEST(af::parse_shape_and_slice("10 4 8,4:-").status().code() == af::Code::internal);
}

// checkpoint::EncodeTensorNameSlice in OrderedCode: sparse-notes Ex.5's keys, two-byte and
// longer numbers, whole dimensions, negative numbers and escaped name bytes.
BOOST_AUTO_TEST_CASE(slice_keys_are_tensorflows_ordered_code) {
  BOOST_TEST(hex(af::bundle_slice_key("emb", slice("0,4:0,4"))) ==
             "00 65 6d 62 00 01 01 02 80 84 80 84");
  BOOST_TEST(hex(af::bundle_slice_key("emb", slice("4,3:0,4"))) ==
             "00 65 6d 62 00 01 01 02 84 83 80 84");
  BOOST_TEST(hex(af::bundle_slice_key("emb", slice("7,3:-"))) ==
             "00 65 6d 62 00 01 01 02 87 83 80 7f");
  BOOST_TEST(hex(af::bundle_slice_key("big", slice("67,67:0,3"))) ==
             "00 62 69 67 00 01 01 02 c0 43 c0 43 80 83");
  BOOST_TEST(hex(af::bundle_slice_key("t", slice("1048576,63"))) ==
             "00 74 00 01 01 01 f0 10 00 00 bf");
  BOOST_TEST(hex(af::bundle_slice_key("t", TensorSlice({-65, -64}, {64, 8191}))) ==
             "00 74 00 01 01 02 3f bf c0 40 40 df ff");
  BOOST_TEST(hex(af::bundle_slice_key(std::string("a\0b\xff", 4), slice("0,1"))) ==
             "00 61 00 ff 62 ff 00 00 01 01 01 80 81");
  BOOST_TEST(hex(af::bundle_slice_key("s", TensorSlice())) == "00 73 00 01 00");
}

// The index of parts.ckpt as TensorFlow wrote it: one entry per full tensor listing its
// slices, the slices' keys hidden from the listing, and every tensor whole or in any slice.
BOOST_AUTO_TEST_CASE(tensorflows_partitioned_checkpoint_reads_whole_and_in_any_slices) {
  BundleReader reader(kFixtureDir + "/parts.ckpt");
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  std::vector<std::string> names;
  for (const auto& e : reader.entries()) names.push_back(e.name);
  BOOST_TEST(names == std::vector<std::string>({"big", "cols", "emb", "ids", "w"}),
             boost::test_tools::per_element());
  const auto emb = reader.lookup_dtype_and_shape("emb").value();
  BOOST_TEST(emb.partitioned);
  BOOST_TEST(emb.shape.to_string() == "[10,4]");
  BOOST_REQUIRE(emb.slices.size() == 3u);
  BOOST_TEST(emb.slices[0].to_string() == "0,4:0,4");
  BOOST_TEST(emb.slices[1].to_string() == "4,3:0,4");
  BOOST_TEST(emb.slices[2].to_string() == "7,3:0,4");
  BOOST_TEST(!reader.lookup_dtype_and_shape("w").value().partitioned);

  BOOST_TEST(reader.lookup("emb").value() == emb_values());
  BOOST_TEST(reader.lookup("big").value() == big_values());
  BOOST_TEST(reader.lookup("ids").value() == ids_values());
  BOOST_TEST(reader.lookup("cols").value() == cols_values());
  // Re-partitioned: 2 parts of 5 rows, 8 parts of 2 or 1, an unaligned window, columns.
  BOOST_TEST(reader.lookup_slice("emb", slice("0,5:0,4")).value() ==
             part_of(emb_values(), 0, 0, 5));
  BOOST_TEST(reader.lookup_slice("emb", slice("5,5:0,4")).value() ==
             part_of(emb_values(), 0, 5, 5));
  for (std::int64_t begin = 0; begin < 10; begin += 2)
    BOOST_TEST(reader.lookup_slice("emb", TensorSlice({begin, 0}, {2, 4})).value() ==
               part_of(emb_values(), 0, begin, 2));
  BOOST_TEST(reader.lookup_slice("emb", slice("3,6:1,2")).value().to_vector<float>() ==
                 std::vector<float>({13, 14, 17, 18, 21, 22, 25, 26, 29, 30, 33, 34}),
             boost::test_tools::per_element());
  BOOST_TEST(reader.lookup_slice("big", slice("60,80:-")).value() ==
             part_of(big_values(), 0, 60, 80));
  BOOST_TEST(reader.lookup_slice("cols", slice("-:1,4")).value() ==
             part_of(cols_values(), 1, 1, 4));
  BOOST_TEST(reader.lookup_slice("ids", slice("3,4")).value() == part_of(ids_values(), 0, 3, 4));
  // A whole tensor read in slices, and a slice of it.
  BOOST_TEST(reader.lookup_slice("w", slice("1,1")).value().to_vector<float>() ==
                 std::vector<float>({-2.0f}),
             boost::test_tools::per_element());

  BOOST_TEST(reader.lookup_slice("emb", slice("8,4:-")).status().message() ==
             "Does not have sufficient slices for partitioned tensor emb to restore in "
             "slice_spec: 8,4:-");
  BOOST_TEST(reader.lookup_slice("nope", slice("0,1")).status().message() ==
             "Key nope not found in checkpoint");
}

// BundleWriter::add_slice of the same tensors in the order TensorFlow's SaveV2 added them
// gives TensorFlow's files byte for byte.
BOOST_AUTO_TEST_CASE(rewriting_tensorflows_slices_gives_tensorflows_bytes) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "parts.ckpt").string();
  BundleWriter writer(prefix);
  auto add_parts = [&](const std::string& name, const Tensor& full, int axis,
                       const std::vector<std::int64_t>& sizes) {
    std::int64_t begin = 0;
    for (std::int64_t n : sizes) {
      std::vector<std::int64_t> starts(static_cast<std::size_t>(full.rank()), 0);
      std::vector<std::int64_t> lengths(full.shape().dims().begin(), full.shape().dims().end());
      starts[static_cast<std::size_t>(axis)] = begin;
      lengths[static_cast<std::size_t>(axis)] = n;
      BOOST_REQUIRE(writer
                        .add_slice(name, full.shape(), TensorSlice(starts, lengths),
                                   part_of(full, axis, begin, n))
                        .ok());
      begin += n;
    }
  };
  add_parts("big", big_values(), 0, {67, 67, 66});
  add_parts("cols", cols_values(), 1, {2, 2, 2});
  add_parts("emb", emb_values(), 0, {4, 3, 3});
  add_parts("ids", ids_values(), 0, {4, 3});
  BOOST_REQUIRE(writer.add("w", Tensor::from_vector(std::vector<float>{1.5f, -2.0f})).ok());
  BOOST_REQUIRE(writer.finish().ok());
  BOOST_TEST(read_bytes(prefix + ".index") == read_bytes(kFixtureDir + "/parts.ckpt.index"));
  BOOST_TEST(read_bytes(prefix + ".data-00000-of-00001") ==
             read_bytes(kFixtureDir + "/parts.ckpt.data-00000-of-00001"));
}

// Saver(sharded=True) in TensorFlow: parts 0 and 2 in one shard, part 1 in the other, the
// merged index listing all three. merge_bundles of actorflow's two shards gives its bytes.
BOOST_AUTO_TEST_CASE(merging_shards_unions_the_slices_as_tensorflow_does) {
  BundleReader tf_reader(kFixtureDir + "/sharded.ckpt");
  BOOST_REQUIRE_MESSAGE(tf_reader.status().ok(), tf_reader.status().to_string());
  BOOST_TEST(tf_reader.num_shards() == 2);
  BOOST_TEST(tf_reader.lookup("emb").value() == emb_values());

  af::test::TempDir dir;
  const std::string prefix = (dir.path / "sharded.ckpt").string();
  const std::string part0 = prefix + "_temp/part-00000-of-00002";
  const std::string part1 = prefix + "_temp/part-00001-of-00002";
  {
    BundleWriter w0(part0);
    BOOST_REQUIRE(
        w0.add_slice("emb", Shape{10, 4}, slice("0,4:0,4"), part_of(emb_values(), 0, 0, 4)).ok());
    BOOST_REQUIRE(
        w0.add_slice("emb", Shape{10, 4}, slice("7,3:0,4"), part_of(emb_values(), 0, 7, 3)).ok());
    BOOST_REQUIRE(w0.finish().ok());
    BundleWriter w1(part1);
    BOOST_REQUIRE(
        w1.add_slice("emb", Shape{10, 4}, slice("4,3:0,4"), part_of(emb_values(), 0, 4, 3)).ok());
    BOOST_REQUIRE(w1.finish().ok());
  }
  BOOST_REQUIRE(af::merge_bundles({part0, part1}, prefix, true).ok());
  for (const char* suffix : {".index", ".data-00000-of-00002", ".data-00001-of-00002"})
    BOOST_TEST(read_bytes(prefix + suffix) == read_bytes(kFixtureDir + "/sharded.ckpt" + suffix),
               suffix);
}

// What add_slice refuses, and an index whose slices overlap.
BOOST_AUTO_TEST_CASE(add_slice_refuses_what_does_not_fit_and_duplicates) {
  af::test::TempDir dir;
  {
    BundleWriter w((dir.path / "a").string());
    const Tensor rows = part_of(emb_values(), 0, 0, 4);
    BOOST_TEST(w.add_slice("emb", Shape{10, 4}, slice("0,5:-"), rows).message() ==
               "Slice 0,5:- of tensor emb of shape [10,4] has shape [5,4] but the tensor to save "
               "has shape [4,4]");
    BOOST_TEST(w.add_slice("emb", Shape{10, 4}, slice("8,4:-"), rows).message() ==
               "Slice 8,4:- of tensor emb: Extent in dimension 0 out of bounds: shape = [10,4], "
               "slice = 8,4:-");
    BOOST_REQUIRE(w.add_slice("emb", Shape{10, 4}, slice("0,4:-"), rows).ok());
    BOOST_TEST(w.add_slice("emb", Shape{12, 4}, slice("4,4:-"), rows).message() ==
               "Slice 4,4:- of tensor emb names the full shape [12,4] but the slices added "
               "before name [10,4]");
    BOOST_TEST(w.add_slice("emb", Shape{10, 4}, slice("4,1:-"),
                           Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, Shape{1, 4}))
                   .message() ==
               "Slice 4,1:- of tensor emb has dtype float64 but the slices added before have "
               "float32");
    BOOST_TEST(w.add_slice("emb", Shape{10, 4}, slice("0,4:-"), rows).message() ==
               "Adding duplicate slice 0,4:- of emb");
  }
  {
    BundleWriter w((dir.path / "b").string());
    BOOST_REQUIRE(w.add("emb", emb_values()).ok());
    BOOST_TEST(w.add_slice("emb", Shape{10, 4}, slice("0,4:-"), part_of(emb_values(), 0, 0, 4))
                   .message() == "Adding duplicate key: emb");
  }
  {
    // A slice of the whole tensor is a plain entry.
    BundleWriter w((dir.path / "c").string());
    BOOST_REQUIRE(w.add_slice("emb", Shape{10, 4}, slice("0,10:0,4"), emb_values()).ok());
    BOOST_REQUIRE(w.finish().ok());
    BundleReader r((dir.path / "c").string());
    BOOST_TEST(!r.lookup_dtype_and_shape("emb").value().partitioned);
    BOOST_TEST(r.lookup("emb").value() == emb_values());
  }
  {
    // TensorFlow's writer does not look for overlaps; its reader refuses them.
    BundleWriter w((dir.path / "d").string());
    BOOST_REQUIRE(
        w.add_slice("emb", Shape{10, 4}, slice("0,6:-"), part_of(emb_values(), 0, 0, 6)).ok());
    BOOST_REQUIRE(
        w.add_slice("emb", Shape{10, 4}, slice("4,6:-"), part_of(emb_values(), 0, 4, 6)).ok());
    BOOST_REQUIRE(w.finish().ok());
    BundleReader r((dir.path / "d").string());
    auto got = r.lookup("emb");
    BOOST_TEST(got.status().code() == af::Code::invalid_argument);
    BOOST_TEST(got.status().message().find("Overlapping slices: existing slice = 0,6:-, new slice "
                                           "= 4,6:-") == 0u,
               got.status().message());
  }
}

// Strings and rank 3: the overlap copy works on any dtype and rank.
BOOST_AUTO_TEST_CASE(string_and_rank_three_tensors_round_trip_in_slices) {
  af::test::TempDir dir;
  std::vector<std::string> words;
  for (int i = 0; i < 6; ++i)
    words.push_back(std::string(static_cast<std::size_t>(i) * 7, 'a' + i));
  const Tensor vocab = Tensor::from_vector(words, Shape{6});
  std::vector<std::int32_t> cube(2 * 3 * 4);
  std::iota(cube.begin(), cube.end(), 0);
  const Tensor t3 = Tensor::from_vector(cube, Shape{2, 3, 4});
  const std::string prefix = (dir.path / "s").string();
  {
    BundleWriter w(prefix);
    BOOST_REQUIRE(w.add_slice("vocab", Shape{6}, slice("0,2"), part_of(vocab, 0, 0, 2)).ok());
    BOOST_REQUIRE(w.add_slice("vocab", Shape{6}, slice("2,4"), part_of(vocab, 0, 2, 4)).ok());
    BOOST_REQUIRE(w.add_slice("t3", Shape{2, 3, 4}, slice("-:0,2:-"), part_of(t3, 1, 0, 2)).ok());
    BOOST_REQUIRE(w.add_slice("t3", Shape{2, 3, 4}, slice("-:2,1:-"), part_of(t3, 1, 2, 1)).ok());
    BOOST_REQUIRE(w.finish().ok());
  }
  BundleReader r(prefix);
  BOOST_TEST(r.lookup("vocab").value() == vocab);
  BOOST_TEST(r.lookup_slice("vocab", slice("1,3")).value() == part_of(vocab, 0, 1, 3));
  BOOST_TEST(r.lookup("t3").value() == t3);
  BOOST_TEST(r.lookup_slice("t3", slice("1,1:1,2:1,2")).value().to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({17, 18, 21, 22}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
