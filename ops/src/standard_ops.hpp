#pragma once

// Registration entry points of the op families' definitions (ops/src/defs/*.cpp: shape
// functions and graph builders); called once from OpRegistry::global().
#include "actorflow/ops/op_registry.hpp"

namespace af::detail {

/// Reshape, Pack, ConcatV2, Fill, Cast
void register_array_ops(OpRegistry& r);
/// Add, Sub, Mul, RealDiv, Div, Neg, Relu, Sigmoid, Tanh, Softmax
void register_math_ops(OpRegistry& r);
/// MatMul
void register_matmul_ops(OpRegistry& r);
/// Sum, Mean, Max, Min, Prod
void register_reduction_ops(OpRegistry& r);
/// RandomUniform, RandomStandardNormal, TruncatedNormal
void register_random_ops(OpRegistry& r);
/// VariableV2, Assign, AssignAdd, AssignSub, resource variables
void register_state_ops(OpRegistry& r);
/// Scatter{Update,Add,Sub,Mul,Div,Min,Max} and their ResourceScatter* twins
void register_scatter_ops(OpRegistry& r);
/// DynamicPartition, DynamicStitch, ParallelDynamicStitch
void register_partition_ops(OpRegistry& r);
/// StringToHashBucketFast
void register_string_hash_ops(OpRegistry& r);
/// Const, Placeholder, Identity, NoOp, _Send, _Recv, _Delay
void register_control_ops(OpRegistry& r);
/// Switch, RefSwitch, Merge, RefMerge, ControlTrigger, Enter, Exit, NextIteration (and
/// their Ref forms), LoopCond
void register_control_flow_ops(OpRegistry& r);
/// StackV2, StackPushV2, StackPopV2, StackCloseV2 (a while loop gradient's history)
void register_stack_ops(OpRegistry& r);
/// TensorArrayV3 and its Grad, Write, Read, Gather, Scatter, Concat, Split, Size and Close ops
void register_tensor_array_ops(OpRegistry& r);
/// EmptyTensorList, TensorListReserve, TensorListPushBack/PushBackBatch/PopBack,
/// GetItem/SetItem, Stack, Gather, FromTensor, Scatter, Split, Concat and the other list ops
void register_list_ops(OpRegistry& r);
/// OptionalFromValue, OptionalNone, OptionalHasValue, OptionalGetValue
void register_optional_ops(OpRegistry& r);
/// DecodeCSV
void register_parsing_ops(OpRegistry& r);
/// Range, GatherV2, RandomShuffle, CountUpTo, Size, Shape
void register_input_ops(OpRegistry& r);
/// BiasAdd, Conv2D (+ backprops), MaxPool, AvgPool
void register_nn_ops(OpRegistry& r);
/// element-wise math; calls the two below
void register_cwise_ops(OpRegistry& r);
/// comparisons, logical ops, Select
void register_cwise_compare_ops(OpRegistry& r);
/// AddN, ArgMax, ArgMin, L2Loss, CheckNumerics
void register_cwise_aggregate_ops(OpRegistry& r);
/// Tile, Transpose, ExpandDims, Squeeze, Slice, OneHot, ...
void register_transform_ops(OpRegistry& r);
/// *Grad ops, softmax cross-entropies, BroadcastGradientArgs
void register_nn_grad_ops(OpRegistry& r);
/// Apply* optimizer updates
void register_training_ops(OpRegistry& r);
/// SaveV2, RestoreV2, MergeV2Checkpoints
void register_checkpoint_ops(OpRegistry& r);
/// Cumsum, Cumprod, the sparse segment reductions, SegmentSum
void register_segment_ops(OpRegistry& r);
/// ConditionalAccumulator, Accumulator*Gradient
void register_accumulator_ops(OpRegistry& r);
/// Log1p, Expm1, Ceil, Round, Erf, Tan, Atan, IsNan, Atan2, Xlogy, TruncateDiv, ...
void register_cwise_unary_ops(OpRegistry& r);
/// Softplus, Softsign, Elu, Selu, Relu6 and their gradient ops
void register_activation_ops(OpRegistry& r);
/// Split, SplitV, ReverseV2
void register_split_ops(OpRegistry& r);
/// FusedBatchNorm, V2, V3 and their gradient ops
void register_batch_norm_ops(OpRegistry& r);
/// GatherNd, ScatterNd, TensorScatter{Update,Add,Sub,Max,Min}
void register_gather_nd_ops(OpRegistry& r);
/// TopK, TopKV2, InTopK, InTopKV2
void register_top_k_ops(OpRegistry& r);
/// Pad, PadV2, MirrorPad, MirrorPadGrad
void register_pad_ops(OpRegistry& r);
/// SegmentMean, SegmentMax, SegmentMin, SegmentProd, UnsortedSegment{Max,Min,Prod}
void register_segment_reduction_ops(OpRegistry& r);
/// ParseExample, ParseExampleV2, ParseSingleExample
void register_parse_example_ops(OpRegistry& r);
/// ResizeBilinear, ResizeNearestNeighbor and their Grads
void register_image_resize_ops(OpRegistry& r);
/// DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput, ...BackpropFilter
void register_depthwise_conv_ops(OpRegistry& r);
/// LRN, LRNGrad
void register_lrn_ops(OpRegistry& r);
/// SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth, DepthToSpace
void register_space_batch_ops(OpRegistry& r);
/// MatrixBandPart, MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*, Diag, DiagPart
void register_matrix_diag_ops(OpRegistry& r);
/// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve, ...
void register_linalg_ops(OpRegistry& r);
/// ClipByValue, Roll, LinSpace, Cross, bitwise ops, Unique*, Bincount, RandomUniformInt, ...
void register_misc_math_ops(OpRegistry& r);
/// StringSplit(V2), Substr, AsString, StringToNumber, Regex*, ReduceJoin, Base64, ...
void register_string_ops(OpRegistry& r);
/// Apply/ResourceApply/SparseApply/ResourceSparseApply Ftrl, Adadelta, ProximalAdagrad, ...
void register_more_training_ops(OpRegistry& r);
/// ResizeBicubic(+Grad), ResizeArea, CropAndResize and its gradients, NonMaxSuppression*
void register_image_proc_ops(OpRegistry& r);
void register_lookup_ops(OpRegistry& r);
void register_patches_pool_ops(OpRegistry& r);
void register_random_more_ops(OpRegistry& r);
void register_random_more2_ops(OpRegistry& r);
void register_candidate_sampling_ops(OpRegistry& r);
void register_stage_ops(OpRegistry& r);
void register_misc_array_ops(OpRegistry& r);
void register_audio_ops(OpRegistry& r);
void register_gif_ops(OpRegistry& r);
void register_linalg_decomp_ops(OpRegistry& r);
/// Einsum
void register_einsum_ops(OpRegistry& r);
/// Conv3D, Conv3DBackprop{Input,Filter}V2, MaxPool3D, AvgPool3D and their gradient ops
void register_conv3d_ops(OpRegistry& r);
/// ScatterNd* and ResourceScatterNd* on variables, ScatterNdNonAliasingAdd,
/// SparseSegment*WithNumSegments
void register_scatter_nd_variable_ops(OpRegistry& r);
/// DecodeJpeg, DecodePng, DecodeImage, EncodeJpeg, EncodePng, ..., RGBToHSV, Adjust*
void register_image_codec_ops(OpRegistry& r);
/// SparseTensorDenseMatMul, SparseAdd, SparseReduce*, SparseConcat, SparseSlice, SparseCross*, ...
void register_sparse_tensor_ops(OpRegistry& r);
/// ParseSequenceExampleV2, ParseSequenceExample, ParseSingleSequenceExample
void register_parse_sequence_example_ops(OpRegistry& r);
/// StringFormat
void register_string_format_ops(OpRegistry& r);
/// PlaceholderWithDefault, DivNoNan, SelectV2, BroadcastTo, LeakyRelu, StringJoin, ...
void register_compat_v2_ops(OpRegistry& r);

/// LSTMBlockCell(Grad), GRUBlockCell(Grad), BlockLSTM(V2), BlockLSTMGrad(V2)
void register_rnn_block_ops(OpRegistry& r);
/// SetSize, *SetOperation, SparseSplit, SparseBincount, RaggedBincount, *CountSparseOutput
void register_sets_sparse_ops(OpRegistry& r);
/// MulNoNan, Xlog1py, NextAfter, Igamma, Igammac, IgammaGradA, Betainc, Bessel*, Dawsn, Expint,
/// FresnelCos, FresnelSin, Spence, PopulationCount, EuclideanNorm
void register_math_special_ops(OpRegistry& r);
/// Complex, Real, Imag, Angle, ComplexAbs, Conj
void register_complex_ops(OpRegistry& r);
/// FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D, RFFT, IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D
void register_fft_ops(OpRegistry& r);
/// ReverseSequence, CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder, EditDistance
void register_seq_ctc_ops(OpRegistry& r);
/// ReadFile, WriteFile, MatchingFiles, Fingerprint, DecodePaddedRaw, DecodeCompressed,
/// SerializeTensor, ParseTensor, (De)Serialize(Many)Sparse, Add(Many)SparseToTensorsMap,
/// TakeManySparseFromTensorsMap
void register_serialize_io_ops(OpRegistry& r);
/// Bitcast, DataFormatDimMap, DataFormatVecPermute, UnravelIndex, LowerBound, UpperBound,
/// NthElement, InplaceAdd/Sub/Update, Empty, ParallelConcat, GuaranteeConst, CheckNumericsV2
void register_array_more_ops(OpRegistry& r);
/// AccumulateNV2, ConjugateTranspose, BiasAddV1, SparseMatMul, Conv3DBackpropInput/Filter,
/// MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2
void register_array_more_nn_ops(OpRegistry& r);
/// DrawBoundingBoxes(V2), AdjustContrast, ExtractGlimpse(V2), ImageProjectiveTransformV2/V3,
/// ScaleAndTranslate(Grad)
void register_image_more_ops(OpRegistry& r);
/// CombinedNonMaxSuppression, NonMaxSuppressionWithOverlaps, SampleDistortedBoundingBox(V2),
/// StatelessSampleDistortedBoundingBox, RandomCrop
void register_image_box_ops(OpRegistry& r);
/// BatchNormWithGlobalNormalization(Grad), QuantizeAndDequantizeV2/V3/V4(Grad),
/// Fractional{Max,Avg}Pool(Grad), FusedPadConv2D, FusedResizeAndPadConv2D
void register_nn_legacy_ops(OpRegistry& r);
}  // namespace af::detail
