// Einsum: the CPU kernel with TensorFlow's checks and messages (kernels/linalg/
// einsum_op_impl.h, core/util/einsum_op_util.cc). As TensorFlow's, each operand is first
// reduced to [batch..., free, contract] (summed over the labels only it has, its repeated
// labels taken along their diagonal), the two operands are then multiplied batch by batch
// (the ellipsis dimensions broadcast as NumPy's), and the product is transposed, and
// inflated for labels the output repeats, into the output. Its definition is in
// ops/src/defs/einsum_ops.cpp, its gradient in ops/src/gradients/einsum_grad.cpp.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/einsum_equation.hpp"
#include "actorflow/ops/kernel.hpp"
#include "cpu_gemm.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// The label of an ellipsis in a parsed subscript.
constexpr int kEllipsisLabel = -1;

// TensorFlow's EinsumDimensionType, in the order an operand's dimensions are sorted.
enum DimensionType { kBroadcasting = 0, kBatch = 1, kFree = 2, kContract = 3, kReduce = 4 };

DimensionType dimension_type(bool removed, bool unique) {
  if (!removed) return unique ? kFree : kBatch;
  return unique ? kReduce : kContract;
}

// An equation as ParseEinsumEquation leaves it: labels numbered by first appearance.
struct ParsedEquation {
  std::vector<std::vector<int>> input_labels;  // kEllipsisLabel for "..."
  std::vector<int> output_labels;
  std::vector<DimensionType> label_types;  // by named label
  std::vector<int> output_label_counts;
  std::vector<bool> input_has_ellipsis;
  bool output_has_ellipsis = false;
  std::vector<char> label_chars;  // the character of each named label
};

Status parse_equation(const std::string& equation, ParsedEquation* e) {
  std::vector<std::string> inputs;
  std::string output;
  ACTORFLOW_RETURN_IF_ERROR(detail::split_einsum_equation(equation, &inputs, &output));
  // The shape function's ValidateEinsumEllipsis, so that a node it never saw cannot make the
  // kernel read an ellipsis as a label.
  std::vector<std::string> subscripts = inputs;
  subscripts.push_back(output);
  for (const std::string& s : subscripts)
    ACTORFLOW_RETURN_IF_ERROR(detail::validate_einsum_ellipsis(s));
  std::map<char, int> mapping;
  // MapToLabels: a '.' starts an ellipsis of three characters.
  auto map_labels = [&](const std::string& subscript, std::vector<int>* labels) {
    for (std::size_t i = 0; i < subscript.size(); ++i) {
      if (subscript[i] == '.') {
        labels->push_back(kEllipsisLabel);
        i += 2;
        continue;
      }
      auto [it, inserted] = mapping.emplace(subscript[i], static_cast<int>(mapping.size()));
      if (inserted) e->label_chars.push_back(subscript[i]);
      labels->push_back(it->second);
    }
  };
  e->input_labels.resize(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) map_labels(inputs[i], &e->input_labels[i]);
  map_labels(output, &e->output_labels);
  const std::size_t num_labels = mapping.size();
  std::vector<std::vector<int>> input_counts(inputs.size(), std::vector<int>(num_labels, 0));
  e->input_has_ellipsis.assign(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (int label : e->input_labels[i]) {
      if (label == kEllipsisLabel)
        e->input_has_ellipsis[i] = true;
      else
        ++input_counts[i][static_cast<std::size_t>(label)];
    }
  e->output_label_counts.assign(num_labels, 0);
  for (int label : e->output_labels) {
    if (label == kEllipsisLabel)
      e->output_has_ellipsis = true;
    else
      ++e->output_label_counts[static_cast<std::size_t>(label)];
  }
  e->label_types.resize(num_labels);
  for (std::size_t label = 0; label < num_labels; ++label) {
    const bool removed = e->output_label_counts[label] == 0;
    const bool unique =
        inputs.size() == 1 || input_counts[0][label] == 0 || input_counts[1][label] == 0;
    e->label_types[label] = dimension_type(removed, unique);
  }
  return {};
}

// The offsets, in row-major order of the block `dims`, of elements `strides[k]` apart along
// coordinate k.
std::vector<Index> block_offsets(const std::vector<Index>& dims,
                                 const std::vector<Index>& strides) {
  Index total = 1;
  for (Index d : dims) total *= d;
  std::vector<Index> out(static_cast<std::size_t>(total), 0);
  if (total == 0 || dims.empty()) return out;
  std::vector<Index> coord(dims.size(), 0);
  Index offset = 0;
  for (Index o = 0; o < total; ++o) {
    out[static_cast<std::size_t>(o)] = offset;
    for (std::size_t k = dims.size(); k-- > 0;) {
      if (++coord[k] < dims[k]) {
        offset += strides[k];
        break;
      }
      offset -= strides[k] * (dims[k] - 1);
      coord[k] = 0;
    }
  }
  return out;
}

std::string dims_string(const std::vector<Index>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

// One operand reduced as ReduceOperand leaves it: [batch..., free, contract], row-major.
template <class Acc>
struct ReducedOperand {
  std::vector<Index> batch_dims;  // its ellipsis dimensions, then the named batch labels'
  std::vector<int> free_labels;   // by label number
  Index free_size = 1;
  Index contract_size = 1;
  bool swap_free_and_contract = false;  // only for the shapes TensorFlow's messages show
  std::vector<Acc> values;
};

template <class T>
class EinsumOp : public StatusKernel {
  // bfloat16 sums and products accumulate in float, rounded once into the output.
  using Acc = std::conditional_t<is_half_like_v<T>, float, T>;

 public:
  EinsumOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("equation", &equation_);
    if (s->ok()) *s = parse_equation(equation_, &parsed_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const ParsedEquation& e = parsed_;
    const auto num_inputs = static_cast<int>(e.input_labels.size());
    if (ctx.num_inputs() != num_inputs)
      return invalid_argument("Expected " + std::to_string(num_inputs) +
                              " inputs but got: " + std::to_string(ctx.num_inputs()));
    const auto num_named = static_cast<int>(e.label_types.size());

    // ProcessDimensions: check the ranks and the labels' dimensions; the ellipsis of each
    // input becomes labels num_named, num_named + 1, ... for its broadcasting dimensions.
    std::vector<Index> label_dims(static_cast<std::size_t>(num_named), 0);
    std::vector<std::vector<int>> labels = e.input_labels;
    std::vector<std::vector<Index>> bcast_dims(static_cast<std::size_t>(num_inputs));
    int max_bcast = 0;
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& input = ctx.input(i);
      std::vector<int>& in_labels = labels[static_cast<std::size_t>(i)];
      const auto size = static_cast<int>(in_labels.size());
      // RecordLabelToDimension; a dimension 0 seen first is overwritten, as TensorFlow's.
      auto record = [&](int label, int axis) -> Status {
        const Index dim = input.shape().dim(axis);
        Index& known = label_dims[static_cast<std::size_t>(label)];
        if (known != 0 && known != dim)
          return invalid_argument("Expected dimension " + std::to_string(known) + " at axis " +
                                  std::to_string(axis) + " of the input shaped " +
                                  input.shape().to_string() + " but got dimension " +
                                  std::to_string(dim));
        known = dim;
        return {};
      };
      if (!e.input_has_ellipsis[static_cast<std::size_t>(i)]) {
        if (input.rank() != size)
          return invalid_argument("Expected input " + std::to_string(i) + " to have rank " +
                                  std::to_string(size) +
                                  " but got: " + std::to_string(input.rank()));
        for (int k = 0; k < size; ++k)
          ACTORFLOW_RETURN_IF_ERROR(record(in_labels[static_cast<std::size_t>(k)], k));
        continue;
      }
      if (input.rank() + 1 < size)
        return invalid_argument("Expected input " + std::to_string(i) + " to have rank at least " +
                                std::to_string(size - 1) +
                                " but got: " + std::to_string(input.rank()));
      const int num_bcast = input.rank() - size + 1;
      int ellipsis_axis = -1;
      for (int k = 0; k < size; ++k) {
        const int label = in_labels[static_cast<std::size_t>(k)];
        if (label == kEllipsisLabel) {
          ellipsis_axis = k;
          continue;
        }
        ACTORFLOW_RETURN_IF_ERROR(record(label, k + (ellipsis_axis == -1 ? 0 : num_bcast - 1)));
      }
      std::vector<int> expanded(in_labels.begin(), in_labels.begin() + ellipsis_axis);
      for (int b = 0; b < num_bcast; ++b) {
        expanded.push_back(num_named + b);
        bcast_dims[static_cast<std::size_t>(i)].push_back(input.shape().dim(ellipsis_axis + b));
      }
      expanded.insert(expanded.end(), in_labels.begin() + ellipsis_axis + 1, in_labels.end());
      in_labels = std::move(expanded);
      max_bcast = std::max(max_bcast, num_bcast);
    }
    std::vector<int> output_labels;
    for (int label : e.output_labels) {
      if (label != kEllipsisLabel) {
        output_labels.push_back(label);
        continue;
      }
      for (int b = 0; b < max_bcast; ++b) output_labels.push_back(num_named + b);
    }
    if (!e.output_has_ellipsis && max_bcast > 0)
      return invalid_argument("Output contains " + std::to_string(max_bcast) +
                              " broadcasting dimension(s) but no ellipsis (...) was found in "
                              "the output subscripts.");
    for (int label : output_labels)
      if (label < num_named && e.label_types[static_cast<std::size_t>(label)] == kFree) {
        bool present = false;
        for (const auto& in_labels : labels)
          present = present || std::count(in_labels.begin(), in_labels.end(), label) > 0;
        if (!present)
          return invalid_argument("Einsum output subscripts for equation '" + equation_ +
                                  "' has label '" +
                                  std::string(1, e.label_chars[static_cast<std::size_t>(label)]) +
                                  "' which is not present in the input subscripts");
      }

    // ReduceOperand for each input.
    std::vector<ReducedOperand<Acc>> reduced(static_cast<std::size_t>(num_inputs));
    for (int i = 0; i < num_inputs; ++i)
      reduce_operand(ctx.input(i), labels[static_cast<std::size_t>(i)],
                     bcast_dims[static_cast<std::size_t>(i)], label_dims, num_named,
                     &reduced[static_cast<std::size_t>(i)]);

    // ContractOperands: the product's batch dimensions (broadcast), then the free labels of
    // each operand by label number.
    std::vector<Index> result_dims;
    std::vector<int> result_labels;
    std::vector<Acc> result;
    if (num_inputs == 1) {
      ReducedOperand<Acc>& r = reduced[0];
      result_dims = r.batch_dims;
      result = std::move(r.values);
    } else {
      ACTORFLOW_RETURN_IF_ERROR(contract(ctx, reduced[0], reduced[1], &result_dims, &result));
    }
    for (int b = 0; b < max_bcast; ++b) result_labels.push_back(num_named + b);
    for (int label = 0; label < num_named; ++label)
      if (e.label_types[static_cast<std::size_t>(label)] == kBatch) result_labels.push_back(label);
    for (const auto& r : reduced)
      for (int label : r.free_labels) {
        result_labels.push_back(label);
        result_dims.push_back(label_dims[static_cast<std::size_t>(label)]);
      }

    // The output: the product's elements placed by their labels (a transpose), on the
    // diagonal of the labels the output repeats (StrideOrInflate), zeros elsewhere.
    auto dim_of = [&](int label) {
      const auto at = std::find(result_labels.begin(), result_labels.end(), label);
      return result_dims[static_cast<std::size_t>(at - result_labels.begin())];
    };
    std::vector<std::int64_t> out_dims;
    for (int label : output_labels) out_dims.push_back(dim_of(label));
    const Shape out_shape(out_dims);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    if (out_shape.num_elements() == 0) return {};
    const std::vector<Index> out_strides = detail::row_major_strides(out_shape);
    std::vector<Index> scatter_strides(result_labels.size(), 0);
    for (std::size_t k = 0; k < result_labels.size(); ++k)
      for (std::size_t a = 0; a < output_labels.size(); ++a)
        if (output_labels[a] == result_labels[k]) scatter_strides[k] += out_strides[a];
    const std::vector<Index> targets = block_offsets(result_dims, scatter_strides);
    T* o = out.data<T>();
    for (std::size_t r = 0; r < targets.size(); ++r) o[targets[r]] = static_cast<T>(result[r]);
    return {};
  }

 private:
  // ReduceOperand: `input`'s elements summed over its reduce labels, along the diagonal of
  // its repeated labels, laid out [broadcast dims, batch labels, free labels, contract
  // labels] with the labels of each kind by number (bcast labels are numbered from
  // `num_named` in the input's order).
  void reduce_operand(const Tensor& input, const std::vector<int>& labels,
                      const std::vector<Index>& bcast, const std::vector<Index>& label_dims,
                      int num_named, ReducedOperand<Acc>* r) const {
    const ParsedEquation& e = parsed_;
    auto type_of = [&](int label) {
      return label >= num_named ? kBroadcasting : e.label_types[static_cast<std::size_t>(label)];
    };
    auto dim_of = [&](int label) {
      return label >= num_named ? bcast[static_cast<std::size_t>(label - num_named)]
                                : label_dims[static_cast<std::size_t>(label)];
    };
    // ShouldSwapFreeAndContract: whether TensorFlow skips the transpose (its messages show
    // the operand [.., contract, free] then).
    const int remap[] = {0, 1, 3, 2, 4};
    r->swap_free_and_contract = true;
    for (std::size_t k = 0; k + 1 < labels.size(); ++k) {
      const int a = remap[type_of(labels[k])], b = remap[type_of(labels[k + 1])];
      if (a > b || (a == b && labels[k] > labels[k + 1])) r->swap_free_and_contract = false;
    }
    // The distinct labels, sorted by (type, number), with the summed strides of their axes.
    std::vector<int> distinct(labels);
    std::sort(distinct.begin(), distinct.end(), [&](int a, int b) {
      return type_of(a) != type_of(b) ? type_of(a) < type_of(b) : a < b;
    });
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const std::vector<Index> in_strides = detail::row_major_strides(input.shape());
    std::vector<Index> keep_dims, keep_strides, reduce_dims, reduce_strides;
    for (int label : distinct) {
      Index stride = 0;
      for (std::size_t a = 0; a < labels.size(); ++a)
        if (labels[a] == label) stride += in_strides[a];
      const DimensionType type = type_of(label);
      const Index dim = dim_of(label);
      if (type == kReduce) {
        reduce_dims.push_back(dim);
        reduce_strides.push_back(stride);
        continue;
      }
      keep_dims.push_back(dim);
      keep_strides.push_back(stride);
      if (type == kBroadcasting || type == kBatch) r->batch_dims.push_back(dim);
      if (type == kFree) {
        r->free_labels.push_back(label);
        r->free_size *= dim;
      }
      if (type == kContract) r->contract_size *= dim;
    }
    const std::vector<Index> keep = block_offsets(keep_dims, keep_strides);
    const std::vector<Index> sum = block_offsets(reduce_dims, reduce_strides);
    r->values.assign(keep.size(), Acc(0));
    // An empty input (a reduced dimension 0, or one TensorFlow let a later input resize)
    // sums to zeros.
    if (input.num_elements() == 0) return;
    const T* in = input.data<T>();
    for (std::size_t o = 0; o < keep.size(); ++o) {
      Acc total = Acc(0);
      for (Index s : sum) total = cwise::wrapping_add(total, static_cast<Acc>(in[keep[o] + s]));
      r->values[o] = total;
    }
  }

  // The batched product out[b, f0, f1] = sum_c x[b, f0, c] * y[b, f1, c], the batch
  // dimensions broadcast as MatMulBCast's.
  Status contract(const OpKernelContext& ctx, const ReducedOperand<Acc>& x,
                  const ReducedOperand<Acc>& y, std::vector<Index>* batch,
                  std::vector<Acc>* out) const {
    const std::vector<Index>& bx = x.batch_dims;
    const std::vector<Index>& by = y.batch_dims;
    const std::size_t rank = std::max(bx.size(), by.size());
    std::vector<Index> x_steps(rank, 0), y_steps(rank, 0);
    Index x_step = x.free_size * x.contract_size, y_step = y.free_size * y.contract_size;
    bool valid = true;
    batch->assign(rank, 1);
    for (std::size_t k = rank; k-- > 0;) {
      const std::size_t from_end = rank - 1 - k;
      const Index dx = from_end < bx.size() ? bx[bx.size() - 1 - from_end] : 1;
      const Index dy = from_end < by.size() ? by[by.size() - 1 - from_end] : 1;
      if (dx != dy && dx != 1 && dy != 1) valid = false;
      (*batch)[k] = dx == 1 ? dy : dx;
      if (dx != 1) x_steps[k] = x_step;
      if (dy != 1) y_steps[k] = y_step;
      x_step *= dx;
      y_step *= dy;
    }
    if (!valid) {
      auto shape_of = [](const ReducedOperand<Acc>& r) {
        std::vector<Index> dims = r.batch_dims;
        dims.push_back(r.swap_free_and_contract ? r.contract_size : r.free_size);
        dims.push_back(r.swap_free_and_contract ? r.free_size : r.contract_size);
        return dims_string(dims);
      };
      return invalid_argument("Invalid broadcasting dimensions: " + shape_of(x) + " vs. " +
                              shape_of(y));
    }
    const std::vector<Index> x_at = block_offsets(*batch, x_steps);
    const std::vector<Index> y_at = block_offsets(*batch, y_steps);
    const Index m = x.free_size, n = y.free_size, k = x.contract_size;
    out->assign(x_at.size() * static_cast<std::size_t>(m * n), Acc(0));
    if (m * n == 0 || k == 0) return {};
    for (std::size_t b = 0; b < x_at.size(); ++b)
      multiply(ctx, x.values.data() + x_at[b], y.values.data() + y_at[b],
               out->data() + static_cast<Index>(b) * m * n, m, n, k);
    return {};
  }

  // out[m, n] = a[m, k] * b[n, k]^T: the GEMM library for float and double, else a loop
  // (integers wrap on overflow, as TensorFlow's).
  static void multiply([[maybe_unused]] const OpKernelContext& ctx, const Acc* a, const Acc* b,
                       Acc* out, Index m, Index n, Index k) {
    if constexpr (std::is_same_v<Acc, float>) {
      if (detail::cpu_gemm(a, b, out, m, n, k, false, true, std::max(1, ctx.intra_op_threads),
                           ctx.eigen_device))
        return;
    } else if constexpr (std::is_same_v<Acc, double>) {
      if (detail::cpu_gemm(a, b, out, m, n, k, false, true, std::max(1, ctx.intra_op_threads)))
        return;
    }
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < n; ++j) {
        Acc total = Acc(0);
        for (Index p = 0; p < k; ++p)
          total = cwise::wrapping_add(total, cwise::wrapping_mul(a[i * k + p], b[j * k + p]));
        out[i * n + j] = total;
      }
  }

  std::string equation_;
  ParsedEquation parsed_;
};

}  // namespace

namespace detail {

void register_einsum_kernels(KernelRegistry& r) {
  register_for_list<EinsumOp>(
      r, "Einsum", Concat<FloatTypes, TypeList<std::int32_t, std::int64_t>, ComplexTypes>{});
}

}  // namespace detail

}  // namespace af
