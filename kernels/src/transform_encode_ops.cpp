// OneHot, ConcatOffset and DecodeRaw: CPU kernels. Registered from transform_ops.cpp; their
// definitions (shape functions, graph-building functions) are in
// ops/src/defs/transform_encode_ops.cpp.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/one_hot_op.cc, concat_op.cc,
// decode_raw_op.cc); messages are TensorFlow's.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/transform_defs.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::kDecodeRawTypes;
using detail::kOneHotIndexTypes;
using detail::kValueTypes;

// TensorFlow's TI: uint8, int8, int32 and int64.
std::vector<DType> one_hot_index_types() {
  std::vector<DType> types = kOneHotIndexTypes;
  types.push_back(DType::int8);
  return types;
}

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

using detail::elements;
using detail::index_values;
using detail::node_suffix;
using detail::visit_storage;

// -- OneHot -------------------------------------------------------------------------------

class OneHotOp : public OpKernel {
 public:
  OneHotOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("axis", &axis_); }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements / 16;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& depth = ctx.input(1);
    const Tensor& on_value = ctx.input(2);
    const Tensor& off_value = ctx.input(3);
    const int indices_dims = indices.rank();
    const int output_dims = indices_dims + 1;
    if (axis_ != -1 && !(axis_ >= 0 && axis_ < output_dims))
      return ctx.fail(
          invalid_argument("Expected axis to be -1 or between [0, " + std::to_string(output_dims) +
                           ").  But received: " + std::to_string(axis_) + node_suffix(name())));
    if (depth.rank() != 0)
      return ctx.fail(invalid_argument(
          "depth must be a scalar, but got: " + depth.shape().to_string() + node_suffix(name())));
    if (on_value.rank() != 0)
      return ctx.fail(invalid_argument("on_value must be a scalar, but got: " +
                                       on_value.shape().to_string() + node_suffix(name())));
    if (off_value.rank() != 0)
      return ctx.fail(invalid_argument("off_value must be a scalar, but got: " +
                                       off_value.shape().to_string() + node_suffix(name())));
    const int axis = axis_ == -1 ? indices_dims : static_cast<int>(axis_);
    const std::int32_t depth_v = depth.data<std::int32_t>()[0];
    if (depth_v < 0)
      return ctx.fail(invalid_argument(
          "depth must be non-negative, got: " + std::to_string(depth_v) + node_suffix(name())));
    std::vector<std::int64_t> out_dims(indices.shape().dims().begin(),
                                       indices.shape().dims().end());
    out_dims.insert(out_dims.begin() + axis, depth_v);
    Tensor& out = ctx.allocate_output(0, on_value.dtype(), Shape(std::move(out_dims)));
    if (out.num_elements() == 0) return;
    Index prefix = 1;
    for (int i = 0; i < axis; ++i) prefix *= indices.shape().dim(i);
    const Index suffix = indices.num_elements() / prefix;
    // int8 indices too (TensorFlow's TI list), which index_values leaves out.
    std::vector<Index> idx;
    if (indices.dtype() == DType::int8) {
      const std::int8_t* p = indices.data<std::int8_t>();
      idx.assign(p, p + indices.num_elements());
    } else {
      idx = index_values(indices);
    }
    visit_storage(on_value.dtype(), [&](auto tag) {
      using E = decltype(tag);
      E* o = elements<E>(out);
      const E& on = elements<E>(on_value)[0];
      std::fill(o, o + out.num_elements(), elements<E>(off_value)[0]);
      // Indices outside [0, depth) select nothing: their rows stay off_value.
      for (Index p = 0; p < prefix; ++p)
        for (Index s = 0; s < suffix; ++s) {
          const Index d = idx[static_cast<std::size_t>(p * suffix + s)];
          if (d >= 0 && d < depth_v) o[(p * depth_v + d) * suffix + s] = on;
        }
    });
  }

 private:
  std::int64_t axis_ = -1;
};

// -- ConcatOffset -------------------------------------------------------------------------

class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& concat_dim = ctx.input(0);
    if (concat_dim.rank() != 0)
      return ctx.fail(
          invalid_argument("Concat dim tensor should be a scalar integer, but got shape " +
                           concat_dim.shape().to_string() + node_suffix(name())));
    for (int i = 1; i < ctx.num_inputs(); ++i)
      if (ctx.input(i).rank() != 1)
        return ctx.fail(invalid_argument("input " + std::to_string(i) +
                                         " should be a vector, but got shape " +
                                         ctx.input(i).shape().to_string() + node_suffix(name())));
    // The offset of each input in the concatenation: zero except along concat_dim, where it
    // is the running sum of the sizes before it.
    const int n = ctx.num_inputs() - 1;
    const Tensor& first = ctx.input(1);
    const Index cdim = concat_dim.data<std::int32_t>()[0];
    const Index dims = first.num_elements();
    if (cdim < 0 || cdim >= dims)
      return ctx.fail(invalid_argument("Concat dim is out of range: " + std::to_string(cdim) +
                                       " vs. " + std::to_string(dims) + node_suffix(name())));
    const std::int32_t* first_shape = first.data<std::int32_t>();
    std::int32_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx.input(1 + i);
      if (shape.num_elements() != dims)
        return ctx.fail(invalid_argument(
            "input " + std::to_string(i) + " should contain " + std::to_string(dims) +
            " elements, but got" + std::to_string(shape.num_elements()) + node_suffix(name())));
      const std::int32_t* s = shape.data<std::int32_t>();
      Tensor& out = ctx.allocate_output(i, DType::int32, Shape{dims});
      std::int32_t* o = out.data<std::int32_t>();
      for (Index j = 0; j < dims; ++j) {
        if (j == cdim) {
          o[j] = offset;
          offset += s[j];
        } else if (first_shape[j] != s[j]) {
          return ctx.fail(invalid_argument("input[" + std::to_string(i) + "," + std::to_string(j) +
                                           "] mismatch: " + std::to_string(first_shape[j]) +
                                           " vs. " + std::to_string(s[j]) + node_suffix(name())));
        } else {
          o[j] = 0;
        }
      }
    }
  }
};

// -- DecodeRaw ----------------------------------------------------------------------------

class DecodeRawOp : public OpKernel {
 public:
  DecodeRawOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("out_type", &out_type_);
    if (!s->ok()) return;
    bool little_endian = true;
    *s = c.get_attr("little_endian", &little_endian);
    constexpr bool host_little_endian = std::endian::native == std::endian::little;
    swap_bytes_ = host_little_endian != little_endian;
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements / 64;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const std::string* strings = input.data<std::string>();
    const Index n = input.num_elements();
    Index str_size = -1;
    for (Index i = 0; i < n; ++i) {
      const auto size = static_cast<Index>(strings[i].size());
      if (str_size == -1) {
        str_size = size;
      } else if (str_size != size) {
        return ctx.fail(invalid_argument(
            "DecodeRaw requires input strings to all be the same size, but element " +
            std::to_string(i) + " has size " + std::to_string(str_size) +
            " != " + std::to_string(size) + node_suffix(name())));
      }
    }
    std::vector<std::int64_t> out_dims(input.shape().dims().begin(), input.shape().dims().end());
    if (str_size <= 0) {  // no input, or empty strings
      out_dims.push_back(0);
      ctx.allocate_output(0, out_type_, Shape(std::move(out_dims)));
      return;
    }
    const auto element = static_cast<Index>(dtype_size(out_type_));
    if (str_size % element != 0)
      return ctx.fail(invalid_argument("Input to DecodeRaw has length " + std::to_string(str_size) +
                                       " that is not a multiple of " + std::to_string(element) +
                                       ", the size of " + std::string(data_type_string(out_type_)) +
                                       node_suffix(name())));
    out_dims.push_back(str_size / element);
    Tensor& out = ctx.allocate_output(0, out_type_, Shape(std::move(out_dims)));
    auto* bytes = static_cast<char*>(out.raw_data());
    for (Index i = 0; i < n; ++i) {
      char* dst = bytes + i * str_size;
      if (!swap_bytes_ || element == 1) {
        std::memcpy(dst, strings[i].data(), static_cast<std::size_t>(str_size));
      } else {
        // Each element's bytes reversed (each part's, of complex numbers): the data's byte
        // order is not the host's.
        const Index unit = is_complex(out_type_) ? element / 2 : element;
        for (Index p = 0; p < str_size; p += unit)
          std::reverse_copy(strings[i].data() + p, strings[i].data() + p + unit, dst + p);
      }
    }
    if (out_type_ == DType::boolean) {
      // TensorFlow copies the raw bytes into bools; any non-zero byte reads as true.
      bool* b = out.data<bool>();
      const auto* raw = reinterpret_cast<const unsigned char*>(b);
      for (Index i = 0; i < out.num_elements(); ++i) b[i] = raw[i] != 0;
    }
  }

 private:
  DType out_type_ = DType::invalid;
  bool swap_bytes_ = false;
};

}  // namespace

namespace detail {

void register_transform_encode_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<OneHotOp>("OneHot", "CPU",
                                  {{"T", kValueTypes}, {"TI", one_hot_index_types()}}));
  r.add(make_kernel_def<ConcatOffsetOp>("ConcatOffset", "CPU"));
  r.add(make_kernel_def<DecodeRawOp>("DecodeRaw", "CPU", {{"out_type", kDecodeRawTypes}}));
}

}  // namespace detail

}  // namespace af
