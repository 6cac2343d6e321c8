// The definitions of ResizeBilinear, ResizeBilinearGrad, ResizeNearestNeighbor and
// ResizeNearestNeighborGrad (shape functions as TensorFlow's image_ops.cc: ResizeShapeFn and
// the grads' own) and the builders tf.compat.v1.image.resize_bilinear and
// resize_nearest_neighbor. Their CPU kernels are in kernels/src/image_resize_ops.cpp, the
// gradients in ops/src/gradients/image_grad.cpp.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/image_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::dim_of;

using Index = std::int64_t;
using detail::check_op_def_type;
using detail::index_values;
using detail::with_rank;

// InferenceContext::WithValue on dimension 0 of a vector: "Dimension must be 2 but is 3".
Status with_length_2(const PartialShape& vector) {
  if (vector.rank_known() && vector.dim(0) >= 0 && vector.dim(0) != 2)
    return invalid_argument("Dimension must be 2 but is " + std::to_string(vector.dim(0)));
  return {};
}

// InferenceContext::MakeDim of a size value: -1 unknown, below that an error.
Status size_dim(std::int64_t value, Index* dim) {
  if (value < -1) return invalid_argument("Dimension " + std::to_string(value) + " must be >= 0");
  *dim = value;
  return {};
}

// Checks input 1 ("size") is an int32 vector of two and reads the dims it names (unknown
// where it is not a Const) into `height` and `width`.
Status sized_dims(InferenceContext& c, Index* height, Index* width) {
  if (c.input_types[1] != DType::int32)
    return invalid_argument(
        cwise::fixed_type_mismatch_message(c.node.op, "size", c.input_types[1], DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_length_2(c.input_shapes[1]));
  *height = *width = -1;
  if (const Tensor* size = c.input_values[1]) {
    const std::vector<std::int64_t> values = index_values(*size);
    ACTORFLOW_RETURN_IF_ERROR(size_dim(values[0], height));
    ACTORFLOW_RETURN_IF_ERROR(size_dim(values[1], width));
  }
  return {};
}

// ResizeShapeFn: [batch, size[0], size[1], channels]; float32 for ResizeBilinear, images'
// dtype for ResizeNearestNeighbor.
Status infer_resize(InferenceContext& c) {
  const bool bilinear = c.node.op == "ResizeBilinear";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  const PartialShape& images = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(images, 4));
  Index height = -1, width = -1;
  ACTORFLOW_RETURN_IF_ERROR(sized_dims(c, &height, &width));
  c.add_output(bilinear ? DType::float32 : c.input_types[0],
               PartialShape{dim_of(images, 0), height, width, dim_of(images, 3)});
  return {};
}

// ResizeBilinearGrad(grads: float, original_image: T): original_image's shape and dtype.
Status infer_resize_bilinear_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[0] != DType::float32)
    return invalid_argument(
        cwise::fixed_type_mismatch_message(c.node.op, "grads", c.input_types[0], DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[1], c.node.op, "T"));
  c.add_output(c.input_types[1], c.input_shapes[1]);
  return {};
}

// ResizeNearestNeighborGrad(grads: T, size: int32): grads' shape with height and width those
// `size` names.
Status infer_resize_nearest_neighbor_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  const PartialShape& grads = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(grads, 4));
  Index height = -1, width = -1;
  ACTORFLOW_RETURN_IF_ERROR(sized_dims(c, &height, &width));
  c.add_output(c.input_types[0], PartialShape{dim_of(grads, 0), height, width, dim_of(grads, 3)});
  return {};
}

Output resize_op(const char* type, const Output& images, const Output& size, bool align_corners,
                 bool half_pixel_centers, std::string_view name) {
  return images.graph()
      .create_op(type, {images, size},
                 {{"T", images.dtype()},
                  {"align_corners", align_corners},
                  {"half_pixel_centers", half_pixel_centers}},
                 name.empty() ? std::string_view(type) : name)
      .output(0);
}

// The op of `type` with its size the int32 Const "<op>/size", as Python's op_def_library
// converts a list inside the op's name scope.
Output resize_op(const char* type, const Output& images, const std::array<std::int64_t, 2>& size,
                 bool align_corners, bool half_pixel_centers, std::string_view name) {
  for (std::int64_t v : size)
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgumentError(
          invalid_argument("Value " + std::to_string(v) + " of size does not fit int32"));
  Graph& g = images.graph();
  const std::string op_name = g.unique_name(name.empty() ? std::string_view(type) : name);
  Output size_const;
  {
    auto scope = g.name_scope(op_name + "/");
    size_const =
        g.constant(Tensor::from_vector(std::vector<std::int32_t>{
                       static_cast<std::int32_t>(size[0]), static_cast<std::int32_t>(size[1])}),
                   "size");
  }
  return resize_op(type, images, size_const, align_corners, half_pixel_centers, op_name + "/");
}

}  // namespace

namespace detail {

void register_image_resize_ops(OpRegistry& r) {
  r.add({"ResizeBilinear", infer_resize});
  r.add({"ResizeNearestNeighbor", infer_resize});
  r.add({"ResizeBilinearGrad", infer_resize_bilinear_grad});
  r.add({"ResizeNearestNeighborGrad", infer_resize_nearest_neighbor_grad});
}

}  // namespace detail

namespace image {

Output resize_bilinear(const Output& images, const Output& size, bool align_corners,
                       bool half_pixel_centers, std::string_view name) {
  return resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name);
}

Output resize_bilinear(const Output& images, const std::array<std::int64_t, 2>& size,
                       bool align_corners, bool half_pixel_centers, std::string_view name) {
  return resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name);
}

Output resize_nearest_neighbor(const Output& images, const Output& size, bool align_corners,
                               bool half_pixel_centers, std::string_view name) {
  return resize_op("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name);
}

Output resize_nearest_neighbor(const Output& images, const std::array<std::int64_t, 2>& size,
                               bool align_corners, bool half_pixel_centers, std::string_view name) {
  return resize_op("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name);
}

}  // namespace image

}  // namespace af
