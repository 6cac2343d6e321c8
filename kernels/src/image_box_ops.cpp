// CombinedNonMaxSuppression, NonMaxSuppressionWithOverlaps, SampleDistortedBoundingBox,
// SampleDistortedBoundingBoxV2, StatelessSampleDistortedBoundingBox and RandomCrop: CPU
// kernels with TensorFlow's checks, messages and draws (kernels/image/
// non_max_suppression_op.cc, sample_distorted_bounding_box_op.cc, random_crop_op.cc). Their
// definitions are in ops/src/defs/image_box_ops.cpp.
//
// The random kernels draw as TensorFlow's: SimplePhilox over a Philox generator, seeded from
// the attrs seed and seed2 through GuardedPhiloxRandom (each run reserving 4 * max_attempts
// 32-bit samples, RandomCrop 2), or for the stateless op from GenerateKey of its seed input.
// The same seeds give TensorFlow's boxes and crops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "kernel_helpers.hpp"
#include "non_max_suppression.hpp"
#include "random_distributions.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::GuardedPhiloxRandom;
using detail::Index;
using detail::index_values;
using detail::SingleSampleAdapter;
using detail::StatusKernel;

// A float as TensorFlow's StrCat prints it: six significant digits, nine when six do not
// read back (FloatToBuffer).
std::string float_string(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  if (std::strtof(buf, nullptr) != v)
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// A scalar input: "<name> must be 0-D, got shape [2]".
Status scalar_input(const Tensor& t, const char* name) {
  if (t.rank() == 0) return {};
  return invalid_argument(std::string(name) + " must be 0-D, got shape " + t.shape().to_string());
}

// -- NonMaxSuppressionWithOverlaps ------------------------------------------------------------

// NonMaxSuppressionWithOverlaps(overlaps, scores, max_output_size, overlap_threshold,
// score_threshold): greedy suppression as NonMaxSuppressionV3's with the similarity of boxes
// i and j read from overlaps[i, j] (no range check on the threshold).
class NonMaxSuppressionWithOverlapsOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& overlaps = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    const Tensor& max_output_size = ctx.input(2);
    const Tensor& overlap_threshold = ctx.input(3);
    const Tensor& score_threshold = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(max_output_size, "max_output_size"));
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(overlap_threshold, "overlap_threshold"));
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(score_threshold, "score_threshold"));
    if (overlaps.rank() != 2)
      return invalid_argument("overlaps must be 2-D" + overlaps.shape().to_string());
    const Index num_boxes = overlaps.shape().dim(0);
    if (overlaps.shape().dim(1) != num_boxes)
      return invalid_argument("overlaps must be square" + overlaps.shape().to_string());
    ACTORFLOW_RETURN_IF_ERROR(detail::check_score_sizes(scores, num_boxes));
    const float* o = overlaps.data<float>();
    detail::NmsSelection sel;
    ACTORFLOW_RETURN_IF_ERROR(detail::select_by_similarity(
        max_output_size.data<std::int32_t>()[0], scores.data<float>(), num_boxes,
        overlap_threshold.data<float>()[0], score_threshold.data<float>()[0], 0.0f, false,
        [o, num_boxes](int i, int j) { return o[i * num_boxes + j]; }, &sel));
    Tensor& out =
        ctx.allocate_output(0, DType::int32, Shape{static_cast<Index>(sel.indices.size())});
    std::copy(sel.indices.begin(), sel.indices.end(), out.data<std::int32_t>());
    return {};
  }
};

// -- CombinedNonMaxSuppression ----------------------------------------------------------------

// ResultCandidate of BatchedNonMaxSuppressionOp.
struct ResultCandidate {
  int box_index;
  float score;
  int class_idx;
  float box_coord[4];
};

// DoNMSPerClass: hard NMS of one class of one image; the selected boxes fill the class's
// slots of `results` in selection order. The candidates wait in a std::priority_queue on a
// std::vector ordered by score alone, as TensorFlow's, so equal scores leave it in the same
// order.
void nms_per_class(int class_idx, const float* boxes, const float* scores, int num_boxes, int q,
                   int num_classes, int size_per_class, float score_threshold, float iou_threshold,
                   std::vector<ResultCandidate>& results) {
  struct Candidate {
    int box_index;
    float score;
  };
  auto cmp = [](const Candidate a, const Candidate b) { return a.score < b.score; };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(cmp)> queue(cmp);
  for (int i = 0; i < num_boxes; ++i) {
    const float score = scores[i * num_classes + class_idx];
    if (score > score_threshold) queue.emplace(Candidate({i, score}));
  }
  std::vector<int> selected;
  const int class_box_idx = q > 1 ? class_idx : 0;
  while (static_cast<int>(selected.size()) < size_per_class && !queue.empty()) {
    const Candidate next = queue.top();
    queue.pop();
    const int candidate_at = next.box_index * q + class_box_idx;
    bool should_select = true;
    for (int j = static_cast<int>(selected.size()) - 1; j >= 0; --j) {
      const int selected_at = selected[static_cast<std::size_t>(j)] * q + class_box_idx;
      if (detail::box_iou(boxes, candidate_at, selected_at) > iou_threshold) {
        should_select = false;
        break;
      }
    }
    if (!should_select) continue;
    const float* c = boxes + static_cast<Index>(candidate_at) * 4;
    results[selected.size() + static_cast<std::size_t>(size_per_class) * class_idx] = {
        next.box_index, next.score, class_idx, {c[0], c[1], c[2], c[3]}};
    selected.push_back(next.box_index);
  }
}

// CombinedNonMaxSuppression(boxes, scores, max_output_size_per_class, max_total_size,
// iou_threshold, score_threshold): per image, NMS of each class (boxes [batch, num_boxes, q,
// 4], q 1 or num_classes; scores [batch, num_boxes, num_classes]), then the best
// max_total_size of all classes by score (std::sort, as TensorFlow, so ties fall as there),
// boxes clipped to [0, 1] with clip_boxes, padded with zeros to max_total_size, or with
// pad_per_class to min(max_total_size, max_output_size_per_class * num_classes).
class CombinedNonMaxSuppressionOp : public StatusKernel {
 public:
  CombinedNonMaxSuppressionOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (*s = c.get_attr("pad_per_class", &pad_per_class_); !s->ok()) return;
    *s = c.get_attr("clip_boxes", &clip_boxes_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (boxes.rank() != 4)
      return invalid_argument("boxes must be 4-D [batch, num_boxes, q, 4], got shape " +
                              boxes.shape().to_string());
    if (scores.rank() != 3)
      return invalid_argument("scores must be 3-D [batch, num_boxes, num_classes], got shape " +
                              scores.shape().to_string());
    const auto num_boxes = static_cast<int>(boxes.shape().dim(1));
    const auto num_classes = static_cast<int>(scores.shape().dim(2));
    if (boxes.shape().dim(2) != 1 && boxes.shape().dim(2) != num_classes)
      return invalid_argument("third dimension of boxes must be either 1 or num classes");
    if (boxes.shape().dim(3) != 4) return invalid_argument("boxes must have 4 columns");
    if (scores.shape().dim(1) != num_boxes)
      return invalid_argument("scores has incompatible shape");
    if (boxes.shape().dim(0) != scores.shape().dim(0))
      return invalid_argument("boxes and scores must have same batch size");
    const Tensor& max_output_size = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(max_output_size, "max_size_per_class"));
    const int max_size_per_class = max_output_size.data<std::int32_t>()[0];
    if (max_size_per_class <= 0) return invalid_argument("max_size_per_class must be positive");
    const Tensor& max_total_size = ctx.input(3);
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(max_total_size, "max_total_size"));
    const int total_size_per_batch = max_total_size.data<std::int32_t>()[0];
    if (total_size_per_batch <= 0) return invalid_argument("max_total_size must be > 0");
    const Tensor& iou_t = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(iou_t, "iou_threshold"));
    const float iou_threshold = iou_t.data<float>()[0];
    const Tensor& score_t = ctx.input(5);
    ACTORFLOW_RETURN_IF_ERROR(scalar_input(score_t, "score_threshold"));
    const float score_threshold = score_t.data<float>()[0];
    if (!(iou_threshold >= 0 && iou_threshold <= 1))
      return invalid_argument("iou_threshold must be in [0, 1]");

    const auto num_batches = static_cast<int>(boxes.shape().dim(0));
    const auto q = static_cast<int>(boxes.shape().dim(2));
    const int size_per_class = std::min(max_size_per_class, num_boxes);
    const std::int64_t slots = static_cast<std::int64_t>(size_per_class) * num_classes;
    if (slots < 0 || slots > std::numeric_limits<int>::max())
      return invalid_argument("size_per_class * num_classes causes overflow");
    const int max_total_size_all = static_cast<int>(
        std::min<std::int64_t>(std::numeric_limits<int>::max(),
                               static_cast<std::int64_t>(max_size_per_class) * num_classes));
    const int per_batch_size =
        pad_per_class_ ? std::min(total_size_per_batch, max_total_size_all) : total_size_per_batch;

    Tensor& valid = ctx.allocate_output(3, DType::int32, Shape{num_batches});
    Tensor& out_boxes =
        ctx.allocate_output(0, DType::float32, Shape{num_batches, per_batch_size, 4});
    Tensor& out_scores = ctx.allocate_output(1, DType::float32, Shape{num_batches, per_batch_size});
    Tensor& out_classes =
        ctx.allocate_output(2, DType::float32, Shape{num_batches, per_batch_size});
    const float* boxes_data = boxes.data<float>();
    const float* scores_data = scores.data<float>();
    const Index boxes_per_batch = static_cast<Index>(num_boxes) * q * 4;
    const Index scores_per_batch = static_cast<Index>(num_boxes) * num_classes;
    for (int b = 0; b < num_batches; ++b) {
      std::vector<ResultCandidate> results(
          static_cast<std::size_t>(slots),
          {-1, -std::numeric_limits<float>::infinity(), -1, {0.0f, 0.0f, 0.0f, 0.0f}});
      for (int c = 0; c < num_classes; ++c)
        nms_per_class(c, boxes_data + boxes_per_batch * b, scores_data + scores_per_batch * b,
                      num_boxes, q, num_classes, size_per_class, score_threshold, iou_threshold,
                      results);
      // SelectResultPerBatch.
      std::sort(
          results.begin(), results.end(),
          [](const ResultCandidate a, const ResultCandidate b2) { return b2.score < a.score; });
      const int found = static_cast<int>(
          std::count_if(results.begin(), results.end(),
                        [](const ResultCandidate& r) { return r.box_index > -1; }));
      const int detections =
          pad_per_class_ ? std::min(per_batch_size, found) : std::min(found, total_size_per_batch);
      valid.data<std::int32_t>()[b] = detections;
      float* ob = out_boxes.data<float>() + static_cast<Index>(b) * per_batch_size * 4;
      float* os = out_scores.data<float>() + static_cast<Index>(b) * per_batch_size;
      float* oc = out_classes.data<float>() + static_cast<Index>(b) * per_batch_size;
      for (int k = 0; k < detections && k < static_cast<int>(results.size()); ++k) {
        const ResultCandidate& r = results[static_cast<std::size_t>(k)];
        for (int i = 0; i < 4; ++i)
          ob[k * 4 + i] =
              clip_boxes_ ? std::max(std::min(r.box_coord[i], 1.0f), 0.0f) : r.box_coord[i];
        os[k] = r.score;
        oc[k] = static_cast<float>(r.class_idx);
      }
    }
    return {};
  }

 private:
  bool pad_per_class_ = false;
  bool clip_boxes_ = true;
};

// -- SampleDistortedBoundingBox ---------------------------------------------------------------

// TensorFlow's random::SimplePhilox over a generator: 32-bit samples one at a time.
class SimplePhilox {
 public:
  explicit SimplePhilox(PhiloxRandom* gen) : single_(gen) {}
  std::uint32_t rand32() { return single_(); }
  float rand_float() { return detail::uint32_to_float(single_()); }
  // ExactUniformInt<uint32>: uniform in [0, n) by rejection (a sample is consumed for n 0).
  std::uint32_t uniform(std::uint32_t n) {
    if (n == 0) return rand32() * n;
    if ((n & (n - 1)) == 0) return rand32() & (n - 1);
    const std::uint32_t rem = (std::numeric_limits<std::uint32_t>::max() % n) + 1;
    std::uint32_t rnd;
    do {
      rnd = rand32();
    } while (rnd < rem);
    return rnd % n;
  }

 private:
  SingleSampleAdapter single_;
};

// The Rectangle of the kernel: [min_x, max_x) x [min_y, max_y) in pixels.
struct Rectangle {
  int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  float area() const { return static_cast<float>((max_x - min_x) * (max_y - min_y)); }
  Rectangle intersect(const Rectangle& r) const {
    const int x0 = std::max(min_x, r.min_x), y0 = std::max(min_y, r.min_y);
    const int x1 = std::min(max_x, r.max_x), y1 = std::min(max_y, r.max_y);
    if (x0 > x1 || y0 > y1) return {};
    return {x0, y0, x1, y1};
  }
};

// SatisfiesOverlapConstraints: the crop has area and covers at least `min_covered` of one
// box of area.
bool satisfies_overlap(const Rectangle& crop, float min_covered,
                       const std::vector<Rectangle>& boxes) {
  const float kMinArea = 1.0f;
  if (crop.area() < kMinArea) return false;
  for (const Rectangle& box : boxes) {
    const float object_area = box.area();
    if (object_area < kMinArea) continue;
    if (crop.intersect(box).area() / object_area >= min_covered) return true;
  }
  return false;
}

// lrintf in the default rounding mode (to nearest even).
int round_to_int(float v) { return static_cast<int>(std::lrint(v)); }

// GenerateRandomCrop: a crop of the aspect ratio and an area between the two fractions of
// the image, its height uniform between the extremes and its corner uniform; false when the
// constraints cannot be met. The float, double and int arithmetic is TensorFlow's.
bool generate_random_crop(int original_width, int original_height, float min_relative_area,
                          float max_relative_area, float aspect_ratio, SimplePhilox* random,
                          Rectangle* crop) {
  if (max_relative_area <= 0.0 || aspect_ratio <= 0.0 || original_width <= 0 ||
      original_height <= 0 || min_relative_area > max_relative_area)
    return false;
  const float min_area =
      min_relative_area * static_cast<float>(original_width) * static_cast<float>(original_height);
  const float max_area =
      max_relative_area * static_cast<float>(original_width) * static_cast<float>(original_height);
  int height = round_to_int(std::sqrt(min_area / aspect_ratio));
  int max_height = round_to_int(std::sqrt(max_area / aspect_ratio));
  if (round_to_int(static_cast<float>(max_height) * aspect_ratio) > original_width) {
    const float kEps = 0.0000001f;
    max_height = static_cast<int>((original_width + 0.5 - kEps) / aspect_ratio);
    if (round_to_int(static_cast<float>(max_height) * aspect_ratio) > original_width)
      max_height -= 1;
  }
  if (max_height > original_height) max_height = original_height;
  if (height >= max_height) height = max_height;
  if (height < max_height)
    height +=
        static_cast<int>(random->uniform(static_cast<std::uint32_t>(max_height - height + 1)));
  int width = round_to_int(static_cast<float>(height) * aspect_ratio);
  float area = static_cast<float>(width * height);
  if (area < min_area) {
    height += 1;
    width = round_to_int(static_cast<float>(height) * aspect_ratio);
    area = static_cast<float>(width * height);
  }
  if (area > max_area) {
    height -= 1;
    width = round_to_int(static_cast<float>(height) * aspect_ratio);
    area = static_cast<float>(width * height);
  }
  if (area < min_area || area > max_area || width > original_width || height > original_height ||
      width <= 0 || height <= 0)
    return false;
  int y = 0;
  if (height < original_height)
    y = static_cast<int>(random->uniform(static_cast<std::uint32_t>(original_height - height)));
  int x = 0;
  if (width < original_width)
    x = static_cast<int>(random->uniform(static_cast<std::uint32_t>(original_width - width)));
  *crop = {x, y, x + width, y + height};
  return true;
}

// static_cast<int32_t>(float) as x86 computes it (INT32_MIN out of range).
std::int32_t truncate_to_int32(float v) {
  if (!(v >= -0x1p31f && v < 0x1p31f)) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}

// SampleDistortedBoundingBoxBaseOp: the attrs' checks (in the constructor) and DoCompute.
// V1 holds min_object_covered as an attr, V2 and the stateless op take it as input 2.
template <class T>
class SampleDistortedBoundingBoxBase : public StatusKernel {
 public:
  SampleDistortedBoundingBoxBase(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = init(c);
  }

 protected:
  // DoCompute with the generator `rng` (copied: the draws never touch the caller's).
  Status sample(OpKernelContext& ctx, PhiloxRandom rng) {
    const Tensor& image_size = ctx.input(0);
    if (image_size.rank() != 1)
      return invalid_argument("image_size must be 1-dimensional" + image_size.shape().to_string());
    if (image_size.shape().dim(0) != 3)
      return invalid_argument("image_size must contain 3 elements" +
                              image_size.shape().to_string());
    const std::vector<std::int64_t> size = index_values(image_size);
    // SubtleMustCopy into uint64, then FastBoundsCheck against int32 max.
    const auto height_raw = static_cast<std::uint64_t>(size[0]);
    const auto width_raw = static_cast<std::uint64_t>(size[1]);
    const auto int32_max = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
    if (height_raw >= int32_max) return invalid_argument("image height cannot be >= int32 max");
    if (width_raw >= int32_max) return invalid_argument("image width cannot be >= int32 max");
    const auto height = static_cast<std::int32_t>(height_raw);
    const auto width = static_cast<std::int32_t>(width_raw);
    const Tensor& input_boxes = ctx.input(1);
    if (input_boxes.rank() != 3)
      return invalid_argument("input boxes must be 3-dimensional [batch, num_boxes, coords]: " +
                              input_boxes.shape().to_string());
    if (input_boxes.shape().dim(input_boxes.rank() - 1) != 4)
      return invalid_argument("bounding boxes must have shape [4] or [*, 4], got " +
                              input_boxes.shape().to_string());
    float min_object_covered = min_object_covered_;
    if (ctx.num_inputs() >= 3) {
      const Tensor& t = ctx.input(2);
      if (t.rank() != 0)
        return invalid_argument("min_object_covered must be 0-D, got shape " +
                                t.shape().to_string());
      min_object_covered = t.data<float>()[0];
      if (!(min_object_covered >= 0))
        return invalid_argument("Min object covered must be non-negative: " +
                                float_string(min_object_covered));
    }
    std::vector<Rectangle> bounding_boxes;
    const float* b = input_boxes.data<float>();
    for (Index row = 0; row < input_boxes.num_elements() / 4; ++row) {
      for (int i = 0; i < 4; ++i)
        if (!(b[row * 4 + i] >= 0.0f && b[row * 4 + i] <= 1.0f))
          return invalid_argument("All bounding box coordinates must be in [0.0, 1.0]: " +
                                  float_string(b[row * 4 + i]));
      bounding_boxes.push_back({truncate_to_int32(b[row * 4 + 1] * static_cast<float>(width)),
                                truncate_to_int32(b[row * 4] * static_cast<float>(height)),
                                truncate_to_int32(b[row * 4 + 3] * static_cast<float>(width)),
                                truncate_to_int32(b[row * 4 + 2] * static_cast<float>(height))});
    }
    const Rectangle image_rect{0, 0, width, height};
    if (bounding_boxes.empty()) {
      if (!use_image_if_no_bounding_boxes_)
        return invalid_argument(
            "No bounding boxes provided as input. One must enable "
            "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.");
      bounding_boxes.push_back(image_rect);
    }
    SimplePhilox random(&rng);
    Rectangle crop;
    bool generated = false;
    for (std::int64_t i = 0; i < max_attempts_; ++i) {
      const float aspect_ratio =
          random.rand_float() * (aspect_ratio_range_[1] - aspect_ratio_range_[0]) +
          aspect_ratio_range_[0];
      if (generate_random_crop(width, height, area_range_[0], area_range_[1], aspect_ratio, &random,
                               &crop) &&
          satisfies_overlap(crop, min_object_covered, bounding_boxes)) {
        generated = true;
        break;
      }
    }
    if (!generated) crop = image_rect;
    const int target_width = crop.max_x - crop.min_x;
    const int target_height = crop.max_y - crop.min_y;
    if (width < target_width + crop.min_x)
      return failed_precondition(
          "width must be > target_width + offset_width: " + std::to_string(width) + "vs " +
          std::to_string(target_width) + " + " + std::to_string(crop.min_x));
    if (height < target_height + crop.min_y)
      return failed_precondition(
          "height must be >= target_height: height = " + std::to_string(height) + "vs " +
          std::to_string(target_height) + " + " + std::to_string(crop.min_y));
    T* begin = ctx.allocate_output(0, image_size.dtype(), Shape{3}).data<T>();
    T* out_size = ctx.allocate_output(1, image_size.dtype(), Shape{3}).data<T>();
    float* bboxes = ctx.allocate_output(2, DType::float32, Shape{1, 1, 4}).data<float>();
    begin[0] = static_cast<T>(crop.min_y);
    out_size[0] = static_cast<T>(target_height);
    begin[1] = static_cast<T>(crop.min_x);
    out_size[1] = static_cast<T>(target_width);
    begin[2] = static_cast<T>(0);
    out_size[2] = static_cast<T>(-1);
    bboxes[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
    bboxes[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
    bboxes[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
    bboxes[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
    return {};
  }

  std::int64_t max_attempts_ = 100;

 private:
  Status init(OpKernelConstruction& c) {
    if (c.input_types.size() == 2) {
      ACTORFLOW_RETURN_IF_ERROR(c.get_attr("min_object_covered", &min_object_covered_));
      if (!(min_object_covered_ >= 0))
        return invalid_argument("Min object covered must be non-negative: " +
                                float_string(min_object_covered_));
    }
    ACTORFLOW_RETURN_IF_ERROR(
        c.get_attr("use_image_if_no_bounding_boxes", &use_image_if_no_bounding_boxes_));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("aspect_ratio_range", &aspect_ratio_range_));
    if (aspect_ratio_range_.size() != 2)
      return invalid_argument("Aspect ratio range field must specify 2 dimensions");
    if (!(aspect_ratio_range_[0] > 0 && aspect_ratio_range_[1] > 0))
      return invalid_argument("Aspect ratio range must be non-negative: [" +
                              float_string(aspect_ratio_range_[0]) + ", " +
                              float_string(aspect_ratio_range_[1]) + "]");
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("area_range", &area_range_));
    if (area_range_.size() != 2)
      return invalid_argument("Area range field must specify 2 dimensions");
    if (!(area_range_[0] > 0 && area_range_[1] > 0))
      return invalid_argument("Area range must be non-negative: [" + float_string(area_range_[0]) +
                              ", " + float_string(area_range_[1]) + "]");
    if (!(area_range_[0] <= 1 && area_range_[1] <= 1))
      return invalid_argument("Area range must be less then or equal to 1.0: [" +
                              float_string(area_range_[0]) + ", " + float_string(area_range_[1]) +
                              "]");
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("max_attempts", &max_attempts_));
    // TensorFlow reads the attr into an int32.
    max_attempts_ = static_cast<std::int32_t>(max_attempts_);
    if (max_attempts_ <= 0)
      return invalid_argument("Max attempts must be non-negative: " +
                              std::to_string(max_attempts_));
    return {};
  }

  float min_object_covered_ = 0.1f;
  bool use_image_if_no_bounding_boxes_ = false;
  std::vector<float> aspect_ratio_range_;
  std::vector<float> area_range_;
};

// SampleDistortedBoundingBox and V2: each run draws from the kernel's GuardedPhiloxRandom,
// reserving 4 * max_attempts 32-bit samples, so successive runs continue TensorFlow's
// sequence for the seeds.
template <class T>
class StatefulSampleDistortedBoundingBoxOp : public SampleDistortedBoundingBoxBase<T> {
 public:
  StatefulSampleDistortedBoundingBoxOp(OpKernelConstruction& c, Status* s)
      : SampleDistortedBoundingBoxBase<T>(c, s) {
    if (s->ok()) *s = generator_.init(c);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    return this->sample(ctx, generator_.reserve_samples32(4 * this->max_attempts_));
  }

 private:
  GuardedPhiloxRandom generator_;
};

// StatelessSampleDistortedBoundingBox: the generator of GenerateKey(seed), seed an int32 or
// int64 [2].
template <class T>
class StatelessSampleDistortedBoundingBoxOp : public SampleDistortedBoundingBoxBase<T> {
 public:
  using SampleDistortedBoundingBoxBase<T>::SampleDistortedBoundingBoxBase;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& seed = ctx.input(3);
    if (seed.rank() != 1 || seed.shape().dim(0) != 2)
      return invalid_argument("seed must have shape [2], not " + seed.shape().to_string());
    const std::vector<std::int64_t> s = index_values(seed);
    const detail::StatelessKeyCounter kc = detail::generate_stateless_key(
        static_cast<std::uint64_t>(s[0]), static_cast<std::uint64_t>(s[1]));
    return this->sample(ctx, kc.generator());
  }
};

// -- RandomCrop -------------------------------------------------------------------------------

// RandomCrop(image, size), deprecated since GraphDef version 8: the [height, width] window of
// a [H, W, C] image at a random corner, its column offset drawn first (Rand32 modulo the
// room), each run reserving two 32-bit samples of the kernel's generator.
template <class T>
class RandomCropOp : public StatusKernel {
 public:
  RandomCropOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = generator_.init(c); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 3)
      return invalid_argument("input must be 3-dimensional" + input.shape().to_string());
    const Tensor& shape_t = ctx.input(1);
    if (shape_t.rank() != 1)
      return invalid_argument("shape_t must be 1-dimensional" + shape_t.shape().to_string());
    if (shape_t.num_elements() != 2)
      return invalid_argument("shape_t must have two elements" + shape_t.shape().to_string());
    const auto target_height = static_cast<std::int32_t>(shape_t.data<std::int64_t>()[0]);
    const auto target_width = static_cast<std::int32_t>(shape_t.data<std::int64_t>()[1]);
    const auto height = static_cast<std::int32_t>(input.shape().dim(0));
    const auto width = static_cast<std::int32_t>(input.shape().dim(1));
    const auto channels = static_cast<std::int32_t>(input.shape().dim(2));
    for (std::int32_t d : {target_height, target_width})
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    if (width < target_width)
      return failed_precondition("width must be >= target_width: width = " + std::to_string(width) +
                                 ", target_width = " + std::to_string(target_width));
    if (height < target_height)
      return failed_precondition(
          "height must be >= target_height: height = " + std::to_string(height) +
          ", target_height = " + std::to_string(target_height));
    PhiloxRandom local = generator_.reserve_samples32(2);
    SimplePhilox random(&local);
    std::int32_t offset_height = 0, offset_width = 0;
    if (width > target_width)
      offset_width = static_cast<std::int32_t>(
          random.rand32() % static_cast<std::uint32_t>(width - target_width + 1));
    if (height > target_height)
      offset_height = static_cast<std::int32_t>(
          random.rand32() % static_cast<std::uint32_t>(height - target_height + 1));
    Tensor& output = ctx.allocate_output_for_overwrite(
        0, input.dtype(), Shape{target_height, target_width, channels});
    const T* in = input.data<T>();
    T* out = output.data<T>();
    for (Index y = 0; y < target_height; ++y)
      std::copy_n(in + ((y + offset_height) * width + offset_width) * channels,
                  static_cast<Index>(target_width) * channels,
                  out + y * static_cast<Index>(target_width) * channels);
    return {};
  }

 private:
  GuardedPhiloxRandom generator_;
};

template <template <class> class Kernel, class... Ts>
void register_on_t(KernelRegistry& r, const char* op) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU", {{"T", {dtype_of_v<Ts>}}})), ...);
}

}  // namespace

namespace detail {

void register_image_box_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<NonMaxSuppressionWithOverlapsOp>("NonMaxSuppressionWithOverlaps", "CPU"));
  r.add(make_kernel_def<CombinedNonMaxSuppressionOp>("CombinedNonMaxSuppression", "CPU"));
  // TensorFlow's integral types (uint8, int8, int16, int32, int64).
  for (const char* op : {"SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"})
    register_on_t<StatefulSampleDistortedBoundingBoxOp, std::uint8_t, std::int8_t, std::int16_t,
                  std::int32_t, std::int64_t>(r, op);
  register_on_t<StatelessSampleDistortedBoundingBoxOp, std::uint8_t, std::int8_t, std::int16_t,
                std::int32_t, std::int64_t>(r, "StatelessSampleDistortedBoundingBox");
  register_on_t<RandomCropOp, std::uint8_t, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                float, double>(r, "RandomCrop");
}

}  // namespace detail

}  // namespace af
