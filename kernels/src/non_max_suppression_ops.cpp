// NonMaxSuppression, NonMaxSuppressionV2, V3, V4 and V5: CPU kernels with TensorFlow's
// checks, messages and selection order (image/non_max_suppression_op.cc). Their definitions
// are in ops/src/defs/image_proc_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "non_max_suppression.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// "[2,3]" of a shape, and its rank, as TensorFlow's rank messages print them.
std::string shape_string(const Tensor& t) { return t.shape().to_string(); }

// CheckScoreSizes and ParseAndCheckBoxSizes: boxes [num_boxes, 4], scores [num_boxes].
Status check_boxes_and_scores(const Tensor& boxes, const Tensor& scores, Index* num_boxes) {
  if (boxes.rank() != 2)
    return invalid_argument("boxes must be 2-D" + shape_string(boxes) +
                            " (Shape must be rank 2 but is rank " + std::to_string(boxes.rank()) +
                            ")");
  *num_boxes = boxes.shape().dim(0);
  if (boxes.shape().dim(1) != 4)
    return invalid_argument("boxes must have 4 columns (Dimension must be 4 but is " +
                            std::to_string(boxes.shape().dim(1)) + ")");
  return detail::check_score_sizes(scores, *num_boxes);
}

// A scalar input `name` (input `i`): "max_output_size must be 0-D, got shape [2]", V3's
// max_output_size and iou_threshold adding the rank.
Status scalar_input(const Tensor& t, const char* name, bool with_rank) {
  if (t.rank() == 0) return {};
  std::string m = std::string(name) + " must be 0-D, got shape " + shape_string(t);
  if (with_rank) m += " (Shape must be rank 0 but is rank " + std::to_string(t.rank()) + ")";
  return invalid_argument(m);
}

// The float value of a float32 (or float64, bfloat16) scalar, as GetScalar.
float scalar_value(const Tensor& t) {
  switch (t.dtype()) {
    case DType::float64:
      return static_cast<float>(t.data<double>()[0]);
    case DType::bfloat16:
      return static_cast<float>(t.data<bfloat16_t>()[0]);
    default:
      return t.data<float>()[0];
  }
}

// The NonMaxSuppression kernels: `version` 1 (iou_threshold an attr), 2 (an input), 3
// (score_threshold), 4 (pad_to_max_output_size, valid_outputs) or 5 (soft_nms_sigma,
// selected_scores). Boxes and scores are float32 (T float only within actorflow's types).
class NonMaxSuppressionOp : public StatusKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction& c) : StatusKernel(c) {
    const std::string& op = c.def.op;
    version_ = op == "NonMaxSuppression" ? 1 : op.back() - '0';
    if (!c.get_attr("iou_threshold", &iou_threshold_attr_).ok()) iou_threshold_attr_ = 0.5f;
    if (!c.get_attr("pad_to_max_output_size", &pad_).ok()) pad_ = false;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    const Tensor& max_output_size = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(max_output_size, "max_output_size", version_ == 3));
    float iou_threshold = iou_threshold_attr_;
    float score_threshold = std::numeric_limits<float>::lowest();
    float sigma = 0.0f;
    if (version_ >= 2) {
      const Tensor& t = ctx.input(3);
      ACTORFLOW_RETURN_IF_ERROR(scalar_input(t, "iou_threshold", version_ == 3));
      iou_threshold = scalar_value(t);
    }
    if (!(iou_threshold >= 0 && iou_threshold <= 1))
      return invalid_argument("iou_threshold must be in [0, 1]");
    if (version_ >= 3) {
      const Tensor& t = ctx.input(4);
      ACTORFLOW_RETURN_IF_ERROR(scalar_input(t, "score_threshold", false));
      score_threshold = scalar_value(t);
    }
    if (version_ == 5) {
      const Tensor& t = ctx.input(5);
      ACTORFLOW_RETURN_IF_ERROR(scalar_input(t, "soft_nms_sigma", false));
      sigma = scalar_value(t);
      if (!(sigma >= 0.0f)) return invalid_argument("soft_nms_sigma_val must be >= 0");
    }
    Index num_boxes = 0;
    ACTORFLOW_RETURN_IF_ERROR(check_boxes_and_scores(boxes, scores, &num_boxes));
    detail::NmsSelection sel;
    ACTORFLOW_RETURN_IF_ERROR(detail::select_by_similarity(
        max_output_size.data<std::int32_t>()[0], scores.data<float>(), num_boxes, iou_threshold,
        score_threshold, sigma, version_ >= 4 && pad_,
        [b = boxes.data<float>()](int i, int j) { return detail::box_iou(b, i, j); }, &sel));
    const auto n = static_cast<Index>(sel.indices.size());
    std::copy(sel.indices.begin(), sel.indices.end(),
              ctx.allocate_output(0, DType::int32, Shape{n}).data<std::int32_t>());
    if (version_ == 5)
      std::copy(sel.scores.begin(), sel.scores.end(),
                ctx.allocate_output(1, DType::float32, Shape{n}).data<float>());
    if (version_ >= 4)
      ctx.allocate_output(version_ == 5 ? 2 : 1, DType::int32, Shape{}).data<std::int32_t>()[0] =
          sel.valid;
    return {};
  }

 private:
  int version_ = 1;
  float iou_threshold_attr_ = 0.5f;
  bool pad_ = false;
};

}  // namespace

namespace detail {

void register_non_max_suppression_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<NonMaxSuppressionOp>("NonMaxSuppression", "CPU", {}));
  for (const char* op : {"NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4"})
    r.add(make_kernel_def<NonMaxSuppressionOp>(
        op, "CPU", {{"T", {DType::float32}}, {"T_threshold", {DType::float32}}}));
  r.add(make_kernel_def<NonMaxSuppressionOp>("NonMaxSuppressionV5", "CPU",
                                             {{"T", {DType::float32}}}));
  // float16 boxes and scores (and thresholds) through the float kernel, as TensorFlow's.
  const KernelFactory nms = make_kernel_def<NonMaxSuppressionOp>("", "").factory;
  for (const char* op : {"NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4"})
    register_via_float<half_t>(r, op, nms, "T",
                               {{"T_threshold", {DType::float32, DType::float16}}});
  register_via_float<half_t>(r, "NonMaxSuppressionV5", nms);
}

}  // namespace detail

}  // namespace af
