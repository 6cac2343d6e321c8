#pragma once

// Registration entry points of the CPU kernel families (kernels/src/*.cpp); called once from
// register_cpu_kernels (cpu_kernels.cpp).
#include "actorflow/ops/kernel.hpp"

namespace af::detail {

void register_array_kernels(KernelRegistry& r);
void register_math_kernels(KernelRegistry& r);
void register_matmul_kernels(KernelRegistry& r);
void register_reduction_kernels(KernelRegistry& r);
void register_random_kernels(KernelRegistry& r);
void register_state_kernels(KernelRegistry& r);
void register_scatter_kernels(KernelRegistry& r);
void register_partition_kernels(KernelRegistry& r);
void register_string_hash_kernels(KernelRegistry& r);
void register_sparse_training_kernels(KernelRegistry& r);
void register_control_kernels(KernelRegistry& r);
void register_control_flow_kernels(KernelRegistry& r);
void register_stack_kernels(KernelRegistry& r);
void register_tensor_array_kernels(KernelRegistry& r);
void register_list_kernels(KernelRegistry& r);
void register_variant_kernels(KernelRegistry& r);
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
void register_cwise_unary_kernels(KernelRegistry& r);  // Log1p, Erf, IsNan, Atan2, Xlogy, ...
void register_activation_kernels(KernelRegistry& r);   // Softplus, Elu, Selu, Relu6, *Grad
void register_split_kernels(KernelRegistry& r);        // Split, SplitV, ReverseV2
void register_batch_norm_kernels(KernelRegistry& r);   // FusedBatchNorm*, their Grads
void register_gather_nd_kernels(KernelRegistry& r);    // GatherNd, ScatterNd, TensorScatter*
void register_top_k_kernels(KernelRegistry& r);        // TopK, TopKV2, InTopK, InTopKV2
void register_pad_kernels(KernelRegistry& r);          // Pad, PadV2, MirrorPad, MirrorPadGrad
// Segment{Mean,Max,Min,Prod}, UnsortedSegment{Max,Min,Prod}
void register_segment_reduction_kernels(KernelRegistry& r);
// ParseExample, ParseExampleV2, ParseSingleExample
void register_parse_example_kernels(KernelRegistry& r);
// ResizeBilinear, ResizeNearestNeighbor and their Grads
void register_image_resize_kernels(KernelRegistry& r);
// DepthwiseConv2dNative and its two backprop ops
void register_depthwise_conv_kernels(KernelRegistry& r);
void register_lrn_kernels(KernelRegistry& r);  // LRN, LRNGrad
// SpaceToBatch(ND), BatchToSpace(ND), SpaceToDepth, DepthToSpace
void register_space_batch_kernels(KernelRegistry& r);
// MatrixBandPart, MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*, Diag, DiagPart
void register_matrix_diag_kernels(KernelRegistry& r);
// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve,
// MatrixTriangularSolve
void register_linalg_kernels(KernelRegistry& r);
// ClipByValue, ApproximateEqual, Roll, LinSpace, Cross, the bitwise ops
void register_misc_math_kernels(KernelRegistry& r);
// Unique*, Bincount, DenseBincount, RandomUniformInt, Multinomial
void register_misc_math_count_kernels(KernelRegistry& r);
// StringSplit(V2), Substr, StringLength, StringStrip, StringLower/Upper, ReduceJoin, Base64
void register_string_kernels(KernelRegistry& r);
// AsString, StringToNumber, StringToHashBucket, StringToHashBucketStrong
void register_string_conversion_kernels(KernelRegistry& r);
void register_regex_kernels(KernelRegistry& r);  // RegexReplace, StaticRegexReplace, RegexFullMatch
// Ftrl(V2), Adadelta, ProximalAdagrad, ProximalGradientDescent, AdagradDA, AdagradV2, AdaMax,
// AddSign, PowerSign, KerasMomentum: dense and sparse updates
void register_more_training_kernels(KernelRegistry& r);
void register_more_sparse_training_kernels(KernelRegistry& r);
// ResizeBicubic(+Grad), ResizeArea, CropAndResize(+GradImage, GradBoxes)
void register_image_proc_kernels(KernelRegistry& r);
void register_non_max_suppression_kernels(KernelRegistry& r);  // NonMaxSuppression, V2..V5
void register_einsum_kernels(KernelRegistry& r);               // Einsum
// Conv3D, its V2 backprops, MaxPool3D, AvgPool3D and their gradient ops
void register_conv3d_kernels(KernelRegistry& r);
// ScatterNd{Update,Add,Sub,Max,Min}, ResourceScatterNd*, ScatterNdNonAliasingAdd,
// SparseSegment{Sum,Mean,SqrtN}WithNumSegments
void register_scatter_nd_variable_kernels(KernelRegistry& r);
// HashTableV2, MutableHashTable(OfTensors)V2, MutableDenseHashTableV2, InitializeTable(V2,
// FromTextFileV2), LookupTable{Find,Insert,Remove,Size,Export,Import}V2
void register_lookup_table_kernels(KernelRegistry& r);
// ExtractImagePatches, ExtractVolumePatches, Dilation2D(+Backprops), MaxPoolWithArgmax,
// MaxPoolGrad{,Grad}WithArgmax, MaxPoolGradGrad
void register_patches_pool_kernels(KernelRegistry& r);
void register_random_more_kernels(KernelRegistry& r);  // Stateless*, RandomGamma
// RandomGammaGrad, RandomPoisson(V2), ParameterizedTruncatedNormal
void register_random_more2_kernels(KernelRegistry& r);
void register_candidate_sampler_kernels(KernelRegistry& r);
void register_stage_kernels(KernelRegistry& r);
// Bucketize, HistogramFixedWidth, CumulativeLogsumexp, BroadcastArgs, EnsureShape, Snapshot,
// FakeQuant*, Print, PrintV2
void register_misc_array_kernels(KernelRegistry& r);
void register_audio_kernels(KernelRegistry& r);  // DecodeWav, EncodeWav, AudioSpectrogram, Mfcc
// Qr, Svd, SelfAdjointEigV2, MatrixSolveLs, MatrixSquareRoot, TridiagonalSolve,
// TridiagonalMatMul; calls register_linalg_more_kernels
void register_linalg_decomp_kernels(KernelRegistry& r);
// Lu, Eig, MatrixLogarithm, CholeskyGrad, BandedTriangularSolve (linalg_more_ops.cpp)
void register_linalg_more_kernels(KernelRegistry& r);
// DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp, DecodeImage, EncodeJpeg, EncodePng,
// ExtractJpegShape
void register_image_codec_kernels(KernelRegistry& r);
// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustSaturation, AdjustHue
void register_image_color_kernels(KernelRegistry& r);
// SparseTensorDenseMatMul, SparseAdd(Grad), SparseTensorDenseAdd, SparseReduce*, SparseReorder,
// SparseSoftmax, SparseDenseCwise*, SparseSparse*
void register_sparse_tensor_kernels(KernelRegistry& r);
// SparseConcat, SparseSlice(Grad), SparseCross, SparseCrossHashed, SparseCrossV2
void register_sparse_concat_cross_kernels(KernelRegistry& r);
// ParseSequenceExampleV2, ParseSequenceExample, ParseSingleSequenceExample
void register_parse_sequence_example_kernels(KernelRegistry& r);
void register_string_format_kernels(KernelRegistry& r);  // StringFormat

// LSTMBlockCell(Grad), GRUBlockCell(Grad), BlockLSTM(V2), BlockLSTMGrad(V2)
void register_rnn_block_kernels(KernelRegistry& r);
// SetSize, {Dense,Sparse}To{Dense,Sparse}SetOperation
void register_set_kernels(KernelRegistry& r);
// SparseSplit, SparseBincount, RaggedBincount, *CountSparseOutput
void register_sparse_more_kernels(KernelRegistry& r);
// MulNoNan, Xlog1py, NextAfter, Igamma(c), IgammaGradA, Betainc, Bessel*, Dawsn, Expint,
// FresnelCos/Sin, Spence, PopulationCount, EuclideanNorm
void register_math_special_kernels(KernelRegistry& r);
// ReverseSequence, CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder, EditDistance
void register_seq_ctc_kernels(KernelRegistry& r);
// Fingerprint, DecodePaddedRaw, DecodeCompressed, SerializeTensor, ParseTensor, ReadFile,
// WriteFile, MatchingFiles
void register_serialize_io_kernels(KernelRegistry& r);
// SerializeSparse, SerializeManySparse, DeserializeSparse, DeserializeManySparse,
// AddSparseToTensorsMap, AddManySparseToTensorsMap, TakeManySparseFromTensorsMap
void register_sparse_serialize_kernels(KernelRegistry& r);
// Bitcast, DataFormatDimMap, DataFormatVecPermute, UnravelIndex, LowerBound, UpperBound,
// NthElement, InplaceAdd/Sub/Update, Empty, ParallelConcat, GuaranteeConst, CheckNumericsV2
void register_array_more_kernels(KernelRegistry& r);
// AccumulateNV2, ConjugateTranspose, BiasAddV1, SparseMatMul, Conv3DBackpropInput/Filter (V1),
// MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2 (run the AddN/Transpose/BiasAdd/... kernels)
void register_array_more_nn_kernels(KernelRegistry& r);
// DrawBoundingBoxes(V2), AdjustContrast, ExtractGlimpse(V2), ImageProjectiveTransformV2/V3
void register_image_more_kernels(KernelRegistry& r);
// CombinedNonMaxSuppression, NonMaxSuppressionWithOverlaps, SampleDistortedBoundingBox(V2),
// StatelessSampleDistortedBoundingBox, RandomCrop
void register_image_box_kernels(KernelRegistry& r);
// ScaleAndTranslate, ScaleAndTranslateGrad
void register_image_scale_kernels(KernelRegistry& r);
// BatchNormWithGlobalNormalization(Grad), QuantizeAndDequantizeV2/V3/V4/V4Grad, FusedPadConv2D,
// FusedResizeAndPadConv2D
void register_nn_legacy_kernels(KernelRegistry& r);
// FractionalMaxPool, FractionalAvgPool and their Grad ops
void register_fractional_pool_kernels(KernelRegistry& r);
// Complex, Real, Imag, Angle, ComplexAbs, Conj
void register_complex_kernels(KernelRegistry& r);
// FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D, RFFT, IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D
void register_fft_kernels(KernelRegistry& r);
}  // namespace af::detail
