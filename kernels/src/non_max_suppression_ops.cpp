// NonMaxSuppression, NonMaxSuppressionV2, V3, V4 and V5: CPU kernels with TensorFlow's
// checks, messages and selection order (image/non_max_suppression_op.cc). Their definitions
// are in ops/src/defs/image_proc_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// IOU: the intersection over union of boxes i and j, each [y1, x1, y2, x2] with its corners
// in either order; 0 where either box has no area.
float iou(const float* boxes, Index i, Index j) {
  const float* a = boxes + i * 4;
  const float* b = boxes + j * 4;
  const float ymin_i = std::min(a[0], a[2]), xmin_i = std::min(a[1], a[3]);
  const float ymax_i = std::max(a[0], a[2]), xmax_i = std::max(a[1], a[3]);
  const float ymin_j = std::min(b[0], b[2]), xmin_j = std::min(b[1], b[3]);
  const float ymax_j = std::max(b[0], b[2]), xmax_j = std::max(b[1], b[3]);
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  const float intersection_ymin = std::max(ymin_i, ymin_j);
  const float intersection_xmin = std::max(xmin_i, xmin_j);
  const float intersection_ymax = std::min(ymax_i, ymax_j);
  const float intersection_xmax = std::min(xmax_i, xmax_j);
  const float intersection_area = std::max(intersection_ymax - intersection_ymin, 0.0f) *
                                  std::max(intersection_xmax - intersection_xmin, 0.0f);
  return intersection_area / (area_i + area_j - intersection_area);
}

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
  if (scores.rank() != 1)
    return invalid_argument("scores must be 1-D" + shape_string(scores) +
                            " (Shape must be rank 1 but is rank " + std::to_string(scores.rank()) +
                            ")");
  if (scores.shape().dim(0) != *num_boxes)
    return invalid_argument("scores has incompatible shape (Dimensions must be equal, but are " +
                            std::to_string(*num_boxes) + " and " +
                            std::to_string(scores.shape().dim(0)) + ")");
  return {};
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

// What DoNonMaxSuppressionOp gives: the selected box indices and their (soft-suppressed)
// scores, and how many were selected before padding.
struct Selection {
  std::vector<std::int32_t> indices;
  std::vector<float> scores;
  std::int32_t valid = 0;
};

// DoNonMaxSuppressionOp: boxes taken greedily by score (the lower index first among equal
// scores) above score_threshold; a candidate is dropped once its IoU with a selected box
// exceeds iou_threshold, or (soft-NMS, sigma > 0) its score is decayed by exp(-0.5 / sigma *
// iou^2) per selected box and requeued while above the threshold.
Status select_boxes(const Tensor& max_output_size, const float* boxes, const float* scores,
                    Index num_boxes, float iou_threshold, float score_threshold, float sigma,
                    bool pad, Selection* out) {
  const std::int32_t output_size = max_output_size.data<std::int32_t>()[0];
  if (output_size < 0) return invalid_argument("output size must be non-negative");
  struct Candidate {
    int box_index;
    float score;
    int suppress_begin_index;
  };
  auto lower = [](const Candidate& a, const Candidate& b) {
    return (a.score == b.score && a.box_index > b.box_index) || a.score < b.score;
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(lower)> queue(lower);
  for (Index i = 0; i < num_boxes; ++i)
    if (scores[i] > score_threshold) queue.push(Candidate{static_cast<int>(i), scores[i], 0});
  const bool soft = sigma > 0.0f;
  const float scale = soft ? -0.5f / sigma : 0.0f;
  auto suppress_weight = [&](float similarity) {
    const float weight = std::exp(scale * similarity * similarity);
    return soft || similarity <= iou_threshold ? weight : 0.0f;
  };
  std::vector<std::int32_t>& selected = out->indices;
  std::vector<float>& selected_scores = out->scores;
  while (static_cast<Index>(selected.size()) < output_size && !queue.empty()) {
    Candidate next = queue.top();
    const float original_score = next.score;
    queue.pop();
    bool hard_suppressed = false;
    for (int j = static_cast<int>(selected.size()) - 1; j >= next.suppress_begin_index; --j) {
      const float similarity = iou(boxes, next.box_index, selected[static_cast<std::size_t>(j)]);
      next.score *= suppress_weight(similarity);
      if (!soft && similarity > iou_threshold) {
        hard_suppressed = true;
        break;
      }
      if (next.score <= score_threshold) break;
    }
    next.suppress_begin_index = static_cast<int>(selected.size());
    if (hard_suppressed) continue;
    if (next.score == original_score) {
      selected.push_back(next.box_index);
      selected_scores.push_back(next.score);
      continue;
    }
    if (next.score > score_threshold) queue.push(next);
  }
  out->valid = static_cast<std::int32_t>(selected.size());
  if (pad) {
    selected.resize(static_cast<std::size_t>(output_size), 0);
    selected_scores.resize(static_cast<std::size_t>(output_size), 0.0f);
  }
  return {};
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
    Selection sel;
    ACTORFLOW_RETURN_IF_ERROR(select_boxes(max_output_size, boxes.data<float>(),
                                           scores.data<float>(), num_boxes, iou_threshold,
                                           score_threshold, sigma, version_ >= 4 && pad_, &sel));
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
}

}  // namespace detail

}  // namespace af
