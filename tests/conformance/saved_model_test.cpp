// SavedModels: export directories TensorFlow 2.21 wrote (tests/data/tf_saved_model,
// scripts/peers/make_saved_model_fixtures.py: simple_save with an asset-backed table, a
// Builder's two MetaGraphDefs in text format with a main op, TensorFlow 2 tf.Modules with
// variables and with a vocabulary table, a Keras model's export) loaded and served here to
// TensorFlow's outputs; directories built here loaded back; the loader's and
// the builder's errors.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;
namespace sm = af::saved_model;
using af::Tensor;
using af::test::contains;
using Json = nlohmann::json;

const fs::path data_dir = fs::path(ACTORFLOW_TEST_DATA_DIR) / "tf_saved_model";

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
    if (p == std::string::npos) break;
    value = (value << 6) | static_cast<int>(p);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xff));
    }
  }
  return out;
}

Tensor tensor_of(const Json& j) {
  const af::Shape shape(j["shape"].get<std::vector<std::int64_t>>());
  const std::string dtype = j["dtype"].get<std::string>();
  if (dtype == "string") {
    Tensor t(af::DType::string, shape);
    for (std::size_t i = 0; i < j["b64_values"].size(); ++i)
      t.data<std::string>()[i] = base64_decode(j["b64_values"][i].get<std::string>());
    return t;
  }
  if (dtype == "int64") {
    Tensor t(af::DType::int64, shape);
    for (std::size_t i = 0; i < j["values"].size(); ++i)
      t.data<std::int64_t>()[i] = j["values"][i].get<std::int64_t>();
    return t;
  }
  BOOST_REQUIRE(dtype == "float32");
  Tensor t(af::DType::float32, shape);
  for (std::size_t i = 0; i < j["values"].size(); ++i)
    t.data<float>()[i] = j["values"][i].get<float>();
  return t;
}

void check_close(const Tensor& got, const Tensor& want, const std::string& what) {
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST_REQUIRE(got.dtype() == want.dtype());
    BOOST_TEST_REQUIRE(got.shape() == want.shape());
    for (std::int64_t i = 0; i < got.num_elements(); ++i) {
      if (got.dtype() == af::DType::float32) {
        const float a = got.data<float>()[i], b = want.data<float>()[i];
        BOOST_TEST(std::abs(a - b) <= 1e-5f * (1.0f + std::abs(b)), i << ": " << a << " vs " << b);
      } else if (got.dtype() == af::DType::int64) {
        BOOST_TEST(got.data<std::int64_t>()[i] == want.data<std::int64_t>()[i], i);
      } else {
        BOOST_TEST(got.data<std::string>()[i] == want.data<std::string>()[i], i);
      }
    }
  }
}

/// Serves model `name` of the reference through a SavedModelBundle and compares.
void serve(const std::string& name) {
  const Json ref = reference()[name];
  sm::SavedModelBundle bundle((data_dir / name).string(),
                              ref["tags"].get<std::vector<std::string>>());
  std::map<std::string, Tensor> inputs;
  for (const auto& [k, v] : ref["inputs"].items()) inputs.emplace(k, tensor_of(v));
  const auto got = bundle.run(ref["signature"].get<std::string>(), inputs);
  BOOST_TEST_REQUIRE(got.size() == ref["outputs"].size());
  for (const auto& [k, v] : ref["outputs"].items())
    check_close(got.at(k), tensor_of(v), name + " output " + k);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(saved_model_test)

BOOST_AUTO_TEST_CASE(the_fixtures_hold_what_these_tests_claim) {
  const Json ref = reference();
  BOOST_TEST(ref["tensorflow"].get<std::string>() == "2.21.0");
  BOOST_TEST(fs::exists(data_dir / "simple_save" / "assets" / "vocab.txt"));
  BOOST_TEST(fs::exists(data_dir / "builder" / "saved_model.pbtxt"));
  BOOST_TEST(!fs::exists(data_dir / "builder" / "saved_model.pb"));
  const af::SavedModel tf2 = af::read_saved_model((data_dir / "tf2_module").string());
  BOOST_TEST_REQUIRE(tf2.meta_graphs.size() == 1u);
  BOOST_TEST(!tf2.meta_graphs[0].other_fields.empty());  // the object graph, kept
}

// simple_save: the dense layer's variables restored, the vocabulary table filled from the
// asset's copy (its source is gone) by the legacy init op.
BOOST_AUTO_TEST_CASE(simple_save_of_tensorflow_serves_its_outputs, *boost::unit_test::timeout(60)) {
  serve("simple_save");
  const af::SavedModel m = af::read_saved_model((data_dir / "simple_save").string());
  BOOST_TEST_REQUIRE(m.meta_graphs.size() == 1u);
  const af::MetaGraphDef& meta = m.meta_graphs[0];
  BOOST_TEST(meta.tags == std::vector<std::string>{"serve"}, boost::test_tools::per_element());
  const af::SignatureDef& sig = meta.signature_defs.at("serving_default");
  BOOST_TEST(sig.method_name == sm::kPredictMethodName);
  BOOST_TEST(sig.inputs.at("x").name == "x:0");
  BOOST_TEST(sig.inputs.at("x").dtype == af::DType::float32);
  BOOST_TEST(sig.inputs.at("x").shape.to_string() == "(?, 3)");
  BOOST_TEST(meta.collections.count(sm::kAssetsKey) == 1u);
  BOOST_TEST(meta.collections.count(sm::kLegacyInitOpKey) == 0u);  // simple_save: a main op
  BOOST_TEST(meta.collections.at(sm::kMainOpKey).node_list.size() == 1u);
}

// A Builder's text-format SavedModel: the main op ran (a local variable it sets shows in the
// output), and the second MetaGraphDef loads by its tag set in any order.
BOOST_AUTO_TEST_CASE(builder_of_tensorflow_with_two_meta_graphs, *boost::unit_test::timeout(60)) {
  serve("builder");
  const std::string dir = (data_dir / "builder").string();
  sm::SavedModelBundle train(dir, {"eval", "train"});
  BOOST_TEST(train.meta_graph_def().signature_defs.empty());
  BOOST_TEST(contains(af::test::error_of<af::NotFoundError>([&] {
                        sm::SavedModelBundle(dir, {"serve", "gpu"});
                      }),
                      "MetaGraphDef associated with tags 'serve', 'gpu' could not be found in "
                      "SavedModel, with available tags '[{'serve'}, {'train', 'eval'}]'."));
  // The regression signature, run through a session of one's own with an import scope.
  af::Graph g;
  af::Session sess(g);
  const af::MetaGraphDef meta = sm::load(sess, g, {"serve"}, dir, {.import_scope = "m"});
  const af::SignatureDef& regress = meta.signature_defs.at("regress");
  BOOST_TEST(regress.method_name == sm::kRegressMethodName);
  const Json examples = reference()["builder"]["inputs"]["examples"];
  const Tensor out = sess.run(
      g.output("m/" + regress.outputs.at(sm::kRegressOutputs).name),
      {{g.output("m/" + regress.inputs.at(sm::kRegressInputs).name), tensor_of(examples)}});
  BOOST_TEST(out.to_vector<float>() == (std::vector<float>{-2.25f, -0.5f}),
             boost::test_tools::per_element());
}

// TensorFlow 2's SavedModel of a tf.Module: resource variables restored through its saver
// function, the signature's function inlined.
// A SparseTensor input and output (coo_sparse): run_values feeds and fetches their three
// tensors; run refuses them, and a dense value for a sparse key is refused.
BOOST_AUTO_TEST_CASE(sparse_signature_serves_through_run_values, *boost::unit_test::timeout(60)) {
  const Json ref = reference()["sparse"];
  auto sparse_of = [](const Json& j) {
    return sm::SparseTensorValue{tensor_of(j["sparse"]["indices"]),
                                 tensor_of(j["sparse"]["values"]),
                                 tensor_of(j["sparse"]["dense_shape"])};
  };
  sm::SavedModelBundle bundle((data_dir / "sparse").string(), {"serve"});
  const af::SignatureDef& sig = bundle.signature("serving_default");
  BOOST_TEST_REQUIRE(sig.inputs.at("ids").coo_sparse.has_value());
  BOOST_TEST(sig.inputs.at("ids").dtype == af::DType::float32);
  const auto out = bundle.run_values("serving_default", {{"ids", sparse_of(ref["inputs"]["ids"])}});
  BOOST_TEST_REQUIRE(out.size() == 2u);
  check_close(std::get<Tensor>(out.at("dense")), tensor_of(ref["outputs"]["dense"]),
              "sparse output dense");
  const auto& scaled = std::get<sm::SparseTensorValue>(out.at("scaled"));
  const auto want = sparse_of(ref["outputs"]["scaled"]);
  check_close(scaled.indices, want.indices, "scaled indices");
  check_close(scaled.values, want.values, "scaled values");
  check_close(scaled.dense_shape, want.dense_shape, "scaled dense_shape");
  const auto dense_only =
      bundle.run_values("serving_default", {{"ids", sparse_of(ref["inputs"]["ids"])}}, {"dense"});
  BOOST_TEST(dense_only.size() == 1u);
  BOOST_TEST(
      contains(af::test::error_of<af::InvalidArgumentError>([&] {
                 bundle.run("serving_default", {{"ids", tensor_of(ref["outputs"]["dense"])}});
               }),
               "signature 'serving_default': input 'ids' is a SparseTensor: use run_values"));
  BOOST_TEST(contains(
      af::test::error_of<af::InvalidArgumentError>([&] {
        bundle.run_values("serving_default", {{"ids", tensor_of(ref["outputs"]["dense"])}});
      }),
      "input 'ids' is a SparseTensor: give a SparseTensorValue"));
}

// TensorFlow 2's fingerprint.pb reads to what tf.saved_model.experimental.read_fingerprint
// gives; TensorFlow 1's builders write none.
BOOST_AUTO_TEST_CASE(fingerprints_read_as_tensorflows, *boost::unit_test::timeout(60)) {
  const Json ref = reference();
  int read = 0;
  for (const auto& [name, model] : ref.items()) {
    if (!model.is_object()) continue;
    const std::string dir = (data_dir / name).string();
    if (!model.contains("fingerprint")) {
      BOOST_TEST(contains(af::test::error_of<af::NotFoundError>([&] { af::read_fingerprint(dir); }),
                          "SavedModel Fingerprint Error: " + dir + "/fingerprint.pb not found"));
      continue;
    }
    const Json& want = model["fingerprint"];
    const af::SavedModelFingerprint fp = af::read_fingerprint(dir);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(std::to_string(fp.saved_model_checksum) ==
                 want["saved_model_checksum"].get<std::string>());
      BOOST_TEST(std::to_string(fp.checkpoint_hash) == want["checkpoint_hash"].get<std::string>());
      BOOST_TEST(fp.producer == want["producer"].get<int>());
      BOOST_TEST(fp.singleprint() == want["singleprint"].get<std::string>());
      BOOST_TEST(fp.uuid.size() > 10u);
    }
    ++read;
  }
  BOOST_TEST(read == 3);  // tf2_module, tf2_table, keras_export
  af::test::TempDir bad;
  bad.write("fingerprint.pb", "\xff\xff\xff");
  BOOST_TEST(contains(
      af::test::error_of<af::DataLossError>([&] { af::read_fingerprint(bad.path.string()); }),
      "fingerprint.pb: not a tensorflow.FingerprintDef"));
}

BOOST_AUTO_TEST_CASE(tensorflow2_module_serves_its_signature, *boost::unit_test::timeout(60)) {
  serve("tf2_module");
}

// TensorFlow 2's assets: the table's init function reads the vocabulary through the asset
// placeholder the loader feeds (the source file is gone).
BOOST_AUTO_TEST_CASE(tensorflow2_table_reads_its_asset, *boost::unit_test::timeout(60)) {
  serve("tf2_table");
  const af::SavedModel m = af::read_saved_model((data_dir / "tf2_table").string());
  BOOST_TEST_REQUIRE(m.meta_graphs.at(0).asset_file_defs.size() == 1u);
  BOOST_TEST(m.meta_graphs[0].asset_file_defs[0].filename == "vocab.txt");
}

// A Keras 3 model's `model.export`: dense layers and softmax through its serving function.
BOOST_AUTO_TEST_CASE(keras_export_serves_its_predictions, *boost::unit_test::timeout(60)) {
  serve("keras_export");
}

BOOST_AUTO_TEST_CASE(loader_errors_name_the_directory, *boost::unit_test::timeout(60)) {
  af::test::TempDir tmp;
  BOOST_TEST(!sm::contains_saved_model(tmp.path.string()));
  BOOST_TEST(sm::contains_saved_model((data_dir / "simple_save").string()));
  af::Graph g;
  af::Session sess(g);
  BOOST_TEST(contains(af::test::error_of<af::NotFoundError>(
                          [&] { sm::load(sess, g, {"serve"}, tmp.path.string()); }),
                      "SavedModel file does not exist at: " + tmp.path.string() +
                          "/{saved_model.pbtxt|saved_model.pb}"));
  tmp.write("saved_model.pb", "garbage");
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>(
                          [&] { sm::load(sess, g, {"serve"}, tmp.path.string()); }),
                      "saved_model.pb"));
  sm::SavedModelBundle bundle((data_dir / "simple_save").string(), {"serve"});
  BOOST_TEST(contains(af::test::error_of<af::NotFoundError>([&] { bundle.signature("nope"); }),
                      "No signature 'nope' in the SavedModel; it has: serving_default"));
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] {
                        bundle.run("serving_default", {{"x", Tensor(1.0f)}});
                      }),
                      "signature 'serving_default' needs input 'words'"));
}

// A model built here, saved by the Builder and simple_save, loaded back.
BOOST_AUTO_TEST_CASE(saved_models_built_here_load_back, *boost::unit_test::timeout(120)) {
  af::test::TempDir tmp;
  const std::string vocab = tmp.write("words.txt", "red\ngreen\nblue\n");
  const std::string dir = (tmp.path / "export").string();
  {
    af::Graph g;
    const af::Output x = g.placeholder(af::DType::float32, af::PartialShape({-1, 2}), "x");
    const af::Output words = g.placeholder(af::DType::string, af::PartialShape({-1}), "words");
    af::Variable w =
        g.variable(Tensor::from_vector<float>({2, -1, 0.5f, 3}, af::Shape{2, 2}), {.name = "w"});
    const af::Output y = af::matmul(x, w.value());
    const auto table = af::lookup::index_table_from_file(g, vocab);
    const af::Output ids = table.lookup(words);
    af::Session sess(g);
    sess.run(g.global_variables_initializer());
    sm::simple_save(sess, g, dir, {{"x", x}, {"words", words}}, {{"y", y}, {"ids", ids}},
                    af::lookup::tables_initializer(g));
    BOOST_TEST(contains(af::test::error_of<af::AlreadyExistsError>([&] { sm::Builder b(dir); }),
                        "already exists, and isn't empty"));
  }
  fs::remove(vocab);  // the copy under assets/ serves
  BOOST_TEST(fs::exists(fs::path(dir) / "assets" / "words.txt"));
  BOOST_TEST(fs::exists(fs::path(dir) / "variables" / "variables.index"));
  BOOST_TEST(fs::exists(fs::path(dir) / "variables" / "variables.data-00000-of-00001"));
  sm::SavedModelBundle bundle(dir, {sm::kServing});
  auto out = bundle.run("serving_default",
                        {{"x", Tensor::from_vector<float>({1, 1, 0, 2}, af::Shape{2, 2})},
                         {"words", Tensor::from_vector<std::string>({"blue", "pink", "red"})}});
  BOOST_TEST(out.at("y").to_vector<float>() == (std::vector<float>{2.5f, 2, 1, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(out.at("ids").to_vector<std::int64_t>() == (std::vector<std::int64_t>{2, -1, 0}),
             boost::test_tools::per_element());
  out = bundle.run("serving_default",
                   {{"x", Tensor::from_vector<float>({0, 1}, af::Shape{1, 2})},
                    {"words", Tensor::from_vector<std::string>({"green"})}},
                   {"ids"});
  BOOST_TEST(out.size() == 1u);
  BOOST_TEST(out.at("ids").to_vector<std::int64_t>() == (std::vector<std::int64_t>{1}));
}

// The Builder: two MetaGraphDefs sharing one variables directory, a main op, text format,
// and TensorFlow's refusals.
BOOST_AUTO_TEST_CASE(builder_meta_graphs_and_refusals, *boost::unit_test::timeout(120)) {
  af::test::TempDir tmp;
  const std::string dir = (tmp.path / "model").string();
  af::Graph g;
  const af::Output x = g.placeholder(af::DType::float32, af::PartialShape({-1}), "x");
  af::Variable scale = g.variable(3.0f, {.name = "scale"});
  af::VariableOptions local{.name = "offset"};
  local.collections = std::vector<std::string>{"local_variables"};
  af::Variable offset = g.variable(0.0f, local);
  const af::Output y = x * scale.value() + offset.value();
  const af::Operation main_op = offset.assign(g.constant(10.0f)).op();
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  sm::Builder b(dir);
  BOOST_TEST(contains(
      af::test::error_of<af::FailedPreconditionError>([&] { b.add_meta_graph(g, {"train"}); }),
      "Please invoke `add_meta_graph_and_variables()` first."));
  sm::MetaGraphOptions bad;
  bad.signature_def_map.emplace(sm::kInitOpSignatureKey,
                                sm::predict_signature_def({{"x", x}}, {{"y", y}}));
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>(
                          [&] { b.add_meta_graph_and_variables(sess, g, {"serve"}, bad); }),
                      "is reserved for initialization. Please use a different key."));
  sm::MetaGraphOptions unnamed;
  unnamed.signature_def_map.emplace("s", af::SignatureDef{{{"x", af::TensorInfo{}}}, {}, "m", {}});
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>(
                          [&] { b.add_meta_graph_and_variables(sess, g, {"serve"}, unnamed); }),
                      "signature 's' input 'x': Invalid `tensor_info`."));
  sm::MetaGraphOptions not_const;
  not_const.assets_collection.push_back(x);
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>(
                          [&] { b.add_meta_graph_and_variables(sess, g, {"serve"}, not_const); }),
                      "Asset path tensor 'x:0' must be of type constant.Has type Placeholder"));
  sm::MetaGraphOptions serve;
  serve.signature_def_map.emplace("scale", sm::predict_signature_def({{"x", x}}, {{"y", y}}));
  serve.main_op = main_op;
  b.add_meta_graph_and_variables(sess, g, {"serve"}, serve);
  BOOST_TEST(contains(af::test::error_of<af::FailedPreconditionError>(
                          [&] { b.add_meta_graph_and_variables(sess, g, {"serve"}); }),
                      "has already been saved. Please invoke `add_meta_graph()` instead."));
  b.add_meta_graph(g, {"train", "gpu"});
  BOOST_TEST(b.save(true) == dir + "/saved_model.pbtxt");
  sm::SavedModelBundle served(dir, {"serve"});
  const auto out =
      served.run("scale", {{"x", Tensor::from_vector<float>({1, -2})}}).at("y").to_vector<float>();
  BOOST_TEST(out == (std::vector<float>{13, 4}), boost::test_tools::per_element());
  sm::SavedModelBundle trained(dir, {"gpu", "train"});
  BOOST_TEST(trained.meta_graph_def().signature_defs.empty());
  // Both MetaGraphDefs hold the main op in their collection (the graph's).
  BOOST_TEST(trained.meta_graph_def().collections.at(sm::kMainOpKey).node_list.size() == 1u);
}

// A SavedModel TensorFlow wrote, loaded here and saved again with its attributes at their
// defaults stripped: TensorFlow's nodes carry them all, the copy none, and it serves the same.
BOOST_AUTO_TEST_CASE(tensorflow_models_saved_again_stripped, *boost::unit_test::timeout(120)) {
  af::test::TempDir tmp;
  const std::string dir = (tmp.path / "again").string();
  {
    sm::SavedModelBundle tf_model((data_dir / "builder").string(), {"serve"});
    auto has_default_attr = [](const af::MetaGraphDef& m) {
      for (const auto& n : m.graph_def.nodes)
        if (n.op == "MatMul" && n.attrs.count("transpose_a")) return true;
      return false;
    };
    BOOST_TEST(has_default_attr(tf_model.meta_graph_def()));
    sm::Builder b(dir);
    sm::MetaGraphOptions options;
    options.signature_def_map = tf_model.meta_graph_def().signature_defs;
    options.strip_default_attrs = true;  // the main op comes along in the graph's collection
    b.add_meta_graph_and_variables(tf_model.session(), tf_model.graph(), {"serve"}, options);
    b.save();
    const af::MetaGraphDef& written = b.saved_model().meta_graphs.at(0);
    BOOST_TEST(written.stripped_default_attrs);
    BOOST_TEST(!has_default_attr(written));
  }
  sm::SavedModelBundle again(dir, {"serve"});
  const Json ref = reference()["builder"];
  const auto out = again.run("flagged", {{"examples", tensor_of(ref["inputs"]["examples"])}});
  check_close(out.at("flagged"), tensor_of(ref["outputs"]["flagged"]), "saved again");
}

BOOST_AUTO_TEST_CASE(signature_helpers_check_as_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::Output examples = g.placeholder(af::DType::string, af::PartialShape({-1}), "ex");
  const af::Output scores = g.placeholder(af::DType::float32, af::PartialShape({-1, 3}), "s");
  const af::Output ints = g.placeholder(af::DType::int32, {}, "i");
  const af::SignatureDef c = sm::classification_signature_def(examples, af::Output(), scores);
  BOOST_TEST(c.method_name == sm::kClassifyMethodName);
  BOOST_TEST(c.inputs.at("inputs").name == "ex:0");
  BOOST_TEST(c.outputs.at("scores").shape.to_string() == "(?, 3)");
  BOOST_TEST(c.outputs.count("classes") == 0u);
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] {
                        sm::classification_signature_def(examples, af::Output(), af::Output());
                      }),
                      "Classification `classes` and `scores` cannot both be None."));
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>(
                          [&] { sm::classification_signature_def(ints, af::Output(), scores); }),
                      "Classification input tensors must be of type string. Found tensors of "
                      "type 3"));
  BOOST_TEST(
      contains(af::test::error_of<af::InvalidArgumentError>(
                   [&] { sm::regression_signature_def(examples, ints); }),
               "Regression output tensors must be of type float. Found tensors with type 3."));
  BOOST_TEST(contains(af::test::error_of<af::InvalidArgumentError>([&] {
                        sm::predict_signature_def({}, {{"s", scores}});
                      }),
                      "Prediction `inputs` cannot be None or empty."));
  // SavedModel files round-trip their signatures.
  af::SavedModel m;
  af::MetaGraphDef meta;
  meta.tags = {"serve"};
  meta.signature_defs.emplace("c", c);
  meta.signature_defs["c"].defaults.emplace("inputs", Tensor(std::string("default")));
  meta.asset_file_defs.push_back(af::AssetFileDef{sm::build_tensor_info(examples), "v.txt"});
  m.meta_graphs.push_back(meta);
  for (const af::SavedModel& again : {af::parse_saved_model(af::serialize_saved_model(m)),
                                      af::parse_saved_model_text(af::saved_model_to_text(m))}) {
    const af::MetaGraphDef& r = again.meta_graphs.at(0);
    BOOST_TEST((r.signature_defs.at("c").inputs == c.inputs));
    BOOST_TEST((r.signature_defs.at("c").outputs == c.outputs));
    BOOST_TEST(r.signature_defs.at("c").defaults.at("inputs").data<std::string>()[0] == "default");
    BOOST_TEST((r.asset_file_defs == meta.asset_file_defs));
  }
}

BOOST_AUTO_TEST_SUITE_END()
