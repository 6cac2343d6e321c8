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
#include "staging_defs.hpp"
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
      shapes_(detail::staging_shapes(std::move(options.shapes), dtypes_.size())),
      name_(options.shared_name.empty() ? g.unique_name("MapStagingArea") : options.shared_name),
      prefix_(options.ordered ? "OrderedMap" : "Map"),
      capacity_(options.capacity),
      memory_limit_(options.memory_limit) {
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
      detail::refuse_staging("Index " + std::to_string(i) + " is out of range for the " +
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
    detail::refuse_staging("Number of indices " + std::to_string(indices.size()) +
                           " doesn't match number of values " + std::to_string(values.size()));
  if (values.size() > dtypes_.size())
    detail::refuse_staging("Unexpected number of inputs " + std::to_string(values.size()) + " vs " +
                           std::to_string(dtypes_.size()));
  indices = all_or(std::move(indices));
  const std::vector<std::size_t> components(indices.begin(), indices.end());
  detail::check_staged_values(values, components, dtypes_, shapes_);
  std::vector<DType> fake;
  for (const Output& v : values) fake.push_back(v.dtype());
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
  // A keyless get's key passes its own device transfer (NoOp probe) before the values'.
  if (key_out)
    *key_out = key ? *key : detail::staging_transfers(*graph_, coloc_op_, {op.output(0)})[0];
  std::vector<Output> out;
  for (std::size_t i = 0; i < indices.size(); ++i)
    out.push_back(op.output(static_cast<int>(i) + first));
  out = detail::staging_transfers(*graph_, coloc_op_, std::move(out));
  for (std::size_t i = 0; i < out.size(); ++i)
    graph_->set_shape(out[i], shapes_[static_cast<std::size_t>(indices[i])]);
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
