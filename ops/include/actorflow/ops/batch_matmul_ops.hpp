#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Batched matrix products (TensorFlow's `tf.linalg.matmul` on tensors of rank 3 and more,
/// batch_matmul_op_impl.h).
namespace af {

/// `tf.linalg.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)` for batches: op BatchMatMulV2
/// (default name "MatMul", as Python names it). `x` is `batch_x + [m, k]` (`[k, m]` with
/// `adj_x`), `y` is `batch_y + [k, n]` (`[n, k]` with `adj_y`); the batch dimensions
/// broadcast as NumPy's and the output is `broadcast(batch_x, batch_y) + [m, n]`. float32,
/// float64, int32 and int64, both inputs of one dtype. Mismatched inner dimensions or batch
/// dimensions that do not broadcast throw InvalidArgumentError while building when the
/// shapes are known, and fail the step with TensorFlow's messages otherwise ("Matrix size-
/// incompatible: In[0]: [2,3,4], In[1]: [2,5,6]", "In[0] and In[1] must have compatible
/// batch dimensions: [2,3,4] vs. [3,4,5]"). Differentiable in both inputs, the gradients
/// summed over the broadcast batch dimensions. The older BatchMatMul (batch dimensions equal,
/// no broadcasting) and BatchMatMulV3 (attrs Ta, Tb, Tout) run too when a graph holds them.
Output batch_matmul(const Output& x, const Output& y, bool adj_x = false, bool adj_y = false,
                    std::string_view name = {});

}  // namespace af
