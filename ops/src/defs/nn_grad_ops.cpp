// The definitions of the ops that gradients of the nn and activation ops build: ReluGrad,
// SigmoidGrad, TanhGrad, BiasAddGrad, BroadcastGradientArgs, MaxPoolGrad, AvgPoolGrad, and the
// losses SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits (and LogSoftmax
// beside them): shape functions, TensorFlow's BCast reduction indices and the graph-building
// functions. Their CPU kernels are in kernels/src/nn_grad_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/bcast.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::check_index_type;
using detail::check_op_def_type;
using detail::with_rank;
using detail::with_rank_at_least;

// -- element-wise activation gradients -------------------------------------------------------

Status infer_same_shape_pair(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  DType t;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(t, c.node.op));
  PartialShape merged;
  if (!c.input_shapes[0].merge_with(c.input_shapes[1], &merged).ok())
    return invalid_argument("Dimensions must be equal");
  c.add_output(t, merged);
  return {};
}

// -- BiasAddGrad -------------------------------------------------------------------------------

Status infer_bias_add_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op));
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, 2));
  std::int64_t channels = -1;
  if (in.rank_known()) channels = in.dim(format == "NCHW" ? 1 : in.rank() - 1);
  c.add_output(c.input_types[0], PartialShape{channels});
  return {};
}

// -- BroadcastGradientArgs ------------------------------------------------------------------

}  // namespace

namespace detail {

// TensorFlow's BCast reduction indices (bcast.h, §1.2 of the training notes): the dims of
// the broadcast result each input must be summed over.
Status broadcast_reduction_axes(const std::vector<std::int64_t>& sx,
                                const std::vector<std::int64_t>& sy, std::vector<std::int64_t>* rx,
                                std::vector<std::int64_t>* ry) {
  const std::size_t rank = std::max(sx.size(), sy.size());
  rx->clear();
  ry->clear();
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t dx = i + sx.size() >= rank ? sx[i + sx.size() - rank] : 1;
    const std::int64_t dy = i + sy.size() >= rank ? sy[i + sy.size() - rank] : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      auto str = [](const std::vector<std::int64_t>& s) {
        std::string out = "[";
        for (std::size_t k = 0; k < s.size(); ++k) out += (k ? "," : "") + std::to_string(s[k]);
        return out + "]";
      };
      return invalid_argument("Incompatible shapes: " + str(sx) + " vs. " + str(sy));
    }
    // A dim of 1 is summed over when the other side is larger, and on both sides when
    // both are 1 (padded dims count as 1).
    const auto d = static_cast<std::int64_t>(i);
    if (dx == 1) rx->push_back(d);
    if (dy == 1) ry->push_back(d);
  }
  return {};
}

}  // namespace detail

namespace {

using detail::index_values;

Status infer_broadcast_gradient_args(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  DType t;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(t, "T"));
  c.add_output(t, PartialShape{-1});
  c.add_output(t, PartialShape{-1});
  return {};
}

// -- pooling gradients ------------------------------------------------------------------------

Status infer_max_pool_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  DType t;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(t, c.node.op));
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(in, 4));
  c.add_output(t, in.rank_known() ? in : PartialShape::unknown_of_rank(4));
  return {};
}

Status infer_avg_pool_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[1], c.node.op));
  PartialShape out = PartialShape::unknown_of_rank(4);
  if (const Tensor* sizes = c.input_values[0]; sizes && sizes->num_elements() == 4) {
    auto v = index_values(*sizes);
    out = PartialShape(v);
  }
  c.add_output(c.input_types[1], out);
  return {};
}

// -- softmax cross-entropies and LogSoftmax ------------------------------------------------

Status infer_xent(InferenceContext& c, bool sparse) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(t, c.node.op));
  const PartialShape& logits = c.input_shapes[0];
  const PartialShape& labels = c.input_shapes[1];
  std::int64_t batch = -1;
  PartialShape bp = PartialShape::unknown_of_rank(2);
  if (sparse) {
    ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tlabels"));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(logits, 2));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(labels, 1));
    if (logits.rank_known()) {
      batch = logits.dim(0);
      bp = logits;
    }
    if (labels.rank_known() && labels.dim(0) >= 0) {
      if (batch >= 0 && batch != labels.dim(0))
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(batch) +
                                " and " + std::to_string(labels.dim(0)));
      batch = labels.dim(0);
      bp = PartialShape{batch, logits.rank_known() ? logits.dim(1) : -1};
    }
  } else {
    if (c.input_types[1] != t)
      return invalid_argument("Inconsistent values for attr 'T' " +
                              std::string(data_type_string(t)) + " vs. " +
                              std::string(data_type_string(c.input_types[1])));
    PartialShape merged;
    for (const PartialShape* s : {&logits, &labels}) ACTORFLOW_RETURN_IF_ERROR(with_rank(*s, 2));
    if (!logits.merge_with(labels, &merged).ok())
      return invalid_argument("Dimensions must be equal, but are " +
                              detail::inference_shape_string(logits) + " and " +
                              detail::inference_shape_string(labels));
    if (merged.rank_known()) {
      bp = merged;
      batch = merged.dim(0);
    }
  }
  c.add_output(t, PartialShape{batch});
  c.add_output(t, bp);
  return {};
}

Output activation_grad(const char* type, const Output& a, const Output& b, std::string_view name) {
  return a.graph()
      .create_op(type, {a, b}, {{"T", a.dtype()}}, name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_nn_grad_ops(OpRegistry& r) {
  for (const char* type : {"ReluGrad", "SigmoidGrad", "TanhGrad"})
    r.add({type, infer_same_shape_pair});
  r.add({"BiasAddGrad", infer_bias_add_grad});
  r.add({"BroadcastGradientArgs", infer_broadcast_gradient_args});
  r.add({"MaxPoolGrad", infer_max_pool_grad});
  r.add({"AvgPoolGrad", infer_avg_pool_grad});
  r.add(
      {"SoftmaxCrossEntropyWithLogits", [](InferenceContext& c) { return infer_xent(c, false); }});
  r.add({"SparseSoftmaxCrossEntropyWithLogits",
         [](InferenceContext& c) { return infer_xent(c, true); }});
  r.add({"LogSoftmax", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op));
           ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 1));
           c.add_output(c.input_types[0], c.input_shapes[0]);
           return {};
         }});
}

}  // namespace detail

namespace nn {

Output relu_grad(const Output& gradients, const Output& features, std::string_view name) {
  return activation_grad("ReluGrad", gradients, features, name);
}
Output sigmoid_grad(const Output& y, const Output& dy, std::string_view name) {
  return activation_grad("SigmoidGrad", y, dy, name);
}
Output tanh_grad(const Output& y, const Output& dy, std::string_view name) {
  return activation_grad("TanhGrad", y, dy, name);
}

Output bias_add_grad(const Output& out_backprop, std::string_view name) {
  return out_backprop.graph()
      .create_op("BiasAddGrad", {out_backprop},
                 {{"T", out_backprop.dtype()}, {"data_format", std::string("NHWC")}},
                 name.empty() ? "BiasAddGrad" : name)
      .output(0);
}

std::pair<Output, Output> broadcast_gradient_args(const Output& s0, const Output& s1,
                                                  std::string_view name) {
  Operation op = s0.graph().create_op("BroadcastGradientArgs", {s0, s1}, {{"T", s0.dtype()}},
                                      name.empty() ? "BroadcastGradientArgs" : name);
  return {op.output(0), op.output(1)};
}

Output max_pool_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                     const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     std::string_view name) {
  return orig_input.graph()
      .create_op("MaxPoolGrad", {orig_input, orig_output, grad},
                 {{"T", orig_input.dtype()},
                  {"ksize", ksize},
                  {"strides", strides},
                  {"padding", padding},
                  {"data_format", std::string("NHWC")}},
                 name.empty() ? "MaxPoolGrad" : name)
      .output(0);
}

Output avg_pool_grad(const Output& orig_input_shape, const Output& grad,
                     const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     std::string_view name) {
  return grad.graph()
      .create_op("AvgPoolGrad", {orig_input_shape, grad},
                 {{"T", grad.dtype()},
                  {"ksize", ksize},
                  {"strides", strides},
                  {"padding", padding},
                  {"data_format", std::string("NHWC")}},
                 name.empty() ? "AvgPoolGrad" : name)
      .output(0);
}

std::pair<Output, Output> softmax_cross_entropy_with_logits_op(const Output& logits,
                                                               const Output& labels,
                                                               std::string_view name) {
  Operation op = logits.graph().create_op("SoftmaxCrossEntropyWithLogits", {logits, labels},
                                          {{"T", logits.dtype()}},
                                          name.empty() ? "SoftmaxCrossEntropyWithLogits" : name);
  return {op.output(0), op.output(1)};
}

std::pair<Output, Output> sparse_softmax_cross_entropy_with_logits_op(const Output& logits,
                                                                      const Output& labels,
                                                                      std::string_view name) {
  Operation op =
      logits.graph().create_op("SparseSoftmaxCrossEntropyWithLogits", {logits, labels},
                               {{"T", logits.dtype()}, {"Tlabels", labels.dtype()}},
                               name.empty() ? "SparseSoftmaxCrossEntropyWithLogits" : name);
  return {op.output(0), op.output(1)};
}

namespace {

// nn_ops.py's softmax_cross_entropy_with_logits_v2_helper inside the scope `scope_name`
// (already unique): the op takes the scope's own name.
Output softmax_xent_in_scope(const Output& labels, const Output& logits,
                             const std::string& scope_name) {
  Graph& g = logits.graph();
  auto scope = g.name_scope(scope_name + "/");
  Output l = labels.dtype() == logits.dtype() ? labels : cast(labels, logits.dtype());
  return softmax_cross_entropy_with_logits_op(logits, l, scope_name + "/").first;
}

}  // namespace

Output softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                         std::string_view name) {
  Graph& g = logits.graph();
  // nn_ops.py (v1): the labels pass a StopGradient, then v2 runs in the same scope.
  const std::string scope_name =
      g.unique_name(name.empty() ? "softmax_cross_entropy_with_logits_sg" : name);
  Output stopped;
  {
    auto scope = g.name_scope(scope_name + "/");
    stopped = stop_gradient(labels, "labels_stop_gradient");
  }
  return softmax_xent_in_scope(stopped, logits, scope_name);
}

Output softmax_cross_entropy_with_logits_v2(const Output& labels, const Output& logits,
                                            std::string_view name) {
  Graph& g = logits.graph();
  return softmax_xent_in_scope(
      labels, logits, g.unique_name(name.empty() ? "softmax_cross_entropy_with_logits" : name));
}

Output sparse_softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                                std::string_view name) {
  Graph& g = logits.graph();
  auto scope = g.name_scope(name.empty() ? "SparseSoftmaxCrossEntropyWithLogits" : name);
  return sparse_softmax_cross_entropy_with_logits_op(logits, labels).first;
}

Output log_softmax(const Output& logits, std::string_view name) {
  return logits.graph()
      .create_op("LogSoftmax", {logits}, {{"T", logits.dtype()}},
                 name.empty() ? "LogSoftmax" : name)
      .output(0);
}

}  // namespace nn

}  // namespace af
