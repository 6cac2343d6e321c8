// TensorFlow's V1 checkpoints: the files real TensorFlow 2.21 wrote (tests/data/checkpoints/
// tf_v1, made by scripts/peers/make_v1_checkpoint_fixtures.py) read back value for value by
// TensorSliceReader and by the Restore, RestoreSlice and RestoreV2 kernels, written again
// byte for byte by TensorSliceWriter and the Save kernel, TensorFlow's errors, and
// tf.compat.v1.train.Saver(write_version=V1) graphs imported, restored and saved here.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/io_ops.hpp>
#include <actorflow/ops/tensor_slice_checkpoint.hpp>
#include <actorflow/train/layers.hpp>
#include <actorflow/train/meta_graph.hpp>
#include <actorflow/train/partitioned_variables.hpp>
#include <actorflow/train/saver.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using af::DType;
using af::Graph;
using af::Output;
using af::Shape;
using af::Tensor;
using af::TensorSlice;

const std::string& dir() {
  static const std::string d = ACTORFLOW_TEST_DATA_DIR + "/checkpoints/tf_v1";
  return d;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const nlohmann::json& values() {
  static const nlohmann::json v = nlohmann::json::parse(read_bytes(dir() + "/values.json"));
  return v;
}

// The bytes of the latin-1 text the fixture stores strings as.
std::string latin1(const std::string& utf8) {
  std::string bytes;
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      bytes.push_back(static_cast<char>(c));
    } else {
      bytes.push_back(
          static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3f)));
    }
  }
  return bytes;
}

// A fixture value with its strings as bytes, for af::test::fixture::check.
nlohmann::json as_bytes(nlohmann::json spec) {
  if (spec["dtype"] == "string")
    for (auto& s : spec["values"]) s = latin1(s.get<std::string>());
  return spec;
}

void check_value(const Tensor& t, const nlohmann::json& spec) {
  af::test::fixture::check(t, as_bytes(spec), {.exact = true});
}

template <typename T>
Tensor numbers_of(const nlohmann::json& values, const Shape& shape) {
  std::vector<T> out;
  for (const auto& v : values) {
    if constexpr (af::is_complex_v<T>) {
      using Part = typename T::value_type;
      out.emplace_back(static_cast<Part>(af::test::fixture::number(v[0])),
                       static_cast<Part>(af::test::fixture::number(v[1])));
    } else if constexpr (std::is_same_v<T, af::half_t>) {
      out.emplace_back(static_cast<float>(af::test::fixture::number(v)));
    } else if constexpr (std::is_same_v<T, bool>) {
      out.push_back(v.get<bool>());
    } else if constexpr (std::is_floating_point_v<T>) {
      out.push_back(static_cast<T>(af::test::fixture::number(v)));
    } else {
      out.push_back(v.get<T>());
    }
  }
  if constexpr (std::is_same_v<T, bool>) {
    Tensor t(DType::boolean, shape);
    for (std::size_t i = 0; i < out.size(); ++i) t.data<bool>()[i] = out[i];
    return t;
  } else {
    return Tensor::from_vector(out, shape);
  }
}

// The tensor a fixture value describes.
Tensor tensor_of(const nlohmann::json& spec) {
  const std::string dtype = spec["dtype"];
  const Shape shape(spec["shape"].get<std::vector<std::int64_t>>());
  const auto& v = spec["values"];
  if (dtype == "string") {
    std::vector<std::string> s;
    for (const auto& x : v) s.push_back(latin1(x.get<std::string>()));
    return Tensor::from_vector(s, shape);
  }
  if (dtype == "float32") return numbers_of<float>(v, shape);
  if (dtype == "float64") return numbers_of<double>(v, shape);
  if (dtype == "float16") return numbers_of<af::half_t>(v, shape);
  if (dtype == "int32") return numbers_of<std::int32_t>(v, shape);
  if (dtype == "int64") return numbers_of<std::int64_t>(v, shape);
  if (dtype == "int16") return numbers_of<std::int16_t>(v, shape);
  if (dtype == "int8") return numbers_of<std::int8_t>(v, shape);
  if (dtype == "uint8") return numbers_of<std::uint8_t>(v, shape);
  if (dtype == "uint16") return numbers_of<std::uint16_t>(v, shape);
  if (dtype == "bool") return numbers_of<bool>(v, shape);
  if (dtype == "complex64") return numbers_of<std::complex<float>>(v, shape);
  if (dtype == "complex128") return numbers_of<std::complex<double>>(v, shape);
  BOOST_FAIL("unexpected dtype " << dtype);
  return {};
}

DType dtype_of(const nlohmann::json& spec) { return tensor_of(spec).dtype(); }

// Runs `fetch` in a session of `g`.
Tensor run(Graph& g, const Output& fetch) {
  af::Session sess(g);
  return sess.run(fetch);
}

// The status of running `target`, which must fail.
af::Status failure_of(const std::function<void(af::Session&)>& target, Graph& g) {
  af::Session sess(g);
  try {
    target(sess);
  } catch (const af::Error& e) {
    return e.status();
  }
  BOOST_FAIL("expected an error");
  return {};
}

std::string error_name(af::Code code) {
  switch (code) {
    case af::Code::not_found:
      return "NotFound";
    case af::Code::invalid_argument:
      return "InvalidArgument";
    case af::Code::internal:
      return "Internal";
    case af::Code::data_loss:
      return "DataLoss";
    case af::Code::unimplemented:
      return "Unimplemented";
    default:
      return std::string(af::code_name(code));
  }
}

std::string in_dir(const std::string& name) { return dir() + "/" + name; }

// The variables of `g` by name.
std::map<std::string, af::Variable> variables_of(Graph& g) {
  std::map<std::string, af::Variable> out;
  for (const auto& v : g.global_variables()) out[v.name()] = v;
  return out;
}

// Checks the variables TensorFlow's Saver fixture `sub` saved against their values in `sess`:
// w, step, and part's two parts (rows 0-1 and 2-3 of the full [4,2]).
void check_saver_variables(Graph& g, af::Session& sess, const std::string& sub) {
  const auto& want = values()["files"][sub];
  auto vars = variables_of(g);
  BOOST_REQUIRE(vars.count("w") && vars.count("step") && vars.count("part/part_0") &&
                vars.count("part/part_1"));
  check_value(sess.run(vars["w"].value()), want["w"]);
  check_value(sess.run(vars["step"].value()), want["step"]);
  const Tensor part = tensor_of(want["part"]);
  const Tensor p0 = sess.run(vars["part/part_0"].value());
  const Tensor p1 = sess.run(vars["part/part_1"].value());
  BOOST_TEST(p0.shape() == (Shape{2, 2}));
  BOOST_TEST(p1.shape() == (Shape{2, 2}));
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(p0.data<float>()[i] == part.data<float>()[i]);
    BOOST_TEST(p1.data<float>()[i] == part.data<float>()[i + 4]);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(v1_checkpoint_test)

BOOST_AUTO_TEST_CASE(reader_reads_every_dtype_tensorflow_saved) {
  af::TensorSliceReader reader(in_dir("dtypes.ckpt"));
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  const auto& tensors = values()["files"]["dtypes.ckpt"];
  const auto entries = reader.entries();
  BOOST_TEST(entries.size() == tensors.size());
  for (const auto& e : entries) {
    BOOST_TEST_CONTEXT(e.name) {
      BOOST_REQUIRE(tensors.contains(e.name));
      BOOST_TEST(e.shape.dims() == tensors[e.name]["shape"].get<std::vector<std::int64_t>>(),
                 boost::test_tools::per_element());
      BOOST_TEST(!e.partitioned);
      auto value = reader.lookup(e.name);
      BOOST_REQUIRE_MESSAGE(value.ok(), value.status().to_string());
      check_value(*value, tensors[e.name]);
    }
  }
  // A slice of a complex tensor, as TensorFlow's RestoreSlice returned it.
  for (const auto& r : values()["restores"]) {
    if (r["file"] != "dtypes.ckpt") continue;
    auto spec = af::parse_shape_and_slice(r["spec"].get<std::string>());
    BOOST_REQUIRE(spec.ok());
    check_value(reader.lookup_slice(r["name"].get<std::string>(), spec->slice).value(), r["value"]);
  }
}

BOOST_AUTO_TEST_CASE(writer_and_save_op_write_tensorflows_bytes) {
  const auto& tensors = values()["files"]["dtypes.ckpt"];
  const std::string want = read_bytes(in_dir("dtypes.ckpt"));
  af::test::TempDir tmp("v1_checkpoint");
  // TensorSliceWriter with the tensors in name order, as the Save kernel adds them.
  std::vector<std::string> sorted = values()["dtypes_save_order"].get<std::vector<std::string>>();
  std::sort(sorted.begin(), sorted.end());
  af::TensorSliceWriter writer(tmp.file("direct.ckpt").string());
  for (const auto& name : sorted) {
    const Tensor t = tensor_of(tensors[name]);
    BOOST_REQUIRE(writer.add(name, t.shape(), TensorSlice(t.rank()), t).ok());
  }
  BOOST_REQUIRE(writer.finish().ok());
  BOOST_TEST((read_bytes(tmp.file("direct.ckpt").string()) == want));

  // The Save op, given the names in TensorFlow's (unsorted) call order.
  Graph g;
  std::vector<Output> data;
  const auto order = values()["dtypes_save_order"].get<std::vector<std::string>>();
  for (const auto& name : order) data.push_back(g.constant(tensor_of(tensors[name])));
  const std::string path = tmp.file("op.ckpt").string();
  auto save = af::save(g.constant(Tensor(path)), order, data);
  BOOST_TEST(save.name() == "save");
  BOOST_TEST(save.type() == "Save");
  af::Session sess(g);
  sess.run(save);
  BOOST_TEST((read_bytes(path) == want));
  // Nothing is left beside it (the temporary file was renamed).
  BOOST_TEST(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator()) == 2);
}

BOOST_AUTO_TEST_CASE(restore_ops_return_what_tensorflow_returned) {
  for (const auto& r : values()["restores"]) {
    const std::string op = r["op"], name = r["name"], spec = r["spec"];
    BOOST_TEST_CONTEXT(op << " " << r["file"] << " " << name << " [" << spec << "]") {
      Graph g;
      const Output file = g.constant(Tensor(in_dir(r["file"].get<std::string>())));
      const DType dt = dtype_of(r["value"]);
      Output out;
      if (op == "Restore") {
        out = af::restore(file, name, dt);
      } else if (op == "RestoreSlice") {
        out = af::restore_slice(file, name, spec, dt);
        BOOST_TEST(
            out.shape().to_string() ==
            af::PartialShape(r["value"]["shape"].get<std::vector<std::int64_t>>()).to_string());
      } else {
        out = af::restore_v2(file, {name}, {dt}, {}, {spec})[0];
      }
      check_value(run(g, out), r["value"]);
    }
  }
  // Whole tensors of the sliced and sharded files, through the reader.
  af::TensorSliceReader slices(in_dir("slices.ckpt"));
  check_value(slices.lookup("part").value(), values()["files"]["slices.ckpt"]["part"]);
  check_value(slices.lookup("whole").value(), values()["files"]["slices.ckpt"]["whole"]);
  BOOST_TEST(slices.lookup_dtype_and_shape("part")->partitioned);
  BOOST_TEST(slices.lookup_dtype_and_shape("part")->slices.size() == 2u);
  af::TensorSliceReader sharded(in_dir(values()["sharded_pattern"].get<std::string>()));
  BOOST_REQUIRE(sharded.status().ok());
  BOOST_TEST(sharded.files().size() == 2u);
  for (const std::string name : {"emb", "x", "y"})
    check_value(sharded.lookup(name).value(), values()["files"]["sharded.ckpt"][name]);
}

BOOST_AUTO_TEST_CASE(errors_are_tensorflows) {
  af::test::TempDir tmp("v1_checkpoint_errors");
  const std::string d = in_dir("dtypes.ckpt"), s = in_dir("slices.ckpt");
  const std::string out = tmp.file("x.ckpt").string();
  using Build = std::function<af::Operation(Graph&)>;
  auto restore = [](const std::string& file, const std::string& name, DType dt,
                    const std::string& spec = {}) -> Build {
    return [=](Graph& g) {
      const Output f = g.constant(Tensor(file));
      return (spec.empty() ? af::restore(f, name, dt) : af::restore_slice(f, name, spec, dt)).op();
    };
  };
  const Tensor two_by_two = Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  std::map<std::string, Build> cases{
      {"missing_tensor", restore(d, "zz", DType::float32)},
      {"wrong_dtype", restore(d, "i32", DType::float32)},
      {"no_file", restore(d + "nope", "i32", DType::int32)},
      {"spec_shape", restore(s, "part", DType::float32, "4 3 0,1:-")},
      {"insufficient_slices",
       restore(in_dir("slices_half.ckpt"), "p", DType::float32, "4 2 1,2:-")},
      {"overlapping", restore(in_dir("duplicate.ckpt"), "p", DType::float32)},
      {"not_a_table", restore(in_dir("garbage.ckpt"), "p", DType::float32)},
      {"save_spec_mismatch",
       [&](Graph& g) {
         return af::save_slices(g.constant(Tensor(out)), {"p"}, {"4 2 0,3:-"},
                                {g.constant(two_by_two)});
       }},
      {"save_uint32",
       [&](Graph& g) {
         return af::save(g.constant(Tensor(out)), {"p"},
                         {g.constant(Tensor::from_vector(std::vector<std::uint32_t>{1}))});
       }},
      {"save_bfloat16",
       [&](Graph& g) {
         return af::save(
             g.constant(Tensor(out)), {"p"},
             {g.constant(Tensor::from_vector(std::vector<af::bfloat16_t>{af::bfloat16_t(1.0f)}))});
       }},
      {"v2_missing",
       [&](Graph& g) {
         return af::restore_v2(g.constant(Tensor(d)), {"q"}, {DType::float32})[0].op();
       }},
  };
  BOOST_TEST(values()["errors"].size() == cases.size());
  for (const auto& e : values()["errors"]) {
    const std::string name = e["case"];
    BOOST_TEST_CONTEXT(name) {
      BOOST_REQUIRE(cases.count(name));
      Graph g;
      const af::Operation op = cases[name](g);
      const af::Status status = failure_of([&](af::Session& sess) { sess.run(op); }, g);
      BOOST_TEST(error_name(status.code()) == e["code"].get<std::string>());
      std::string want = e["message"];
      for (std::size_t at; (at = want.find("<dir>/")) != std::string::npos;)
        want.replace(at, 6, dir() + "/");
      // TensorFlow's text first; actorflow may add where and why, and names the node.
      BOOST_TEST(status.message().rfind(want, 0) == 0u,
                 "got: " << status.message() << "\nTensorFlow: " << want);
      BOOST_TEST(status.message().find("{{node ") != std::string::npos);
    }
  }
  BOOST_TEST(!fs::exists(out));
  BOOST_TEST(fs::is_empty(tmp.path));
}

// tf.compat.v1.train.Saver(write_version=V1) graphs, plain and sharded: imported, restored
// from TensorFlow's files, and saved again through their own ops and through a Saver built
// here, both writing TensorFlow's bytes.
BOOST_AUTO_TEST_CASE(tensorflows_v1_saver_graphs_restore_and_save_here) {
  for (const std::string sub : {"saver", "saver_sharded"}) {
    BOOST_TEST_CONTEXT(sub) {
      const bool sharded = sub == "saver_sharded";
      const auto& def = values()[sub + "_saver_def"];
      Graph g;
      auto saver = af::train::import_meta_graph(g, in_dir(sub + "/model.ckpt.meta"));
      BOOST_REQUIRE(saver != nullptr);
      BOOST_TEST(saver->saver_def().version == 1);
      BOOST_TEST(saver->saver_def().sharded == sharded);
      BOOST_TEST(saver->saver_def().save_tensor_name == def["save_tensor_name"].get<std::string>());
      const std::string path = in_dir(values()[sub + "_path"].get<std::string>());
      BOOST_TEST(af::train::checkpoint_exists(path));
      const auto listed = af::train::list_variables(path);
      BOOST_REQUIRE_EQUAL(listed.size(), 3u);
      BOOST_TEST(listed[0].first == "part");
      BOOST_TEST(listed[0].second == (Shape{4, 2}));
      BOOST_TEST(listed[1].first == "step");
      BOOST_TEST(listed[2].first == "w");

      af::Session sess(g);
      saver->restore(sess, path);
      check_saver_variables(g, sess, sub);

      // TensorFlow's file, and its name: the pattern for a sharded save.
      const std::string tf_file =
          in_dir(sharded ? sub + "/model.ckpt-00000-of-00001" : sub + "/model.ckpt");
      af::test::TempDir tmp("v1_saver");
      const std::string theirs = (tmp.path / "theirs.ckpt").string();
      const std::string written =
          saver->save(sess, theirs, std::nullopt, "checkpoint", false, false);
      BOOST_TEST(written == (sharded ? theirs + "-????\?-of-00001" : theirs));
      const std::string file = sharded ? theirs + "-00000-of-00001" : theirs;
      BOOST_TEST((read_bytes(file) == read_bytes(tf_file)));

      af::train::Saver ours(g, {.sharded = sharded, .write_version = 1});
      BOOST_TEST(ours.saver_def().version == 1);
      const std::string mine = (tmp.path / "ours.ckpt").string();
      const std::string ours_written =
          ours.save(sess, mine, std::nullopt, "checkpoint", false, false);
      BOOST_TEST(ours_written == (sharded ? mine + "-????\?-of-00001" : mine));
      BOOST_TEST((read_bytes(sharded ? mine + "-00000-of-00001" : mine) == read_bytes(tf_file)));
    }
  }
}

// A V1 Saver built here: max_to_keep deletes the files of old checkpoints and their meta
// graphs, latest_checkpoint finds the newest, and a restore brings the values back.
BOOST_AUTO_TEST_CASE(v1_saver_keeps_restores_and_prunes) {
  for (const bool sharded : {false, true}) {
    BOOST_TEST_CONTEXT("sharded " << sharded) {
      af::test::TempDir tmp("v1_saver_prune");
      Graph g;
      af::Variable w = g.variable(Tensor::from_vector(std::vector<float>{1, 2, 3}), {.name = "w"});
      auto part = af::train::get_partitioned_variable(
          g, "emb", Shape{5, 2},
          {.initializer = af::initializers::constant(0.5),
           .partitioner = af::train::fixed_size_partitioner(2)});
      const Output bump =
          w.assign_add(g.constant(Tensor::from_vector(std::vector<float>{1, 1, 1})));
      af::train::Saver saver(g, {.max_to_keep = 1, .sharded = sharded, .write_version = 1});
      af::Session sess(g);
      sess.run(g.global_variables_initializer());
      const std::string prefix = (tmp.path / "model").string();
      const std::string first = saver.save(sess, prefix, std::int64_t{1});
      sess.run(bump);
      const std::string second = saver.save(sess, prefix, std::int64_t{2});
      const std::string suffix = sharded ? "-????\?-of-00001" : "";
      BOOST_TEST(first == prefix + "-1" + suffix);
      BOOST_TEST(second == prefix + "-2" + suffix);
      // The first checkpoint's file and meta graph are gone; the second's stay.
      const std::string file2 = prefix + "-2" + (sharded ? "-00000-of-00001" : "");
      BOOST_TEST(!fs::exists(prefix + "-1" + (sharded ? "-00000-of-00001" : "")));
      BOOST_TEST(!fs::exists(prefix + "-1.meta"));
      BOOST_TEST(fs::exists(file2));
      BOOST_TEST(fs::exists(prefix + "-2.meta"));
      BOOST_TEST(af::train::latest_checkpoint(tmp.path.string()).value_or("") == second);
      // The file holds the full variable "emb" as two slices, and w.
      af::TensorSliceReader reader(second);
      BOOST_REQUIRE(reader.status().ok());
      BOOST_TEST(reader.lookup_dtype_and_shape("emb")->slices.size() == 2u);
      BOOST_TEST(reader.lookup("w")->data<float>()[0] == 2.0f);
      // Restoring undoes a change.
      sess.run(bump);
      saver.restore(sess, second);
      BOOST_TEST(sess.run(w.value()).data<float>()[2] == 4.0f);
      // Restoring into a graph cut into 5 parts reads the same slices.
      Graph g2;
      auto part5 = af::train::get_partitioned_variable(
          g2, "emb", Shape{5, 2},
          {.initializer = af::initializers::constant(0.0),
           .partitioner = af::train::fixed_size_partitioner(5)});
      af::train::Saver saver2(part5.parts());
      af::Session sess2(g2);
      saver2.restore(sess2, second);
      BOOST_TEST(sess2.run(part5.parts()[4].value()).data<float>()[1] == 0.5f);
      (void)part;
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
