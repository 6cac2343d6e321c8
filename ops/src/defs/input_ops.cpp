// The ops TensorFlow's input producers are built from (tf.train.input_producer,
// string_input_producer, range_input_producer, slice_input_producer, limit_epochs): Range,
// GatherV2, RandomShuffle, CountUpTo, Size and Shape. Ops, shape functions and the
// graph-building functions range, gather, random_shuffle, count_up_to, size and shape; their
// CPU kernels are in kernels/src/input_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/detail/input_shapes.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::python_int;

using Index = std::int64_t;

using detail::kIndexTypes;
using detail::kRangeTypes;

// TensorFlow's op_def_library message for a type attribute outside its allowed list.
using detail::check_attr_type;

using detail::with_rank;

using detail::with_rank_at_least;

using detail::index_scalar;
using detail::infer_unchanged;
using detail::range_size;
using detail::visit_range_dtype;

// -- Range ----------------------------------------------------------------------------------

Status infer_range(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tidx", &t));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(t, "Tidx", kRangeTypes, "float, double, int32, int64"));
  static constexpr const char* kNames[] = {"start", "limit", "delta"};
  for (std::size_t i = 1; i < 3; ++i)
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument("Input '" + std::string(kNames[i]) + "' of 'Range' Op has type " +
                              std::string(dtype_name(c.input_types[i])) +
                              " that does not match type " +
                              std::string(dtype_name(c.input_types[0])) + " of argument 'start'.");
  if (c.input_types[0] != t)
    return invalid_argument("Input 'start' of 'Range' Op has type " +
                            std::string(dtype_name(c.input_types[0])) +
                            " that does not match Tidx " + std::string(dtype_name(t)));
  for (std::size_t i = 0; i < 3; ++i) {
    if (Status s = with_rank(c.input_shapes[i], 0); !s.ok())
      return s.with_context("\n\t for '" + std::string(kNames[i]) + "'");
  }
  if (!c.input_values[0] || !c.input_values[1] || !c.input_values[2]) {
    c.add_output(t, PartialShape{-1});
    return {};
  }
  Status status;
  Index size = 0;
  visit_range_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    status = range_size(c.input_values[0]->data<T>()[0], c.input_values[1]->data<T>()[0],
                        c.input_values[2]->data<T>()[0], /*kernel=*/false, &size);
  });
  ACTORFLOW_RETURN_IF_ERROR(status);
  c.add_output(t, PartialShape{size});
  return {};
}

// -- GatherV2 -------------------------------------------------------------------------------

Status infer_gather(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tindices", kIndexTypes, "int32, int64"));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[2], "Taxis", kIndexTypes, "int32, int64"));
  std::int64_t batch_dims = 0;
  c.get_attr("batch_dims", &batch_dims);
  if (batch_dims != 0)
    return unimplemented("GatherV2 with batch_dims = " + std::to_string(batch_dims) +
                         " is not supported (only 0)");
  const PartialShape& params = c.input_shapes[0];
  const PartialShape& indices = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(params, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  const DType t = c.input_types[0];
  const Tensor* axis_value = c.input_values[2];
  if (axis_value == nullptr) {
    c.add_output(t, params.rank_known() && indices.rank_known()
                        ? PartialShape::unknown_of_rank(params.rank() + indices.rank() - 1)
                        : PartialShape::unknown());
    return {};
  }
  Index axis = index_scalar(*axis_value);
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(params, axis < 0 ? -axis : axis + 1));
  if (!params.rank_known() || !indices.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  if (axis < 0) axis += params.rank();
  std::vector<std::int64_t> dims(params.dims().begin(), params.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + axis + 1, params.dims().end());
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// Gather (the first form): axis 0, the output indices.shape + params.shape[1:].
Status infer_gather_v1(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tindices", kIndexTypes, "int32, int64"));
  const PartialShape& params = c.input_shapes[0];
  const PartialShape& indices = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(params, 1));
  if (!params.rank_known() || !indices.rank_known()) {
    c.add_output(c.input_types[0], PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims(indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + 1, params.dims().end());
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

// -- CountUpTo ------------------------------------------------------------------------------

Status infer_count_up_to(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  std::int64_t limit = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("limit", &limit));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(t, "T", kIndexTypes, "int32, int64"));
  if (c.node.op == "ResourceCountUpTo") {  // the variable behind the handle: a scalar
    if (c.input_types[0] != DType::resource)
      return invalid_argument("Input 'resource' of 'ResourceCountUpTo' Op has type " +
                              std::string(dtype_name(c.input_types[0])) +
                              " that does not match expected type of resource.");
    if (!c.input_handle_shapes.empty())
      ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_handle_shapes[0], 0));
    c.add_output(t, PartialShape(std::vector<std::int64_t>{}));
    return {};
  }
  if (c.input_types[0] != t)
    return invalid_argument("Input 'ref' of 'CountUpTo' Op has type " +
                            std::string(dtype_name(c.input_types[0])) + " that does not match T " +
                            std::string(dtype_name(t)));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  c.add_output(t, PartialShape(std::vector<std::int64_t>{}));  // a scalar
  return {};
}

// -- Size and Shape -------------------------------------------------------------------------

Status infer_size(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType out = DType::int32;
  c.get_attr("out_type", &out);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out, "out_type", kIndexTypes, "int32, int64"));
  c.add_output(out, PartialShape(std::vector<std::int64_t>{}));  // a scalar
  return {};
}

Status infer_shape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType out = DType::int32;
  c.get_attr("out_type", &out);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out, "out_type", kIndexTypes, "int32, int64"));
  c.add_output(out, PartialShape{c.input_shapes[0].rank()});  // rank -1: unknown length
  return {};
}

// -- builder helpers ------------------------------------------------------------------------

int range_rank(DType t) {
  switch (t) {
    case DType::int32:
      return 0;
    case DType::int64:
      return 1;
    case DType::float32:
      return 2;
    case DType::float64:
      return 3;
    default:
      return -1;
  }
}

// The body of tf.range inside its name scope: casts the three values to the widest of
// their dtypes (int32 < int64 < float32 < float64) and adds the Range op named `op_name`.
Output range_in_scope(Graph& g, const std::string& op_name, Output start, Output limit,
                      Output delta) {
  DType widest = start.dtype();
  for (const Output* o : {&start, &limit, &delta}) {
    if (range_rank(o->dtype()) < 0)
      throw InvalidArgumentError(invalid_argument("range: " + o->name() + " has dtype " +
                                                  std::string(dtype_name(o->dtype())) +
                                                  "; expected int32, int64, float32 or float64"));
    if (range_rank(o->dtype()) > range_rank(widest)) widest = o->dtype();
  }
  start = cast(start, widest);
  limit = cast(limit, widest);
  delta = cast(delta, widest);
  return g.create_op("Range", {start, limit, delta}, {{"Tidx", widest}}, op_name + "/").output(0);
}

}  // namespace

namespace detail {

void register_input_ops(OpRegistry& r) {
  r.add({"Range", infer_range});
  r.add({"GatherV2", infer_gather});
  r.add({"Gather", infer_gather_v1});
  r.add({"RandomShuffle", infer_unchanged, true});
  r.add({"CountUpTo", infer_count_up_to, true, {0}});
  r.add({"ResourceCountUpTo", infer_count_up_to, true, {0}});
  r.add({"Size", infer_size});
  r.add({"Shape", infer_shape});
}

}  // namespace detail

// tf.range: the name scope "range" holds the Consts made of plain numbers ("start",
// "limit", "delta") and any Casts; the Range op takes the scope's name.
Output range(const Output& start, const Output& limit, const Output& delta, std::string_view name) {
  Graph& g = start.graph();
  const std::string op_name = g.unique_name(name.empty() ? "range" : name);
  auto scope = g.name_scope(op_name + "/");
  return range_in_scope(g, op_name, start, limit, delta);
}

Output range(const Output& limit, std::string_view name) {
  Graph& g = limit.graph();
  const std::string op_name = g.unique_name(name.empty() ? "range" : name);
  auto scope = g.name_scope(op_name + "/");
  Output start = g.constant(Tensor(std::int32_t{0}), "start");
  Output delta = g.constant(Tensor(std::int32_t{1}), "delta");
  return range_in_scope(g, op_name, start, limit, delta);
}

Output range(Graph& g, std::int64_t limit, std::string_view name) {
  return range(g, 0, limit, 1, name);
}

Output range(Graph& g, std::int64_t start, std::int64_t limit, std::int64_t delta,
             std::string_view name) {
  const std::string op_name = g.unique_name(name.empty() ? "range" : name);
  auto scope = g.name_scope(op_name + "/");
  Output start_t = g.constant(python_int(start), "start");
  Output limit_t = g.constant(python_int(limit), "limit");
  Output delta_t = g.constant(python_int(delta), "delta");
  return range_in_scope(g, op_name, start_t, limit_t, delta_t);
}

Output gather(const Output& params, const Output& indices, std::string_view name) {
  return gather(params, indices, 0, name);
}

// tf.gather (GatherV2): the axis becomes the Const "<op>/axis", as op_def_library names a
// converted input.
Output gather(const Output& params, const Output& indices, std::int64_t axis,
              std::string_view name) {
  Graph& g = params.graph();
  const std::string op_name = g.unique_name(name.empty() ? "GatherV2" : name);
  Output axis_t;
  {
    auto scope = g.name_scope(op_name + "/");
    axis_t = g.constant(python_int(axis), "axis");
  }
  return g
      .create_op("GatherV2", {params, indices, axis_t},
                 {{"Tparams", params.dtype()},
                  {"Tindices", indices.dtype()},
                  {"Taxis", axis_t.dtype()},
                  {"batch_dims", std::int64_t{0}}},
                 op_name + "/")
      .output(0);
}

Output random_shuffle(const Output& value, std::optional<std::int64_t> seed,
                      std::string_view name) {
  Graph& g = value.graph();
  auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op("RandomShuffle", {value},
                 {{"seed", seed1}, {"seed2", seed2}, {"T", value.dtype()}},
                 name.empty() ? "RandomShuffle" : name)
      .output(0);
}

Output count_up_to(const Output& ref, std::int64_t limit, std::string_view name) {
  if (!ref.valid()) throw InvalidArgumentError(invalid_argument("count_up_to: invalid ref"));
  // Ops taking a reference are colocated with it, as op_def_library does for ref inputs.
  auto colocate = ref.graph().colocate_with(ref.op());
  return ref.graph()
      .create_op("CountUpTo", {ref}, {{"T", ref.dtype()}, {"limit", limit}},
                 name.empty() ? "CountUpTo" : name)
      .output(0);
}

Output count_up_to(const Variable& ref, std::int64_t limit, std::string_view name) {
  if (!ref.is_resource()) return count_up_to(ref.ref(), limit, name);
  // ResourceVariable.count_up_to.
  auto colocate = ref.ref().graph().colocate_with(ref.ref().op());
  return ref.ref()
      .graph()
      .create_op("ResourceCountUpTo", {ref.ref()}, {{"T", ref.dtype()}, {"limit", limit}},
                 name.empty() ? "ResourceCountUpTo" : name)
      .output(0);
}

namespace {

void check_out_type(DType out_type, const char* fn) {
  if (out_type != DType::int32 && out_type != DType::int64)
    throw InvalidArgumentError(invalid_argument(std::string(fn) +
                                                ": out_type must be int32 or int64, not " +
                                                std::string(dtype_name(out_type))));
}

// A scalar or vector Const of `out_type` holding `values`.
Tensor index_constant(const std::vector<std::int64_t>& values, DType out_type, bool scalar) {
  if (out_type == DType::int64) return scalar ? Tensor(values.at(0)) : Tensor::from_vector(values);
  std::vector<std::int32_t> narrow;
  for (auto v : values) {
    if (v > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgumentError(
          invalid_argument("Value " + std::to_string(v) + " does not fit the out_type int32"));
    narrow.push_back(static_cast<std::int32_t>(v));
  }
  return scalar ? Tensor(narrow.at(0)) : Tensor::from_vector(narrow);
}

}  // namespace

// tf.size / tf.shape (size_internal / shape_internal with optimize=True): a statically
// known answer becomes a Const named after the scope, as TensorFlow 1.x folds it.
Output size(const Output& x, DType out_type, std::string_view name) {
  check_out_type(out_type, "size");
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Size" : name);
  const PartialShape& s = x.shape();
  if (s.fully_defined())
    return g.constant(index_constant({s.num_elements()}, out_type, true), op_name + "/");
  if (s.rank_known() && std::find(s.dims().begin(), s.dims().end(), 0) != s.dims().end())
    return g.constant(index_constant({0}, out_type, true), op_name + "/");
  return g.create_op("Size", {x}, {{"T", x.dtype()}, {"out_type", out_type}}, op_name + "/")
      .output(0);
}

Output shape(const Output& x, DType out_type, std::string_view name) {
  check_out_type(out_type, "shape");
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Shape" : name);
  const PartialShape& s = x.shape();
  if (s.fully_defined())
    return g.constant(index_constant(s.dims(), out_type, false), op_name + "/");
  return g.create_op("Shape", {x}, {{"T", x.dtype()}, {"out_type", out_type}}, op_name + "/")
      .output(0);
}

}  // namespace af
