// White-box tests of SaveV2, RestoreV2 and MergeV2Checkpoints: the graphs the builders make
// (names, attrs, shape inference) and the CPU kernels constructed and run directly.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/kernels/cpu_kernels.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/io_ops.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/tensor_bundle.hpp"
#include "kernel_runner.hpp"
#include "matchers.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using af::DType;
using af::Graph;
using af::Operation;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;

using af::test::KernelResult;
using af::test::KernelRunner;
using af::test::run_kernel;

using af::test::construction_error;
using af::test::require_ok;

Output string_scalar(Graph& g, const std::string& value, std::string_view name = {}) {
  return g.constant(Tensor(value), name);
}

// Saves `tensors` under `names` at `prefix` through a SaveV2 kernel.
void save(const std::string& prefix, const std::vector<std::string>& names,
          const std::vector<Tensor>& tensors) {
  Graph g;
  std::vector<Output> values;
  for (const Tensor& t : tensors) values.push_back(g.constant(t));
  require_ok(run_kernel(af::save_v2(string_scalar(g, prefix), names, values)));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(checkpoint_ops_test)

BOOST_AUTO_TEST_CASE(builders_make_tensorflows_nodes) {
  Graph g;
  Output prefix = g.placeholder(DType::string, PartialShape({}), "save/Const");
  Output a = g.constant(Tensor(1.0f), "a");
  Output b = g.constant(Tensor(std::int64_t{2}), "b");
  Operation save = af::save_v2(prefix, {"a", "b"}, {a, b}, "save/SaveV2");
  BOOST_TEST(save.name() == "save/SaveV2");
  BOOST_TEST(save.type() == "SaveV2");
  BOOST_TEST(save.num_outputs() == 0);
  const auto& inputs = save.node()->inputs();
  BOOST_REQUIRE_EQUAL(inputs.size(), 5u);
  BOOST_TEST(inputs[1].node()->name() == "save/SaveV2/tensor_names");
  BOOST_TEST(inputs[2].node()->name() == "save/SaveV2/shape_and_slices");
  BOOST_TEST(*inputs[1].node()->def().attr<Tensor>("value") ==
             Tensor::from_vector(std::vector<std::string>{"a", "b"}));
  BOOST_TEST(*inputs[2].node()->def().attr<Tensor>("value") ==
             Tensor::from_vector(std::vector<std::string>{"", ""}));
  BOOST_TEST((*save.node_def().attr<std::vector<DType>>("dtypes") ==
              std::vector<DType>{DType::float32, DType::int64}));
  BOOST_TEST(af::OpRegistry::global().find("SaveV2")->stateful);

  auto restored = af::restore_v2(prefix, {"b", "a"}, {DType::int64, DType::float32});
  BOOST_REQUIRE_EQUAL(restored.size(), 2u);
  BOOST_TEST(restored[0].op().name() == "RestoreV2");
  BOOST_TEST(restored[0].dtype() == DType::int64);
  BOOST_TEST(restored[1].dtype() == DType::float32);
  BOOST_TEST(!restored[0].shape().rank_known());
  BOOST_TEST(af::OpRegistry::global().find("RestoreV2")->stateful);
  BOOST_TEST(af::restore_v2(prefix, {"a"}, {DType::float32})[0].op().name() == "RestoreV2_1");

  Output prefixes = g.constant(Tensor::from_vector(std::vector<std::string>{"x", "y"}));
  Operation merge = af::merge_v2_checkpoints(prefixes, prefix, false);
  BOOST_TEST(merge.name() == "MergeV2Checkpoints");
  BOOST_TEST(*merge.node_def().attr<bool>("delete_old_dirs") == false);
  BOOST_TEST(af::OpRegistry::global().find("MergeV2Checkpoints")->stateful);
}

BOOST_AUTO_TEST_CASE(shape_inference_rejects_malformed_inputs) {
  Graph g;
  Output prefix = string_scalar(g, "p");
  Output vector_prefix = g.constant(Tensor::from_vector(std::vector<std::string>{"p"}));
  Output a = g.constant(Tensor(1.0f));
  BOOST_TEST(construction_error([&] {
               af::save_v2(vector_prefix, {"a"}, {a});
             }).find("Shape must be rank 0 but is rank 1") != std::string::npos);
  // Two names for one tensor.
  BOOST_TEST(construction_error([&] {
               g.create_op(
                   "SaveV2",
                   {prefix, g.constant(Tensor::from_vector(std::vector<std::string>{"a", "b"})),
                    g.constant(Tensor::from_vector(std::vector<std::string>{"", ""})), a},
                   {{"dtypes", std::vector<DType>{DType::float32}}});
             }).find("Dimension must be 1 but is 2") != std::string::npos);
  BOOST_TEST(construction_error([&] { af::save_v2(prefix, {"a", "b"}, {a}); }) != "<no error>");
  BOOST_TEST(construction_error([&] {
               af::restore_v2(prefix, {"a", "b"}, {DType::float32});
             }) != "<no error>");
  BOOST_TEST(construction_error([&] {
               g.create_op("RestoreV2",
                           {prefix, g.constant(Tensor::from_vector(std::vector<std::string>{"a"})),
                            g.constant(Tensor::from_vector(std::vector<std::string>{""}))},
                           {{"dtypes", std::vector<DType>{DType::float32, DType::int32}}});
             }).find("The number of shape_and_slice doesn't match tensor outputs.") !=
             std::string::npos);
  BOOST_TEST(construction_error([&] {
               af::merge_v2_checkpoints(prefix, prefix);
             }).find("Shape must be rank 1 but is rank 0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(save_v2_then_restore_v2_round_trips_the_tensors) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "model.ckpt").string();
  const Tensor kernel = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Tensor step(std::int64_t{42});
  const Tensor vocab =
      Tensor::from_vector(std::vector<std::string>{"", "the", std::string(1000, 'z')});
  const Tensor empty(DType::float64, Shape{0, 4});
  save(prefix, {"dense/kernel", "global_step", "vocab", "empty"}, {kernel, step, vocab, empty});
  BOOST_TEST(fs::exists(prefix + ".index"));
  BOOST_TEST(fs::exists(prefix + ".data-00000-of-00001"));

  Graph g;
  auto restored =
      af::restore_v2(string_scalar(g, prefix), {"vocab", "dense/kernel", "empty", "global_step"},
                     {DType::string, DType::float32, DType::float64, DType::int64});
  KernelResult r = run_kernel(restored[0].op());
  require_ok(r);
  BOOST_REQUIRE_EQUAL(r.outputs.size(), 4u);
  BOOST_TEST(r.outputs[0] == vocab);
  BOOST_TEST(r.outputs[1] == kernel);
  BOOST_TEST(r.outputs[2].shape() == Shape({0, 4}));
  BOOST_TEST(r.outputs[2].dtype() == DType::float64);
  BOOST_TEST(r.outputs[3] == step);
  // The files are TensorFlow's bundle: the reader sees the same.
  af::BundleReader reader(prefix);
  BOOST_TEST(reader.entries().size() == 4u);
}

BOOST_AUTO_TEST_CASE(restore_v2_with_another_dtype_is_invalid_argument_in_tensorflows_words) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "ckpt").string();
  save(prefix, {"a", "b"}, {Tensor(1.0f), Tensor(std::int32_t{3})});
  Graph g;
  auto restored = af::restore_v2(string_scalar(g, prefix), {"b", "a"},
                                 {DType::int64, DType::float64}, "save/RestoreV2");
  KernelResult r = run_kernel(restored[0].op());
  BOOST_TEST(r.status.code() == af::Code::invalid_argument);
  BOOST_TEST(r.status.message() ==
             "tensor_name = a; expected dtype double does not equal original dtype float\n"
             "tensor_name = b; expected dtype int64 does not equal original dtype int32"
             "\n\t [[{{node save/RestoreV2}}]]");
}

BOOST_AUTO_TEST_CASE(restore_v2_of_an_unknown_key_is_not_found) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "ckpt").string();
  save(prefix, {"a"}, {Tensor(1.0f)});
  Graph g;
  auto restored = af::restore_v2(string_scalar(g, prefix), {"a", "dense/bias"},
                                 {DType::float32, DType::float32});
  KernelResult r = run_kernel(restored[0].op());
  BOOST_TEST(r.status.code() == af::Code::not_found);
  BOOST_TEST(r.status.message() ==
             "Key dense/bias not found in checkpoint\n\t [[{{node RestoreV2}}]]");

  // No index at all: TensorFlow's V1 fallback error.
  auto missing = af::restore_v2(string_scalar(g, prefix + "-7"), {"a"}, {DType::float32});
  KernelResult m = run_kernel(missing[0].op());
  BOOST_TEST(m.status.code() == af::Code::not_found);
  BOOST_TEST(m.status.message() ==
             "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for " +
                 prefix + "-7\n\t [[{{node RestoreV2_1}}]]");
}

BOOST_AUTO_TEST_CASE(restore_v2_of_a_corrupt_checkpoint_is_data_loss) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "ckpt").string();
  save(prefix, {"w"}, {Tensor::from_vector(std::vector<float>{1, 2})});
  {
    std::fstream f(prefix + ".data-00000-of-00001",
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2);
    f.put('\x7f');
  }
  Graph g;
  auto restored = af::restore_v2(string_scalar(g, prefix), {"w"}, {DType::float32});
  KernelResult r = run_kernel(restored[0].op());
  BOOST_TEST(r.status.code() == af::Code::data_loss);
  BOOST_TEST(r.status.message().find("Checksum does not match") != std::string::npos);
  BOOST_TEST(r.status.message().find("[[{{node RestoreV2}}]]") != std::string::npos);
}

// save_restore_v2_ops.cc with shape-and-slice specs: a part saved as its slice, read back
// by its spec, and TensorFlow's errors for a spec that does not match.
BOOST_AUTO_TEST_CASE(shape_and_slice_specs_save_and_restore_slices) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "ckpt").string();
  Graph g;
  Output p = string_scalar(g, prefix);
  Output names = g.constant(Tensor::from_vector(std::vector<std::string>{"part"}));
  auto save_with = [&](const std::string& spec, const Tensor& value) {
    Output slices = g.constant(Tensor::from_vector(std::vector<std::string>{spec}));
    return run_kernel(g.create_op("SaveV2", {p, names, slices, g.constant(value)},
                                  {{"dtypes", std::vector<DType>{DType::float32}}}, "save"));
  };
  auto restore_with = [&](const std::string& spec) {
    Output slices = g.constant(Tensor::from_vector(std::vector<std::string>{spec}));
    return run_kernel(g.create_op("RestoreV2", {p, names, slices},
                                  {{"dtypes", std::vector<DType>{DType::float32}}}, "restore"));
  };
  KernelResult bad = save_with("4 1,2", Tensor::from_vector(std::vector<float>{1, 2, 3}));
  BOOST_TEST(bad.status.code() == af::Code::invalid_argument);
  BOOST_TEST(bad.status.message().find(
                 "Slice in shape_and_slice specification does not match the shape of the tensor "
                 "to  save: 4 1,2, tensor: [3]") == 0u,
             bad.status.message());
  BOOST_TEST(bad.status.message().find("[[{{node save}}]]") != std::string::npos);
  BOOST_TEST(!fs::exists(prefix + ".index"));
  BOOST_TEST(save_with("4 x", Tensor::from_vector(std::vector<float>{1}))
                 .status.message()
                 .find("Expected a pair of numbers or '-' but got 'x': string = x") == 0u);

  KernelResult saved = save_with("4 0,2", Tensor::from_vector(std::vector<float>{1, 2}));
  BOOST_REQUIRE_MESSAGE(saved.status.ok(), saved.status.to_string());
  KernelResult back = restore_with("4 0,2");
  BOOST_REQUIRE_MESSAGE(back.status.ok(), back.status.to_string());
  BOOST_TEST(back.outputs.at(0).to_vector<float>() == std::vector<float>({1, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(restore_with("4 1,1").outputs.at(0).to_vector<float>() == std::vector<float>({2}),
             boost::test_tools::per_element());
  KernelResult other_shape = restore_with("5 0,2");
  BOOST_TEST(other_shape.status.message().find(
                 "tensor_name = part; shape in shape_and_slice spec [5] does not match the shape "
                 "stored in checkpoint: [4]") == 0u,
             other_shape.status.message());
  KernelResult missing = restore_with("4 1,2");
  BOOST_TEST(missing.status.message().find("Does not have sufficient slices for partitioned "
                                           "tensor part to restore in slice_spec: 1,2") == 0u,
             missing.status.message());
  KernelResult whole = restore_with("");
  BOOST_TEST(whole.status.message().find("Does not have sufficient slices for partitioned "
                                         "tensor part to restore in slice_spec: -") == 0u,
             whole.status.message());
}

BOOST_AUTO_TEST_CASE(save_v2_with_a_repeated_name_fails_and_keeps_the_old_checkpoint) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "ckpt").string();
  save(prefix, {"a"}, {Tensor(1.0f)});
  Graph g;
  Operation op = af::save_v2(string_scalar(g, prefix), {"a", "a"},
                             {g.constant(Tensor(2.0f)), g.constant(Tensor(3.0f))});
  KernelResult r = run_kernel(op);
  BOOST_TEST(r.status.code() == af::Code::invalid_argument);
  BOOST_TEST(r.status.message() == "Adding duplicate key: a\n\t [[{{node SaveV2}}]]");
  auto t = af::BundleReader(prefix).lookup("a");
  BOOST_REQUIRE(t.ok());
  BOOST_TEST(*t == Tensor(1.0f));
}

BOOST_AUTO_TEST_CASE(merge_v2_checkpoints_merges_shards_and_removes_the_temp_dir) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "model.ckpt-9").string();
  const std::string part0 = prefix + "_temp/part-00000-of-00002";
  const std::string part1 = prefix + "_temp/part-00001-of-00002";
  save(part0, {"ps0/w"}, {Tensor::from_vector(std::vector<float>{1, 2})});
  save(part1, {"ps1/w"}, {Tensor::from_vector(std::vector<double>{3, 4, 5})});
  Graph g;
  Output prefixes = g.constant(Tensor::from_vector(std::vector<std::string>{part0, part1}));
  require_ok(run_kernel(af::merge_v2_checkpoints(prefixes, string_scalar(g, prefix))));
  BOOST_TEST(!fs::exists(prefix + "_temp"));
  BOOST_TEST(fs::exists(prefix + ".data-00001-of-00002"));

  auto restored = af::restore_v2(string_scalar(g, prefix), {"ps0/w", "ps1/w"},
                                 {DType::float32, DType::float64});
  KernelResult r = run_kernel(restored[0].op());
  require_ok(r);
  BOOST_TEST(r.outputs[0] == Tensor::from_vector(std::vector<float>{1, 2}));
  BOOST_TEST(r.outputs[1] == Tensor::from_vector(std::vector<double>{3, 4, 5}));

  // A missing input names it.
  Output missing = g.constant(Tensor::from_vector(std::vector<std::string>{part0}));
  KernelResult m = run_kernel(af::merge_v2_checkpoints(missing, string_scalar(g, prefix + "-x")));
  BOOST_TEST(m.status.code() == af::Code::not_found);
  BOOST_TEST(m.status.message().find(part0 + ".index") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
