// SparseConcat, SparseSlice, SparseSliceGrad, SparseCross, SparseCrossHashed and
// SparseCrossV2: CPU kernels with TensorFlow's checks and messages (sparse_concat_op.cc,
// sparse_slice_op.cc, sparse_slice_grad_op.cc, sparse_cross_op.cc). The crosses hash as
// TensorFlow: FarmHash's Fingerprint64 (Debian's libfarmhash, farmhashna's Hash64),
// TensorFlow's FingerprintCat64 and, for SparseCrossHashed's strong_hash, SipHash-2-4
// (highwayhash's SipHash, TensorFlow's StrongKeyedHash). The definitions are in
// ops/src/defs/sparse_tensor_ops.cpp.
#include <farmhash.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;
using namespace detail::sparse;  // NOLINT: the shared sparse helpers of this family

// -- SparseConcat --------------------------------------------------------------------------

// The N SparseTensors side by side along concat_dim (each entry's coordinate there shifted by
// the sizes of the inputs before it), the result in row-major order.
class SparseConcatOp : public StatusKernel {
 public:
  SparseConcatOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("concat_dim", &concat_dim_attr_);
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs() / 3;
    auto indices = [&](int i) -> const Tensor& { return ctx.input(i); };
    auto values = [&](int i) -> const Tensor& { return ctx.input(n + i); };
    auto shapes = [&](int i) -> const Tensor& { return ctx.input(2 * n + i); };
    for (int i = 0; i < n; ++i)
      if (indices(i).rank() != 2)
        return invalid_argument("Input indices should be a matrix but received shape " +
                                indices(i).shape().to_string() + " at position " +
                                std::to_string(i));
    for (int i = 0; i < n; ++i)
      if (values(i).rank() != 1)
        return invalid_argument("Input values should be a vector but received shape " +
                                values(i).shape().to_string() + " at position " +
                                std::to_string(i));
    for (int i = 0; i < n; ++i)
      if (shapes(i).rank() != 1)
        return invalid_argument("Input shapes should be a vector but received shape " +
                                shapes(i).shape().to_string() + " at position " +
                                std::to_string(i));
    std::vector<Index> out_dims = detail::index_values(shapes(0));
    ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(out_dims));
    const auto rank = static_cast<Index>(out_dims.size());
    const Index concat_dim = concat_dim_attr_ < 0 ? rank + concat_dim_attr_ : concat_dim_attr_;
    if (concat_dim < 0 || concat_dim >= rank)
      return invalid_argument("Concat dimension must be in range [" + std::to_string(-rank) + ", " +
                              std::to_string(rank) + "), got " + std::to_string(concat_dim_attr_));
    std::vector<Index> offsets(static_cast<std::size_t>(n), 0);
    for (int i = 1; i < n; ++i) {
      const std::vector<Index> current = detail::index_values(shapes(i));
      ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(current));
      if (static_cast<Index>(current.size()) != rank)
        return invalid_argument(
            "Ranks of all input tensors must match: expected " + std::to_string(rank) +
            " but got " + std::to_string(current.size()) + " at position " + std::to_string(i));
      for (Index j = 0; j < rank; ++j)
        if (j != concat_dim &&
            current[static_cast<std::size_t>(j)] != out_dims[static_cast<std::size_t>(j)])
          return invalid_argument("Input shapes must match: expected " +
                                  std::to_string(out_dims[static_cast<std::size_t>(j)]) +
                                  " for dimension " + std::to_string(j) + " but got " +
                                  std::to_string(current[static_cast<std::size_t>(j)]) +
                                  " at position " + std::to_string(i));
      offsets[static_cast<std::size_t>(i)] = out_dims[static_cast<std::size_t>(concat_dim)];
      out_dims[static_cast<std::size_t>(concat_dim)] +=
          current[static_cast<std::size_t>(concat_dim)];
    }
    Index total = 0;
    for (int i = 0; i < n; ++i) {
      ACTORFLOW_RETURN_IF_ERROR(create_sparse_tensor(indices(i), values(i), rank));
      total += indices(i).shape().dim(0);
    }
    // The inputs' entries one after another, shifted; then sorted (SparseTensor::Reorder).
    Tensor all_indices(DType::int64, Shape{total, rank});
    Tensor all_values(values(0).dtype(), Shape{total});
    Index at = 0;
    for (int i = 0; i < n; ++i) {
      const Index nnz = indices(i).shape().dim(0);
      std::int64_t* dst = all_indices.data<std::int64_t>() + at * rank;
      std::copy_n(indices(i).data<std::int64_t>(), nnz * rank, dst);
      for (Index k = 0; k < nnz; ++k)
        dst[k * rank + concat_dim] += offsets[static_cast<std::size_t>(i)];
      detail::copy_elements(values(i), 0, all_values, at, nnz);
      at += nnz;
    }
    const std::vector<Index> order =
        sorted_order(all_indices.data<std::int64_t>(), total, rank, standard_dims(rank));
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{total, rank});
    Tensor& out_values = ctx.allocate_output(1, all_values.dtype(), Shape{total});
    gather_entries(all_indices, all_values, order, out_indices, out_values);
    Tensor& out_shape = ctx.allocate_output(2, DType::int64, Shape{rank});
    std::copy(out_dims.begin(), out_dims.end(), out_shape.data<std::int64_t>());
    return {};
  }

  Index concat_dim_attr_ = 0;
};

// -- SparseSlice and SparseSliceGrad -------------------------------------------------------

// The entries with start <= index < start + size in every dimension, shifted by -start, in
// their input order; the dense shape clipped to the input's.
class SparseSliceOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    const Tensor& start_t = ctx.input(3);
    const Tensor& size_t_ = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(validate_sparse_tensor(indices, values, shape, false));
    const Index rank = shape.num_elements();
    if (start_t.rank() != 1)
      return invalid_argument("Input start should be a vector but received shape " +
                              start_t.shape().to_string());
    if (size_t_.rank() != 1)
      return invalid_argument("Input size should be a vector but received shape " +
                              size_t_.shape().to_string());
    if (start_t.num_elements() != rank)
      return invalid_argument("Expected start to be a vector of length " + std::to_string(rank) +
                              " but got length " + std::to_string(start_t.num_elements()));
    if (size_t_.num_elements() != rank)
      return invalid_argument("Expected size to be a vector of length " + std::to_string(rank) +
                              " but got length " + std::to_string(size_t_.num_elements()));
    const std::vector<Index> dims = detail::index_values(shape);
    ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(dims));
    const std::vector<Index> start = detail::index_values(start_t);
    const std::vector<Index> size = detail::index_values(size_t_);
    for (Index s : size)
      if (s < 0) return invalid_argument("Expected a non-negative size, got " + std::to_string(s));
    std::vector<Index> out_dims(static_cast<std::size_t>(rank));
    for (std::size_t d = 0; d < out_dims.size(); ++d) {
      const Index dim_size = start[d] + size[d] < dims[d] ? size[d] : dims[d] - start[d];
      out_dims[d] = std::max<Index>(dim_size, 0);
    }
    const Index nnz = indices.shape().dim(0);
    const std::int64_t* ix = indices.data<std::int64_t>();
    std::vector<Index> kept;
    for (Index i = 0; i < nnz; ++i) {
      bool hit = true;
      for (Index d = 0; d < rank && hit; ++d) {
        const Index x = ix[i * rank + d];
        hit = x >= start[static_cast<std::size_t>(d)] &&
              x < start[static_cast<std::size_t>(d)] + size[static_cast<std::size_t>(d)];
      }
      if (hit) kept.push_back(i);
    }
    const auto n = static_cast<Index>(kept.size());
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{n, rank});
    Tensor& out_values = ctx.allocate_output(1, values.dtype(), Shape{n});
    gather_entries(indices, values, kept, out_indices, out_values);
    std::int64_t* oi = out_indices.data<std::int64_t>();
    for (Index k = 0; k < n; ++k)
      for (Index d = 0; d < rank; ++d) oi[k * rank + d] -= start[static_cast<std::size_t>(d)];
    Tensor& out_shape = ctx.allocate_output(2, DType::int64, Shape{rank});
    std::copy(out_dims.begin(), out_dims.end(), out_shape.data<std::int64_t>());
    return {};
  }
};

// The input values' gradient: each input entry the slice kept gets its output entry's
// gradient (matched in order), the others zero.
template <class T>
class SparseSliceGradOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grad = ctx.input(0);
    const Tensor& input_indices = ctx.input(1);
    const Tensor& input_start = ctx.input(2);
    const Tensor& output_indices = ctx.input(3);
    if (input_indices.rank() != 2 || output_indices.rank() != 2)
      return invalid_argument(
          "Input and output indices should be matrices but received "
          "shapes: " +
          input_indices.shape().to_string() + " and " + output_indices.shape().to_string());
    if (grad.rank() != 1)
      return invalid_argument("Input backprop_val_grad should be a vector but received shape: " +
                              grad.shape().to_string());
    const Index dims = input_indices.shape().dim(1);
    if (output_indices.shape().dim(1) != dims)
      return invalid_argument(
          "The input and output should have the same ndims: got: " + std::to_string(dims) +
          " and " + std::to_string(output_indices.shape().dim(1)));
    const Index input_nnz = input_indices.shape().dim(0);
    const Index output_nnz = output_indices.shape().dim(0);
    if (output_nnz > input_nnz)
      return invalid_argument(
          "# rows of output_indices should be not greater than of input_indices, got " +
          std::to_string(output_nnz) + " and " + std::to_string(input_nnz));
    if (grad.num_elements() != output_nnz)
      return invalid_argument(
          "# elements of backprop_val_grad and # rows of output_indices should match (#nnz of "
          "sum): got " +
          std::to_string(grad.num_elements()) + " and " + std::to_string(output_nnz));
    if (input_start.rank() != 1 || input_start.num_elements() != dims)
      return invalid_argument("Expected input_start to be a vector of length " +
                              std::to_string(dims) + " but got length " +
                              std::to_string(input_start.num_elements()));
    const std::vector<Index> start = detail::index_values(input_start);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{input_nnz});
    const std::int64_t* in = input_indices.data<std::int64_t>();
    const std::int64_t* on = output_indices.data<std::int64_t>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    Index j = 0;
    for (Index i = 0; i < input_nnz && j < output_nnz; ++i) {
      bool same = true;
      for (Index d = 0; d < dims && same; ++d)
        same = in[i * dims + d] == on[j * dims + d] + start[static_cast<std::size_t>(d)];
      if (same) o[i] = g[j++];
    }
    if (j != output_nnz)
      return internal("Elements of backprop_val_grad aren't all propagated. Num elements:" +
                      std::to_string(output_nnz) + ", used: " + std::to_string(j));
    return {};
  }
};

// -- the crosses ---------------------------------------------------------------------------

// TensorFlow's FingerprintCat64 (platform/fingerprint.h).
std::uint64_t shift_mix(std::uint64_t v) { return v ^ (v >> 47); }
std::uint64_t fingerprint_cat64(std::uint64_t fp1, std::uint64_t fp2) {
  constexpr std::uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  std::uint64_t result = fp1 ^ kMul;
  result ^= shift_mix(fp2 * kMul) * kMul;
  result *= kMul;
  result = shift_mix(result) * kMul;
  return shift_mix(result);
}

std::uint64_t fingerprint64(const void* data, std::size_t size) {
  return util::Fingerprint64(static_cast<const char*>(data), size);
}

// SipHash-2-4 of `data` under the key (k0, k1): highwayhash's SipHash, TensorFlow's
// StrongKeyedHash.
std::uint64_t sip_hash(std::uint64_t k0, std::uint64_t k1, const char* data, std::size_t size) {
  std::uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
  std::uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
  auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  auto compress = [&](std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t m = 0;
    for (int b = 0; b < 8; ++b)
      m |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[i + b])) << (8 * b);
    compress(m);
  }
  std::uint64_t last = static_cast<std::uint64_t>(size & 0xff) << 56;
  for (std::size_t b = 0; i + b < size; ++b)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[i + b])) << (8 * b);
  compress(last);
  v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// One input of a cross: the features of each batch row of a SparseTensor (the run of its
// index rows with that row number, as ExtractFeatureData counts them) or of a dense matrix.
struct CrossColumn {
  const Tensor* values = nullptr;
  bool dense = false;
  std::vector<Index> counts, starts;

  Index count(Index batch) const {
    return dense ? values->shape().dim(1) : counts[static_cast<std::size_t>(batch)];
  }
  Index at(Index batch, Index n) const {
    return dense ? batch * values->shape().dim(1) + n : starts[static_cast<std::size_t>(batch)] + n;
  }
  bool is_string() const { return values->dtype() == DType::string; }
  const std::string& str(Index batch, Index n) const {
    return values->data<std::string>()[at(batch, n)];
  }
  std::int64_t int64(Index batch, Index n) const {
    return values->data<std::int64_t>()[at(batch, n)];
  }
  // SparseCross's string features: the string, or the integer in decimal.
  std::string as_string(Index batch, Index n) const {
    return is_string() ? str(batch, n) : std::to_string(int64(batch, n));
  }
  // SparseCross's hashed features (HashCrosser): Fingerprint64 of a string, an integer as is.
  std::uint64_t as_hash(Index batch, Index n) const {
    if (is_string()) return fingerprint64(str(batch, n).data(), str(batch, n).size());
    return static_cast<std::uint64_t>(int64(batch, n));
  }
  // SparseCrossHashed's keyed features: SipHash of the string or, as TensorFlow, of the
  // integer's first sizeof(DataType) = 4 bytes; without strong_hash Fingerprint64 of those,
  // but a dense integer as is.
  std::uint64_t keyed_hash(Index batch, Index n, bool strong, const std::uint64_t key[2]) const {
    if (is_string()) {
      const std::string& s = str(batch, n);
      return strong ? sip_hash(key[0], key[1], s.data(), s.size())
                    : fingerprint64(s.data(), s.size());
    }
    const std::int64_t v = int64(batch, n);
    char bytes[8];
    std::memcpy(bytes, &v, sizeof v);
    if (strong) return sip_hash(key[0], key[1], bytes, 4);
    if (dense) return static_cast<std::uint64_t>(v);
    return fingerprint64(bytes, 4);
  }
};

enum class CrossKind { strings, hashed, keyed };

// SparseCross, SparseCrossHashed and SparseCrossV2: for each batch row, every combination of
// one feature per column (the last column varying fastest), as a string joined by the
// separator or a hash, at [row, k].
class SparseCrossOp : public StatusKernel {
 public:
  SparseCrossOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    const std::string& op = c.def.op;
    *s = c.get_attr("N", &n_);
    if (op == "SparseCross") {
      DType out_type = DType::string;
      if (s->ok()) *s = c.get_attr("out_type", &out_type);
      if (s->ok()) *s = c.get_attr("internal_type", &internal_type_);
      if (s->ok()) *s = c.get_attr("num_buckets", &num_buckets_);
      std::int64_t hash_key = 0;
      if (s->ok()) *s = c.get_attr("hash_key", &hash_key);
      hash_key_ = static_cast<std::uint64_t>(hash_key);
      kind_ = out_type == DType::int64 ? CrossKind::hashed : CrossKind::strings;
      check_type_ = true;
    } else {
      kind_ = op == "SparseCrossHashed" ? CrossKind::keyed : CrossKind::strings;
      trailing_ = op == "SparseCrossHashed" ? 3 : 1;
    }
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const int n = static_cast<int>(n_);
    const int num_dense = ctx.num_inputs() - 3 * n - trailing_;
    auto indices = [&](int i) -> const Tensor& { return ctx.input(i); };
    auto values = [&](int i) -> const Tensor& { return ctx.input(n + i); };
    auto shapes = [&](int i) -> const Tensor& { return ctx.input(2 * n + i); };
    auto dense = [&](int i) -> const Tensor& { return ctx.input(3 * n + i); };
    const bool internal_string = check_type_ && internal_type_ == DType::string;
    // ValidateInput, in its order.
    for (int i = 0; i < n; ++i) {
      if (indices(i).rank() != 2)
        return invalid_argument("Input indices should be a matrix but received shape " +
                                indices(i).shape().to_string() + " at position " +
                                std::to_string(i));
      if (indices(i).shape().dim(1) != 2)
        return invalid_argument("Expected D2 of index to be 2 got " +
                                std::to_string(indices(i).shape().dim(1)) + " at position " +
                                std::to_string(i));
    }
    for (int i = 0; i < n; ++i) {
      if (internal_string && values(i).dtype() == DType::int64)
        return invalid_argument("Input values should be of internal type 7 but received 9");
      if (values(i).rank() != 1)
        return invalid_argument("Input values should be a vector but received shape " +
                                values(i).shape().to_string() + " at position " +
                                std::to_string(i));
      if (indices(i).shape().dim(0) != values(i).shape().dim(0))
        return invalid_argument(
            "Expected size of values to be " + std::to_string(indices(i).shape().dim(0)) + " got " +
            std::to_string(values(i).shape().dim(0)) + " at position " + std::to_string(i));
    }
    for (int i = 0; i < n; ++i) {
      if (shapes(i).rank() != 1)
        return invalid_argument("Input shapes should be a vector but received shape " +
                                shapes(i).shape().to_string() + " at position " +
                                std::to_string(i));
      if (shapes(i).num_elements() != 2)
        return invalid_argument("shape should imply a 2D tensor, but got " +
                                shapes(i).shape().to_string() + " at position " +
                                std::to_string(i));
    }
    for (int i = 0; i < num_dense; ++i) {
      if (internal_string && dense(i).dtype() == DType::int64)
        return invalid_argument("Dense inputs should be of internal type 7 but received 9");
      if (dense(i).rank() != 2)
        return invalid_argument("Dense inputs should be a matrix but received shape " +
                                dense(i).shape().to_string() + " at position " + std::to_string(i));
    }
    const Index batch_size = n > 0           ? shapes(0).data<std::int64_t>()[0]
                             : num_dense > 0 ? dense(0).shape().dim(0)
                                             : 0;
    for (int i = 0; i < n; ++i)
      if (shapes(i).data<std::int64_t>()[0] != batch_size)
        return invalid_argument("Expected batch size " + std::to_string(batch_size) + " got " +
                                std::to_string(shapes(i).data<std::int64_t>()[0]) +
                                " at position " + std::to_string(i));
    for (int i = 0; i < num_dense; ++i)
      if (dense(i).shape().dim(0) != batch_size)
        return invalid_argument("Expected batch size " + std::to_string(batch_size) + " got " +
                                std::to_string(dense(i).shape().dim(0)) + " at dense tensor " +
                                std::to_string(i));
    std::string separator = "_X_";
    std::uint64_t key[2] = {0, 0};
    bool strong = false;
    Index num_buckets = num_buckets_;
    if (kind_ == CrossKind::keyed) {
      const int base = 3 * n + num_dense;
      num_buckets = ctx.input(base).data<std::int64_t>()[0];
      strong = ctx.input(base + 1).data<bool>()[0];
      const Tensor& salt = ctx.input(base + 2);
      if (salt.num_elements() != 2)
        return invalid_argument("Input \"salt\" must have length 2 but has length " +
                                std::to_string(salt.num_elements()));
      key[0] = static_cast<std::uint64_t>(salt.data<std::int64_t>()[0]);
      key[1] = static_cast<std::uint64_t>(salt.data<std::int64_t>()[1]);
    } else if (trailing_ == 1) {
      const Tensor& sep = ctx.input(3 * n + num_dense);
      if (sep.rank() != 0) {
        // Tensor::DebugString: "Tensor<type: string shape: [1] values: a>".
        std::string shown;
        for (Index i = 0; i < std::min<Index>(sep.num_elements(), 3); ++i)
          shown += (i ? " " : "") + sep.data<std::string>()[i];
        if (sep.num_elements() > 3) shown += "...";
        return invalid_argument(
            "Input separator should be a scalar. Received: Tensor<type: "
            "string shape: " +
            sep.shape().to_string() + " values: " + shown + ">");
      }
      separator = sep.data<std::string>()[0];
    }
    // The columns: the sparse inputs' features per batch row, then the dense inputs.
    std::vector<CrossColumn> columns(static_cast<std::size_t>(n + num_dense));
    for (int i = 0; i < n; ++i) {
      CrossColumn& c = columns[static_cast<std::size_t>(i)];
      c.values = &values(i);
      const std::int64_t* ix = indices(i).data<std::int64_t>();
      const Index rows = indices(i).shape().dim(0);
      Index row = 0;
      for (Index b = 0; b < batch_size; ++b) {
        c.starts.push_back(row);
        Index count = 0;
        while (row < rows && ix[row * 2] == b) ++count, ++row;
        c.counts.push_back(count);
      }
    }
    for (int i = 0; i < num_dense; ++i) {
      columns[static_cast<std::size_t>(n + i)].values = &dense(i);
      columns[static_cast<std::size_t>(n + i)].dense = true;
    }
    std::vector<Index> out_start(static_cast<std::size_t>(batch_size));
    Index total = 0, max_count = 0;
    for (Index b = 0; b < batch_size; ++b) {
      out_start[static_cast<std::size_t>(b)] = total;
      Index count = 1;
      for (const auto& c : columns) count *= c.count(b);
      max_count = std::max(max_count, count);
      total += count;
    }
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{total, 2});
    const bool hashed = kind_ != CrossKind::strings;
    Tensor& out_values =
        ctx.allocate_output(1, hashed ? DType::int64 : DType::string, Shape{total});
    Tensor& out_shape = ctx.allocate_output(2, DType::int64, Shape{2});
    out_shape.data<std::int64_t>()[0] = batch_size;
    out_shape.data<std::int64_t>()[1] = max_count;
    if (columns.empty()) return {};
    std::vector<Index> pick(columns.size());
    for (Index b = 0; b < batch_size; ++b) {
      bool has_next = true;
      for (const auto& c : columns) has_next = has_next && c.count(b) > 0;
      std::fill(pick.begin(), pick.end(), 0);
      for (Index k = 0; has_next; ++k) {
        const Index at = out_start[static_cast<std::size_t>(b)] + k;
        out_indices.data<std::int64_t>()[at * 2] = b;
        out_indices.data<std::int64_t>()[at * 2 + 1] = k;
        if (hashed)
          out_values.data<std::int64_t>()[at] =
              hash_cross(columns, b, pick, num_buckets, strong, key);
        else
          out_values.data<std::string>()[at] = string_cross(columns, b, pick, separator);
        // The next combination, the last column fastest.
        bool carry = true;
        for (std::size_t i = pick.size(); carry && i-- > 0;) {
          if (++pick[i] == columns[i].count(b))
            pick[i] = 0;
          else
            carry = false;
        }
        has_next = !carry;
      }
    }
    return {};
  }

  static std::string string_cross(const std::vector<CrossColumn>& columns, Index b,
                                  const std::vector<Index>& pick, const std::string& sep) {
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i)
      out += (i ? sep : std::string()) + columns[i].as_string(b, pick[i]);
    return out;
  }

  std::int64_t hash_cross(const std::vector<CrossColumn>& columns, Index b,
                          const std::vector<Index>& pick, Index num_buckets, bool strong,
                          const std::uint64_t key[2]) const {
    std::uint64_t hashed = 0;
    if (kind_ == CrossKind::hashed) {
      // HashCrosser: the key, then each feature's hash folded in.
      hashed = hash_key_;
      for (std::size_t i = 0; i < columns.size(); ++i)
        hashed = fingerprint_cat64(hashed, columns[i].as_hash(b, pick[i]));
    } else {
      // HashCrosserV2: the first feature's hash, then the others folded in.
      hashed = columns[0].keyed_hash(b, pick[0], strong, key);
      for (std::size_t i = 1; i < columns.size(); ++i)
        hashed = fingerprint_cat64(hashed, columns[i].keyed_hash(b, pick[i], strong, key));
    }
    const auto modulus = num_buckets > 0
                             ? static_cast<std::uint64_t>(num_buckets)
                             : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return static_cast<std::int64_t>(hashed % modulus);
  }

  std::int64_t n_ = 0;
  CrossKind kind_ = CrossKind::strings;
  int trailing_ = 0;  // inputs after dense_inputs: SparseCrossV2's sep, SparseCrossHashed's 3
  bool check_type_ = false;
  DType internal_type_ = DType::string;
  Index num_buckets_ = 0;
  std::uint64_t hash_key_ = 0;
};

}  // namespace

namespace detail {

void register_sparse_concat_cross_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SparseConcatOp>("SparseConcat", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<SparseSliceOp>("SparseSlice", "CPU", {{"T", kValueTypes}}));
  register_for_list<SparseSliceGradOp>(r, "SparseSliceGrad", NumberTypes{});
  for (const char* type : {"SparseCross", "SparseCrossHashed", "SparseCrossV2"})
    r.add(make_kernel_def<SparseCrossOp>(type, "CPU"));
}

}  // namespace detail

}  // namespace af
