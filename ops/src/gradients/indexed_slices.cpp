// IndexedSlices and Gradient: TensorFlow's sparse gradient (indexed_slices.py) and its
// conversion to a dense tensor (`_indexed_slices_to_tensor`).
#include "actorflow/ops/indexed_slices.hpp"

#include <cstdint>
#include <string>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/logging.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "gradient_helpers.hpp"

namespace af {

namespace {

// `_LARGE_SPARSE_NUM_ELEMENTS`: densifying this many elements or more logs a warning.
constexpr std::int64_t kLargeSparseNumElements = 100000000;

std::string describe(const IndexedSlices& s) {
  auto name = [](const Output& t) { return t.valid() ? "\"" + t.name() + "\"" : "None"; };
  return "IndexedSlices(indices=Tensor(" + name(s.indices) + "), values=Tensor(" + name(s.values) +
         "), dense_shape=" +
         (s.dense_shape.valid() ? "Tensor(" + name(s.dense_shape) + ")" : "None") + ")";
}

}  // namespace

Output to_dense(const IndexedSlices& slices, std::string_view name) {
  if (!slices.valid())
    throw InvalidArgumentError(invalid_argument("to_dense: the IndexedSlices have no values"));
  if (!slices.dense_shape.valid())
    throw InvalidArgumentError(invalid_argument(
        "Tensor conversion requested for IndexedSlices without dense_shape: " + describe(slices)));
  if (auto dims = detail::constant_ints(slices.dense_shape)) {
    std::int64_t n = 1;
    for (std::int64_t d : *dims) n *= d;
    if (n >= kLargeSparseNumElements)
      log_info("warning: Converting sparse IndexedSlices to a dense Tensor with " +
               std::to_string(n) + " elements. This may consume a large amount of memory.");
  } else {
    log_info(
        "warning: Converting sparse IndexedSlices to a dense Tensor of unknown shape. This may "
        "consume a large amount of memory.");
  }
  Output rows =
      strided_slice(slices.dense_shape, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{1},
                    std::vector<std::int64_t>{1}, {.shrink_axis_mask = 1}, "strided_slice");
  return unsorted_segment_sum(slices.values, slices.indices, rows, name);
}

bool Gradient::valid() const noexcept {
  if (const auto* s = std::get_if<IndexedSlices>(&value_)) return s->valid();
  return std::get<Output>(value_).valid();
}

const Output& Gradient::dense() const {
  if (is_slices())
    throw InvalidArgumentError(invalid_argument("Gradient::dense: the gradient is IndexedSlices (" +
                                                describe(slices()) + ")"));
  return std::get<Output>(value_);
}

const IndexedSlices& Gradient::slices() const {
  if (!is_slices())
    throw InvalidArgumentError(
        invalid_argument("Gradient::slices: the gradient is a dense tensor, not IndexedSlices"));
  return std::get<IndexedSlices>(value_);
}

Output Gradient::to_dense(std::string_view name) const {
  if (!valid()) return {};
  return is_slices() ? af::to_dense(slices(), name) : dense();
}

DType Gradient::dtype() const { return is_slices() ? slices().dtype() : dense().dtype(); }

Operation Gradient::op() const { return is_slices() ? slices().op() : dense().op(); }

}  // namespace af
