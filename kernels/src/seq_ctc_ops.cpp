// ReverseSequence, CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder and EditDistance: CPU
// kernels with TensorFlow's checks and messages (reverse_sequence_op.cc, ctc_loss_op.cc,
// ctc_decoder_ops.cc, edit_distance_op.cc; the CTC algorithms are in ctc_helpers.hpp). Their
// definitions are in ops/src/defs/seq_ctc_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "ctc_helpers.hpp"
#include "kernel_helpers.hpp"
#include "sparse_indices.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::elements;
using detail::Index;
using detail::index_values;
using detail::StatusKernel;
using detail::visit_storage;

// The attr `name` of a kernel being built, or `fallback` when the node has none.
template <class V>
V attr_or(OpKernelConstruction& c, const char* name, V fallback) {
  V value = fallback;
  if (!c.get_attr(name, &value).ok()) return fallback;
  return value;
}

// -- ReverseSequence -------------------------------------------------------------------------

// ReverseSequence(input, seq_lengths; seq_dim, batch_dim): slice i along batch_dim has its
// first seq_lengths[i] elements along seq_dim reversed. TensorFlow's CPU kernel takes inputs of
// rank 2 to 5.
class ReverseSequenceOp : public StatusKernel {
 public:
  ReverseSequenceOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    batch_dim_ = attr_or<std::int64_t>(c, "batch_dim", 0);
    *s = c.get_attr("seq_dim", &seq_dim_);
    if (!s->ok()) return;
    if (batch_dim_ < 0)
      *s = invalid_argument("Invalid batch_dim " + std::to_string(batch_dim_) +
                            detail::node_suffix(c.def.name));
    else if (seq_dim_ < 0)
      *s = invalid_argument("Invalid seq_dim " + std::to_string(seq_dim_) +
                            detail::node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& seq_lengths = ctx.input(1);
    if (seq_lengths.rank() != 1)
      return invalid_argument("seq_lengths must be 1-dim, not " +
                              std::to_string(seq_lengths.rank()));
    const std::vector<Index> lengths = index_values(seq_lengths);
    const int rank = input.rank();
    if (batch_dim_ == seq_dim_)
      return invalid_argument("batch_dim == seq_dim == " + std::to_string(seq_dim_));
    if (seq_dim_ >= rank)
      return invalid_argument("seq_dim must be < input rank ( " + std::to_string(seq_dim_) +
                              " vs. " + std::to_string(rank) + ")");
    if (batch_dim_ >= rank)
      return invalid_argument("batch_dim must be < input rank ( " + std::to_string(batch_dim_) +
                              " vs. " + std::to_string(rank) + ")");
    const int batch_axis = static_cast<int>(batch_dim_), seq_axis = static_cast<int>(seq_dim_);
    const Index batch = input.shape().dim(batch_axis), seq = input.shape().dim(seq_axis);
    if (static_cast<Index>(lengths.size()) != batch)
      return invalid_argument("Length of seq_lengths != input.dims(" + std::to_string(batch_dim_) +
                              "), (" + std::to_string(lengths.size()) + " vs. " +
                              std::to_string(batch) + ")");
    for (std::size_t d = 0; d < lengths.size(); ++d) {
      if (lengths[d] < 0) return invalid_argument("seq_lens(" + std::to_string(d) + ") < 0");
      if (lengths[d] > seq)
        return invalid_argument("seq_lens(" + std::to_string(d) + ") > input.dims(" +
                                std::to_string(seq_dim_) + ")");
    }
    if (rank < 2 || rank > 5)
      return invalid_argument("ReverseSequenceOp : Unhandled input dimensions: " +
                              std::to_string(rank));
    Tensor& output = ctx.allocate_output(0, input.dtype(), input.shape());
    const Index n = input.num_elements();
    if (n == 0) return {};
    const std::vector<Index> strides = detail::row_major_strides(input.shape());
    const Index batch_stride = strides[static_cast<std::size_t>(batch_axis)];
    const Index seq_stride = strides[static_cast<std::size_t>(seq_axis)];
    visit_storage(input.dtype(), [&](auto element) {
      using E = decltype(element);
      const E* in = elements<E>(input);
      E* out = elements<E>(output);
      for (Index i = 0; i < n; ++i) {
        const Index b = (i / batch_stride) % batch, s = (i / seq_stride) % seq;
        const Index length = lengths[static_cast<std::size_t>(b)];
        out[i] = s < length ? in[i + (length - 1 - 2 * s) * seq_stride] : in[i];
      }
    });
    return {};
  }

 private:
  std::int64_t batch_dim_ = 0;
  std::int64_t seq_dim_ = 0;
};

// -- CTCLoss ---------------------------------------------------------------------------------

// CTCLoss(inputs, labels_indices, labels_values, sequence_length): per batch entry the
// negative log probability of its label sequence under the softmax of the time-major logits
// [max_time, batch, num_classes] (blank: the last class), and its gradient with respect to
// the logits.
template <class T>
class CTCLossOp : public StatusKernel {
 public:
  explicit CTCLossOp(OpKernelConstruction& c) : StatusKernel(c) {
    preprocess_collapse_repeated_ = attr_or(c, "preprocess_collapse_repeated", false);
    ctc_merge_repeated_ = attr_or(c, "ctc_merge_repeated", true);
    ignore_longer_outputs_than_inputs_ = attr_or(c, "ignore_longer_outputs_than_inputs", false);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& inputs = ctx.input(0);
    const Tensor& labels_indices = ctx.input(1);
    const Tensor& labels_values = ctx.input(2);
    const Tensor& seq_len = ctx.input(3);
    if (inputs.rank() != 3) return invalid_argument("inputs is not a 3-Tensor");
    if (seq_len.rank() != 1) return invalid_argument("sequence_length is not a vector");
    if (labels_indices.rank() != 2) return invalid_argument("labels_indices is not a matrix");
    if (labels_indices.shape().dim(1) <= 1)
      return invalid_argument("labels_indices second dimension must be >= 1. Received " +
                              std::to_string(labels_indices.shape().dim(1)));
    if (labels_values.rank() != 1) return invalid_argument("labels_values is not a vector");
    const Index max_time = inputs.shape().dim(0);
    if (max_time == 0) return invalid_argument("Max time or first dimension of input cannot be 0.");
    const Index batch = inputs.shape().dim(1);
    const Index num_classes = inputs.shape().dim(2);
    if (num_classes >= std::numeric_limits<int>::max())
      return invalid_argument("num_classes cannot exceed max int");
    if (batch != seq_len.shape().dim(0))
      return invalid_argument("len(sequence_length) != batch_size.  len(sequence_length):  " +
                              std::to_string(seq_len.shape().dim(0)) +
                              " batch_size: " + std::to_string(batch));
    const Index rows = labels_indices.shape().dim(0);
    if (rows != labels_values.shape().dim(0))
      return invalid_argument(
          "labels_indices and labels_values must contain the same number of rows, but saw "
          "shapes: " +
          labels_indices.shape().to_string() + " vs. " + labels_values.shape().to_string());
    if (batch == 0) return invalid_argument("batch_size must not be 0");
    // The labels as the SparseTensor [batch, longest label] that TensorFlow makes of them.
    const std::int64_t* ix = labels_indices.data<std::int64_t>();
    const Index columns = labels_indices.shape().dim(1);
    Index max_label_len = 0;
    for (Index i = 0; i < rows; ++i)
      max_label_len = std::max(max_label_len, ix[i * columns + 1] + 1);
    if (columns != 2) return invalid_argument("Order length must be SparseTensor rank.");
    if (Status s = detail::sparse::indices_valid(ix, rows, {batch, max_label_len}); !s.ok())
      return invalid_argument("label SparseTensor is not valid: " + s.message());
    std::vector<std::vector<int>> labels(static_cast<std::size_t>(batch));
    const std::int32_t* values = labels_values.data<std::int32_t>();
    for (Index i = 0; i < rows; ++i)
      labels[static_cast<std::size_t>(ix[i * 2])].push_back(values[i]);
    const std::int32_t* lengths = seq_len.data<std::int32_t>();
    for (Index b = 0; b < batch; ++b)
      if (lengths[b] > max_time)
        return invalid_argument("sequence_length(" + std::to_string(b) +
                                ") <= " + std::to_string(max_time));
    Tensor& loss = ctx.allocate_output(0, dtype_of_v<T>, seq_len.shape());
    Tensor& gradient = ctx.allocate_output(1, dtype_of_v<T>, inputs.shape());
    T* loss_out = loss.data<T>();
    T* gradient_out = gradient.data<T>();
    std::fill(loss_out, loss_out + batch, T(0));
    std::fill(gradient_out, gradient_out + gradient.num_elements(), T(0));
    // CTCLossCalculator::CalculateLoss.
    std::vector<int> steps(static_cast<std::size_t>(batch));
    for (Index b = 0; b < batch; ++b) {
      if (lengths[b] < 0) return invalid_argument("seq_len(" + std::to_string(b) + ") < 0");
      steps[static_cast<std::size_t>(b)] = lengths[b];
    }
    const detail::ctc::LossCalculator<T> calculator(static_cast<int>(num_classes));
    std::vector<std::vector<int>> l_primes;
    ACTORFLOW_RETURN_IF_ERROR(calculator.l_primes(labels, steps, preprocess_collapse_repeated_,
                                                  ignore_longer_outputs_than_inputs_, &l_primes));
    const T* logits = inputs.data<T>();
    for (Index b = 0; b < batch; ++b) {
      const auto bi = static_cast<std::size_t>(b);
      // Empty sequences, and labels longer than their sequence when told to ignore them, get
      // loss and gradient 0.
      if (steps[bi] == 0 ||
          (ignore_longer_outputs_than_inputs_ && static_cast<Index>(labels[bi].size()) > steps[bi]))
        continue;
      loss_out[b] = calculator.loss(logits, batch, b, steps[bi], l_primes[bi], ctc_merge_repeated_,
                                    gradient_out);
    }
    return {};
  }

 private:
  bool preprocess_collapse_repeated_ = false;
  bool ctc_merge_repeated_ = true;
  bool ignore_longer_outputs_than_inputs_ = false;
};

// -- the decoders ----------------------------------------------------------------------------

// CTCDecodeHelper::ValidateInputsGenerateOutputs: the logits [max_time, batch, num_classes]
// and sequence lengths [batch], each at most max_time; allocates log_probability
// [batch, top_paths] (output 3 * top_paths) as zeros.
template <class T>
Status validate_decoder_inputs(OpKernelContext& ctx, int top_paths) {
  const Tensor& inputs = ctx.input(0);
  const Tensor& seq_len = ctx.input(1);
  if (inputs.rank() != 3) return invalid_argument("inputs is not a 3-Tensor");
  if (inputs.num_elements() == 0) return invalid_argument("inputs must not be empty");
  const Index max_time = inputs.shape().dim(0), batch = inputs.shape().dim(1);
  if (seq_len.rank() != 1) return invalid_argument("sequence_length is not a vector");
  if (batch != seq_len.shape().dim(0))
    return failed_precondition("len(sequence_length) != batch_size.  len(sequence_length):  " +
                               std::to_string(seq_len.shape().dim(0)) +
                               " batch_size: " + std::to_string(batch));
  const std::int32_t* lengths = seq_len.data<std::int32_t>();
  for (Index b = 0; b < batch; ++b)
    if (!(lengths[b] <= max_time))
      return failed_precondition("sequence_length(" + std::to_string(b) +
                                 ") <= " + std::to_string(max_time));
  if (inputs.shape().dim(2) >= std::numeric_limits<int>::max())
    return invalid_argument("num_classes cannot exceed max int");
  Tensor& log_prob = ctx.allocate_output(3 * top_paths, dtype_of_v<T>, Shape{batch, top_paths});
  std::fill(log_prob.data<T>(), log_prob.data<T>() + log_prob.num_elements(), T(0));
  return {};
}

// CTCDecodeHelper::StoreAllDecodedSequences: for each path p, the SparseTensor of
// sequences[b][p] over all b (outputs p, top_paths + p and 2 * top_paths + p: indices [n, 2]
// of (batch, position), values [n], shape [batch, longest]).
void store_decoded(OpKernelContext& ctx, const std::vector<std::vector<std::vector<int>>>& seqs,
                   int top_paths) {
  const auto batch = static_cast<Index>(seqs.size());
  for (int p = 0; p < top_paths; ++p) {
    Index total = 0, longest = 0;
    for (const auto& paths : seqs) {
      const auto n = static_cast<Index>(paths[static_cast<std::size_t>(p)].size());
      total += n;
      longest = std::max(longest, n);
    }
    std::int64_t* indices =
        ctx.allocate_output(p, DType::int64, Shape{total, 2}).data<std::int64_t>();
    std::int64_t* values =
        ctx.allocate_output(top_paths + p, DType::int64, Shape{total}).data<std::int64_t>();
    std::int64_t* shape =
        ctx.allocate_output(2 * top_paths + p, DType::int64, Shape{2}).data<std::int64_t>();
    Index offset = 0;
    for (Index b = 0; b < batch; ++b) {
      const std::vector<int>& path = seqs[static_cast<std::size_t>(b)][static_cast<std::size_t>(p)];
      for (std::size_t t = 0; t < path.size(); ++t, ++offset) {
        values[offset] = path[t];
        indices[2 * offset] = b;
        indices[2 * offset + 1] = static_cast<Index>(t);
      }
    }
    shape[0] = batch;
    shape[1] = longest;
  }
}

// CTCGreedyDecoder(inputs, sequence_length; merge_repeated, blank_index): per batch entry the
// most probable class of each step (the first on ties), blanks dropped and, with
// merge_repeated, repeats merged; log_probability [batch, 1] is minus the sum of the steps'
// greatest logits.
template <class T>
class CTCGreedyDecoderOp : public StatusKernel {
 public:
  explicit CTCGreedyDecoderOp(OpKernelConstruction& c) : StatusKernel(c) {
    merge_repeated_ = attr_or(c, "merge_repeated", false);
    blank_index_ = attr_or<std::int64_t>(c, "blank_index", -1);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    ACTORFLOW_RETURN_IF_ERROR(validate_decoder_inputs<T>(ctx, 1));
    const Tensor& inputs = ctx.input(0);
    const Index batch = inputs.shape().dim(1);
    const auto num_classes = static_cast<int>(inputs.shape().dim(2));
    const Index blank_index = blank_index_ < 0 ? num_classes + blank_index_ : blank_index_;
    if (blank_index < 0 || blank_index >= num_classes)
      return invalid_argument("blank_index expected to be between " + std::to_string(-num_classes) +
                              " and " + std::to_string(num_classes - 1) + " but was " +
                              std::to_string(blank_index_));
    const T* logits = inputs.data<T>();
    const std::int32_t* lengths = ctx.input(1).data<std::int32_t>();
    T* log_prob = ctx.outputs()[3].template data<T>();
    std::vector<std::vector<std::vector<int>>> sequences(static_cast<std::size_t>(batch));
    for (Index b = 0; b < batch; ++b) {
      std::vector<int>& sequence = sequences[static_cast<std::size_t>(b)].emplace_back();
      int prev_indices = -1;
      for (int t = 0; t < lengths[b]; ++t) {
        const T* row = logits + (t * batch + b) * num_classes;
        int max_class_indices = 0;
        for (int i = 1; i < num_classes; ++i)
          if (row[i] > row[max_class_indices]) max_class_indices = i;
        log_prob[b] += -row[max_class_indices];
        if (max_class_indices != blank_index &&
            !(merge_repeated_ && max_class_indices == prev_indices))
          sequence.push_back(max_class_indices);
        prev_indices = max_class_indices;
      }
    }
    store_decoded(ctx, sequences, 1);
    return {};
  }

 private:
  bool merge_repeated_ = false;
  std::int64_t blank_index_ = -1;
};

// CTCBeamSearchDecoder(inputs, sequence_length; beam_width, top_paths, merge_repeated): per
// batch entry the top_paths most probable label sequences of TensorFlow's beam search (blank:
// the last class), and their log probabilities [batch, top_paths].
template <class T>
class CTCBeamSearchDecoderOp : public StatusKernel {
 public:
  explicit CTCBeamSearchDecoderOp(OpKernelConstruction& c) : StatusKernel(c) {
    merge_repeated_ = attr_or(c, "merge_repeated", true);
    beam_width_ = attr_or<std::int64_t>(c, "beam_width", 1);
    top_paths_ = attr_or<std::int64_t>(c, "top_paths", 1);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const int top_paths = static_cast<int>(top_paths_);
    ACTORFLOW_RETURN_IF_ERROR(validate_decoder_inputs<T>(ctx, top_paths));
    const Tensor& inputs = ctx.input(0);
    const Index batch = inputs.shape().dim(1);
    const auto num_classes = static_cast<int>(inputs.shape().dim(2));
    const T* logits = inputs.data<T>();
    const std::int32_t* lengths = ctx.input(1).data<std::int32_t>();
    T* log_prob = ctx.outputs()[static_cast<std::size_t>(3 * top_paths)].template data<T>();
    detail::ctc::BeamSearch<T> beam_search(num_classes, static_cast<int>(beam_width_));
    std::vector<std::vector<std::vector<int>>> best_paths(static_cast<std::size_t>(batch));
    std::vector<T> log_probs;
    for (Index b = 0; b < batch; ++b) {
      for (int t = 0; t < lengths[b]; ++t) beam_search.step(logits + (t * batch + b) * num_classes);
      ACTORFLOW_RETURN_IF_ERROR(beam_search.top_paths(
          top_paths, merge_repeated_, &best_paths[static_cast<std::size_t>(b)], &log_probs));
      beam_search.reset();
      for (int p = 0; p < top_paths; ++p)
        log_prob[b * top_paths + p] = log_probs[static_cast<std::size_t>(p)];
    }
    store_decoded(ctx, best_paths, top_paths);
    return {};
  }

 private:
  bool merge_repeated_ = true;
  std::int64_t beam_width_ = 1;
  std::int64_t top_paths_ = 1;
};

// -- EditDistance ----------------------------------------------------------------------------

// edit_distance_op.cc's ValidateShapes.
Status validate_edit_distance(const Tensor& hypothesis_indices, const Tensor& hypothesis_values,
                              const Tensor& hypothesis_shape, const Tensor& truth_indices,
                              const Tensor& truth_values, const Tensor& truth_shape) {
  auto shape_of = [](const Tensor& t) { return t.shape().to_string(); };
  if (hypothesis_indices.rank() != 2)
    return invalid_argument("hypothesis_indices should be a matrix, but got shape: " +
                            shape_of(hypothesis_indices));
  if (truth_indices.rank() != 2)
    return invalid_argument("truth_indices should be a matrix, but got shape: " +
                            shape_of(truth_indices));
  if (hypothesis_values.rank() != 1)
    return invalid_argument("hypothesis_values should be a vector, but got shape: " +
                            shape_of(hypothesis_values));
  if (truth_values.rank() != 1)
    return invalid_argument("truth_values should be a vector, but got shape: " +
                            shape_of(truth_values));
  if (hypothesis_shape.rank() != 1)
    return invalid_argument("hypothesis_shape should be a vector, but got shape: " +
                            shape_of(hypothesis_shape));
  if (truth_shape.rank() != 1)
    return invalid_argument("truth_shape should be a vector, but got shape: " +
                            shape_of(truth_shape));
  if (hypothesis_values.num_elements() != hypothesis_indices.shape().dim(0))
    return invalid_argument(
        "Expected hypothesis_values.NumElements == #rows(hypothesis_indices), their shapes "
        "are: " +
        shape_of(hypothesis_values) + " and " + shape_of(hypothesis_indices));
  if (hypothesis_shape.num_elements() != hypothesis_indices.shape().dim(1))
    return invalid_argument(
        "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their shapes "
        "are: " +
        shape_of(hypothesis_shape) + " and " + shape_of(hypothesis_indices));
  if (truth_shape.num_elements() < 2)
    return invalid_argument(
        "Input SparseTensors must have rank at least 2, but truth_shape rank is: " +
        std::to_string(truth_shape.num_elements()));
  if (truth_values.num_elements() != truth_indices.shape().dim(0))
    return invalid_argument(
        "Expected truth_values.NumElements == #rows(truth_indices), their shapes are: " +
        shape_of(truth_values) + " and " + shape_of(truth_indices));
  if (truth_shape.num_elements() != truth_indices.shape().dim(1))
    return invalid_argument(
        "Expected truth_shape.NumElements == #cols(truth_indices), their shapes are: " +
        shape_of(truth_shape) + " and " + shape_of(truth_indices));
  if (truth_shape.num_elements() != hypothesis_shape.num_elements())
    return invalid_argument(
        "Expected truth and hypothesis to have matching ranks, but their shapes are: " +
        shape_of(truth_shape) + " and " + shape_of(hypothesis_shape));
  return {};
}

// gtl::LevenshteinDistance of sequences of `s_size` and `t_size` elements, `same(i, j)` telling
// whether element i of the first equals element j of the second.
template <class Same>
Index levenshtein(Index s_size, Index t_size, Same same) {
  if (s_size == 0) return t_size;
  if (t_size == 0) return s_size;
  std::vector<Index> row(static_cast<std::size_t>(t_size) + 1);
  std::iota(row.begin(), row.end(), Index{0});
  for (Index i = 1; i <= s_size; ++i) {
    Index diagonal = row[0];
    row[0] = i;
    for (Index j = 1; j <= t_size; ++j) {
      const Index above = row[static_cast<std::size_t>(j)];
      const Index substitution = diagonal + (same(i - 1, j - 1) ? 0 : 1);
      row[static_cast<std::size_t>(j)] =
          std::min({above + 1, row[static_cast<std::size_t>(j - 1)] + 1, substitution});
      diagonal = above;
    }
  }
  return row[static_cast<std::size_t>(t_size)];
}

// Calls `f(T{})` with the element type of `dtype` (a value type).
template <class F>
void visit_value_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::float32:
      return f(float{});
    case DType::float64:
      return f(double{});
    case DType::int32:
      return f(std::int32_t{});
    case DType::int64:
      return f(std::int64_t{});
    case DType::uint8:
      return f(std::uint8_t{});
    case DType::boolean:
      return f(bool{});
    case DType::bfloat16:
      return f(bfloat16_t{});
    default:
      return f(std::string{});
  }
}

// EditDistance(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
// truth_values, truth_shape; normalize): the Levenshtein distance between the sequences (the
// last dimension) of each position of the other dimensions, grouped as TensorFlow's
// SparseTensor::group (runs of consecutive indices, which are assumed sorted). Normalized by
// the truth's length: a truth without hypothesis gives 1, a hypothesis without truth +inf.
class EditDistanceOp : public StatusKernel {
 public:
  explicit EditDistanceOp(OpKernelConstruction& c) : StatusKernel(c) {
    normalize_ = attr_or(c, "normalize", true);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& hypothesis_indices = ctx.input(0);
    const Tensor& hypothesis_values = ctx.input(1);
    const Tensor& truth_indices = ctx.input(3);
    const Tensor& truth_values = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(validate_edit_distance(hypothesis_indices, hypothesis_values,
                                                     ctx.input(2), truth_indices, truth_values,
                                                     ctx.input(5)));
    const std::vector<Index> hypothesis_shape = index_values(ctx.input(2));
    const std::vector<Index> truth_shape = index_values(ctx.input(5));
    ACTORFLOW_RETURN_IF_ERROR(detail::sparse::build_tensor_shape(hypothesis_shape));
    ACTORFLOW_RETURN_IF_ERROR(detail::sparse::build_tensor_shape(truth_shape));
    const auto rank = static_cast<Index>(truth_shape.size());
    std::vector<std::int64_t> out_dims;
    for (Index d = 0; d + 1 < rank; ++d)
      out_dims.push_back(std::max(hypothesis_shape[static_cast<std::size_t>(d)],
                                  truth_shape[static_cast<std::size_t>(d)]));
    const Shape output_shape(out_dims);
    const Index output_elements = output_shape.num_elements();
    if (output_elements <= 0)
      return invalid_argument("Got output shape " + output_shape.to_string() +
                              " which has 0 elements");
    float* out = ctx.allocate_output(0, DType::float32, output_shape).data<float>();
    std::fill(out, out + output_elements, 0.0f);
    const std::vector<Index> strides = detail::row_major_strides(output_shape);

    // Runs of entries with equal leading coordinates (SparseTensor::group on the standard
    // order: the indices are not reordered).
    const std::vector<Index> group_dims = detail::sparse::standard_dims(rank - 1);
    const std::int64_t* h_ix = hypothesis_indices.data<std::int64_t>();
    const std::int64_t* t_ix = truth_indices.data<std::int64_t>();
    auto groups_of = [&](const std::int64_t* ix, Index n) {
      std::vector<Index> order(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), Index{0});
      return detail::sparse::group_runs(ix, rank, order, group_dims);
    };
    const auto h_groups = groups_of(h_ix, hypothesis_indices.shape().dim(0));
    const auto t_groups = groups_of(t_ix, truth_indices.shape().dim(0));
    auto key = [&](const std::int64_t* ix, const std::vector<Index>& group) {
      return std::vector<std::int64_t>(ix + group.front() * rank,
                                       ix + group.front() * rank + (rank - 1));
    };
    // The output element of a group, checked as TensorFlow checks it.
    auto location = [&](const std::vector<std::int64_t>& g, Index* loc) -> Status {
      *loc = 0;
      for (std::size_t d = 0; d < g.size(); ++d) *loc += g[d] * strides[d];
      if (*loc < 0 || *loc >= output_elements)
        return internal("Got an inner product " + std::to_string(*loc) +
                        " which would require writing to outside of the buffer for the output "
                        "tensor (max elements " +
                        std::to_string(output_elements) + ")");
      return {};
    };
    Status status;
    visit_value_type(hypothesis_values.dtype(), [&](auto element) {
      using V = decltype(element);
      const V* h_values = hypothesis_values.data<V>();
      const V* t_values = truth_values.data<V>();
      auto distance = [&](const std::vector<Index>& truth, const std::vector<Index>& hypothesis) {
        return levenshtein(static_cast<Index>(truth.size()), static_cast<Index>(hypothesis.size()),
                           [&](Index i, Index j) {
                             const V& a = t_values[truth[static_cast<std::size_t>(i)]];
                             const V& b = h_values[hypothesis[static_cast<std::size_t>(j)]];
                             if constexpr (is_half_like_v<V>)
                               return static_cast<float>(a) == static_cast<float>(b);
                             else
                               return a == b;
                           });
      };
      // A hypothesis without truth: its length, +inf when normalized (0 stays 0).
      auto hypothesis_only = [&](const std::vector<Index>& h) {
        Index loc = 0;
        status = location(key(h_ix, h), &loc);
        if (!status.ok()) return;
        out[loc] = static_cast<float>(h.size());
        if (normalize_ && out[loc] != 0.0f) out[loc] = std::numeric_limits<float>::infinity();
      };
      // A truth without hypothesis: its length, 1 when normalized.
      auto truth_only = [&](const std::vector<Index>& t) {
        Index loc = 0;
        status = location(key(t_ix, t), &loc);
        if (!status.ok()) return;
        out[loc] = normalize_ ? 1.0f : static_cast<float>(t.size());
      };
      std::size_t hi = 0, ti = 0;
      while (hi < h_groups.size() && ti < t_groups.size()) {
        const std::vector<Index>& h = h_groups[hi];
        const std::vector<Index>& t = t_groups[ti];
        const std::vector<std::int64_t> g_truth = key(t_ix, t), g_hypothesis = key(h_ix, h);
        if (g_truth == g_hypothesis) {
          Index loc = 0;
          status = location(g_truth, &loc);
          if (!status.ok()) return;
          out[loc] = static_cast<float>(distance(t, h));
          if (normalize_) out[loc] /= static_cast<float>(t.size());
          ++hi;
          ++ti;
        } else if (g_truth > g_hypothesis) {
          hypothesis_only(h);
          if (!status.ok()) return;
          ++hi;
        } else {
          truth_only(t);
          if (!status.ok()) return;
          ++ti;
        }
      }
      for (; hi < h_groups.size() && status.ok(); ++hi) hypothesis_only(h_groups[hi]);
      for (; ti < t_groups.size() && status.ok(); ++ti) truth_only(t_groups[ti]);
    });
    return status;
  }

 private:
  bool normalize_ = true;
};

template <class... Ts>
void register_ctc(KernelRegistry& r) {
  (r.add(make_kernel_def<CTCLossOp<Ts>>("CTCLoss", "CPU", {{"T", {dtype_of_v<Ts>}}})), ...);
  (r.add(make_kernel_def<CTCGreedyDecoderOp<Ts>>("CTCGreedyDecoder", "CPU",
                                                 {{"T", {dtype_of_v<Ts>}}})),
   ...);
  (r.add(make_kernel_def<CTCBeamSearchDecoderOp<Ts>>("CTCBeamSearchDecoder", "CPU",
                                                     {{"T", {dtype_of_v<Ts>}}})),
   ...);
}

}  // namespace

namespace detail {

void register_seq_ctc_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ReverseSequenceOp>("ReverseSequence", "CPU",
                                           {{"T", kValueTypes}, {"Tlen", kIndexTypes}}));
  register_ctc<float, double>(r);
  r.add(make_kernel_def<EditDistanceOp>("EditDistance", "CPU", {{"T", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
