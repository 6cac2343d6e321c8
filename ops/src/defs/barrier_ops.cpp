// The definitions of the barrier ops (TensorFlow's data_flow_ops.cc: Barrier,
// BarrierInsertMany, BarrierTakeMany, BarrierClose, BarrierReadySize, BarrierIncompleteSize)
// and `Barrier`, the builder of data_flow_ops.Barrier. The CPU kernels are in
// kernels/src/barrier_ops.cpp.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/data_flow_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

Status handle_input(const InferenceContext& c, int inputs) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 0 of '" + c.node.op + "' must be a barrier handle");
  return {};
}

// Barrier: the handle (TensorFlow's Ref(string) of two elements).
Status infer_barrier(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
  std::vector<DType> types;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("component_types", &types));
  if (types.empty())
    return invalid_argument("Length for attr 'component_types' of 0 must be at least minimum 1");
  c.add_output(DType::resource, PartialShape(Shape{}), /*is_ref=*/true);
  return {};
}

// BarrierInsertMany(handle, keys: string [n], values: T [n, ...]).
Status infer_insert_many(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(handle_input(c, 3));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::string));
  const PartialShape& keys = c.input_shapes[1];
  const PartialShape& values = c.input_shapes[2];
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(keys, 1));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank_at_least(values, 1));
  detail::Index n = -1;
  return detail::merge_dims(detail::dim_of(keys, 0), detail::dim_of(values, 0), &n);
}

// BarrierTakeMany(handle, num_elements: int32 scalar): indices, keys, one value per type,
// shapes unknown (the builder sets them, as Python's take_many does).
Status infer_take_many(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(handle_input(c, 2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  std::vector<DType> types;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("component_types", &types));
  c.add_output(DType::int64, PartialShape::unknown());
  c.add_output(DType::string, PartialShape::unknown());
  for (DType t : types) c.add_output(t, PartialShape::unknown());
  return {};
}

Status infer_size(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(handle_input(c, 1));
  c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

[[noreturn]] void refuse(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

}  // namespace

namespace detail {

/// The barrier ops (called by register_stage_ops, stage_ops.cpp).
void register_barrier_ops(OpRegistry& r) {
  r.add({"Barrier", infer_barrier, true});
  r.add({"BarrierInsertMany", infer_insert_many, true, {0}});
  r.add({"BarrierTakeMany", infer_take_many, true, {0}});
  r.add({"BarrierClose", [](InferenceContext& c) { return handle_input(c, 1); }, true, {0}});
  r.add({"BarrierReadySize", infer_size, true, {0}});
  r.add({"BarrierIncompleteSize", infer_size, true, {0}});
}

}  // namespace detail

Barrier::Barrier(Graph& g, std::vector<DType> types, BarrierOptions options)
    : graph_(&g), types_(std::move(types)), shapes_(std::move(options.shapes)) {
  if (types_.empty()) refuse("Barrier '" + options.name + "': types must not be empty");
  if (shapes_.empty()) {
    shapes_.assign(types_.size(), PartialShape::unknown());
  } else {
    if (shapes_.size() != types_.size())
      refuse("Barrier '" + options.name + "': " + std::to_string(shapes_.size()) + " shapes for " +
             std::to_string(types_.size()) + " types");
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      if (!shapes_[i].fully_defined())
        refuse("All shapes must be fully defined: " + shapes_[i].to_string());
      if (shapes_[i].num_elements() == 0)
        refuse("Empty tensors are not supported, but received shape '" + shapes_[i].to_string() +
               "' at index " + std::to_string(i));
    }
  }
  handle_ = g.create_op("Barrier", {},
                        {{"component_types", types_},
                         {"shapes", shapes_},
                         {"capacity", std::int64_t{-1}},
                         {"container", std::string()},
                         {"shared_name", options.shared_name}},
                        options.name)
                .output(0);
}

std::string Barrier::name() const { return handle_.node()->name(); }

std::string Barrier::op_name(std::string_view name, const char* suffix) const {
  if (!name.empty()) return std::string(name);
  // Python's `self._name`: the last component of the barrier op's name.
  std::string base = this->name();
  if (auto slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  return base + suffix;
}

Operation Barrier::insert_many(int component_index, const Output& keys, const Output& values,
                               std::string_view name) const {
  return graph_->create_op(
      "BarrierInsertMany", {handle_, keys, values},
      {{"T", values.dtype()}, {"component_index", static_cast<std::int64_t>(component_index)}},
      op_name(name, "_BarrierInsertMany"));
}

BarrierTake Barrier::take_many(const Output& num_elements, bool allow_small_batch,
                               std::string_view name) const {
  Operation op = graph_->create_op("BarrierTakeMany", {handle_, num_elements},
                                   {{"component_types", types_},
                                    {"allow_small_batch", allow_small_batch},
                                    {"wait_for_incomplete", false},
                                    {"timeout_ms", std::int64_t{-1}}},
                                   op_name(name, "_BarrierTakeMany"));
  // As Python's take_many: the batch is the constant count unless small batches may come.
  detail::Index batch = -1;
  if (!allow_small_batch && num_elements.node()->type() == "Const")
    if (const Tensor* v = num_elements.node()->def().attr<Tensor>("value"))
      batch = v->scalar<std::int32_t>();
  BarrierTake out{op.output(0), op.output(1), {}};
  graph_->set_shape(out.indices, detail::vector_of(batch));
  graph_->set_shape(out.keys, detail::vector_of(batch));
  for (std::size_t i = 0; i < types_.size(); ++i) {
    Output v = op.output(static_cast<int>(i) + 2);
    if (shapes_[i].rank_known()) {
      std::vector<std::int64_t> dims{batch};
      dims.insert(dims.end(), shapes_[i].dims().begin(), shapes_[i].dims().end());
      graph_->set_shape(v, PartialShape(std::move(dims)));
    }
    out.values.push_back(v);
  }
  return out;
}

BarrierTake Barrier::take_many(std::int32_t num_elements, bool allow_small_batch,
                               std::string_view name) const {
  // The count becomes the op's input "<op>/num_elements", as op_def_library names it.
  const std::string op = graph_->unique_name(op_name(name, "_BarrierTakeMany"));
  Output count;
  {
    auto scope = graph_->name_scope(op + "/");
    count = graph_->constant(Tensor(num_elements), "num_elements");
  }
  return take_many(count, allow_small_batch, op + "/");
}

Operation Barrier::close(bool cancel_pending_enqueues, std::string_view name) const {
  return graph_->create_op("BarrierClose", {handle_},
                           {{"cancel_pending_enqueues", cancel_pending_enqueues}},
                           op_name(name, "_BarrierClose"));
}

Output Barrier::ready_size(std::string_view name) const {
  return graph_->create_op("BarrierReadySize", {handle_}, {}, op_name(name, "_BarrierReadySize"))
      .output(0);
}

Output Barrier::incomplete_size(std::string_view name) const {
  return graph_
      ->create_op("BarrierIncompleteSize", {handle_}, {}, op_name(name, "_BarrierIncompleteSize"))
      .output(0);
}

}  // namespace af
