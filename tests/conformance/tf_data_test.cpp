// tf.data graphs written by TensorFlow 2.21's tf.compat.v1 (tests/data/tf_data,
// scripts/peers/make_data_fixtures.py): datasets from tensors, ranges and TFRecord, text and
// fixed-length files, through map (with a cond), filter, flat_map, interleave, zip,
// concatenate, batch, padded_batch, shuffle, cache, prefetch and repeat, read by one-shot,
// initializable and string-handle iterators, and TensorFlow 2's functions and resources.
// Each case's get_next gives TensorFlow's elements, run after run, then OutOfRange "End of
// sequence" (or the error TensorFlow ended with).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;
using Json = nlohmann::json;

const std::filesystem::path data_dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_data";

Json reference() {
  std::ifstream in(data_dir / "reference.json");
  return Json::parse(in);
}

std::string base64_decode(const std::string& in) {
  static const std::string chars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int bits = 0, value = 0;
  for (char c : in) {
    const auto p = chars.find(c);
    if (p == std::string::npos) break;  // '=' padding
    value = (value << 6) | static_cast<int>(p);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xff));
    }
  }
  return out;
}

af::DType dtype_of(const std::string& name) {
  for (af::DType t : {af::DType::float32, af::DType::float64, af::DType::int32, af::DType::int64,
                      af::DType::uint8, af::DType::boolean, af::DType::string})
    if (af::dtype_name(t) == name) return t;
  BOOST_FAIL("unknown dtype " << name);
  return af::DType::invalid;
}

/// The tensor `j` describes: {"dtype", "shape", "values" | "b64_values" | "files" |
/// "temp_file"}; a temp_file lies in `temp`.
Tensor tensor_of(const Json& j, const std::filesystem::path& temp = {}) {
  const af::DType dtype = dtype_of(j["dtype"].get<std::string>());
  const af::Shape shape(j["shape"].get<std::vector<std::int64_t>>());
  Tensor t(dtype, shape);
  if (j.contains("temp_file")) {
    t.data<std::string>()[0] = (temp / j["temp_file"].get<std::string>()).string();
  } else if (j.contains("files")) {
    auto* out = t.data<std::string>();
    for (std::size_t i = 0; i < j["files"].size(); ++i)
      out[i] = (data_dir / j["files"][i].get<std::string>()).string();
  } else if (j.contains("b64_values")) {
    auto* out = t.data<std::string>();
    for (std::size_t i = 0; i < j["b64_values"].size(); ++i)
      out[i] = base64_decode(j["b64_values"][i].get<std::string>());
  } else {
    const auto& v = j["values"];
    for (std::size_t i = 0; i < v.size(); ++i) switch (dtype) {
        case af::DType::float32:
          t.data<float>()[i] = v[i].get<float>();
          break;
        case af::DType::float64:
          t.data<double>()[i] = v[i].get<double>();
          break;
        case af::DType::int32:
          t.data<std::int32_t>()[i] = v[i].get<std::int32_t>();
          break;
        case af::DType::int64:
          t.data<std::int64_t>()[i] = v[i].get<std::int64_t>();
          break;
        case af::DType::uint8:
          t.data<std::uint8_t>()[i] = v[i].get<std::uint8_t>();
          break;
        case af::DType::boolean:
          t.data<bool>()[i] = v[i].get<bool>();
          break;
        default:
          BOOST_FAIL("no values for dtype " << af::dtype_name(dtype));
      }
  }
  return t;
}

/// Element-wise equality, exact (the fixtures' floats are float32 values printed exactly).
void check_equal(const Tensor& got, const Tensor& want) {
  BOOST_TEST(af::dtype_name(got.dtype()) == af::dtype_name(want.dtype()));
  BOOST_TEST(got.shape().to_string() == want.shape().to_string());
  if (got.dtype() != want.dtype() || !(got.shape() == want.shape())) return;
  if (got.dtype() == af::DType::string) {
    for (std::int64_t i = 0; i < got.num_elements(); ++i)
      BOOST_TEST(got.data<std::string>()[i] == want.data<std::string>()[i], "element " << i);
    return;
  }
  const std::size_t bytes =
      static_cast<std::size_t>(got.num_elements()) * af::dtype_size(got.dtype());
  BOOST_TEST(std::memcmp(got.raw_data(), want.raw_data(), bytes) == 0,
             got.debug_string() << " != " << want.debug_string());
}

/// TensorFlow's Python name of `code` without "Error" ("OutOfRange", "FailedPrecondition").
std::string tf_code_name(af::Code code) {
  std::string out;
  bool upper = true;
  for (char c : af::code_name(code)) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    upper = false;
  }
  return out;
}

/// Runs case `name` of the reference: its init targets, then get_next until the error it ended
/// with (OutOfRange for all but one),
/// `rounds` times (re-initialising between rounds). With `round_trip`, the GraphDef is
/// written and read again first (the functions the nodes carry back in its library).
void run_case(const std::string& name, int rounds = 1, bool round_trip = false,
              const std::filesystem::path& temp = {}) {
  const Json ref = reference()["cases"][name];
  af::Graph g;
  af::GraphDef def = af::read_graph_def((data_dir / ref["graph"].get<std::string>()).string());
  if (round_trip) {
    af::Graph written;
    af::import_graph_def(written, def, {.name = ""});
    def = af::parse_graph_def(af::serialize_graph_def(af::export_graph_def(written)));
  }
  af::import_graph_def(g, def, {.name = ""});
  af::Session sess(g);
  af::FeedDict feeds;
  for (const auto& f : ref["feeds"])
    feeds.emplace_back(g.output(f["tensor"].get<std::string>()), tensor_of(f, temp));
  std::vector<Output> fetches;
  for (const auto& f : ref["fetches"]) fetches.push_back(g.output(f.get<std::string>()));
  for (int round = 0; round < rounds; ++round) {
    for (const auto& target : ref["init"]) sess.run(g.operation(target.get<std::string>()), feeds);
    af::FeedDict step_feeds = feeds;
    if (ref.contains("handle_feed")) {
      const auto& h = ref["handle_feed"];
      step_feeds.emplace_back(g.output(h["placeholder"].get<std::string>()),
                              sess.run(g.output(h["from"].get<std::string>()), feeds));
    }
    std::size_t step = 0;
    for (const auto& want : ref["steps"]) {
      BOOST_TEST_CONTEXT(name << " round " << round << " step " << step) {
        const auto got = sess.run(fetches, step_feeds);
        BOOST_TEST_REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < got.size(); ++i) check_equal(got[i], tensor_of(want[i]));
      }
      ++step;
    }
    if (ref["end"].is_null()) continue;  // a graph without an end ("runs")
    // The error TensorFlow ended with (its code, as the reference spells it), the kernel's
    // message first and then the node it names.
    std::string code = "<no error>", end;
    try {
      sess.run(fetches, step_feeds);
    } catch (const af::Error& e) {
      code = tf_code_name(e.code());
      end = e.what();
    }
    BOOST_TEST(code == ref["end"]["code"].get<std::string>(), name);
    const std::string want = ref["end"]["kernel_message"].get<std::string>();
    const std::string got = end.substr(0, end.find('\n'));
    // TensorFlow puts the dataset's and the iterator's names before a function's error ("Error
    // in user-defined function passed to ParallelMapDatasetV2:185 transformation with
    // iterator: Iterator::Root::...: "); the function's own message must be there.
    const std::string user = "Error in user-defined function passed to ";
    if (want.rfind(user, 0) == 0) {
      const std::string own = want.substr(want.find(": ", want.find("iterator: ") + 10) + 2);
      BOOST_TEST(got.find(own) != std::string::npos, name << ": " << got << " lacks " << own);
    } else {
      BOOST_TEST(got == want, name);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tf_data_test)

BOOST_AUTO_TEST_CASE(the_fixtures_hold_what_these_tests_claim) {
  const Json ref = reference();
  BOOST_TEST(ref["tensorflow"].get<std::string>() == "2.21.0");
  BOOST_TEST(ref["cases"].size() == 65u);
  for (const auto& [name, c] : ref["cases"].items()) {
    BOOST_TEST(!c["steps"].empty(), name);
    if (name == "tf2_anonymous_iterators") {
      BOOST_TEST(c["end"].is_null());
      BOOST_TEST(c["runs"].get<int>() == 2);
      continue;
    }
    const std::string code = name == "assert_cardinality_wrong" ? "FailedPrecondition"
                             : name == "parallel_map_error" || name == "csv_bad_record" ||
                                     name == "group_by_reducer_bad_key"
                                 ? "InvalidArgument"
                                 : "OutOfRange";
    BOOST_TEST(c["end"]["code"].get<std::string>() == code, name);
  }
}

BOOST_AUTO_TEST_CASE(one_shot_map_filter_batch, *boost::unit_test::timeout(60)) {
  run_case("slices_map_filter_batch");
}
BOOST_AUTO_TEST_CASE(initializable_iterators_start_over_when_initialized_again,
                     *boost::unit_test::timeout(60)) {
  run_case("range_skip_take_repeat_batch", 2);
}
BOOST_AUTO_TEST_CASE(zip_and_concatenate, *boost::unit_test::timeout(60)) {
  run_case("zip_concat");
}
BOOST_AUTO_TEST_CASE(tfrecord_files, *boost::unit_test::timeout(60)) { run_case("tfrecord_files"); }
BOOST_AUTO_TEST_CASE(gzip_tfrecord_files, *boost::unit_test::timeout(60)) {
  run_case("tfrecord_gzip");
}
BOOST_AUTO_TEST_CASE(text_lines_decoded_as_csv, *boost::unit_test::timeout(60)) {
  run_case("textline_csv");
}
BOOST_AUTO_TEST_CASE(fixed_length_records, *boost::unit_test::timeout(60)) {
  run_case("fixed_length");
}
BOOST_AUTO_TEST_CASE(seeded_shuffles_give_tensorflows_order, *boost::unit_test::timeout(60)) {
  run_case("shuffle_seeded");
  run_case("shuffle_repeat");
}
BOOST_AUTO_TEST_CASE(a_cond_inside_map, *boost::unit_test::timeout(60)) { run_case("map_cond"); }
BOOST_AUTO_TEST_CASE(parse_example_pipeline, *boost::unit_test::timeout(60)) {
  run_case("parse_examples");
}
BOOST_AUTO_TEST_CASE(interleave_and_flat_map, *boost::unit_test::timeout(60)) {
  run_case("interleave_files");
  run_case("flat_map_range");
}
BOOST_AUTO_TEST_CASE(cache_prefetch_repeat, *boost::unit_test::timeout(60)) {
  run_case("cache_prefetch");
}
BOOST_AUTO_TEST_CASE(padded_and_drop_remainder_batches, *boost::unit_test::timeout(60)) {
  run_case("padded_batch");
  run_case("batch_drop_remainder");
}
BOOST_AUTO_TEST_CASE(map_with_captured_tensors, *boost::unit_test::timeout(60)) {
  run_case("map_captured");
}
BOOST_AUTO_TEST_CASE(from_tensors_repeated, *boost::unit_test::timeout(60)) {
  run_case("tensor_dataset_repeat");
}
BOOST_AUTO_TEST_CASE(iterators_named_by_string_handles, *boost::unit_test::timeout(60)) {
  run_case("string_handle");
}

BOOST_AUTO_TEST_CASE(shard_and_unbatch, *boost::unit_test::timeout(60)) {
  run_case("shard");
  run_case("unbatch");
}
BOOST_AUTO_TEST_CASE(reduce_inside_a_map_function, *boost::unit_test::timeout(60)) {
  run_case("reduce_in_map");
}
BOOST_AUTO_TEST_CASE(map_and_batch, *boost::unit_test::timeout(60)) {
  run_case("map_and_batch");
  run_case("map_and_batch_drop");
}
BOOST_AUTO_TEST_CASE(scan_and_take_while, *boost::unit_test::timeout(60)) {
  run_case("scan");
  run_case("take_while");
}
BOOST_AUTO_TEST_CASE(unique_elements, *boost::unit_test::timeout(60)) {
  run_case("unique");
  run_case("unique_strings");
}
BOOST_AUTO_TEST_CASE(ignore_errors_drops_failed_elements, *boost::unit_test::timeout(60)) {
  run_case("ignore_errors");
}
BOOST_AUTO_TEST_CASE(choose_and_sample_from_datasets, *boost::unit_test::timeout(60)) {
  run_case("choose_from_datasets");
  // RandomDataset's Philox stream and StatelessMultinomial pick TensorFlow's inputs.
  run_case("sample_from_datasets");
}
BOOST_AUTO_TEST_CASE(windows_flattened_by_flat_map, *boost::unit_test::timeout(60)) {
  run_case("window_flat_map");
  run_case("window_stride_drop");
}
BOOST_AUTO_TEST_CASE(group_by_window_and_buckets, *boost::unit_test::timeout(60)) {
  run_case("group_by_window");
  run_case("bucket_by_sequence_length");
}
// tf.data.experimental.group_by_reducer (ExperimentalGroupByReducerDataset): one state per
// key, made by init_func(key) and folded by reduce_func; finalize_func's elements come
// smallest key first once the input has ended; captured tensors for each of the four
// functions; a key_func result of more than one element fails with TensorFlow's message.
BOOST_AUTO_TEST_CASE(group_by_reducer_folds_each_key_and_emits_keys_in_order,
                     *boost::unit_test::timeout(60)) {
  run_case("group_by_reducer");
  run_case("group_by_reducer_key_order", 2);
  run_case("group_by_reducer_vector_state");
  run_case("group_by_reducer_captured");
  run_case("group_by_reducer_captured", 1, true);  // its four functions written back
  run_case("group_by_reducer_bad_key");
}
BOOST_AUTO_TEST_CASE(parallel_batch, *boost::unit_test::timeout(60)) { run_case("parallel_batch"); }
// Parallel map calls on threads of their own, and prefetch's thread: TensorFlow's order, and
// an error in its element's place.
BOOST_AUTO_TEST_CASE(parallel_map_and_prefetch_keep_the_order, *boost::unit_test::timeout(60)) {
  for (int i = 0; i < 5; ++i) {
    run_case("parallel_map");
    run_case("parallel_map_error");
  }
}
// A session of its own threads closed while its prefetch and parallel-map threads run ahead
// through the map function: the device stops them before its pools go.
BOOST_AUTO_TEST_CASE(sessions_close_under_running_pipeline_threads,
                     *boost::unit_test::timeout(120)) {
  const Json ref = reference()["cases"]["parallel_map"];
  const af::GraphDef def =
      af::read_graph_def((data_dir / ref["graph"].get<std::string>()).string());
  for (int round = 0; round < 10; ++round) {
    af::Graph g;
    af::import_graph_def(g, def, {.name = ""});
    af::SessionConfig config;
    config.use_per_session_threads = true;
    config.intra_op_parallelism_threads = 2;
    af::Session sess(g, config);
    const auto first = sess.run(g.output("next:0"));
    BOOST_TEST(first.to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1, 4, 9, 16}),
               boost::test_tools::per_element());
  }
}

// Sparse tensors travel through datasets serialized in variants (SerializeManySparse,
// SerializeSparse with out_type variant) and come out of DeserializeSparse, batched.
BOOST_AUTO_TEST_CASE(sparse_tensors_through_datasets, *boost::unit_test::timeout(60)) {
  run_case("sparse_slices");
  run_case("sparse_map_batch");
  run_case("parse_varlen");
  // make_batched_features_dataset: list_files, parallel_interleave, batch,
  // ParseExampleDatasetV2 (a VarLenFeature comes out of it serialized), prefetch.
  run_case("batched_features");
  run_case("dense_to_sparse_batch");
}

// cache(filename): the first epoch writes the bundle, the second reads it; the file holds
// what TensorFlow's cache of the same pipeline holds, key for key; TensorFlow's own cache
// file reads back here.
BOOST_AUTO_TEST_CASE(file_caches_are_tensorflows, *boost::unit_test::timeout(60)) {
  af::test::TempDir temp;
  run_case("cache_file", 1, false, temp.path);
  const af::BundleReader ours((temp.path / "cache").string());
  const af::BundleReader theirs((data_dir / "tf_cache").string());
  BOOST_TEST_REQUIRE(ours.status().ok(), ours.status().message());
  BOOST_TEST_REQUIRE(theirs.status().ok(), theirs.status().message());
  const auto entries = ours.entries();
  const auto their_entries = theirs.entries();
  BOOST_TEST_REQUIRE(entries.size() == their_entries.size());
  BOOST_TEST(entries.size() == 15u);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    BOOST_TEST_CONTEXT("entry " << i) {
      const auto& want = their_entries[i];
      BOOST_TEST(entries[i].name == want.name);
      BOOST_TEST((entries[i] == want), "the index entry of " << want.name);
      auto a = ours.lookup(entries[i].name);
      auto b = theirs.lookup(want.name);
      BOOST_TEST_REQUIRE(a.ok());
      BOOST_TEST_REQUIRE(b.ok());
      check_equal(a.value(), b.value());
    }
  }
  BOOST_TEST(!std::filesystem::exists(temp.path / "cache_0.lockfile"));
  run_case("cache_file_read");
}

BOOST_AUTO_TEST_CASE(experimental_parallel_interleave_and_list_files,
                     *boost::unit_test::timeout(60)) {
  run_case("legacy_parallel_interleave");
  run_case("list_files");
  // interleave with num_parallel_calls: each open file read ahead on a thread of its own.
  for (int i = 0; i < 5; ++i) run_case("parallel_interleave");
}

BOOST_AUTO_TEST_CASE(gzip_text_lines, *boost::unit_test::timeout(60)) { run_case("textline_gzip"); }
// CsvDataset: quoted line breaks and quotes, \r\n and \r, NA values and defaults, a header,
// select_cols with ZLIB, exclude_cols with another delimiter, a record with a field too many.
BOOST_AUTO_TEST_CASE(csv_datasets, *boost::unit_test::timeout(60)) {
  run_case("csv_dataset");
  run_case("csv_select_cols_zlib");
  run_case("csv_exclude_cols_delim");
  run_case("csv_bad_record");
}
BOOST_AUTO_TEST_CASE(assert_cardinality, *boost::unit_test::timeout(60)) {
  run_case("assert_cardinality");
  run_case("assert_cardinality_wrong");
}

// The functions dataset nodes carry go back into the library of a written GraphDef.
BOOST_AUTO_TEST_CASE(written_graphs_keep_their_dataset_functions, *boost::unit_test::timeout(60)) {
  run_case("slices_map_filter_batch", 1, true);
  run_case("interleave_files", 1, true);
}

// TensorFlow 2's pipelines: a tf.function's (DummySeedGenerator, ShuffleDatasetV3,
// DummyMemoryCache, CacheDatasetV2), seed generators and a memory cache shared by several
// datasets (AnonymousSeedGenerator, ShuffleDatasetV2, ShuffleAndRepeatDatasetV2,
// RandomDatasetV2, AnonymousMemoryCache), and a function's own iterators (AnonymousIterator,
// V2 with DeleteIterator, V3, get_next_as_optional, a for loop over a dataset).
BOOST_AUTO_TEST_CASE(tensorflow2_function_pipelines, *boost::unit_test::timeout(60)) {
  run_case("tf2_function_dataset", 2);
  run_case("tf2_function_dataset", 1, true);
}
BOOST_AUTO_TEST_CASE(tensorflow2_seed_generators_and_memory_caches,
                     *boost::unit_test::timeout(60)) {
  run_case("tf2_seed_generators", 2);
}
BOOST_AUTO_TEST_CASE(tensorflow2_anonymous_iterators, *boost::unit_test::timeout(60)) {
  run_case("tf2_anonymous_iterators");
  run_case("tf2_anonymous_iterators", 1, true);
}

// tf.compat.v1's from_sparse_tensor_slices (SparseTensorSliceDataset): a SparseTensor's rows,
// empty ones included.
BOOST_AUTO_TEST_CASE(sparse_tensor_slice_dataset, *boost::unit_test::timeout(60)) {
  run_case("sparse_tensor_slices");
}

// tf.data.experimental.TFRecordWriter (DatasetToTFRecord) writes a GZIP file, read back.
BOOST_AUTO_TEST_CASE(dataset_written_to_tfrecord, *boost::unit_test::timeout(60)) {
  run_case("tfrecord_writer");
}

BOOST_AUTO_TEST_SUITE_END()
