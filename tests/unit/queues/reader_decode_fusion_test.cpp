// The fused ReaderRead(UpTo) + DecodeCSV node (fuse_reader_decode_csv): when it applies,
// and that a fused read is indistinguishable from the two nodes it replaces: the same
// columns, errors, consumed records and counters.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/execution_plan.hpp>
#include <actorflow/ops/parsing_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "matchers.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

struct TempDir : af::test::TempDir {
  TempDir() : af::test::TempDir("af_fusion_test") {}
};

/// The ops of one partition's plan for these fetches and targets.
std::vector<std::string> planned_ops(af::Graph& g, const std::vector<af::Output>& fetches,
                                     const std::vector<af::Operation>& targets) {
  std::shared_lock lock(g.mutex());
  af::Placement placement;
  af::ExecutionPlan plan;
  std::vector<af::DeviceAttributes> devices{
      {"/job:localhost/replica:0/task:0/device:CPU:0", "CPU", "", 0}};
  af::Status s = af::build_execution_plan(g, {}, fetches, targets, devices, {}, &placement, &plan);
  BOOST_REQUIRE(s.ok());
  BOOST_REQUIRE(plan.partitions.size() == 1u);
  std::vector<std::string> ops;
  for (const auto& n : plan.partitions[0].nodes) ops.push_back(n.def.op);
  return ops;
}

bool has(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// A filename queue holding `files`, closed, and a TextLineReader reading it.
struct Source {
  af::FIFOQueue files;
  af::TextLineReader reader;
  af::Operation enqueue, close;
  Source(af::Graph& g, const std::vector<std::string>& names, std::int64_t skip = 0)
      : files(g, {.capacity = 100, .dtypes = {af::string}, .shapes = {{}}}),
        reader(g, {.skip_header_lines = skip}) {
    enqueue = files.enqueue_many({g.constant(af::Tensor::from_vector<std::string>(names))});
    close = files.close();
  }
  void fill(af::Session& sess) {
    sess.run(enqueue);
    sess.run(close);
  }
};

using af::test::error_of;

}  // namespace

BOOST_AUTO_TEST_SUITE(reader_decode_fusion_test)

BOOST_AUTO_TEST_CASE(a_read_feeding_only_decode_csv_is_fused_and_a_fetched_one_is_not) {
  af::Graph g;
  Source src(g, {"unused.csv"});
  auto [keys, values] = src.reader.read_up_to(src.files, 16);
  auto cols = af::decode_csv(values, {af::Tensor(0.0f), af::Tensor(0)});
  auto fused = planned_ops(g, {cols[0], cols[1]}, {});
  BOOST_TEST(has(fused, "_ReaderReadDecodeCSV"));
  BOOST_TEST(!has(fused, "ReaderReadUpToV2"));
  BOOST_TEST(!has(fused, "DecodeCSV"));
  // The records, or their keys, fetched as well: both nodes run as they are.
  for (const auto& also : {values, keys}) {
    auto ops = planned_ops(g, {cols[0], also}, {});
    BOOST_TEST(has(ops, "ReaderReadUpToV2"));
    BOOST_TEST(has(ops, "DecodeCSV"));
    BOOST_TEST(!has(ops, "_ReaderReadDecodeCSV"));
  }
  // Records used by another op too.
  af::Graph g2;
  Source src2(g2, {"unused.csv"});
  auto [k2, v2] = src2.reader.read(src2.files);
  auto c2 = af::decode_csv(v2, {af::Tensor(0.0f)});
  auto other = af::identity(v2);
  BOOST_TEST(has(planned_ops(g2, {c2[0]}, {}), "_ReaderReadDecodeCSV"));
  BOOST_TEST(!has(planned_ops(g2, {c2[0], other}, {}), "_ReaderReadDecodeCSV"));
}

BOOST_AUTO_TEST_CASE(fused_reads_give_the_unfused_columns, *boost::unit_test::timeout(60)) {
  TempDir dir;
  // Long enough to cross the reader's 256 KiB buffer many times and to grow a batch past
  // its first 4096 rows; CRLF lines, quoted and empty fields, a last line without "\n".
  std::string text = "a,b,name\n";
  for (int i = 0; i < 30000; ++i) {
    text += std::to_string(i) + "," + std::to_string(i * 0.25) + ",";
    text += (i % 7 == 0) ? "" : (i % 5 == 0 ? "\"q,uoted\"" : "n" + std::to_string(i));
    text += (i % 3 == 0) ? "\r\n" : "\n";
  }
  text += "-1,-1.5,last";
  auto f1 = dir.write("one.csv", text);
  auto f2 = dir.write("two.csv", "x\n7,8.5,z\n");
  for (std::int64_t batch : {1, 1000, 10000, 100000}) {
    af::Graph g;
    Source fused_src(g, {f1, f2}, 1), plain_src(g, {f1, f2}, 1);
    std::vector<af::Tensor> defaults{af::Tensor(0), af::Tensor(0.0f),
                                     af::Tensor(std::string("none"))};
    auto [fk, fv] = fused_src.reader.read_up_to(fused_src.files, batch);
    auto fused = af::decode_csv(fv, defaults);
    auto [pk, pv] = plain_src.reader.read_up_to(plain_src.files, batch);
    auto plain = af::decode_csv(pv, defaults);
    BOOST_REQUIRE(has(planned_ops(g, {fused[0], fused[1], fused[2]}, {}), "_ReaderReadDecodeCSV"));
    af::Session sess(g);
    fused_src.fill(sess);
    plain_src.fill(sess);
    std::int64_t rows = 0;
    for (;;) {
      std::vector<af::Tensor> a, b;
      std::string ea = error_of([&] { a = sess.run({fused[0], fused[1], fused[2]}); });
      std::string eb = error_of([&] { b = sess.run({plain[0], plain[1], plain[2], pv}); });
      BOOST_TEST((ea == "<no error>") == (eb == "<no error>"), ea + " / " + eb);
      if (ea != "<no error>") {
        BOOST_TEST(ea.find("is closed and has insufficient elements") != std::string::npos, ea);
        break;
      }
      BOOST_REQUIRE(a[0].shape() == b[0].shape());
      for (std::size_t c = 0; c < 3; ++c) BOOST_TEST((a[c] == b[c]));
      rows += a[0].num_elements();
    }
    BOOST_TEST(rows == 30002);
    BOOST_TEST(sess.run(fused_src.reader.num_records_produced()).scalar<std::int64_t>() == 30002);
    BOOST_TEST(sess.run(fused_src.reader.num_work_units_completed()).scalar<std::int64_t>() == 2);
  }
}

BOOST_AUTO_TEST_CASE(fused_reads_split_lines_of_every_length_as_read_line_does,
                     *boost::unit_test::timeout(60)) {
  // The fused read finds a buffer's newlines 16 bytes at a time: lines of every length from
  // 1 to 70 bytes (an empty record is an error), some ending in "\r\n", over 256 KiB so
  // that the buffer's end falls at every offset within a line; each line is one field.
  TempDir dir;
  std::string text;
  std::int64_t lines = 0;
  for (int round = 0; text.size() < (600u << 10); ++round) {
    for (int length = 1; length <= 70; ++length, ++lines) {
      std::string line;
      for (int k = 0; k < length; ++k) line += static_cast<char>('a' + (k + round) % 26);
      if (length > 3 && (length + round) % 11 == 0) line[1] = ' ';
      text += line + ((length + round) % 3 == 0 ? "\r\n" : "\n");
    }
  }
  auto f = dir.write("lengths.txt", text);
  for (std::int64_t batch : {7, 1000, 100000}) {
    af::Graph g;
    Source fused_src(g, {f}), plain_src(g, {f});
    auto [fk, fv] = fused_src.reader.read_up_to(fused_src.files, batch);
    auto fused =
        af::decode_csv(fv, {af::Tensor(std::string("<empty>"))}, {.use_quote_delim = false});
    auto [pk, pv] = plain_src.reader.read_up_to(plain_src.files, batch);
    auto plain =
        af::decode_csv(pv, {af::Tensor(std::string("<empty>"))}, {.use_quote_delim = false});
    BOOST_REQUIRE(has(planned_ops(g, {fused[0]}, {}), "_ReaderReadDecodeCSV"));
    af::Session sess(g);
    fused_src.fill(sess);
    plain_src.fill(sess);
    std::int64_t rows = 0;
    for (;;) {
      af::Tensor a, b;
      std::string ea = error_of([&] { a = sess.run(fused[0]); });
      std::string eb = error_of([&] { b = sess.run({plain[0], pv})[0]; });
      BOOST_REQUIRE_MESSAGE((ea == "<no error>") == (eb == "<no error>"), ea + " / " + eb);
      if (ea != "<no error>") {
        BOOST_TEST(ea.find("is closed and has insufficient elements") != std::string::npos, ea);
        break;
      }
      BOOST_REQUIRE((a == b));
      rows += a.num_elements();
    }
    BOOST_TEST(rows == lines);
  }
}

BOOST_AUTO_TEST_CASE(a_fused_decode_error_names_file_and_line_and_consumes_what_the_read_would,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto f = dir.write("bad.csv", "1,2\n3,oops\n5,6\n7,8\n9,10\n");
  af::Graph g;
  Source fused_src(g, {f}), plain_src(g, {f});
  auto [fk, fv] = fused_src.reader.read_up_to(fused_src.files, 3);
  auto fused = af::decode_csv(fv, {af::Tensor(0.0f), af::Tensor(0.0f)}, {.name = "parse"});
  auto [pk, pv] = plain_src.reader.read_up_to(plain_src.files, 3);
  auto plain = af::decode_csv(pv, {af::Tensor(0.0f), af::Tensor(0.0f)}, {.name = "parse_plain"});
  af::Session sess(g);
  fused_src.fill(sess);
  plain_src.fill(sess);
  std::string ea = error_of([&] { sess.run(fused[1]); });
  std::string eb = error_of([&] { sess.run({plain[1], pk}); });
  const std::string want = "Field 1 in record 1 is not a valid float: oops (" + f + ":2)";
  BOOST_TEST(ea.find(want) != std::string::npos, ea);
  BOOST_TEST(ea.find("[[{{node parse}}]]") != std::string::npos, ea);
  BOOST_TEST(eb.find(want) != std::string::npos, eb);
  // Both reads took their three records: the next batch starts at line 4.
  BOOST_TEST(sess.run(fused_src.reader.num_records_produced()).scalar<std::int64_t>() == 3);
  auto rest = sess.run(fused[0]);
  BOOST_TEST((rest == sess.run(plain[0])));
  BOOST_TEST(rest.num_elements() == 2);
  BOOST_TEST(rest.flat<float>()[0] == 7.0f);
}

BOOST_AUTO_TEST_CASE(a_fused_single_read_gives_scalars_and_read_errors_name_the_reader,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto f = dir.write("s.csv", "1,x\n2,y");
  af::Graph g;
  Source src(g, {f});
  auto [key, value] = src.reader.read(src.files, "the_read");
  auto cols = af::decode_csv(value, {af::Tensor(0), af::Tensor(std::string())});
  BOOST_REQUIRE(has(planned_ops(g, {cols[0], cols[1]}, {}), "_ReaderReadDecodeCSV"));
  af::Session sess(g);
  src.fill(sess);
  auto a = sess.run({cols[0], cols[1]});
  BOOST_TEST(a[0].rank() == 0);
  BOOST_TEST(a[0].scalar<std::int32_t>() == 1);
  BOOST_TEST(a[1].scalar<std::string>() == "x");
  auto b = sess.run({cols[0], cols[1]});
  BOOST_TEST(b[0].scalar<std::int32_t>() == 2);
  BOOST_TEST(b[1].scalar<std::string>() == "y");
  std::string end;
  try {
    sess.run(cols[0]);
  } catch (const af::OutOfRangeError& e) {
    end = e.what();
  }
  BOOST_TEST(end.find("[[{{node the_read}}]]") != std::string::npos, end);
  // A missing default for an empty field still fails as DecodeCSV does.
  af::Graph g2;
  auto f2 = dir.write("e.csv", ",x\n");
  Source src2(g2, {f2});
  auto [k2, v2] = src2.reader.read(src2.files);
  auto c2 = af::decode_csv(v2, {af::Tensor(af::int32, af::Shape{0}), af::Tensor(std::string())});
  af::Session sess2(g2);
  src2.fill(sess2);
  std::string missing = error_of([&] { sess2.run(c2[0]); });
  BOOST_TEST(missing.find("Field 0 is required but missing in record 0! (" + f2 + ":1)") !=
                 std::string::npos,
             missing);
}

BOOST_AUTO_TEST_SUITE_END()
