// The definitions of the keyed staging ops (TensorFlow's data_flow_ops.cc: MapStage, MapPeek,
// MapUnstage, MapUnstageNoKey, MapSize, MapIncompleteSize, MapClear and their Ordered forms)
// and `MapStagingArea`, the builder of data_flow_ops.MapStagingArea. The CPU kernels are in
// kernels/src/map_stage_ops.cpp.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/data_flow_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// MapStage(key: int64, indices: int32, values: fake_dtypes): no outputs.
Status infer_map_stage(InferenceContext& c) {
  if (c.num_inputs() < 2) return invalid_argument("MapStage takes a key, indices and values");
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  return {};
}

// MapPeek / MapUnstage(key, indices) and MapUnstageNoKey(indices): [the key,] one output of
// unknown shape per dtype.
Status infer_map_take(InferenceContext& c, bool keyed) {
  std::vector<DType> dtypes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &dtypes));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(keyed ? 2 : 1));
  if (keyed) ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(keyed ? 1 : 0, DType::int32));
  if (!keyed) c.add_output(DType::int64, PartialShape(Shape{}));
  for (DType t : dtypes) c.add_output(t, PartialShape::unknown());
  return {};
}

[[noreturn]] void refuse(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

}  // namespace

namespace detail {

/// The keyed staging ops (called by register_stage_ops, stage_ops.cpp).
void register_map_stage_ops(OpRegistry& r) {
  for (const std::string p : {"Map", "OrderedMap"}) {
    r.add({p + "Stage", infer_map_stage, true});
    r.add({p + "Peek", [](InferenceContext& c) { return infer_map_take(c, true); }, true});
    r.add({p + "Unstage", [](InferenceContext& c) { return infer_map_take(c, true); }, true});
    r.add({p + "UnstageNoKey", [](InferenceContext& c) { return infer_map_take(c, false); }, true});
    for (const char* size : {"Size", "IncompleteSize"})
      r.add({p + size,
             [](InferenceContext& c) -> Status {
               c.add_output(DType::int32, PartialShape(Shape{}));
               return {};
             },
             true});
    r.add({p + "Clear", [](InferenceContext&) -> Status { return {}; }, true});
  }
}

}  // namespace detail

MapStagingArea::MapStagingArea(Graph& g, std::vector<DType> dtypes, MapStagingAreaOptions options)
    : graph_(&g),
      dtypes_(std::move(dtypes)),
      shapes_(std::move(options.shapes)),
      name_(options.shared_name.empty() ? g.unique_name("MapStagingArea") : options.shared_name),
      prefix_(options.ordered ? "OrderedMap" : "Map"),
      capacity_(options.capacity),
      memory_limit_(options.memory_limit) {
  if (shapes_.empty())
    shapes_.assign(dtypes_.size(), PartialShape::unknown());
  else if (shapes_.size() != dtypes_.size())
    refuse("StagingArea shapes must be the same length as dtypes");
  auto scope = g.name_scope(name_ + "_root");
  coloc_op_ = g.no_op();
}

AttrMap MapStagingArea::attrs(const std::vector<DType>& dtypes) const {
  return {{"dtypes", dtypes},
          {"capacity", capacity_},
          {"memory_limit", memory_limit_},
          {"container", std::string()},
          {"shared_name", name_}};
}

std::vector<int> MapStagingArea::all_or(std::vector<int> indices) const {
  if (indices.empty())
    for (std::size_t i = 0; i < dtypes_.size(); ++i) indices.push_back(static_cast<int>(i));
  for (int i : indices)
    if (i < 0 || static_cast<std::size_t>(i) >= dtypes_.size())
      refuse("Index " + std::to_string(i) + " is out of range for the " +
             std::to_string(dtypes_.size()) + " dtypes of staging area " + name_);
  return indices;
}

Output MapStagingArea::indices_const(const std::string& op_name,
                                     const std::vector<int>& indices) const {
  Tensor t(DType::int32, Shape{static_cast<std::int64_t>(indices.size())});
  for (std::size_t i = 0; i < indices.size(); ++i) t.data<std::int32_t>()[i] = indices[i];
  auto scope = graph_->name_scope(op_name + "/");
  return graph_->constant(t, "indices");
}

Operation MapStagingArea::put(const Output& key, const std::vector<Output>& values,
                              std::vector<int> indices, std::string_view name) const {
  if (!indices.empty() && indices.size() != values.size())
    refuse("Number of indices " + std::to_string(indices.size()) +
           " doesn't match number of values " + std::to_string(values.size()));
  if (values.size() > dtypes_.size())
    refuse("Unexpected number of inputs " + std::to_string(values.size()) + " vs " +
           std::to_string(dtypes_.size()));
  indices = all_or(std::move(indices));
  std::vector<DType> fake;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto at = static_cast<std::size_t>(indices[i]);
    if (values[i].dtype() != dtypes_[at])
      refuse("Datatypes do not match. Received val.dtype " +
             std::string(dtype_name(values[i].dtype())) + " and dtype " +
             std::string(dtype_name(dtypes_[at])));
    if (!values[i].shape().is_compatible_with(shapes_[at]))
      refuse("Shapes " + values[i].shape().to_string() + " and " + shapes_[at].to_string() +
             " are incompatible");
    fake.push_back(values[i].dtype());
  }
  const std::string op_name = graph_->unique_name(name.empty() ? name_ + "_put" : name);
  auto colocate = graph_->colocate_with(coloc_op_);
  std::vector<Output> inputs{key, indices_const(op_name, indices)};
  inputs.insert(inputs.end(), values.begin(), values.end());
  AttrMap a = attrs(dtypes_);
  a["fake_dtypes"] = fake;
  return graph_->create_op(prefix_ + "Stage", inputs, std::move(a), op_name + "/");
}

std::vector<Output> MapStagingArea::take(const std::string& type, const Output* key,
                                         std::vector<int> indices, const std::string& name,
                                         Output* key_out) const {
  indices = all_or(std::move(indices));
  std::vector<DType> dtypes;
  for (int i : indices) dtypes.push_back(dtypes_[static_cast<std::size_t>(i)]);
  Operation op;
  {
    auto colocate = graph_->colocate_with(coloc_op_);
    const std::string op_name = graph_->unique_name(name);
    std::vector<Output> inputs;
    if (key) inputs.push_back(*key);
    inputs.push_back(indices_const(op_name, indices));
    op = graph_->create_op(prefix_ + type, inputs, attrs(dtypes), op_name + "/");
  }
  const int first = key ? 0 : 1;
  // _create_device_transfers: a NoOp probes the device scope (once for the key of a keyless
  // get, once for the values); away from the area's device the outputs pass an Identity.
  auto transfer = [&](Output o) {
    const Operation probe = graph_->no_op();
    return probe.device() != coloc_op_.device() ? identity(o) : o;
  };
  if (key_out) *key_out = key ? *key : transfer(op.output(0));
  std::vector<Output> out;
  for (std::size_t i = 0; i < indices.size(); ++i)
    out.push_back(op.output(static_cast<int>(i) + first));
  const Operation probe = graph_->no_op();
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (probe.device() != coloc_op_.device()) out[i] = identity(out[i]);
    graph_->set_shape(out[i], shapes_[static_cast<std::size_t>(indices[i])]);
  }
  return out;
}

std::vector<Output> MapStagingArea::peek(const Output& key, std::vector<int> indices,
                                         std::string_view name) const {
  // TensorFlow names a peek "<name>_pop" by default.
  return take("Peek", &key, std::move(indices), name.empty() ? name_ + "_pop" : std::string(name),
              nullptr);
}

std::pair<Output, std::vector<Output>> MapStagingArea::get(const Output& key,
                                                           std::vector<int> indices,
                                                           std::string_view name) const {
  Output k;
  auto values = take("Unstage", &key, std::move(indices),
                     name.empty() ? name_ + "_get" : std::string(name), &k);
  return {k, std::move(values)};
}

std::pair<Output, std::vector<Output>> MapStagingArea::get(std::vector<int> indices,
                                                           std::string_view name) const {
  Output k;
  auto values = take("UnstageNoKey", nullptr, std::move(indices),
                     name.empty() ? name_ + "_get_nokey" : std::string(name), &k);
  return {k, std::move(values)};
}

Output MapStagingArea::size(std::string_view name) const {
  return graph_
      ->create_op(prefix_ + "Size", {}, attrs(dtypes_),
                  name.empty() ? name_ + "_size" : std::string(name))
      .output(0);
}

Output MapStagingArea::incomplete_size(std::string_view name) const {
  return graph_
      ->create_op(prefix_ + "IncompleteSize", {}, attrs(dtypes_),
                  name.empty() ? name_ + "_incomplete_size" : std::string(name))
      .output(0);
}

Operation MapStagingArea::clear(std::string_view name) const {
  return graph_->create_op(prefix_ + "Clear", {}, attrs(dtypes_),
                           name.empty() ? name_ + "_clear" : std::string(name));
}

}  // namespace af
