// Gradients of the image resizing ops (TensorFlow's image_grad.py): ResizeBilinear gives
// ResizeBilinearGrad, ResizeNearestNeighbor gives ResizeNearestNeighborGrad; ResizeBilinearGrad
// is not differentiable. Neither resize gives `size` a gradient.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "grad_attrs.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// The resize attrs of `op`, to carry over to its gradient op.
AttrMap resize_attrs(const Operation& op, DType t) {
  return {{"T", t},
          {"align_corners", bool_attr(op, "align_corners")},
          {"half_pixel_centers", bool_attr(op, "half_pixel_centers")}};
}

// _ResizeBilinearGrad: ResizeBilinearGrad(grad, image) of the image's dtype.
Grads resize_bilinear_grad(const Operation& op, const Grads& g) {
  const Output image = input(op, 0);
  const Output grad = op.graph()
                          .create_op("ResizeBilinearGrad", {g[0], image},
                                     resize_attrs(op, image.dtype()), "ResizeBilinearGrad")
                          .output(0);
  return {grad, Output()};
}

// _ResizeNearestNeighborGrad: ResizeNearestNeighborGrad(grad, image height and width). A
// static height and width become the Const "<op>/size" (Python converting the TensorShape
// inside the op's name scope), else `shape(image)[1:3]`.
Grads resize_nearest_neighbor_grad(const Operation& op, const Grads& g) {
  Graph& graph = op.graph();
  const Output image = input(op, 0);
  const PartialShape& s = image.shape();
  const bool known = s.rank_known() && s.dim(1) >= 0 && s.dim(2) >= 0;
  std::string name = "ResizeNearestNeighborGrad";
  Output size;
  if (known) {
    name = graph.unique_name(name) + "/";
    auto scope = graph.name_scope(name);
    size = graph.constant(
        Tensor::from_vector(std::vector<std::int32_t>{static_cast<std::int32_t>(s.dim(1)),
                                                      static_cast<std::int32_t>(s.dim(2))}),
        "size");
  } else {
    size = strided_slice(dynamic_shape(image, "Shape"), std::vector<std::int64_t>{1},
                         std::vector<std::int64_t>{3}, std::vector<std::int64_t>{1}, {},
                         "strided_slice");
  }
  const Output grad = graph
                          .create_op("ResizeNearestNeighborGrad", {g[0], size},
                                     resize_attrs(op, g[0].dtype()), name)
                          .output(0);
  return {grad, Output()};
}

}  // namespace

void register_image_gradients(GradientRegistry& r) {
  r.add("ResizeBilinear", resize_bilinear_grad);
  r.add("ResizeNearestNeighbor", resize_nearest_neighbor_grad);
  r.add_not_differentiable("ResizeBilinearGrad");
}

}  // namespace af::detail
