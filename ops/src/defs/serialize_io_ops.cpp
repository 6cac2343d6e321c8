// The definitions of ReadFile, WriteFile, MatchingFiles, Fingerprint, DecodePaddedRaw,
// DecodeCompressed, SerializeTensor, ParseTensor, SerializeSparse, SerializeManySparse,
// DeserializeSparse, DeserializeManySparse, AddSparseToTensorsMap, AddManySparseToTensorsMap
// and TakeManySparseFromTensorsMap (shape functions as TensorFlow's io_ops.cc, array_ops.cc,
// parsing_ops.cc and sparse_ops.cc) and their builders. The CPU kernels are in
// kernels/src/serialize_io_ops.cpp, serialize_io_file_ops.cpp and sparse_serialize_ops.cpp;
// the ops TensorFlow declares not differentiable in ops/src/gradients/serialize_io_grad.cpp.
#include "actorflow/ops/serialize_io_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::vector_of;
using detail::with_rank_at_most;

using Index = std::int64_t;
using detail::check_attr_type;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// op_def_library's message for input `i` (named `arg`) of a fixed type.
Status expect_type(const InferenceContext& c, int i, const char* arg, DType want) {
  const DType got = c.input_types[static_cast<std::size_t>(i)];
  if (got == want) return {};
  return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, arg, got, want));
}

// -- files -----------------------------------------------------------------------------------

Status infer_read_file(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "filename", DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  c.add_output(DType::string, PartialShape{});
  return {};
}

Status infer_write_file(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "filename", DType::string));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 1, "contents", DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  return with_rank(c.input_shapes[1], 0);
}

Status infer_matching_files(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "pattern", DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[0], 1));
  c.add_output(DType::string, vector_of(-1));
  return {};
}

// -- bytes -----------------------------------------------------------------------------------

// Fingerprint: uint8 [data.shape[0], 8] (the 8 unknown while the method is).
Status infer_fingerprint(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 1, "method", DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  Index size = -1;
  if (const Tensor* method = c.input_values[1]) {
    if (method->rank() != 0)
      return invalid_argument("`method` must be rank 0: " + method->shape().to_string());
    const std::string& name = method->data<std::string>()[0];
    if (name != "farmhash64") return invalid_argument("Unsupported method: " + name);
    size = 8;
  }
  const PartialShape& data = c.input_shapes[0];
  const Index batch = data.rank_known() ? data.dim(0) : -1;
  c.add_output(DType::uint8, PartialShape{batch, size});
  return {};
}

// DecodePaddedRaw: input_bytes.shape + [fixed_length / sizeof(out_type)].
Status infer_decode_padded_raw(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "input_bytes", DType::string));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 1, "fixed_length", DType::int32));
  DType out_type = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("out_type", &out_type));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(out_type, c.node.op, "out_type"));
  // MakeDimForScalarInput(1), then Divide(..., evenly_divisible).
  Index width = -1;
  if (const Tensor* length = c.input_values[1]) {
    if (length->rank() != 0)
      return invalid_argument("Input must be scalar but has rank " +
                              std::to_string(length->rank()));
    const Index fixed = index_values(*length)[0];
    if (fixed < 0)
      return invalid_argument(
          "Dimension size, given by scalar input 1, must be non-negative but is " +
          std::to_string(fixed));
    const auto size = static_cast<Index>(dtype_size(out_type));
    if (fixed % size != 0)
      return invalid_argument("Dimension size must be evenly divisible by " + std::to_string(size) +
                              " but is " + std::to_string(fixed));
    width = fixed / size;
  }
  const PartialShape& input = c.input_shapes[0];
  PartialShape out = PartialShape::unknown();
  if (input.rank_known()) {
    std::vector<std::int64_t> dims = input.dims();
    dims.push_back(width);
    out = PartialShape(std::move(dims));
  }
  c.add_output(out_type, out);
  return {};
}

Status infer_decode_compressed(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "bytes", DType::string));
  c.add_output(DType::string, c.input_shapes[0]);
  return {};
}

Status infer_serialize_tensor(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(DType::string, PartialShape{});
  return {};
}

Status infer_parse_tensor(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "serialized", DType::string));
  DType out_type = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("out_type", &out_type));
  c.add_output(out_type, PartialShape::unknown());
  return {};
}

// -- SparseTensors ---------------------------------------------------------------------------

// A SparseTensor's three inputs: indices int64 [N, R], values [N], shape int64 [R].
Status check_sparse_inputs(const InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "sparse_indices", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 2, "sparse_shape", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  return with_rank(c.input_shapes[2], 1);
}

const std::vector<DType> kSerializedTypes = {DType::string, DType::variant};

// SerializeSparse: [3]; SerializeManySparse: [?, 3].
Status infer_serialize_sparse(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  DType out_type = DType::string;
  c.get_attr("out_type", &out_type);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out_type, "out_type", kSerializedTypes));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c));
  c.add_output(out_type, c.node.op == "SerializeSparse" ? vector_of(3) : PartialShape{-1, 3});
  return {};
}

// The outputs of a SparseTensor of the `dtype` attr's values of unknown size: indices
// [?, ?], values [?], dense shape [?].
Status add_sparse_outputs(InferenceContext& c) {
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  c.add_output(DType::int64, PartialShape{-1, -1});
  c.add_output(dtype, vector_of(-1));
  c.add_output(DType::int64, vector_of(-1));
  return {};
}

// DeserializeSparse ([..., 3]) and DeserializeManySparse ([?, 3]): indices [?, ?], values [?]
// and shape [?].
Status infer_deserialize_sparse(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  const PartialShape& serialized = c.input_shapes[0];
  if (c.node.op == "DeserializeManySparse") {
    ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "serialized_sparse", DType::string));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(serialized, 2));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "Tserialized", kSerializedTypes));
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(serialized, 1));
  }
  if (serialized.rank_known()) {
    const Index last = serialized.dim(serialized.rank() - 1);
    if (last >= 0 && last != 3)
      return invalid_argument("Dimension must be 3 but is " + std::to_string(last));
  }
  return add_sparse_outputs(c);
}

// AddSparseToTensorsMap: a scalar handle; AddManySparseToTensorsMap: [?] handles.
Status infer_add_to_map(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_sparse_inputs(c));
  c.add_output(DType::int64, c.node.op == "AddSparseToTensorsMap" ? PartialShape{} : vector_of(-1));
  return {};
}

Status infer_take_from_map(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 0, "sparse_handles", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  return add_sparse_outputs(c);
}

// The op's name: `name`, else its type (made unique by the graph).
std::string_view op_name(std::string_view name, std::string_view type) {
  return name.empty() ? type : name;
}

// An op whose last input is a Python value converted to the Const "<op>/<input>", as
// op_def_library names it.
Operation with_const_input(Graph& g, const std::string& type, std::vector<Output> inputs,
                           const Tensor& value, const char* input, AttrMap attrs,
                           std::string_view name) {
  const std::string unique = g.unique_name(op_name(name, type));
  {
    auto scope = g.name_scope(unique + "/");
    inputs.push_back(g.constant(value, input));
  }
  return g.create_op(type, inputs, std::move(attrs), unique + "/");
}

// SerializeSparse or SerializeManySparse (`type`) of `sp_input`.
Output serialize_sparse_op(const char* type, const SparseTensor& sp_input, DType out_type,
                           std::string_view name) {
  return sp_input.indices.graph()
      .create_op(type, {sp_input.indices, sp_input.values, sp_input.dense_shape},
                 {{"T", sp_input.values.dtype()}, {"out_type", out_type}}, op_name(name, type))
      .output(0);
}

SparseTensor sparse_outputs(const Operation& op) {
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace

namespace detail {

void register_serialize_io_ops(OpRegistry& r) {
  r.add({"ReadFile", infer_read_file});
  r.add({"WriteFile", infer_write_file, true});
  r.add({"MatchingFiles", infer_matching_files});
  r.add({"Fingerprint", infer_fingerprint});
  r.add({"DecodePaddedRaw", infer_decode_padded_raw});
  r.add({"DecodeCompressed", infer_decode_compressed});
  r.add({"SerializeTensor", infer_serialize_tensor});
  r.add({"ParseTensor", infer_parse_tensor});
  r.add({"SerializeSparse", infer_serialize_sparse});
  r.add({"SerializeManySparse", infer_serialize_sparse});
  r.add({"DeserializeSparse", infer_deserialize_sparse});
  r.add({"DeserializeManySparse", infer_deserialize_sparse});
  r.add({"AddSparseToTensorsMap", infer_add_to_map, true});
  r.add({"AddManySparseToTensorsMap", infer_add_to_map, true});
  r.add({"TakeManySparseFromTensorsMap", infer_take_from_map, true});
}

}  // namespace detail

namespace io {

Output read_file(const Output& filename, std::string_view name) {
  return filename.graph()
      .create_op("ReadFile", {filename}, {}, op_name(name, "ReadFile"))
      .output(0);
}

Operation write_file(const Output& filename, const Output& contents, std::string_view name) {
  return filename.graph().create_op("WriteFile", {filename, contents}, {},
                                    op_name(name, "WriteFile"));
}

Output matching_files(const Output& pattern, std::string_view name) {
  return pattern.graph()
      .create_op("MatchingFiles", {pattern}, {}, op_name(name, "MatchingFiles"))
      .output(0);
}

Output decode_compressed(const Output& bytes, std::string_view compression_type,
                         std::string_view name) {
  return bytes.graph()
      .create_op("DecodeCompressed", {bytes}, {{"compression_type", std::string(compression_type)}},
                 op_name(name, "DecodeCompressed"))
      .output(0);
}

Output decode_padded_raw(const Output& input_bytes, const Output& fixed_length, DType out_type,
                         bool little_endian, std::string_view name) {
  return input_bytes.graph()
      .create_op("DecodePaddedRaw", {input_bytes, fixed_length},
                 {{"out_type", out_type}, {"little_endian", little_endian}},
                 op_name(name, "DecodePaddedRaw"))
      .output(0);
}

Output decode_padded_raw(const Output& input_bytes, std::int64_t fixed_length, DType out_type,
                         bool little_endian, std::string_view name) {
  return with_const_input(input_bytes.graph(), "DecodePaddedRaw", {input_bytes},
                          Tensor(static_cast<std::int32_t>(fixed_length)), "fixed_length",
                          {{"out_type", out_type}, {"little_endian", little_endian}}, name)
      .output(0);
}

Output serialize_tensor(const Output& tensor, std::string_view name) {
  return tensor.graph()
      .create_op("SerializeTensor", {tensor}, {{"T", tensor.dtype()}},
                 op_name(name, "SerializeTensor"))
      .output(0);
}

Output parse_tensor(const Output& serialized, DType out_type, std::string_view name) {
  return serialized.graph()
      .create_op("ParseTensor", {serialized}, {{"out_type", out_type}},
                 op_name(name, "ParseTensor"))
      .output(0);
}

}  // namespace io

Output fingerprint(const Output& data, std::string_view method, std::string_view name) {
  return with_const_input(data.graph(), "Fingerprint", {data}, Tensor(std::string(method)),
                          "method", {{"T", data.dtype()}}, name)
      .output(0);
}

Output serialize_sparse(const SparseTensor& sp_input, DType out_type, std::string_view name) {
  return serialize_sparse_op("SerializeSparse", sp_input, out_type, name);
}

Output serialize_many_sparse(const SparseTensor& sp_input, DType out_type, std::string_view name) {
  return serialize_sparse_op("SerializeManySparse", sp_input, out_type, name);
}

SparseTensor deserialize_sparse(const Output& serialized_sparse, DType dtype,
                                std::string_view name) {
  return sparse_outputs(serialized_sparse.graph().create_op(
      "DeserializeSparse", {serialized_sparse},
      {{"dtype", dtype}, {"Tserialized", serialized_sparse.dtype()}},
      op_name(name, "DeserializeSparse")));
}

SparseTensor deserialize_many_sparse(const Output& serialized_sparse, DType dtype,
                                     std::string_view name) {
  return sparse_outputs(serialized_sparse.graph().create_op(
      "DeserializeManySparse", {serialized_sparse}, {{"dtype", dtype}},
      op_name(name, "DeserializeManySparse")));
}

namespace {

Output add_to_map(const std::string& type, const SparseTensor& sp, std::string_view container,
                  std::string_view shared_name, std::string_view name) {
  return sp.indices.graph()
      .create_op(type, {sp.indices, sp.values, sp.dense_shape},
                 {{"T", sp.values.dtype()},
                  {"container", std::string(container)},
                  {"shared_name", std::string(shared_name)}},
                 op_name(name, type))
      .output(0);
}

}  // namespace

Output add_sparse_to_tensors_map(const SparseTensor& sp_input, std::string_view container,
                                 std::string_view shared_name, std::string_view name) {
  return add_to_map("AddSparseToTensorsMap", sp_input, container, shared_name, name);
}

Output add_many_sparse_to_tensors_map(const SparseTensor& sp_input, std::string_view container,
                                      std::string_view shared_name, std::string_view name) {
  return add_to_map("AddManySparseToTensorsMap", sp_input, container, shared_name, name);
}

SparseTensor take_many_sparse_from_tensors_map(const Output& sparse_handles, DType dtype,
                                               std::string_view container,
                                               std::string_view shared_name,
                                               std::string_view name) {
  return sparse_outputs(
      sparse_handles.graph().create_op("TakeManySparseFromTensorsMap", {sparse_handles},
                                       {{"dtype", dtype},
                                        {"container", std::string(container)},
                                        {"shared_name", std::string(shared_name)}},
                                       op_name(name, "TakeManySparseFromTensorsMap")));
}

SparseTensor take_many_sparse_from_tensors_map(const Operation& sparse_map_op,
                                               const Output& sparse_handles,
                                               std::string_view name) {
  const NodeDef& def = sparse_map_op.node_def();
  if (def.op != "AddSparseToTensorsMap" && def.op != "AddManySparseToTensorsMap")
    throw InvalidArgumentError(
        invalid_argument("sparse_map_op be an Operation of type AddSparseToTensorsMap or "
                         "AddManySparseToTensorsMap, got " +
                         def.op));
  const std::string* container = def.attr<std::string>("container");
  const std::string* shared = def.attr<std::string>("shared_name");
  const DType* dtype = def.attr<DType>("T");
  const std::string shared_name = shared && !shared->empty() ? *shared : def.name;
  return take_many_sparse_from_tensors_map(sparse_handles, dtype ? *dtype : DType::invalid,
                                           container ? *container : "", shared_name, name);
}

}  // namespace af
