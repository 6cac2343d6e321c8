#pragma once

// TensorFlow's greedy non-max suppression (kernels/image/non_max_suppression_op.cc
// DoNonMaxSuppressionOp and IOU), for any similarity of two boxes: the NonMaxSuppression
// kernels compare boxes by intersection over union, NonMaxSuppressionWithOverlaps reads a
// given overlap matrix. Private to the kernels module.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <queue>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"
#include "kernel_helpers.hpp"

namespace af::detail {

/// IOU: the intersection over union of boxes `i` and `j` of `boxes` (rows of [y1, x1, y2,
/// x2], corners in either order); 0 where either box has no area.
inline float box_iou(const float* boxes, Index i, Index j) {
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

/// What `select_by_similarity` gives: the selected box indices and their (soft-suppressed)
/// scores, and how many were selected before padding.
struct NmsSelection {
  std::vector<std::int32_t> indices;  ///< in selection order
  std::vector<float> scores;          ///< the score each had when selected
  std::int32_t valid = 0;             ///< selected before padding
};

/// DoNonMaxSuppressionOp: boxes taken greedily by score (the lower index first among equal
/// scores) above `score_threshold`, at most `output_size`; a candidate is dropped once its
/// `similarity(candidate, selected)` exceeds `similarity_threshold`, or (soft NMS,
/// `soft_nms_sigma` > 0) its score decays by exp(-0.5 / sigma * similarity^2) per selected
/// box and it is requeued while above the threshold. With `pad` the results are padded with
/// 0 to `output_size`. InvalidArgument "output size must be non-negative" for a negative
/// `output_size`.
template <class Similarity>
Status select_by_similarity(std::int32_t output_size, const float* scores, Index num_boxes,
                            float similarity_threshold, float score_threshold, float soft_nms_sigma,
                            bool pad, Similarity&& similarity, NmsSelection* out) {
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
  const bool soft = soft_nms_sigma > 0.0f;
  const float scale = soft ? -0.5f / soft_nms_sigma : 0.0f;
  auto suppress_weight = [&](float sim) {
    const float weight = std::exp(scale * sim * sim);
    return soft || sim <= similarity_threshold ? weight : 0.0f;
  };
  std::vector<std::int32_t>& selected = out->indices;
  std::vector<float>& selected_scores = out->scores;
  while (static_cast<Index>(selected.size()) < output_size && !queue.empty()) {
    Candidate next = queue.top();
    const float original_score = next.score;
    queue.pop();
    bool hard_suppressed = false;
    for (int j = static_cast<int>(selected.size()) - 1; j >= next.suppress_begin_index; --j) {
      const float sim = similarity(next.box_index, selected[static_cast<std::size_t>(j)]);
      next.score *= suppress_weight(sim);
      if (!soft && sim > similarity_threshold) {
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

/// CheckScoreSizes: `scores` of shape [num_boxes]: "scores must be 1-D[2,3] (Shape must be
/// rank 1 but is rank 2)", "scores has incompatible shape (Dimensions must be equal, but are
/// 3 and 2)".
inline Status check_score_sizes(const Tensor& scores, Index num_boxes) {
  if (scores.rank() != 1)
    return invalid_argument("scores must be 1-D" + scores.shape().to_string() +
                            " (Shape must be rank 1 but is rank " + std::to_string(scores.rank()) +
                            ")");
  if (scores.shape().dim(0) != num_boxes)
    return invalid_argument("scores has incompatible shape (Dimensions must be equal, but are " +
                            std::to_string(num_boxes) + " and " +
                            std::to_string(scores.shape().dim(0)) + ")");
  return {};
}

}  // namespace af::detail
