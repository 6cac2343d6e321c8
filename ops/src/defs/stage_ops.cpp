// The definitions of the staging ops (TensorFlow's data_flow_ops.cc: Stage, Unstage,
// StagePeek, StageSize, StageClear) and `StagingArea`, the builder of
// data_flow_ops.StagingArea. The CPU kernels are in kernels/src/stage_ops.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/data_flow_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "staging_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// The attr dtypes, when the node has it, must be the inputs' types (Stage's values).
Status infer_stage(InferenceContext& c) {
  std::vector<DType> dtypes;
  if (c.node.attr<std::vector<DType>>("dtypes")) {
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &dtypes));
    if (dtypes != c.input_types)
      return invalid_argument("Stage: the values' types do not match attr dtypes");
  }
  return {};
}

// Unstage and StagePeek (whose index is an int32): one output of unknown shape per dtype.
Status infer_unstage(InferenceContext& c) {
  std::vector<DType> dtypes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &dtypes));
  if (c.node.op == "StagePeek") {
    ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int32));
  }
  for (DType t : dtypes) c.add_output(t, PartialShape::unknown());
  return {};
}

}  // namespace

namespace detail {

void register_map_stage_ops(OpRegistry& r);  // map_stage_ops.cpp
void register_barrier_ops(OpRegistry& r);    // barrier_ops.cpp

void register_stage_ops(OpRegistry& r) {
  register_map_stage_ops(r);
  register_barrier_ops(r);
  r.add({"Stage", infer_stage, true});
  r.add({"Unstage", infer_unstage, true});
  r.add({"StagePeek", infer_unstage, true});
  r.add({"StageSize",
         [](InferenceContext& c) -> Status {
           c.add_output(DType::int32, PartialShape(Shape{}));
           return {};
         },
         true});
  r.add({"StageClear", [](InferenceContext&) -> Status { return {}; }, true});
}

}  // namespace detail

StagingArea::StagingArea(Graph& g, std::vector<DType> dtypes, StagingAreaOptions options)
    : graph_(&g),
      dtypes_(std::move(dtypes)),
      shapes_(detail::staging_shapes(std::move(options.shapes), dtypes_.size())),
      name_(options.shared_name.empty() ? g.unique_name("StagingArea") : options.shared_name),
      capacity_(options.capacity),
      memory_limit_(options.memory_limit) {
  auto scope = g.name_scope(name_ + "_root");
  coloc_op_ = g.no_op();
}

AttrMap StagingArea::attrs() const {
  return {{"dtypes", dtypes_},
          {"capacity", capacity_},
          {"memory_limit", memory_limit_},
          {"container", std::string()},
          {"shared_name", name_}};
}

Operation StagingArea::put(const std::vector<Output>& values, std::string_view name) const {
  std::vector<std::size_t> components(values.size());
  for (std::size_t i = 0; i < components.size(); ++i) components[i] = i;
  detail::check_staged_values(values, components, dtypes_, shapes_);
  const std::vector<DType> types(dtypes_.begin(), dtypes_.begin() + values.size());
  AttrMap a = attrs();
  a["dtypes"] = types;
  // name_scope(name, "<name>_put") as scope: the op takes the scope's unique name.
  const std::string op_name = graph_->unique_name(name.empty() ? name_ + "_put" : name);
  auto colocate = graph_->colocate_with(coloc_op_);
  return graph_->create_op("Stage", values, std::move(a), op_name + "/");
}

std::vector<Output> StagingArea::outputs_of(const Operation& op) const {
  std::vector<Output> out;
  for (std::size_t i = 0; i < dtypes_.size(); ++i) out.push_back(op.output(static_cast<int>(i)));
  out = detail::staging_transfers(*graph_, coloc_op_, std::move(out));
  for (std::size_t i = 0; i < out.size(); ++i) graph_->set_shape(out[i], shapes_[i]);
  return out;
}

std::vector<Output> StagingArea::get(std::string_view name) const {
  Operation op;
  {
    auto colocate = graph_->colocate_with(coloc_op_);
    op = graph_->create_op("Unstage", {}, attrs(),
                           name.empty() ? name_ + "_get" : std::string(name));
  }
  return outputs_of(op);
}

std::vector<Output> StagingArea::peek(const Output& index, std::string_view name) const {
  Operation op;
  {
    auto colocate = graph_->colocate_with(coloc_op_);
    op = graph_->create_op("StagePeek", {index}, attrs(),
                           name.empty() ? name_ + "_peek" : std::string(name));
  }
  return outputs_of(op);
}

std::vector<Output> StagingArea::peek(std::int32_t index, std::string_view name) const {
  // The index becomes the op's input "<op>/index", as op_def_library names it.
  const std::string op_name = graph_->unique_name(name.empty() ? name_ + "_peek" : name);
  Output index_t;
  {
    auto colocate = graph_->colocate_with(coloc_op_);
    auto scope = graph_->name_scope(op_name + "/");
    index_t = graph_->constant(Tensor(index), "index");
  }
  return peek(index_t, op_name + "/");
}

Output StagingArea::size(std::string_view name) const {
  return graph_
      ->create_op("StageSize", {}, attrs(), name.empty() ? name_ + "_size" : std::string(name))
      .output(0);
}

Operation StagingArea::clear(std::string_view name) const {
  return graph_->create_op("StageClear", {}, attrs(),
                           name.empty() ? name_ + "_clear" : std::string(name));
}

}  // namespace af
