#pragma once

// Registration entry points of the op families; called once from the registries.
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::detail {

void register_array_ops(OpRegistry& r);  // Reshape, Pack, ConcatV2, Fill, Cast
void register_math_ops(
    OpRegistry& r);  // Add, Sub, Mul, RealDiv, Div, Neg, Relu, Sigmoid, Tanh, Softmax
void register_matmul_ops(OpRegistry& r);     // MatMul
void register_reduction_ops(OpRegistry& r);  // Sum, Mean, Max, Min, Prod
void register_random_ops(OpRegistry& r);     // RandomUniform, RandomStandardNormal
void register_state_ops(OpRegistry& r);      // VariableV2, Assign, AssignAdd, AssignSub
void register_control_ops(
    OpRegistry& r);  // Const, Placeholder, Identity, NoOp, _Send, _Recv, _Delay
void register_parsing_ops(OpRegistry& r);  // DecodeCSV
void register_input_ops(OpRegistry& r);
void register_nn_ops(OpRegistry& r);     // BiasAdd, Conv2D (+ backprops), MaxPool, AvgPool
void register_cwise_ops(OpRegistry& r);  // element-wise math, comparisons, Select, AddN, ...
void register_transform_ops(
    OpRegistry& r);  // Tile, Transpose, ExpandDims, Squeeze, Slice, OneHot, ...
void register_nn_grad_ops(
    OpRegistry& r);  // *Grad ops, softmax cross-entropies, BroadcastGradientArgs
void register_training_ops(OpRegistry& r);    // Apply* optimizer updates
void register_checkpoint_ops(OpRegistry& r);  // SaveV2, RestoreV2, MergeV2Checkpoints
void register_segment_ops(OpRegistry& r);     // UnsortedSegmentSum, Pad, Cumprod
void register_accumulator_ops(OpRegistry& r);
void register_compat_v2_ops(
    OpRegistry& r);  // PlaceholderWithDefault, DivNoNan, SelectV2, BroadcastTo, LeakyRelu,
                     // StringJoin, ...  // ConditionalAccumulator, Accumulator*Gradient, ...

void register_array_kernels(KernelRegistry& r);
void register_math_kernels(KernelRegistry& r);
void register_matmul_kernels(KernelRegistry& r);
void register_reduction_kernels(KernelRegistry& r);
void register_random_kernels(KernelRegistry& r);
void register_state_kernels(KernelRegistry& r);
void register_control_kernels(KernelRegistry& r);
void register_parsing_kernels(KernelRegistry& r);
void register_input_kernels(KernelRegistry& r);
void register_nn_kernels(KernelRegistry& r);
void register_cwise_kernels(KernelRegistry& r);
void register_transform_kernels(KernelRegistry& r);
void register_nn_grad_kernels(KernelRegistry& r);
void register_training_kernels(KernelRegistry& r);
void register_checkpoint_kernels(KernelRegistry& r);
void register_segment_kernels(KernelRegistry& r);
void register_accumulator_kernels(KernelRegistry& r);
void register_compat_v2_kernels(KernelRegistry& r);

}  // namespace af::detail
