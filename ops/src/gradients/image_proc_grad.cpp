// Gradients of ResizeBicubic, CropAndResize and the NonMaxSuppression ops (TensorFlow's
// image_grad.py and image_ops_impl.py): ResizeBicubic gives ResizeBicubicGrad (float32 and
// float64 images), CropAndResize gives CropAndResizeGradImage (float images) and
// CropAndResizeGradBoxes; NonMaxSuppression, V2 and (as TensorFlow's ops without a gradient
// registered and only integer or score outputs) V3 to V5 are not differentiable. ResizeArea,
// ResizeBicubicGrad and the crop gradients have no gradient, as in TensorFlow.
#include <cstdint>
#include <string>
#include <vector>

#include "grad_attrs.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _ResizeBicubicGrad: ResizeBicubicGrad(grad, image) for float32 and float64 images.
Grads resize_bicubic_grad(const Operation& op, const Grads& g) {
  const Output image = input(op, 0);
  if (image.dtype() != DType::float32 && image.dtype() != DType::float64) return {Output(), {}};
  const Output grad = op.graph()
                          .create_op("ResizeBicubicGrad", {g[0], image},
                                     {{"T", image.dtype()},
                                      {"align_corners", bool_attr(op, "align_corners")},
                                      {"half_pixel_centers", bool_attr(op, "half_pixel_centers")}},
                                     "ResizeBicubicGrad")
                          .output(0);
  return {grad, Output()};
}

// _CropAndResizeGrad: the image's gradient CropAndResizeGradImage(grad, boxes, box_ind,
// image_size) for a float image (image_size the Const "<op>/image_size" of a static shape,
// else `Shape(image)`), and the boxes' CropAndResizeGradBoxes(grad, image, boxes, box_ind),
// the bilinear slope whatever the method.
Grads crop_and_resize_grad(const Operation& op, const Grads& g) {
  Graph& graph = op.graph();
  const Output image = input(op, 0), boxes = input(op, 1), box_ind = input(op, 2);
  const PartialShape& s = image.shape();
  auto method = op.node_def().attr<std::string>("method");
  const std::string method_name = method ? *method : "bilinear";
  Output size;
  if (!s.fully_defined()) size = dynamic_shape(image, "Shape");
  Output grad_image;
  if (image.dtype() == DType::float32 || image.dtype() == DType::float64) {
    std::string name = "CropAndResizeGradImage";
    if (s.fully_defined()) {
      name = graph.unique_name(name) + "/";
      auto scope = graph.name_scope(name);
      std::vector<std::int32_t> dims;
      for (std::int64_t d : s.dims()) dims.push_back(static_cast<std::int32_t>(d));
      size = graph.constant(Tensor::from_vector(dims), "image_size");
    }
    grad_image = graph
                     .create_op("CropAndResizeGradImage", {g[0], boxes, box_ind, size},
                                {{"T", image.dtype()}, {"method", method_name}}, name)
                     .output(0);
  }
  const Output grad_boxes =
      graph
          .create_op("CropAndResizeGradBoxes", {g[0], image, boxes, box_ind},
                     {{"T", image.dtype()}, {"method", std::string("bilinear")}},
                     "CropAndResizeGradBoxes")
          .output(0);
  return {grad_image, grad_boxes, Output(), Output()};
}

}  // namespace

void register_image_proc_gradients(GradientRegistry& r) {
  r.add("ResizeBicubic", resize_bicubic_grad);
  r.add("CropAndResize", crop_and_resize_grad);
  // image_ops_impl.py marks NonMaxSuppression, V2 and WithOverlaps; V3 to V5 give only
  // indices, counts and scores no one differentiates, so they are marked here too.
  for (const char* type : {"NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3",
                           "NonMaxSuppressionV4", "NonMaxSuppressionV5"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
