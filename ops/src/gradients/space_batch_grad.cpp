// Gradients of SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth and
// DepthToSpace (TensorFlow's array_grad.py): each is the opposite op on the output's gradient
// with the same block and paddings (crops), so the graph is Python's op for op.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/space_batch_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

std::int64_t block_size_attr(const Operation& op) {
  auto v = op.node_def().attr<std::int64_t>("block_size");
  if (!v)
    throw InvalidArgumentError(
        invalid_argument("gradient of '" + op.name() + "': missing attr block_size"));
  return *v;
}

// Python's array_ops.batch_to_space / space_to_batch (the v1 wrappers the legacy ops'
// gradients call): `type` (BatchToSpaceND or SpaceToBatchND) of `grad` with the int64 Const
// "<type>/block_shape" [block_size, block_size] and the forward op's paddings (crops).
Output legacy_nd(const char* type, const Output& grad, const Output& pairs,
                 std::int64_t block_size) {
  Graph& g = grad.graph();
  const std::string op_name = g.unique_name(type);
  Output block;
  {
    auto scope = g.name_scope(op_name + "/");
    block = g.constant(Tensor::from_vector(std::vector<std::int64_t>{block_size, block_size}),
                       "block_shape");
  }
  const std::string name = op_name + "/";
  return std::string(type) == "BatchToSpaceND" ? batch_to_space_nd(grad, block, pairs, name)
                                               : space_to_batch_nd(grad, block, pairs, name);
}

// _SpaceToDepthGrad and _DepthToSpaceGrad: the opposite op with the same attrs; Python's
// ValueError for NCHW_VECT_C.
Grads depth_grad(const Operation& op, const Grads& g, bool forward_to_depth) {
  auto format_attr = op.node_def().attr<std::string>("data_format");
  const std::string format = format_attr ? *format_attr : "NHWC";
  if (format == "NCHW_VECT_C")
    throw InvalidArgumentError(invalid_argument(
        std::string("Cannot compute ") + (forward_to_depth ? "SpaceToDepth" : "DepthToSpace") +
        " gradient with NCHW_VECT_C. NCHW_VECT_C requires qint8 data type."));
  const std::int64_t block_size = block_size_attr(op);
  return {forward_to_depth ? depth_to_space(g[0], block_size, format, "DepthToSpace")
                           : space_to_depth(g[0], block_size, format, "SpaceToDepth")};
}

}  // namespace

void register_space_batch_gradients(GradientRegistry& r) {
  // _SpaceToBatchNDGrad: BatchToSpaceND with the paddings as crops.
  r.add("SpaceToBatchND", [](const Operation& op, const Grads& g) -> Grads {
    return {batch_to_space_nd(g[0], input(op, 1), input(op, 2), "BatchToSpaceND"), Output(),
            Output()};
  });
  // _BatchToSpaceNDGrad: SpaceToBatchND with the crops as paddings.
  r.add("BatchToSpaceND", [](const Operation& op, const Grads& g) -> Grads {
    return {space_to_batch_nd(g[0], input(op, 1), input(op, 2), "SpaceToBatchND"), Output(),
            Output()};
  });
  // _SpaceToBatchGrad: array_ops.batch_to_space, which builds BatchToSpaceND.
  r.add("SpaceToBatch", [](const Operation& op, const Grads& g) -> Grads {
    return {legacy_nd("BatchToSpaceND", g[0], input(op, 1), block_size_attr(op)), Output()};
  });
  // _BatchToSpaceGrad: array_ops.space_to_batch, which builds SpaceToBatchND.
  r.add("BatchToSpace", [](const Operation& op, const Grads& g) -> Grads {
    return {legacy_nd("SpaceToBatchND", g[0], input(op, 1), block_size_attr(op)), Output()};
  });
  r.add("SpaceToDepth",
        [](const Operation& op, const Grads& g) -> Grads { return depth_grad(op, g, true); });
  r.add("DepthToSpace",
        [](const Operation& op, const Grads& g) -> Grads { return depth_grad(op, g, false); });
}

}  // namespace af::detail
