#include "actorflow/ops/op_registry.hpp"

#include "standard_ops.hpp"

namespace af {

Status InferenceContext::expect_inputs(int n) const {
  if (num_inputs() != n)
    return invalid_argument("Expected " + std::to_string(n) + " inputs, got " +
                            std::to_string(num_inputs()));
  return {};
}

Status InferenceContext::expect_input_type(int i, DType t) const {
  auto got = input_types.at(static_cast<std::size_t>(i));
  if (got != t)
    return invalid_argument("Input " + std::to_string(i) + " of node " + node.name +
                            " was passed " + std::string(data_type_string(got)) +
                            " from a tensor expecting " + std::string(data_type_string(t)));
  return {};
}

Status InferenceContext::same_input_types(DType* t) const {
  if (input_types.empty()) return invalid_argument("Expected at least one input");
  *t = input_types[0];
  for (std::size_t i = 1; i < input_types.size(); ++i) {
    if (input_types[i] != *t)
      return invalid_argument("Input " + std::to_string(i) + " of '" + node.name +
                              "' Op has type " + std::string(dtype_name(input_types[i])) +
                              " that does not match type " + std::string(dtype_name(*t)) +
                              " of argument 'x'.");
  }
  return {};
}

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;  // never destroyed: registrations outlive static destructors
    register_standard_ops(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::add(OpDef def) {
  std::lock_guard<std::mutex> guard(mu_);
  auto name = def.name;
  ops_[name] = std::make_unique<OpDef>(std::move(def));
}

const OpDef* OpRegistry::find(const std::string& type) const {
  std::lock_guard<std::mutex> guard(mu_);
  auto it = ops_.find(type);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::names() const {
  std::lock_guard<std::mutex> guard(mu_);
  std::vector<std::string> out;
  for (auto& [k, v] : ops_) out.push_back(k);
  return out;
}

void register_standard_ops(OpRegistry& r) {
  detail::register_control_ops(r);
  detail::register_control_flow_ops(r);
  detail::register_stack_ops(r);
  detail::register_list_ops(r);
  detail::register_optional_ops(r);
  detail::register_tensor_array_ops(r);
  detail::register_state_ops(r);
  detail::register_scatter_ops(r);
  detail::register_partition_ops(r);
  detail::register_string_hash_ops(r);
  detail::register_array_ops(r);
  detail::register_math_ops(r);
  detail::register_matmul_ops(r);
  detail::register_reduction_ops(r);
  detail::register_random_ops(r);
  detail::register_parsing_ops(r);
  detail::register_input_ops(r);
  detail::register_nn_ops(r);
  detail::register_cwise_ops(r);
  detail::register_transform_ops(r);
  detail::register_nn_grad_ops(r);
  detail::register_training_ops(r);
  detail::register_checkpoint_ops(r);
  detail::register_segment_ops(r);
  detail::register_accumulator_ops(r);
  detail::register_compat_v2_ops(r);
  detail::register_cwise_unary_ops(r);
  detail::register_activation_ops(r);
  detail::register_split_ops(r);
  detail::register_batch_norm_ops(r);
  detail::register_gather_nd_ops(r);
  detail::register_top_k_ops(r);
  detail::register_pad_ops(r);
  detail::register_segment_reduction_ops(r);
  detail::register_parse_example_ops(r);
  detail::register_image_resize_ops(r);
  detail::register_depthwise_conv_ops(r);
  detail::register_lrn_ops(r);
  detail::register_space_batch_ops(r);
  detail::register_matrix_diag_ops(r);
  detail::register_linalg_ops(r);
  detail::register_misc_math_ops(r);
  detail::register_string_ops(r);
  detail::register_more_training_ops(r);
  detail::register_image_proc_ops(r);
  detail::register_lookup_ops(r);
  detail::register_patches_pool_ops(r);
  detail::register_random_more_ops(r);
  detail::register_random_more2_ops(r);
  detail::register_candidate_sampling_ops(r);
  detail::register_stage_ops(r);
  detail::register_misc_array_ops(r);
  detail::register_audio_ops(r);
  detail::register_gif_ops(r);
  detail::register_linalg_decomp_ops(r);
  detail::register_einsum_ops(r);
  detail::register_conv3d_ops(r);
  detail::register_scatter_nd_variable_ops(r);
  detail::register_image_codec_ops(r);
  detail::register_sparse_tensor_ops(r);
  detail::register_parse_sequence_example_ops(r);
  detail::register_string_format_ops(r);
  detail::register_rnn_block_ops(r);
  detail::register_sets_sparse_ops(r);
  detail::register_math_special_ops(r);
  detail::register_complex_ops(r);
  detail::register_fft_ops(r);
  detail::register_seq_ctc_ops(r);
  detail::register_serialize_io_ops(r);
  detail::register_array_more_ops(r);
  detail::register_array_more_nn_ops(r);
  detail::register_image_more_ops(r);
  detail::register_image_box_ops(r);
  detail::register_nn_legacy_ops(r);
}

}  // namespace af
