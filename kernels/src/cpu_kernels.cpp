#include "actorflow/kernels/cpu_kernels.hpp"

#include "accumulator.hpp"
#include "standard_kernels.hpp"

namespace af {

void register_cpu_kernels() {
  (void)detail::cpu_kernels_added;  // the module is added (by this header's variable)
  (void)KernelRegistry::global();   // which runs it, once
}

namespace detail {

void add_cpu_kernels(KernelRegistry& r) {
  register_control_kernels(r);
  register_control_flow_kernels(r);
  register_stack_kernels(r);
  register_tensor_array_kernels(r);
  register_list_kernels(r);
  register_variant_kernels(r);
  register_state_kernels(r);
  register_scatter_kernels(r);
  register_partition_kernels(r);
  register_string_hash_kernels(r);
  register_array_kernels(r);
  register_math_kernels(r);
  register_matmul_kernels(r);
  register_reduction_kernels(r);
  register_random_kernels(r);
  register_parsing_kernels(r);
  register_input_kernels(r);
  register_nn_kernels(r);
  register_cwise_kernels(r);
  register_transform_kernels(r);
  register_nn_grad_kernels(r);
  register_training_kernels(r);
  register_sparse_training_kernels(r);
  register_checkpoint_kernels(r);
  register_segment_kernels(r);
  register_accumulator_kernels(r);
  register_sparse_accumulator_kernels(r);
  register_compat_v2_kernels(r);
  register_cwise_unary_kernels(r);
  register_activation_kernels(r);
  register_split_kernels(r);
  register_batch_norm_kernels(r);
  register_gather_nd_kernels(r);
  register_top_k_kernels(r);
  register_pad_kernels(r);
  register_segment_reduction_kernels(r);
  register_parse_example_kernels(r);
  register_image_resize_kernels(r);
  register_depthwise_conv_kernels(r);
  register_lrn_kernels(r);
  register_space_batch_kernels(r);
  register_matrix_diag_kernels(r);
  register_linalg_kernels(r);
  register_misc_math_kernels(r);
  register_misc_math_count_kernels(r);
  register_string_kernels(r);
  register_string_conversion_kernels(r);
  register_regex_kernels(r);
  register_more_training_kernels(r);
  register_more_sparse_training_kernels(r);
  register_image_proc_kernels(r);
  register_lookup_table_kernels(r);
  register_patches_pool_kernels(r);
  register_random_more_kernels(r);
  register_random_more2_kernels(r);
  register_candidate_sampler_kernels(r);
  register_stage_kernels(r);
  register_misc_array_kernels(r);
  register_audio_kernels(r);
  register_linalg_decomp_kernels(r);
  register_non_max_suppression_kernels(r);
  register_einsum_kernels(r);
  register_conv3d_kernels(r);
  register_scatter_nd_variable_kernels(r);
  register_image_codec_kernels(r);
  register_image_color_kernels(r);
  register_sparse_tensor_kernels(r);
  register_sparse_concat_cross_kernels(r);
  register_parse_sequence_example_kernels(r);
  register_string_format_kernels(r);
  register_rnn_block_kernels(r);
  register_set_kernels(r);
  register_sparse_more_kernels(r);
  register_math_special_kernels(r);
  register_complex_kernels(r);
  register_fft_kernels(r);
  register_seq_ctc_kernels(r);
  register_serialize_io_kernels(r);
  register_sparse_serialize_kernels(r);
  register_array_more_kernels(r);
  register_array_more_nn_kernels(r);
  register_image_more_kernels(r);
  register_image_box_kernels(r);
  register_image_scale_kernels(r);
  register_nn_legacy_kernels(r);
  register_fractional_pool_kernels(r);
}

}  // namespace detail

}  // namespace af
