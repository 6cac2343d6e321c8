// The definitions of FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and their gradient
// ops (shape functions as TensorFlow's FusedBatchNormShape and FusedBatchNormGradShape: rank 5
// for the V3 ops' NDHWC and NCDHW, 4 otherwise) and the builder nn::fused_batch_norm; their
// CPU kernels are in kernels/src/batch_norm_ops.cpp.
#include "actorflow/ops/batch_norm_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_rank;

// TensorFlow's Merge of two dimensions: "Dimensions must be equal, but are 3 and 4".
Status merge_dim(std::int64_t* dim, std::int64_t other) {
  if (*dim >= 0 && other >= 0 && *dim != other)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(*dim) + " and " +
                            std::to_string(other));
  if (*dim < 0) *dim = other;
  return {};
}

// The OpDefs' data_format: {'NHWC', 'NCHW'} for FusedBatchNorm{,Grad}{,V2}, and also
// 'NDHWC' and 'NCDHW' for the V3 ops (ValidateAttrValue's message); x's rank follows it
// (5 for NDHWC and NCDHW) and its channels are dimension 1 (NCHW, NCDHW) or the last.
struct Format {
  int rank = 4;
  int channel = 3;
};

Status read_format(const InferenceContext& c, bool v3, Format* f) {
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  const bool five = format == "NDHWC" || format == "NCDHW";
  if (format != "NHWC" && format != "NCHW" && !(v3 && five))
    return invalid_argument("Value for attr 'data_format' of \"" + format +
                            "\" is not in the list of allowed values: \"NHWC\", \"NCHW\"" +
                            (v3 ? ", \"NDHWC\", \"NCDHW\"" : ""));
  f->rank = five ? 5 : 4;
  f->channel = format == "NCHW" || format == "NCDHW" ? 1 : f->rank - 1;
  return {};
}

// The types of TensorFlow's OpDefs: x (and the gradients' y_backprop) of T, the statistics
// of U (T in the first versions), the gradients' scale float32 (V2 and V3).
Status check_types(const InferenceContext& c, bool grad) {
  const bool v1 = c.node.op == "FusedBatchNorm" || c.node.op == "FusedBatchNormGrad";
  for (int i = 0; i < c.num_inputs(); ++i) {
    const DType t = c.input_types[static_cast<std::size_t>(i)];
    if (grad && !v1 && i == 2) {
      if (t != DType::float32)
        return invalid_argument("Input 'scale' of '" + c.node.op + "' Op has type " +
                                std::string(dtype_name(t)) +
                                " that does not match expected type of float32.");
      continue;
    }
    const bool of_t = v1 || i < (grad ? 2 : 1);
    ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op, of_t ? "T" : "U"));
  }
  return {};
}

// x [rank 4, or 5 for NDHWC and NCDHW], then vectors of its channel count: scale and offset,
// and mean and variance where they are read (inference, or a blending factor below 1).
Status infer_fused_batch_norm(InferenceContext& c, bool v3) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, false));
  Format f;
  ACTORFLOW_RETURN_IF_ERROR(read_format(c, v3, &f));
  const PartialShape& x = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(x, f.rank));
  bool is_training = true;
  float factor = 1.0f;
  c.get_attr("is_training", &is_training);
  c.get_attr("exponential_avg_factor", &factor);
  const int read = is_training && factor == 1.0f ? 3 : 5;
  const int ci = f.channel;
  std::int64_t channels = x.rank_known() ? x.dim(ci) : -1;
  for (int i = 1; i < read; ++i) {
    const PartialShape& v = c.input_shapes[static_cast<std::size_t>(i)];
    ACTORFLOW_RETURN_IF_ERROR(with_rank(v, 1));
    if (v.rank_known()) ACTORFLOW_RETURN_IF_ERROR(merge_dim(&channels, v.dim(0)));
  }
  PartialShape y = PartialShape::unknown_of_rank(f.rank);
  if (x.rank_known()) {
    std::vector<std::int64_t> dims = x.dims();
    dims[static_cast<std::size_t>(ci)] = channels;
    y = PartialShape(std::move(dims));
  }
  c.add_output(c.input_types[0], y);
  for (int i = 0; i < 4; ++i) c.add_output(DType::float32, PartialShape{channels});
  if (v3) c.add_output(DType::float32, PartialShape::unknown());
  return {};
}

// y_backprop and x [rank 4, or 5 for NDHWC and NCDHW] merged; scale and the two reserve
// spaces of the channel count.
Status infer_fused_batch_norm_grad(InferenceContext& c, bool v3) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v3 ? 6 : 5));
  ACTORFLOW_RETURN_IF_ERROR(check_types(c, true));
  Format f;
  ACTORFLOW_RETURN_IF_ERROR(read_format(c, v3, &f));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], f.rank));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], f.rank));
  PartialShape x = c.input_shapes[1];
  if (const PartialShape& dy = c.input_shapes[0]; dy.rank_known()) {
    if (!x.rank_known()) {
      x = dy;
    } else {
      std::vector<std::int64_t> dims = x.dims();
      for (int d = 0; d < f.rank; ++d)
        ACTORFLOW_RETURN_IF_ERROR(merge_dim(&dims[static_cast<std::size_t>(d)], dy.dim(d)));
      x = PartialShape(std::move(dims));
    }
  }
  const int ci = f.channel;
  std::int64_t channels = x.rank_known() ? x.dim(ci) : -1;
  for (int i = 2; i < 5; ++i) {
    const PartialShape& v = c.input_shapes[static_cast<std::size_t>(i)];
    ACTORFLOW_RETURN_IF_ERROR(with_rank(v, 1));
    if (v.rank_known()) ACTORFLOW_RETURN_IF_ERROR(merge_dim(&channels, v.dim(0)));
  }
  if (x.rank_known()) {
    std::vector<std::int64_t> dims = x.dims();
    dims[static_cast<std::size_t>(ci)] = channels;
    x = PartialShape(std::move(dims));
  }
  c.add_output(c.input_types[0], x.rank_known() ? x : PartialShape::unknown_of_rank(f.rank));
  c.add_output(DType::float32, PartialShape{channels});
  c.add_output(DType::float32, PartialShape{channels});
  c.add_output(DType::float32, PartialShape{0});
  c.add_output(DType::float32, PartialShape{0});
  return {};
}

}  // namespace

namespace detail {

void register_batch_norm_ops(OpRegistry& r) {
  for (const char* type : {"FusedBatchNorm", "FusedBatchNormV2"})
    r.add({type, [](InferenceContext& c) { return infer_fused_batch_norm(c, false); }});
  r.add({"FusedBatchNormV3", [](InferenceContext& c) { return infer_fused_batch_norm(c, true); }});
  for (const char* type : {"FusedBatchNormGrad", "FusedBatchNormGradV2"})
    r.add({type, [](InferenceContext& c) { return infer_fused_batch_norm_grad(c, false); }});
  r.add({"FusedBatchNormGradV3",
         [](InferenceContext& c) { return infer_fused_batch_norm_grad(c, true); }});
}

}  // namespace detail

namespace nn {

FusedBatchNormOutputs fused_batch_norm(const Output& x, const Output& scale, const Output& offset,
                                       std::optional<Output> mean, std::optional<Output> variance,
                                       float epsilon, std::string_view data_format,
                                       bool is_training, float exponential_avg_factor,
                                       std::string_view name) {
  Graph& g = x.graph();
  // As nn_impl.fused_batch_norm: empty Consts for absent statistics, epsilon at least cuDNN's.
  if (!mean) mean = g.constant(Tensor(DType::float32, Shape{0}), "Const");
  if (!variance) variance = g.constant(Tensor(DType::float32, Shape{0}), "Const");
  epsilon = std::max(epsilon, 1.001e-5f);
  Operation op = g.create_op("FusedBatchNormV3", {x, scale, offset, *mean, *variance},
                             {{"T", x.dtype()},
                              {"U", scale.dtype()},
                              {"epsilon", epsilon},
                              {"exponential_avg_factor", exponential_avg_factor},
                              {"data_format", std::string(data_format)},
                              {"is_training", is_training}},
                             name.empty() ? "FusedBatchNormV3" : name);
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace nn

}  // namespace af
