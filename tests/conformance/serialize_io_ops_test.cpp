// Whole files, fingerprints, raw and compressed bytes, TensorProto bytes and SparseTensors as
// strings or behind handles, through their builders: ReadFile, WriteFile and MatchingFiles in
// a temporary directory, Fingerprint, DecodePaddedRaw, DecodeCompressed, SerializeTensor,
// ParseTensor, (De)Serialize(Many)Sparse and the SparseTensorsMap ops. Expected bytes, values
// and messages are what TensorFlow 2.21 gave for the same graphs (tf.raw_ops under
// tf.compat.v1 sessions). The fixture comparison of the deterministic cases is tests/data/
// tf_ops, built by scripts/peers/op_cases_serialize_io.py.
#include "actorflow/ops/serialize_io_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::contains;
using af::test::error_of;
using namespace std::string_literals;
using Strings = std::vector<std::string>;
using Int64s = std::vector<std::int64_t>;

Output strs(af::Graph& g, const Strings& v, std::optional<Shape> shape = {}) {
  return g.constant(Tensor::from_vector(v, shape));
}
Output int64s(af::Graph& g, const Int64s& v, std::optional<Shape> shape = {}) {
  return g.constant(Tensor::from_vector(v, shape));
}
Output floats(af::Graph& g, const std::vector<float>& v, std::optional<Shape> shape = {}) {
  return g.constant(Tensor::from_vector(v, shape));
}

std::string read_back(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rows of a uint8 [N, 8] fingerprint.
std::vector<std::vector<int>> rows_of(const Tensor& t) {
  std::vector<std::vector<int>> rows;
  for (std::int64_t i = 0; i < t.shape().dim(0); ++i) {
    rows.emplace_back();
    for (int k = 0; k < 8; ++k) rows.back().push_back(t.data<std::uint8_t>()[i * 8 + k]);
  }
  return rows;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(serialize_io_ops_test)

// -- files ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(write_file_makes_missing_directories_and_read_file_reads_it_back,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir("af_serialize_io");
  const std::string nested = (dir.path / "x" / "y" / "z.bin").string();
  af::Graph g;
  const auto write =
      af::io::write_file(g.constant(Tensor(nested)), g.constant(Tensor("bytes\0and more"s)));
  BOOST_TEST(write.type() == "WriteFile");
  // Through "file://", "." and ".." resolved by name, as TensorFlow's CleanPath does.
  const Output read = af::io::read_file(
      g.constant(Tensor("file://" + (dir.path / "x" / "." / "q" / ".." / "y" / "z.bin").string())));
  BOOST_TEST(read.shape() == af::PartialShape{});
  af::Session s(g);
  s.run(write);
  BOOST_TEST(read_back(nested) == "bytes\0and more"s);
  BOOST_TEST(s.run(read).scalar<std::string>() == "bytes\0and more"s);
  // Written again: truncated, not appended.
  af::Graph g2;
  af::Session s2(g2);
  s2.run(af::io::write_file(g2.constant(Tensor(nested)), g2.constant(Tensor("short"))));
  BOOST_TEST(read_back(nested) == "short");
}

BOOST_AUTO_TEST_CASE(file_errors_are_the_posix_file_systems, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir("af_serialize_io");
  const std::string file = dir.write("a.txt", "x");
  const std::string missing = (dir.path / "missing.txt").string();
  af::Graph g;
  const Output read_missing = af::io::read_file(g.constant(Tensor(missing)));
  const Output read_dir = af::io::read_file(g.constant(Tensor(dir.path.string())));
  const Output read_scheme = af::io::read_file(g.constant(Tensor("foo://bucket/x")));
  const auto under_file =
      af::io::write_file(g.constant(Tensor(file + "/x.txt")), g.constant(Tensor("q")));
  const auto deep_under_file =
      af::io::write_file(g.constant(Tensor(file + "/y/x.txt")), g.constant(Tensor("q")));
  af::Session s(g);
  BOOST_TEST(contains(error_of<af::NotFoundError>([&] { s.run(read_missing); }),
                      missing + "; No such file or directory"));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { s.run(read_dir); }),
                      dir.path.string() + "; Is a directory"));
  BOOST_TEST(contains(error_of<af::UnimplementedError>([&] { s.run(read_scheme); }),
                      "File system scheme 'foo' not implemented (file: 'foo://bucket/x')"));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { s.run(under_file); }),
                      file + "/x.txt; Not a directory"));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { s.run(deep_under_file); }),
                      file + " is not a directory"));
  // Scalars only: the shape functions, and the kernels for inputs of unknown shape.
  BOOST_TEST(contains(af::test::construction_error([&] {
                        af::io::read_file(strs(g, {"a", "b"}));
                      }),
                      "Shape must be rank 0 but is rank 1"));
  BOOST_TEST(contains(af::test::construction_error(
                          [&] { af::io::write_file(g.constant(Tensor("a")), strs(g, {"a"})); }),
                      "Shape must be rank 0 but is rank 1"));
  const Output names = g.placeholder(DType::string);
  const Output contents = g.placeholder(DType::string);
  const auto write_any = af::io::write_file(names, contents);
  af::Session s2(g);
  BOOST_TEST(
      contains(error_of<af::InvalidArgumentError>([&] {
                 s2.run(af::io::read_file(names), {{names, Tensor::from_vector(Strings{"a"})}});
               }),
               "Input filename tensor must be scalar, but had shape: [1]"));
  BOOST_TEST(contains(
      error_of<af::InvalidArgumentError>([&] {
        s2.run(write_any, {{names, Tensor(file)}, {contents, Tensor::from_vector(Strings{"a"})}});
      }),
      "Contents tensor must be scalar, but had shape: [1]"));
}

BOOST_AUTO_TEST_CASE(matching_files_globs_directory_by_directory_and_sorts,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir("af_serialize_io");
  const std::string d = dir.path.string();
  dir.write("a.txt", "x");
  dir.write(".h.txt", "x");
  dir.write("b.csv", "x");
  std::filesystem::create_directories(dir.path / "sub");
  dir.write("sub/c.txt", "x");
  af::Graph g;
  auto match = [&](const Strings& patterns) {
    af::Session s(g);
    return s.run(af::io::matching_files(strs(g, patterns))).to_vector<std::string>();
  };
  // Hidden files match "*"; directories are matched too.
  BOOST_TEST(match({d + "/*"}) == (Strings{d + "/.h.txt", d + "/a.txt", d + "/b.csv", d + "/sub"}),
             boost::test_tools::per_element());
  BOOST_TEST(match({d + "/[ab].t?t", d + "/*/*.txt", d + "/nothing*", ""}) ==
                 (Strings{d + "/a.txt", d + "/sub/c.txt"}),
             boost::test_tools::per_element());
  // Without globbing characters a path matches itself, as written; a trailing '/' globs the
  // directories.
  BOOST_TEST(match({d + "/sub/", d + "/missing"}) == (Strings{d + "/sub/"}),
             boost::test_tools::per_element());
  BOOST_TEST(match({d + "/s*/"}) == (Strings{d + "/sub"}), boost::test_tools::per_element());
  BOOST_TEST(match({"file://" + d + "/*.csv"}) == (Strings{"file://" + d + "/b.csv"}),
             boost::test_tools::per_element());
  BOOST_TEST(match({d + "/a.txt/*"}).empty());
  af::Session s(g);
  const Output scalar = af::io::matching_files(g.constant(Tensor(d + "/*.csv")));
  BOOST_TEST(scalar.shape() == (af::PartialShape{-1}));
  BOOST_TEST(s.run(scalar).to_vector<std::string>() == (Strings{d + "/b.csv"}),
             boost::test_tools::per_element());
  BOOST_TEST(contains(af::test::construction_error([&] {
                        af::io::matching_files(strs(g, {"a"}, Shape{1, 1}));
                      }),
                      "Shape must be at most rank 1 but is rank 2"));
}

// -- bytes ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(fingerprint_is_farmhash64_little_endian, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output f = af::fingerprint(strs(g, {"abc", ""}));
  BOOST_TEST(f.dtype() == DType::uint8);
  BOOST_TEST(f.shape() == (af::PartialShape{2, 8}));
  BOOST_TEST(f.node()->def().inputs.at(1) == "Fingerprint/method");
  af::Session s(g);
  BOOST_TEST(
      (rows_of(s.run(f)) == std::vector<std::vector<int>>{{105, 243, 231, 116, 160, 179, 165, 36},
                                                          {79, 64, 144, 47, 59, 106, 225, 154}}));
  // Rows of no bytes fingerprint as "".
  const Output empty = af::fingerprint(g.constant(Tensor(DType::float32, Shape{2, 0})));
  BOOST_TEST((rows_of(s.run(empty)) ==
              std::vector<std::vector<int>>{{79, 64, 144, 47, 59, 106, 225, 154},
                                            {79, 64, 144, 47, 59, 106, 225, 154}}));
  BOOST_TEST(contains(af::test::construction_error([&] { af::fingerprint(strs(g, {"a"}), "md5"); }),
                      "Unsupported method: md5"));
  BOOST_TEST(
      contains(af::test::construction_error([&] { af::fingerprint(g.constant(Tensor(1.0f))); }),
               "Shape must be at least rank 1 but is rank 0"));
  const Output method = g.placeholder(DType::string);
  const Output data = g.placeholder(DType::string);
  const Output dynamic =
      g.create_op("Fingerprint", {data, method}, {{"T", DType::string}}).output(0);
  BOOST_TEST(dynamic.shape() == af::PartialShape::unknown_of_rank(2));
  af::Session s2(g);
  const Tensor abc = Tensor::from_vector(Strings{"abc"});
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s2.run(dynamic, {{data, abc}, {method, Tensor("md5")}});
                      }),
                      "Unsupported fingerprint method: md5"));
  BOOST_TEST(contains(
      error_of<af::InvalidArgumentError>([&] {
        s2.run(dynamic, {{data, abc}, {method, Tensor::from_vector(Strings{"farmhash64"})}});
      }),
      "`method` should be a scalar string: [1]"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s2.run(dynamic, {{data, Tensor("abc")}, {method, Tensor("farmhash64")}});
                      }),
                      "`data` should have at least one dimension: []"));
}

BOOST_AUTO_TEST_CASE(decode_padded_raw_pads_short_strings_with_zeros,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output bytes = strs(g, {"\x01\x02\x03"s, "\x01\x02\x03\x04\x05\x06\x07"s});
  const Output little = af::io::decode_padded_raw(bytes, 8, DType::int32);
  const Output big = af::io::decode_padded_raw(bytes, 8, DType::int32, /*little_endian=*/false);
  BOOST_TEST(little.shape() == (af::PartialShape{2, 2}));
  BOOST_TEST(little.node()->def().inputs.at(1) == "DecodePaddedRaw/fixed_length");
  af::Session s(g);
  BOOST_TEST(s.run(little).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{0x030201, 0, 0x04030201, 0x070605}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(big).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{0x01020300, 0, 0x01020304, 0x05060700}),
             boost::test_tools::per_element());
  BOOST_TEST(contains(
      af::test::construction_error([&] { af::io::decode_padded_raw(bytes, 6, DType::int32); }),
      "Dimension size must be evenly divisible by 4 but is 6"));
  BOOST_TEST(contains(
      af::test::construction_error([&] { af::io::decode_padded_raw(bytes, 8, DType::boolean); }),
      "Value for attr 'out_type' of bool is not in the list of allowed values"));
  const Output length = g.placeholder(DType::int32);
  const Output dynamic = af::io::decode_padded_raw(bytes, length, DType::int32);
  af::Session s2(g);
  auto run_with = [&](const Tensor& n) { s2.run(dynamic, {{length, n}}); };
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { run_with(Tensor(6)); }),
                      "fixed_length (6) must be a multiple of the size of out_type (4)"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { run_with(Tensor(-4)); }),
                      "fixed_length (-4) must be greater than zero."));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { run_with(Tensor(-3)); }),
                      "fixed_length (-3) must be a multiple of the size of out_type (4)"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>(
                          [&] { run_with(Tensor::from_vector(std::vector<std::int32_t>{4})); }),
                      "k must be scalar, got shape [1]"));
}

BOOST_AUTO_TEST_CASE(decode_compressed_inflates_zlib_and_gzip, *boost::unit_test::timeout(60)) {
  // zlib.compress(b"hello hello hello") and gzip.compress(b"gz!", mtime=0).
  const std::string z = "\x78\x9c\xcb\x48\xcd\xc9\xc9\x57\xc8\x40\x90\x00\x3a\x2e\x06\x7d"s;
  const std::string gz =
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x4b\xaf\x52\x04\x00\x95\x85\x60\x2b\x03\x00\x00\x00"s;
  af::Graph g;
  const Output zlib =
      af::io::decode_compressed(strs(g, {z, "", z + "trailing"}, Shape{3, 1}), "ZLIB");
  const Output gzip = af::io::decode_compressed(strs(g, {gz + gz}), "GZIP");
  const Output none = af::io::decode_compressed(strs(g, {z}));
  const Output garbage = af::io::decode_compressed(strs(g, {"garbage"}), "ZLIB");
  const Output gzip_tail = af::io::decode_compressed(strs(g, {gz + "zz"}), "GZIP");
  const Output unknown = af::io::decode_compressed(strs(g, {z}), "LZ4");
  BOOST_TEST(zlib.shape() == (af::PartialShape{3, 1}));
  af::Session s(g);
  BOOST_TEST(s.run(zlib).to_vector<std::string>() ==
                 (Strings{"hello hello hello", "", "hello hello hello"}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(gzip).to_vector<std::string>() == (Strings{"gz!gz!"}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(none).to_vector<std::string>() == (Strings{z}),
             boost::test_tools::per_element());
  // Truncated input gives what it holds.
  af::Graph g2;
  const Output cut = af::io::decode_compressed(strs(g2, {gz.substr(0, gz.size() - 8)}), "GZIP");
  af::Session s2(g2);
  BOOST_TEST(s2.run(cut).to_vector<std::string>() == (Strings{"gz!"}),
             boost::test_tools::per_element());
  BOOST_TEST(contains(error_of<af::DataLossError>([&] { s.run(garbage); }),
                      "inflate() failed with error -3: incorrect header check"));
  BOOST_TEST(contains(error_of<af::DataLossError>([&] { s.run(gzip_tail); }),
                      "inflate() failed with error -3: incorrect header check"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(unknown); }),
                      "Only ZLIB, ZSTD, GZIP or NONE are supported compressions"));
}

// -- TensorProtos ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(serialize_tensor_writes_tensorflows_bytes, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output scalar = af::io::serialize_tensor(g.constant(Tensor(3.0f)));
  const Output strings = af::io::serialize_tensor(strs(g, {"a", "bc"}));
  Tensor flags(DType::boolean, Shape{2});
  flags.data<bool>()[0] = true;
  const Output bools = af::io::serialize_tensor(g.constant(flags));
  const Output empty = af::io::serialize_tensor(g.constant(Tensor(DType::int64, Shape{0, 2})));
  BOOST_TEST(scalar.shape() == af::PartialShape{});
  af::Session s(g);
  BOOST_TEST(s.run(scalar).scalar<std::string>() == "\x08\x01\x12\x00\x22\x04\x00\x00\x40\x40"s);
  BOOST_TEST(s.run(strings).scalar<std::string>() ==
             "\x08\x07\x12\x04\x12\x02\x08\x02\x42\x01"s + "a\x42\x02" + "bc");
  BOOST_TEST(s.run(bools).scalar<std::string>() ==
             "\x08\x0a\x12\x04\x12\x02\x08\x02\x22\x02\x01\x00"s);
  BOOST_TEST(s.run(empty).scalar<std::string>() == "\x08\x09\x12\x06\x12\x00\x12\x02\x08\x02"s);
}

BOOST_AUTO_TEST_CASE(parse_tensor_reads_tensor_content_and_typed_fields,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = floats(g, {1.5f, -2.0f, 0.25f}, Shape{3, 1});
  const Output back = af::io::parse_tensor(af::io::serialize_tensor(x), DType::float32);
  BOOST_TEST(!back.shape().rank_known());
  // float_val {7} for a [2, 2]: the last value repeats.
  const Output splat = af::io::parse_tensor(
      g.constant(
          Tensor("\x08\x01\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02\x2a\x04\x00\x00\xe0\x40"s)),
      DType::float32);
  af::Session s(g);
  const Tensor t = s.run(back);
  BOOST_TEST(t.shape() == (Shape{3, 1}));
  BOOST_TEST(t.to_vector<float>() == (std::vector<float>{1.5f, -2.0f, 0.25f}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(splat).to_vector<float>() == (std::vector<float>{7, 7, 7, 7}),
             boost::test_tools::per_element());
  const Output serialized = g.placeholder(DType::string);
  const Output parsed = af::io::parse_tensor(serialized, DType::float32);
  af::Session s2(g);
  auto parse = [&](const Tensor& v) { s2.run(parsed, {{serialized, v}}); };
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { parse(Tensor("\xff\xff"s)); }),
                      "Could not parse `serialized` as TensorProto, base64: //8="));
  BOOST_TEST(contains(
      error_of<af::InvalidArgumentError>([&] { parse(Tensor::from_vector(Strings{"a"})); }),
      "Expected `serialized` to be a scalar, got shape: [1]"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { parse(Tensor(""s)); }),
                      "Cannot parse tensor from proto: "));
  // Three bytes of tensor_content for two floats.
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        parse(Tensor("\x08\x01\x12\x04\x12\x02\x08\x02\x22\x03\x00\x00\x00"s));
                      }),
                      "Cannot parse tensor from proto: "));
  const std::string int32_scalar = "\x08\x03\x12\x00\x22\x04\x05\x00\x00\x00"s;
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { parse(Tensor(int32_scalar)); }),
                      "Type mismatch between parsed tensor (int32) and dtype (float)"));
  // A half tensor: valid for TensorFlow, of a dtype actorflow lacks.
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>(
                          [&] { parse(Tensor("\x08\x13\x12\x04\x12\x02\x08\x01\x6a\x01\x01"s)); }),
                      "Type mismatch between parsed tensor (half) and dtype (float)"));
}

// -- SparseTensors as strings ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(serialize_sparse_writes_three_tensor_protos, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::SparseTensor sp{int64s(g, {0, 1}, Shape{1, 2}), strs(g, {"ab"}), int64s(g, {2, 3})};
  const Output ser = af::serialize_sparse(sp);
  BOOST_TEST(ser.shape() == (af::PartialShape{3}));
  af::Session s(g);
  const Strings rows = s.run(ser).to_vector<std::string>();
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0] == "\x08\x09\x12\x08\x12\x02\x08\x01\x12\x02\x08\x02\x22\x10"s +
                            std::string(8, '\0') + "\x01"s + std::string(7, '\0'));
  BOOST_TEST(rows[1] == "\x08\x07\x12\x04\x12\x02\x08\x01\x22\x03\x02"s + "ab");
  BOOST_TEST(rows[2] == "\x08\x09\x12\x04\x12\x02\x08\x02\x22\x10\x02"s + std::string(7, '\0') +
                            "\x03"s + std::string(7, '\0'));
  const af::SparseTensor back = af::deserialize_sparse(ser, DType::string);
  BOOST_TEST(s.run(back.values).to_vector<std::string>() == (Strings{"ab"}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(back.dense_shape).to_vector<std::int64_t>() == (Int64s{2, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(serialize_many_sparse_round_trips_with_empty_batch_entries,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::SparseTensor sp{int64s(g, {1, 0, 1, 2, 3, 1}, Shape{3, 2}),
                            floats(g, {1.5f, 2.5f, -1.0f}), int64s(g, {5, 4})};
  const Output ser = af::serialize_many_sparse(sp);
  BOOST_TEST(ser.shape() == (af::PartialShape{-1, 3}));
  const af::SparseTensor back = af::deserialize_many_sparse(ser, DType::float32);
  af::Session s(g);
  BOOST_TEST(s.run(ser).shape() == (Shape{5, 3}));
  BOOST_TEST(s.run(back.indices).to_vector<std::int64_t>() == (Int64s{1, 0, 1, 2, 3, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(back.values).to_vector<float>() == (std::vector<float>{1.5f, 2.5f, -1.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(back.dense_shape).to_vector<std::int64_t>() == (Int64s{5, 4}),
             boost::test_tools::per_element());
  // Several stacked: the new first dimension, the largest of each other one.
  const Output stacked =
      af::stack({af::serialize_sparse(af::SparseTensor{int64s(g, {0, 1}, Shape{1, 2}),
                                                       floats(g, {1.0f}), int64s(g, {1, 5})}),
                 af::serialize_sparse(af::SparseTensor{int64s(g, {2, 0}, Shape{1, 2}),
                                                       floats(g, {2.0f}), int64s(g, {3, 2})})});
  const af::SparseTensor both = af::deserialize_sparse(stacked, DType::float32);
  BOOST_TEST(s.run(both.indices).to_vector<std::int64_t>() == (Int64s{0, 0, 1, 1, 2, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(both.dense_shape).to_vector<std::int64_t>() == (Int64s{2, 3, 5}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(sparse_serialization_errors_are_tensorflows, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output ix = g.placeholder(DType::int64);
  const Output values = g.placeholder(DType::float32);
  const Output shape = g.placeholder(DType::int64);
  const Output one = af::serialize_sparse({ix, values, shape});
  const Output many = af::serialize_many_sparse({ix, values, shape});
  const Output serialized = g.placeholder(DType::string);
  const af::SparseTensor as_int = af::deserialize_sparse(serialized, DType::int32);
  af::Session s(g);
  auto run = [&](const Output& y, Int64s i, Shape ishape, std::vector<float> v, Int64s sh) {
    s.run(y, {{ix, Tensor::from_vector(i, ishape)},
              {values, Tensor::from_vector(v)},
              {shape, Tensor::from_vector(sh)}});
  };
  auto message = [&](auto f) { return error_of<af::InvalidArgumentError>(f); };
  BOOST_TEST(contains(message([&] { run(one, {1}, Shape{1}, {1}, {2}); }),
                      "Input indices should be a matrix but received shape [1]"));
  BOOST_TEST(contains(message([&] {
                        run(many, {0}, Shape{1, 1}, {1}, {2});
                      }),
                      "Rank of input SparseTensor should be > 1, but saw rank: 1"));
  BOOST_TEST(contains(message([&] {
                        run(many, {0, 1, 0, 0}, Shape{2, 2}, {1, 2}, {2, 2});
                      }),
                      "indices[1] = [0,0] is out of order. Many sparse ops require sorted "
                      "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy."));
  BOOST_TEST(contains(message([&] {
                        run(many, {0, 1, 0, 1}, Shape{2, 2}, {1, 2}, {2, 2});
                      }),
                      "indices[1] = [0,1] is repeated"));
  BOOST_TEST(contains(message([&] {
                        run(many, {0, 1, 3, 0}, Shape{2, 2}, {1, 2}, {2, 2});
                      }),
                      "indices[1] = [3,0] is out of bounds: need 0 <= index < [2,2]"));
  BOOST_TEST(contains(message([&] {
                        run(many, {0, 1}, Shape{1, 2}, {1, 2}, {2, 2});
                      }),
                      "indices and values rows (indexing dimension) must match. (indices = 1, "
                      "values = 2)"));
  BOOST_TEST(contains(message([&] {
                        run(many, {0, 1}, Shape{1, 2}, {1}, {2, -2});
                      }),
                      "Expected shape dimensions to be non-negative, got -2"));
  auto deserialize = [&](const Tensor& t) { s.run(as_int.values, {{serialized, t}}); };
  BOOST_TEST(contains(message([&] {
                        deserialize(Tensor::from_vector(Strings{"a", "b", "c", "d"}, Shape{1, 4}));
                      }),
                      "Serialized sparse should have 3 as the last dimension [1,4]"));
  BOOST_TEST(contains(message([&] {
                        deserialize(Tensor(DType::string, Shape{0, 3}));
                      }),
                      "Serialized sparse should have at least 1 serialized tensor, but has a "
                      "zero dimension [0,3]"));
  BOOST_TEST(contains(message([&] { deserialize(Tensor("x")); }),
                      "Serialized sparse should have non-zero rank []"));
  BOOST_TEST(contains(message([&] {
                        deserialize(Tensor::from_vector(Strings{"\xff", "", ""}));
                      }),
                      "Could not parse serialized proto"));
  const Tensor good = s.run(
      af::serialize_sparse({int64s(g, {1, 0}, Shape{1, 2}), floats(g, {1.5f}), int64s(g, {3, 4})}));
  BOOST_TEST(contains(message([&] { deserialize(good); }),
                      "Requested SparseTensor of type int32 but SparseTensor[0].values.dtype() "
                      "== float"));
  BOOST_TEST(contains(
      af::test::construction_error([&] {
        af::deserialize_many_sparse(strs(g, {"a", "b", "c", "d"}, Shape{1, 4}), DType::float32);
      }),
      "Dimension must be 3 but is 4"));
}

// -- SparseTensorsMap -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(tensors_map_hands_out_handles_from_zero_and_takes_each_once,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::SparseTensor sp{int64s(g, {1, 0, 1, 2}, Shape{2, 2}), floats(g, {1.5f, 2.5f}),
                            int64s(g, {3, 4})};
  const Output single = af::add_sparse_to_tensors_map(sp, "", "m1");
  const Output many = af::add_many_sparse_to_tensors_map(sp, "", "m");
  BOOST_TEST(single.shape() == af::PartialShape{});
  BOOST_TEST(many.shape() == (af::PartialShape{-1}));
  const Output handles = g.placeholder(DType::int64, af::PartialShape{-1});
  const af::SparseTensor taken =
      af::take_many_sparse_from_tensors_map(handles, DType::float32, "", "m");
  const af::SparseTensor as_int =
      af::take_many_sparse_from_tensors_map(handles, DType::int32, "", "m");
  const af::SparseTensor private_map =
      af::take_many_sparse_from_tensors_map(handles, DType::float32);
  af::Session s(g);
  BOOST_TEST(s.run(single).scalar<std::int64_t>() == 0);
  BOOST_TEST(s.run(single).scalar<std::int64_t>() == 1);
  // The non-empty batch entry is stored first, then the empty ones.
  BOOST_TEST(s.run(many).to_vector<std::int64_t>() == (Int64s{1, 0, 2}),
             boost::test_tools::per_element());
  auto take = [&](const af::SparseTensor& t, Int64s h) {
    return s.run({t.indices, t.values, t.dense_shape}, {{handles, Tensor::from_vector(h)}});
  };
  const std::vector<Tensor> out = take(taken, {1, 0, 2});
  BOOST_TEST(out[0].to_vector<std::int64_t>() == (Int64s{1, 0, 1, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(out[1].to_vector<float>() == (std::vector<float>{1.5f, 2.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(out[2].to_vector<std::int64_t>() == (Int64s{3, 4}), boost::test_tools::per_element());
  auto message = [&](const af::SparseTensor& t, Int64s h) {
    return error_of<af::InvalidArgumentError>([&] { take(t, std::move(h)); });
  };
  BOOST_TEST(contains(message(taken, {1}), "Unable to find SparseTensor: 1 in map: m"));
  // A failed take keeps the handles before the unknown one taken.
  BOOST_TEST(s.run(many).to_vector<std::int64_t>() == (Int64s{4, 3, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(contains(message(taken, {3, 9}), "Unable to find SparseTensor: 9 in map: m"));
  BOOST_TEST(contains(message(taken, {3}), "Unable to find SparseTensor: 3 in map: m"));
  BOOST_TEST(contains(message(as_int, {4}),
                      "Requested SparseTensor of type int32 but SparseTensor[0].values.dtype() "
                      "== float"));
  BOOST_TEST(contains(message(taken, {}),
                      "Must have at least 1 serialized SparseTensor, but input matrix has 0 rows"));
  BOOST_TEST(contains(message(private_map, {0}), "Unable to find SparseTensor: 0 in map: _"));
}

BOOST_AUTO_TEST_CASE(tensors_map_take_concatenates_with_the_largest_dimensions,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output a = af::add_sparse_to_tensors_map(
      {int64s(g, {0}, Shape{1, 1}), floats(g, {1.0f}), int64s(g, {2})}, "", "", "AddA");
  const Output b = af::add_sparse_to_tensors_map(
      {int64s(g, {4, 5}, Shape{2, 1}), floats(g, {2.0f, 3.0f}), int64s(g, {6})}, "", "AddA");
  const Output c = af::add_sparse_to_tensors_map(
      {int64s(g, {0, 0}, Shape{1, 2}), floats(g, {4.0f}), int64s(g, {1, 1})}, "", "AddA");
  const Output handles = g.placeholder(DType::int64, af::PartialShape{-1});
  // Python's form: the map of the Add op (its name, as it has no shared_name).
  const af::SparseTensor taken = af::take_many_sparse_from_tensors_map(a.op(), handles);
  af::Session s(g);
  const Tensor ha = s.run(a), hb = s.run(b), hc = s.run(c);
  BOOST_TEST(ha.scalar<std::int64_t>() == 0);
  BOOST_TEST(hc.scalar<std::int64_t>() == 2);
  const auto out = s.run({taken.indices, taken.values, taken.dense_shape},
                         {{handles, Tensor::from_vector(Int64s{hb.scalar<std::int64_t>(), 0})}});
  BOOST_TEST(out[0].to_vector<std::int64_t>() == (Int64s{0, 4, 0, 5, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(out[1].to_vector<float>() == (std::vector<float>{2.0f, 3.0f, 1.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(out[2].to_vector<std::int64_t>() == (Int64s{2, 6}), boost::test_tools::per_element());
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s.run(taken.values, {{handles, Tensor::from_vector(Int64s{1})}});
                      }),
                      "Unable to find SparseTensor: 1 in map: AddA"));
}

BOOST_AUTO_TEST_CASE(tensors_map_checks_names_and_ranks, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::SparseTensor sp{int64s(g, {1, 0}, Shape{1, 2}), floats(g, {1.5f}), int64s(g, {3, 4})};
  const Output underscore = af::add_sparse_to_tensors_map(sp, "", "_x");
  const Output bad_container = af::add_sparse_to_tensors_map(sp, "a b", "");
  const Output rank2 = af::add_sparse_to_tensors_map(sp, "", "r");
  const Output rank1 = af::add_sparse_to_tensors_map(
      {int64s(g, {0}, Shape{1, 1}), floats(g, {1.0f}), int64s(g, {2})}, "", "r");
  const Output handles = g.placeholder(DType::int64, af::PartialShape{-1});
  const af::SparseTensor taken =
      af::take_many_sparse_from_tensors_map(handles, DType::float32, "", "r");
  af::Session s(g);
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(underscore); }),
                      "shared_name cannot start with '_':_x"));
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { s.run(bad_container); }),
                      "container contains invalid characters: a b"));
  const Int64s h = {s.run(rank1).scalar<std::int64_t>(), s.run(rank2).scalar<std::int64_t>()};
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] {
                        s.run(taken.values, {{handles, Tensor::from_vector(h)}});
                      }),
                      "Inconsistent rank across SparseTensors: rank prior to SparseTensor[1] "
                      "was: 2 but rank of SparseTensor[1] is: 3"));
  BOOST_TEST(
      contains(af::test::construction_error([&] {
                 af::take_many_sparse_from_tensors_map(int64s(g, {0}, Shape{1, 1}), DType::float32);
               }),
               "Shape must be rank 1 but is rank 2"));
  BOOST_TEST(contains(af::test::construction_error(
                          [&] { af::take_many_sparse_from_tensors_map(handles.op(), handles); }),
                      "sparse_map_op be an Operation of type AddSparseToTensorsMap"));
}

BOOST_AUTO_TEST_SUITE_END()
