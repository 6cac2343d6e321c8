#pragma once

// Building blocks shared by the gradient functions (ops/src/gradients/*.cpp) and the
// gradient walk. Private to the ops module.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/bcast.hpp"  // broadcast_reduction_axes
#include "actorflow/ops/gradients.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/status.hpp"

namespace af::detail {

/// Input `i` of `op` (not checked): what a gradient function reads of its forward op.
inline Output input(const Operation& op, int i) {
  return op.node()->inputs()[static_cast<std::size_t>(i)];
}

/// The integer values of `x` when it is produced by a Const (TensorFlow's
/// `tensor_util.constant_value` for the cases gradients need).
std::optional<std::vector<std::int64_t>> constant_ints(const Output& x);

/// `array_ops.shape(x)`: a Const when the static shape is fully defined, else op Shape.
Output shape_of(const Output& x, std::string_view name = "Shape");

/// A Const of int32 values.
Output int_constant(Graph& g, const std::vector<std::int64_t>& values,
                    std::string_view name = "Const");

/// Op Reshape of `x` to `shape` (an int32 vector).
Output reshape_op(const Output& x, const Output& shape, std::string_view name = "Reshape");
/// Op Sum of `x` over `axes` (an int32 vector), keep_dims false.
Output sum_op(const Output& x, const Output& axes, bool keep_dims = false,
              std::string_view name = "Sum");
/// Op Tile of `x` by `multiples` (an int32 vector).
Output tile_op(const Output& x, const Output& multiples, std::string_view name = "Tile");
/// Op Shape of `x` (int32), even when its static shape is known (TensorFlow's
/// `shape_internal(optimize=False)`): the shape it has when the step runs.
Output dynamic_shape(const Output& x, std::string_view name = "Shape");
/// `array_ops.zeros(shape, dtype)` for a shape tensor: a Fill "zeros" of its scalar
/// "zeros/Const".
Output zeros_of_shape(const Output& shape, DType dtype);
/// Op ZerosLike / OnesLike.
Output zeros_like_op(const Output& x, std::string_view name = "zeros_like");
/// Op AddN of `inputs` (all of one dtype and shape); returns `inputs[0]` when there is one.
Output add_n_op(const std::vector<Output>& inputs, std::string_view name = "AddN");
/// A generic single-output op with attr T = x's dtype.
Output unary(const char* type, const Output& x, std::string_view name = {});
Output binary(const char* type, const Output& x, const Output& y, std::string_view name = {});

/// The gradients `gx`, `gy` of a broadcasting binary op `op` given the gradients of the full
/// result: each summed over the broadcast axes and reshaped to its input's shape. Static
/// shapes known at construction skip the ops TensorFlow would run at every step
/// (SmartBroadcastGradientArgs); otherwise Shape, BroadcastGradientArgs, Sum and Reshape.
/// An invalid `full_x` / `full_y` stays invalid.
std::pair<Output, Output> reduce_broadcast(const Operation& op, const Output& full_x,
                                           const Output& full_y);

// Registration of each family of gradient functions (called by register_standard_gradients).
void register_math_gradients(GradientRegistry& r);
void register_cwise_gradients(GradientRegistry& r);
void register_nn_gradients(GradientRegistry& r);
void register_array_gradients(GradientRegistry& r);
void register_control_flow_gradients(GradientRegistry& r);
void register_tensor_array_gradients(GradientRegistry& r);
// One per file of ops/src/gradients (gather_nd_grad.cpp, segment_grad.cpp, ...).
void register_gather_nd_gradients(GradientRegistry& r);
void register_segment_gradients(GradientRegistry& r);
void register_image_gradients(GradientRegistry& r);
void register_space_batch_gradients(GradientRegistry& r);
void register_linalg_gradients(GradientRegistry& r);
void register_misc_math_gradients(GradientRegistry& r);
void register_string_gradients(GradientRegistry& r);
void register_image_proc_gradients(GradientRegistry& r);
void register_lookup_gradients(GradientRegistry& r);
void register_patches_pool_gradients(GradientRegistry& r);
void register_random_more_gradients(GradientRegistry& r);
void register_misc_array_gradients(GradientRegistry& r);
void register_linalg_decomp_gradients(GradientRegistry& r);
void register_einsum_gradients(GradientRegistry& r);
void register_conv3d_gradients(GradientRegistry& r);
void register_scatter_nd_variable_gradients(GradientRegistry& r);
void register_image_color_gradients(GradientRegistry& r);
void register_sparse_tensor_gradients(GradientRegistry& r);
void register_rnn_block_gradients(GradientRegistry& r);
void register_sets_sparse_gradients(GradientRegistry& r);
void register_math_special_gradients(GradientRegistry& r);
void register_seq_ctc_gradients(GradientRegistry& r);
void register_serialize_io_gradients(GradientRegistry& r);
void register_array_more_gradients(GradientRegistry& r);
void register_image_more_gradients(GradientRegistry& r);
void register_nn_legacy_gradients(GradientRegistry& r);
void register_complex_gradients(GradientRegistry& r);

/// The gradient the walk gives output `i` of `op` when it got none: zeros like it, and for
/// a Switch of a cond branch zeros built on the other branch (TensorFlow's
/// ZerosLikeOutsideLoop), so that they are live exactly when that output is.
Output zeros_for_missing_gradient(const Operation& op, int i);

}  // namespace af::detail
