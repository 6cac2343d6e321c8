#pragma once

#include <optional>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Batch normalization as TensorFlow's fused kernels compute it (`tf.compat.v1.nn.
/// fused_batch_norm`, what `tf.compat.v1.layers.batch_normalization(fused=True)` builds).
namespace af::nn {

/// What `fused_batch_norm` returns: the normalized `y` and the mean and variance to keep (in
/// training the batch's, the variance with Bessel's correction and, with an
/// `exponential_avg_factor` below 1, blended into the running values given; in inference
/// the given ones).
struct FusedBatchNormOutputs {
  Output y;         ///< x normalized, scaled and offset; x's shape and dtype
  Output mean;      ///< [C] float32
  Output variance;  ///< [C] float32
};

/// `tf.compat.v1.nn.fused_batch_norm`: op FusedBatchNormV3 (default name
/// "FusedBatchNormV3") of a float32 `x` of rank 4 ("NHWC" or "NCHW") or rank 5 ("NDHWC" or
/// "NCDHW") with float32 [C] `scale` and `offset`. Training (`is_training`) normalizes by the
/// batch's statistics over every dimension but C (N, H and W; N, D, H and W); inference by
/// `mean` and `variance`, which it then needs (absent, empty Consts stand in, as
/// TensorFlow's). A rank that does not match the format throws InvalidArgumentError while
/// building where known ("Shape must be rank 5 but is rank 4"), as does another format
/// ("Value for attr 'data_format' of \"NCHW_VECT_C\" is not in the list of allowed values:
/// \"NHWC\", \"NCHW\", \"NDHWC\", \"NCDHW\""); a run-time rank other than 4 or 5 fails ("input
/// must be 4 or 5-dimensional[2,4]"). `epsilon` below 1.001e-5 is raised to it, as
/// TensorFlow does for cuDNN. Wrong ranks or channel counts throw InvalidArgumentError while
/// building where the shapes are known; running fails with TensorFlow's messages ("scale
/// must have the same number of elements as the channels of x, got 3 and 4", "When
/// is_training=false, mean must have the same number of elements as the channels of x, got
/// 0 and 4"). An empty `x` gives NaN statistics. Differentiable in both modes
/// (FusedBatchNormGradV3).
FusedBatchNormOutputs fused_batch_norm(const Output& x, const Output& scale, const Output& offset,
                                       std::optional<Output> mean = {},
                                       std::optional<Output> variance = {}, float epsilon = 0.001f,
                                       std::string_view data_format = "NHWC",
                                       bool is_training = true, float exponential_avg_factor = 1.0f,
                                       std::string_view name = {});

}  // namespace af::nn
