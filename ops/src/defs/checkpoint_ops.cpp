// SaveV2, RestoreV2 and MergeV2Checkpoints (TensorFlow's save_restore_v2_ops.cc), and the V1
// checkpoint ops Save, SaveSlices, Restore, RestoreSlice and ShardedFilespec (io_ops.cc):
// ops, shape functions and graph-building functions. Their CPU kernels are in
// kernels/src/checkpoint_ops.cpp and kernels/src/checkpoint_v1_ops.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/checkpoint_shapes.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/io_ops.hpp"
#include "actorflow/ops/tensor_slice.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::kFixedInputs;

using detail::with_rank;

Status with_value(const PartialShape& s, std::int64_t value) {
  if (s.rank_known() && s.rank() >= 1 && s.dim(0) >= 0 && s.dim(0) != value)
    return invalid_argument("Dimension must be " + std::to_string(value) + " but is " +
                            std::to_string(s.dim(0)));
  return {};
}

Status expect_string_inputs(const InferenceContext& c, int count) {
  for (int i = 0; i < count && i < c.num_inputs(); ++i)
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(i, DType::string));
  return {};
}

// -- shape functions ------------------------------------------------------------------------

Status infer_save_v2(InferenceContext& c) {
  if (c.num_inputs() < kFixedInputs)
    return invalid_argument("SaveV2 needs a prefix, tensor names and shape_and_slices");
  ACTORFLOW_RETURN_IF_ERROR(expect_string_inputs(c, kFixedInputs));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  for (int i = 1; i <= 2; ++i) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 1));
    ACTORFLOW_RETURN_IF_ERROR(
        with_value(c.input_shapes[static_cast<std::size_t>(i)], c.num_inputs() - kFixedInputs));
  }
  std::vector<DType> dtypes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &dtypes));
  if (dtypes.size() != static_cast<std::size_t>(c.num_inputs() - kFixedInputs))
    return invalid_argument("SaveV2: attr dtypes has " + std::to_string(dtypes.size()) +
                            " entries but there are " +
                            std::to_string(c.num_inputs() - kFixedInputs) + " tensors");
  for (std::size_t i = 0; i < dtypes.size(); ++i)
    if (c.input_types[i + kFixedInputs] != dtypes[i])
      return invalid_argument("Input tensors:" + std::to_string(i) + " of SaveV2 has dtype " +
                              std::string(dtype_name(c.input_types[i + kFixedInputs])) +
                              " but attr dtypes says " + std::string(dtype_name(dtypes[i])));
  return {};
}

Status infer_restore_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(kFixedInputs));
  ACTORFLOW_RETURN_IF_ERROR(expect_string_inputs(c, kFixedInputs));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(c.input_shapes[1].merge_with(c.input_shapes[2], &merged));
  std::vector<DType> dtypes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &dtypes));
  const Tensor* slices = c.input_values.size() > 2 ? c.input_values[2] : nullptr;
  if (slices == nullptr) {
    // The shapes come from the checkpoint at run time.
    for (DType t : dtypes) c.add_output(t, PartialShape::unknown());
    return {};
  }
  if (slices->num_elements() != static_cast<std::int64_t>(dtypes.size()))
    return invalid_argument("The number of shape_and_slice doesn't match tensor outputs.");
  // A slice spec gives its output's shape; an empty one leaves it to the checkpoint.
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    const std::string& spec = slices->data<std::string>()[i];
    if (spec.empty()) {
      c.add_output(dtypes[i], PartialShape::unknown());
      continue;
    }
    StatusOr<ShapeAndSlice> parsed = parse_shape_and_slice(spec);
    if (!parsed.ok()) return parsed.status();
    c.add_output(dtypes[i], PartialShape(parsed->slice_shape));
  }
  return {};
}

// Save(filename, tensor_names, data) and SaveSlices(filename, tensor_names,
// shapes_and_slices, data): a scalar filename, one name (and spec) per tensor.
Status infer_save_v1(InferenceContext& c, int fixed) {
  if (c.num_inputs() < fixed + 1)
    return invalid_argument(c.node.op + " needs a filename, tensor names and tensors");
  ACTORFLOW_RETURN_IF_ERROR(expect_string_inputs(c, fixed));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  for (int i = 1; i < fixed; ++i) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 1));
    ACTORFLOW_RETURN_IF_ERROR(
        with_value(c.input_shapes[static_cast<std::size_t>(i)], c.num_inputs() - fixed));
  }
  return {};
}

// Restore(file_pattern, tensor_name) and RestoreSlice(..., shape_and_slice): scalars in; the
// stored shape out, or a constant spec's slice shape.
Status infer_restore_v1(InferenceContext& c, int inputs) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  ACTORFLOW_RETURN_IF_ERROR(expect_string_inputs(c, inputs));
  for (int i = 0; i < inputs; ++i)
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
  DType dt = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dt", &dt));
  const Tensor* spec = inputs > 2 && c.input_values.size() > 2 ? c.input_values[2] : nullptr;
  if (spec == nullptr || spec->num_elements() != 1 || spec->data<std::string>()[0].empty()) {
    c.add_output(dt, PartialShape::unknown());
    return {};
  }
  StatusOr<ShapeAndSlice> parsed = parse_shape_and_slice(spec->data<std::string>()[0]);
  if (!parsed.ok()) return parsed.status();
  c.add_output(dt, PartialShape(parsed->slice_shape));
  return {};
}

Status infer_merge_v2_checkpoints(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_string_inputs(c, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  return {};
}

// The Const holding a list of strings, as op_def_library converts a Python list input.
Output string_vector(Graph& g, const std::vector<std::string>& values, std::string_view name) {
  return g.constant(Tensor::from_vector(values, Shape{static_cast<std::int64_t>(values.size())}),
                    name);
}

// The first inputs of the SaveV2 or RestoreV2 `op_name`: `prefix`, then the Consts
// "tensor_names" and "shape_and_slices" (none given: all "", whole tensors) under its name
// scope.
std::vector<Output> bundle_inputs(Graph& g, const std::string& op_name, const Output& prefix,
                                  const std::vector<std::string>& tensor_names,
                                  std::vector<std::string> shape_and_slices) {
  if (shape_and_slices.empty()) shape_and_slices.resize(tensor_names.size());
  if (shape_and_slices.size() != tensor_names.size())
    throw InvalidArgumentError(invalid_argument(
        op_name + ": " + std::to_string(tensor_names.size()) + " tensor names but " +
        std::to_string(shape_and_slices.size()) + " shape_and_slices"));
  std::vector<Output> inputs{prefix};
  auto scope = g.name_scope(op_name + "/");
  inputs.push_back(string_vector(g, tensor_names, "tensor_names"));
  inputs.push_back(string_vector(g, shape_and_slices, "shape_and_slices"));
  return inputs;
}

}  // namespace

namespace detail {

void register_checkpoint_ops(OpRegistry& r) {
  r.add({"SaveV2", infer_save_v2, /*stateful=*/true});
  r.add({"RestoreV2", infer_restore_v2, /*stateful=*/true});
  r.add({"MergeV2Checkpoints", infer_merge_v2_checkpoints, /*stateful=*/true});
  r.add({"Save", [](InferenceContext& c) { return infer_save_v1(c, 2); }, /*stateful=*/true});
  r.add({"SaveSlices", [](InferenceContext& c) { return infer_save_v1(c, 3); }, true});
  r.add({"Restore", [](InferenceContext& c) { return infer_restore_v1(c, 2); }, true});
  r.add({"RestoreSlice", [](InferenceContext& c) { return infer_restore_v1(c, 3); }, true});
  r.add({"ShardedFilespec", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
           ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
           ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
           c.add_output(DType::string, PartialShape(std::vector<std::int64_t>{}));
           return {};
         }});
}

}  // namespace detail

Operation save_v2(const Output& prefix, const std::vector<std::string>& tensor_names,
                  const std::vector<Output>& tensors, std::string_view name,
                  const std::vector<std::string>& shape_and_slices) {
  if (tensor_names.size() != tensors.size())
    throw InvalidArgumentError(invalid_argument("save_v2: " + std::to_string(tensor_names.size()) +
                                                " tensor names but " +
                                                std::to_string(tensors.size()) + " tensors"));
  Graph& g = prefix.graph();
  const std::string op_name = g.unique_name(name.empty() ? "SaveV2" : name);
  std::vector<Output> inputs = bundle_inputs(g, op_name, prefix, tensor_names, shape_and_slices);
  std::vector<DType> dtypes;
  for (const Output& t : tensors) {
    inputs.push_back(t);
    dtypes.push_back(t.dtype());
  }
  return g.create_op("SaveV2", inputs, {{"dtypes", dtypes}}, op_name + "/");
}

std::vector<Output> restore_v2(const Output& prefix, const std::vector<std::string>& tensor_names,
                               const std::vector<DType>& dtypes, std::string_view name,
                               const std::vector<std::string>& shape_and_slices) {
  if (tensor_names.size() != dtypes.size())
    throw InvalidArgumentError(
        invalid_argument("restore_v2: " + std::to_string(tensor_names.size()) +
                         " tensor names but " + std::to_string(dtypes.size()) + " dtypes"));
  Graph& g = prefix.graph();
  const std::string op_name = g.unique_name(name.empty() ? "RestoreV2" : name);
  std::vector<Output> inputs = bundle_inputs(g, op_name, prefix, tensor_names, shape_and_slices);
  Operation op = g.create_op("RestoreV2", inputs, {{"dtypes", dtypes}}, op_name + "/");
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

Operation merge_v2_checkpoints(const Output& checkpoint_prefixes, const Output& destination_prefix,
                               bool delete_old_dirs, std::string_view name) {
  return checkpoint_prefixes.graph().create_op(
      "MergeV2Checkpoints", {checkpoint_prefixes, destination_prefix},
      {{"delete_old_dirs", delete_old_dirs}}, name.empty() ? "MergeV2Checkpoints" : name);
}

namespace {

// Save (no specs) or SaveSlices: the names (and specs) as Consts under the op's name scope.
Operation save_v1(const Output& filename, const std::vector<std::string>& tensor_names,
                  const std::vector<std::string>* specs, const std::vector<Output>& tensors,
                  std::string_view name) {
  if (tensor_names.size() != tensors.size() || (specs && specs->size() != tensors.size()))
    throw InvalidArgumentError(invalid_argument(
        std::string(specs ? "save_slices" : "save") + ": " + std::to_string(tensor_names.size()) +
        " tensor names" +
        (specs ? ", " + std::to_string(specs->size()) + " shapes_and_slices" : "") + " but " +
        std::to_string(tensors.size()) + " tensors"));
  Graph& g = filename.graph();
  const std::string op_name = g.unique_name(name);
  std::vector<Output> inputs{filename};
  {
    auto scope = g.name_scope(op_name + "/");
    inputs.push_back(string_vector(g, tensor_names, "tensor_names"));
    if (specs) inputs.push_back(string_vector(g, *specs, "shapes_and_slices"));
  }
  std::vector<DType> types;
  for (const Output& t : tensors) {
    inputs.push_back(t);
    types.push_back(t.dtype());
  }
  return g.create_op(specs ? "SaveSlices" : "Save", inputs, {{"T", types}}, op_name + "/");
}

}  // namespace

Operation save(const Output& filename, const std::vector<std::string>& tensor_names,
               const std::vector<Output>& tensors, std::string_view name) {
  return save_v1(filename, tensor_names, nullptr, tensors, name.empty() ? "save" : name);
}

Operation save_slices(const Output& filename, const std::vector<std::string>& tensor_names,
                      const std::vector<std::string>& shapes_and_slices,
                      const std::vector<Output>& tensors, std::string_view name) {
  return save_v1(filename, tensor_names, &shapes_and_slices, tensors,
                 name.empty() ? "save_slices" : name);
}

Output restore(const Output& file_pattern, const std::string& tensor_name, DType dt,
               int preferred_shard, std::string_view name) {
  Graph& g = file_pattern.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Restore" : name);
  Output tensor;
  {
    auto scope = g.name_scope(op_name + "/");
    tensor = g.constant(Tensor(tensor_name), "tensor_name");
  }
  return g
      .create_op("Restore", {file_pattern, tensor},
                 {{"dt", dt}, {"preferred_shard", static_cast<std::int64_t>(preferred_shard)}},
                 op_name + "/")
      .output(0);
}

Output restore_slice(const Output& file_pattern, const std::string& tensor_name,
                     const std::string& shape_and_slice, DType dt, int preferred_shard,
                     std::string_view name) {
  Graph& g = file_pattern.graph();
  const std::string op_name = g.unique_name(name.empty() ? "RestoreSlice" : name);
  Output tensor, spec;
  {
    auto scope = g.name_scope(op_name + "/");
    tensor = g.constant(Tensor(tensor_name), "tensor_name");
    spec = g.constant(Tensor(shape_and_slice), "shape_and_slice");
  }
  return g
      .create_op("RestoreSlice", {file_pattern, tensor, spec},
                 {{"dt", dt}, {"preferred_shard", static_cast<std::int64_t>(preferred_shard)}},
                 op_name + "/")
      .output(0);
}

Output sharded_filespec(const Output& basename, const Output& num_shards, std::string_view name) {
  return basename.graph()
      .create_op("ShardedFilespec", {basename, num_shards}, {},
                 name.empty() ? "ShardedFilespec" : name)
      .output(0);
}

}  // namespace af
