#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Local response normalization (TensorFlow's `tf.nn.local_response_normalization`,
/// lrn_op.cc).
namespace af::nn {

/// `tf.nn.local_response_normalization(input, depth_radius, bias, alpha, beta)`: op LRN
/// (default name "LRN") of a 4-D float32 `input` (TensorFlow's LRN has no float64; its
/// half and bfloat16 are refused here): `output[b, y, x, d] =
/// input[b, y, x, d] / (bias + alpha * sum(input[b, y, x, d - r .. d + r] ** 2)) ** beta`
/// with `r = depth_radius` (the window clipped to the depth), same shape. Errors: "Shape must
/// be rank 4 but is rank 3" while building, "in must be 4-dimensional" when running (the node
/// named), "depth_radius = -1 larger than int max" for a negative radius. Gradient: LRNGrad
/// of the incoming gradient, the input and the output with the same attrs (TensorFlow's
/// _LRNGrad).
Output local_response_normalization(const Output& input, std::int64_t depth_radius = 5,
                                    float bias = 1.0f, float alpha = 1.0f, float beta = 0.5f,
                                    std::string_view name = {});

/// `gen_nn_ops.lrn_grad(input_grads, input_image, output_image, ...)`: op LRNGrad (default
/// name "LRNGrad"), the gradient of LRN with respect to its input; all three inputs share one
/// 4-D shape ("input_grads, input_image, and out_image should have the same shape"). Not
/// differentiable (TensorFlow registers no gradient).
Output lrn_grad(const Output& input_grads, const Output& input_image, const Output& output_image,
                std::int64_t depth_radius = 5, float bias = 1.0f, float alpha = 1.0f,
                float beta = 0.5f, std::string_view name = {});

}  // namespace af::nn
