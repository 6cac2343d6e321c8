// SerializeSparse, SerializeManySparse, DeserializeSparse, DeserializeManySparse,
// AddSparseToTensorsMap, AddManySparseToTensorsMap and TakeManySparseFromTensorsMap: CPU
// kernels with TensorFlow's checks and messages (serialize_sparse_op.cc,
// deserialize_sparse_string_op.cc, sparse_tensors_map_ops.cc). SparseTensors serialize as
// three TensorProtos (Tensor::AsProtoTensorContent, serialize_io_proto.hpp), bit for bit
// TensorFlow's; in the variant form (out_type / Tserialized variant, what tf.data carries
// SparseTensors in) each of the three is a variant holding the tensor itself. The
// definitions are in ops/src/defs/serialize_io_ops.cpp.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "serialize_io_proto.hpp"
#include "sparse_indices.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"
#include "variant_values.hpp"

namespace af {

namespace {

using detail::FromProto;
using detail::Index;
using detail::index_values;
using detail::StatusKernel;
using detail::TensorValue;

std::string type_string(DType t) { return std::string(data_type_string(t)); }

/// Element `i` of a serialized-sparse output: the tensor's TensorProto bytes or the tensor in a
/// variant.
void put_serialized(Tensor& out, Index i, const Tensor& t) {
  if (out.dtype() == DType::variant)
    out.data<Variant>()[i] = Variant(std::make_shared<TensorValue>(t));
  else
    out.data<std::string>()[i] = detail::tensor_content_bytes(t);
}

// The three checks every serializer and map op starts with.
Status check_sparse_input_shapes(const Tensor& indices, const Tensor& values, const Tensor& shape) {
  if (indices.rank() != 2)
    return invalid_argument("Input indices should be a matrix but received shape " +
                            indices.shape().to_string());
  if (values.rank() != 1)
    return invalid_argument("Input values should be a vector but received shape " +
                            values.shape().to_string());
  if (shape.rank() != 1)
    return invalid_argument("Input shape should be a vector but received shape " +
                            shape.shape().to_string());
  return {};
}

// The entries of a batch of SparseTensors (rank > 1, indices validly ordered) split by their
// first coordinate: `visit(b, first, count)` for each non-empty batch entry b, in order.
template <class Visit>
Status for_each_batch_entry(const Tensor& indices, Index rank, Index batch, Visit&& visit) {
  const Index n = indices.shape().dim(0);
  const std::int64_t* ix = indices.data<std::int64_t>();
  for (Index first = 0; first < n;) {
    const Index b = ix[first * rank];
    Index end = first + 1;
    while (end < n && ix[end * rank] == b) ++end;
    if (b < 0 || b >= batch)
      return invalid_argument("Received unexpected column 0 value in input SparseTensor: " +
                              std::to_string(b) + " < 0 or >= N (= " + std::to_string(batch) + ")");
    ACTORFLOW_RETURN_IF_ERROR(visit(b, first, end - first));
    first = end;
  }
  return {};
}

// Entries [first, first + count) of a batch SparseTensor with the first coordinate dropped:
// indices [count, rank - 1] and values [count].
std::pair<Tensor, Tensor> batch_entry(const Tensor& indices, const Tensor& values, Index rank,
                                      Index first, Index count) {
  Tensor out_indices(DType::int64, Shape{count, rank - 1});
  Tensor out_values(values.dtype(), Shape{count});
  const std::int64_t* ix = indices.data<std::int64_t>();
  std::int64_t* oi = out_indices.data<std::int64_t>();
  for (Index i = 0; i < count; ++i)
    for (Index d = 1; d < rank; ++d) oi[i * (rank - 1) + d - 1] = ix[(first + i) * rank + d];
  detail::copy_elements(values, first, out_values, 0, count);
  return {std::move(out_indices), std::move(out_values)};
}

// TensorShape::BuildTensorShape: "Expected shape dimensions to be non-negative, got -1",
// "Encountered overflow when multiplying 4611686018427387904 with 4, result: -1".
Status build_tensor_shape(const std::vector<Index>& dims) {
  Index count = 1;
  for (Index d : dims) {
    if (d < 0)
      return invalid_argument("Expected shape dimensions to be non-negative, got " +
                              std::to_string(d));
    // MultiplyWithoutOverflow: -1 when the unsigned product wraps.
    const auto x = static_cast<std::uint64_t>(count), y = static_cast<std::uint64_t>(d);
    const std::uint64_t xy = x * y;
    const Index next = ((x | y) >> 32) != 0 && x != 0 && xy / x != y ? -1 : static_cast<Index>(xy);
    if (next < 0)
      return invalid_argument("Encountered overflow when multiplying " + std::to_string(count) +
                              " with " + std::to_string(d) + ", result: " + std::to_string(next));
    count = next;
  }
  return {};
}

// The checks SerializeManySparse and AddManySparseToTensorsMap share after the shapes': rank
// above 1, a valid dense shape, SparseTensor::Create, IndicesValid. Sets `*dims`.
Status check_batch(const Tensor& indices, const Tensor& values, const Tensor& shape,
                   std::vector<Index>* dims) {
  const Index rank = shape.num_elements();
  if (rank <= 1)
    return invalid_argument("Rank of input SparseTensor should be > 1, but saw rank: " +
                            std::to_string(rank));
  *dims = index_values(shape);
  ACTORFLOW_RETURN_IF_ERROR(build_tensor_shape(*dims));
  ACTORFLOW_RETURN_IF_ERROR(detail::sparse::create_sparse_tensor(indices, values, rank));
  return detail::sparse::indices_valid(indices.data<std::int64_t>(), indices.shape().dim(0), *dims);
}

// -- SerializeSparse, SerializeManySparse ----------------------------------------------------

// What the two serializers share: the SparseTensor of inputs 0-2, its tensors' shapes checked
// first; each runs on its own (proto encoding).
class SerializeSparseBase : public StatusKernel {
 public:
  SerializeSparseBase(OpKernelConstruction& c, Status*) : StatusKernel(c) {
    if (const DType* t = c.def.attr<DType>("out_type")) out_type_ = *t;
  }

  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(check_sparse_input_shapes(indices, values, shape));
    return serialize(ctx, indices, values, shape);
  }
  // The outputs of the checked SparseTensor.
  virtual Status serialize(OpKernelContext& ctx, const Tensor& indices, const Tensor& values,
                           const Tensor& shape) = 0;

  DType out_type_ = DType::string;  ///< string (TensorProtos) or variant (tensors)
};

// SerializeSparse(sparse_indices, sparse_values, sparse_shape): a string [3], the three
// tensors' TensorProtos.
class SerializeSparseOp : public SerializeSparseBase {
 public:
  using SerializeSparseBase::SerializeSparseBase;

 protected:
  Status serialize(OpKernelContext& ctx, const Tensor& indices, const Tensor& values,
                   const Tensor& shape) override {
    Tensor& out = ctx.allocate_output(0, out_type_, Shape{3});
    put_serialized(out, 0, indices);
    put_serialized(out, 1, values);
    put_serialized(out, 2, shape);
    return {};
  }
};

// SerializeManySparse: a string [N, 3], row b the serialized SparseTensor of batch entry b
// (indices without their first coordinate, shape sparse_shape[1:]), empty ones included.
class SerializeManySparseOp : public SerializeSparseBase {
 public:
  using SerializeSparseBase::SerializeSparseBase;

 protected:
  Status serialize(OpKernelContext& ctx, const Tensor& indices, const Tensor& values,
                   const Tensor& shape) override {
    std::vector<Index> dims;
    ACTORFLOW_RETURN_IF_ERROR(check_batch(indices, values, shape, &dims));
    const Index rank = shape.num_elements();
    const Index batch = dims[0];
    Tensor& out = ctx.allocate_output(0, out_type_, Shape{batch, 3});
    // Each row the empty SparseTensor first, then the entries there are.
    Tensor row(out_type_, Shape{3});
    put_serialized(row, 0, Tensor(DType::int64, Shape{0, rank - 1}));
    put_serialized(row, 1, Tensor(values.dtype(), Shape{0}));
    put_serialized(row, 2,
                   Tensor::from_vector(std::vector<std::int64_t>(dims.begin() + 1, dims.end())));
    for (Index b = 0; b < batch; ++b) detail::copy_elements(row, 0, out, b * 3, 3);
    return for_each_batch_entry(indices, rank, batch, [&](Index b, Index first, Index count) {
      auto [entry_indices, entry_values] = batch_entry(indices, values, rank, first, count);
      put_serialized(out, b * 3, entry_indices);
      put_serialized(out, b * 3 + 1, entry_values);
      return Status{};
    });
  }
};

// -- DeserializeSparse, DeserializeManySparse ------------------------------------------------

// DeserializeSparseOp::Deserialize: a TensorProto's tensor, or TensorFlow's message. A valid
// tensor of a dtype actorflow lacks comes back as nullopt with its TensorFlow name.
Status deserialize(const std::string& bytes, Tensor* out, std::string* unsupported) {
  tensorflow::TensorProto proto;
  if (!proto.ParseFromString(bytes)) return invalid_argument("Could not parse serialized proto");
  switch (detail::tensor_from_proto(proto, out, unsupported)) {
    case FromProto::invalid:
      return invalid_argument("Could not construct tensor from proto");
    case FromProto::unsupported:
    case FromProto::ok:
      break;
  }
  return {};
}

// One deserialized SparseTensor.
struct Parsed {
  Tensor indices, values, shape;
};

// Component `k` of serialized row `row` of `serialized` (string or variant): the tensor.
Status component(const Tensor& serialized, Index row, int k, Tensor* out,
                 std::string* unsupported) {
  const Index i = row * 3 + k;
  if (serialized.dtype() == DType::string)
    return deserialize(serialized.data<std::string>()[i], out, unsupported);
  const auto* t = serialized.data<Variant>()[i].get<TensorValue>();
  if (t == nullptr)
    return invalid_argument("Expected serialized_sparse[" + std::to_string(row) + ", " +
                            std::to_string(k) + "] to hold a Tensor but it holds " +
                            serialized.data<Variant>()[i].type_name());
  *out = t->tensor;
  return {};
}

// GetAndValidateSparseTensor: serialized SparseTensor `index` as indices [N, rank] int64,
// values [N] of `dtype`, shape [rank] int64.
Status get_and_validate(const Tensor& serialized, DType dtype, Index index, Parsed* out) {
  const std::string at = "serialized_sparse[" + std::to_string(index);
  std::string unsupported;
  ACTORFLOW_RETURN_IF_ERROR(component(serialized, index, 0, &out->indices, &unsupported));
  // TensorFlow reads indices and shape as int64 without checking (it crashes on others).
  if (!unsupported.empty() || out->indices.dtype() != DType::int64)
    return invalid_argument(
        "Expected " + at + ", 0] to hold int64 indices but it holds " +
        (unsupported.empty() ? type_string(out->indices.dtype()) : unsupported));
  if (out->indices.rank() != 2)
    return invalid_argument("Expected " + at +
                            ", 0] to represent an index matrix but received shape " +
                            out->indices.shape().to_string());
  const Index entries = out->indices.shape().dim(0);
  const Index rank = out->indices.shape().dim(1);
  ACTORFLOW_RETURN_IF_ERROR(component(serialized, index, 1, &out->values, &unsupported));
  if (!unsupported.empty())  // the shape check cannot fail before: no tensor to look at
    return invalid_argument("Requested SparseTensor of type " + type_string(dtype) +
                            " but SparseTensor[" + std::to_string(index) +
                            "].values.dtype() == " + unsupported);
  if (out->values.rank() != 1)
    return invalid_argument("Expected " + at +
                            ", 1] to represent a values vector but received shape " +
                            out->values.shape().to_string());
  if (out->values.dtype() != dtype)
    return invalid_argument("Requested SparseTensor of type " + type_string(dtype) +
                            " but SparseTensor[" + std::to_string(index) +
                            "].values.dtype() == " + type_string(out->values.dtype()));
  if (entries != out->values.shape().dim(0))
    return invalid_argument("Expected row counts of SparseTensor[" + std::to_string(index) +
                            "].indices and SparseTensor[" + std::to_string(index) +
                            "].values to match but they do not: " + std::to_string(entries) +
                            " vs. " + std::to_string(out->values.shape().dim(0)));
  ACTORFLOW_RETURN_IF_ERROR(component(serialized, index, 2, &out->shape, &unsupported));
  if (!unsupported.empty() || out->shape.dtype() != DType::int64)
    return invalid_argument("Expected " + at + ", 2] to hold an int64 shape but it holds " +
                            (unsupported.empty() ? type_string(out->shape.dtype()) : unsupported));
  // TensorFlow's message names column 1 here.
  if (out->shape.rank() != 1)
    return invalid_argument("Expected " + at + ", 1] to be a shape vector but its shape is " +
                            out->shape.shape().to_string());
  if (rank != out->shape.shape().dim(0))
    return invalid_argument("Expected column counts of SparseTensor[" + std::to_string(index) +
                            "].indices to match size of SparseTensor[" + std::to_string(index) +
                            "].shape but they do not: " + std::to_string(rank) + " vs. " +
                            std::to_string(out->shape.shape().dim(0)));
  return {};
}

// ReshapeSparseTensor of `indices` from `in_dims` to `out_dims` (as many dense elements):
// outputs 0 (indices) and 2 (shape).
Status reshape_sparse(OpKernelContext& ctx, const Tensor& indices,
                      const std::vector<Index>& in_dims, const std::vector<Index>& out_dims) {
  const Index nnz = indices.shape().dim(0);
  if (in_dims == out_dims) {
    ctx.set_output(0, indices);
    ctx.set_output(2,
                   Tensor::from_vector(std::vector<std::int64_t>(in_dims.begin(), in_dims.end())));
    return {};
  }
  const Shape in_shape(in_dims), out_shape(out_dims);
  const auto out_rank = static_cast<Index>(out_dims.size());
  Tensor& out = ctx.allocate_output(0, DType::int64, Shape{nnz, out_rank});
  ctx.set_output(2,
                 Tensor::from_vector(std::vector<std::int64_t>(out_dims.begin(), out_dims.end())));
  if (nnz == 0) return {};
  if (in_shape.num_elements() <= 0 || out_shape.num_elements() <= 0)
    return invalid_argument("Input tensor has " + std::to_string(nnz) +
                            " non zero elements but input shape (" + in_shape.to_string() +
                            ") or output shape (" + out_shape.to_string() + ") is empty");
  detail::sparse::reshape_indices(indices.data<std::int64_t>(), nnz, in_shape, out_shape,
                                  out.data<std::int64_t>());
  return {};
}

// DeserializeSparse(serialized_sparse [..., 3]) and DeserializeManySparse ([N, 3]): the
// SparseTensors concatenated along a new first dimension (reshaped to serialized's leading
// dimensions), each dimension after it the largest of theirs. A single [3] comes back as is.
class DeserializeSparseOp : public StatusKernel {
 public:
  DeserializeSparseOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }

  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    const int ndims = serialized.rank();
    if (ndims == 0)
      return invalid_argument("Serialized sparse should have non-zero rank " +
                              serialized.shape().to_string());
    if (serialized.shape().dim(ndims - 1) != 3)
      return invalid_argument("Serialized sparse should have 3 as the last dimension " +
                              serialized.shape().to_string());
    Index count = 1;
    for (int i = 0; i < ndims - 1; ++i) count *= serialized.shape().dim(i);
    if (count <= 0)
      return invalid_argument(
          "Serialized sparse should have at least 1 serialized tensor, but has a zero "
          "dimension " +
          serialized.shape().to_string());
    if (count == 1 && ndims == 1) {
      Parsed p;
      ACTORFLOW_RETURN_IF_ERROR(get_and_validate(serialized, dtype_, 0, &p));
      ctx.set_output(0, std::move(p.indices));
      ctx.set_output(1, std::move(p.values));
      ctx.set_output(2, std::move(p.shape));
      return {};
    }
    std::vector<Parsed> parsed(static_cast<std::size_t>(count));
    std::vector<Index> dims;  // [1] + the largest of each dimension
    Index total = 0;
    for (Index i = 0; i < count; ++i) {
      Parsed& p = parsed[static_cast<std::size_t>(i)];
      ACTORFLOW_RETURN_IF_ERROR(get_and_validate(serialized, dtype_, i, &p));
      const std::vector<Index> shape = index_values(p.shape);
      ACTORFLOW_RETURN_IF_ERROR(detail::sparse::build_tensor_shape(shape));
      if (i == 0) {
        dims.assign(1, 1);
        dims.insert(dims.end(), shape.begin(), shape.end());
      } else if (dims.size() != shape.size() + 1) {
        return invalid_argument(
            "Inconsistent shape across SparseTensors: rank prior to SparseTensor[" +
            std::to_string(i) + "] was: " + std::to_string(dims.size() - 1) +
            " but rank of SparseTensor[" + std::to_string(i) +
            "] is: " + std::to_string(shape.size()));
      } else {
        for (std::size_t j = 0; j < shape.size(); ++j)
          dims[j + 1] = std::max(dims[j + 1], shape[j]);
      }
      total += p.indices.shape().dim(0);
    }
    // SparseTensor::Concat along dimension 0: entry k of tensor i gets first coordinate i.
    const auto rank = static_cast<Index>(dims.size());
    Tensor indices(DType::int64, Shape{total, rank});
    Tensor& values = ctx.allocate_output(1, dtype_, Shape{total});
    std::int64_t* ix = indices.data<std::int64_t>();
    Index offset = 0;
    for (Index i = 0; i < count; ++i) {
      const Parsed& p = parsed[static_cast<std::size_t>(i)];
      const Index n = p.indices.shape().dim(0);
      const std::int64_t* in = p.indices.data<std::int64_t>();
      for (Index k = 0; k < n; ++k) {
        ix[(offset + k) * rank] = i;
        std::copy_n(in + k * (rank - 1), rank - 1, ix + (offset + k) * rank + 1);
      }
      detail::copy_elements(p.values, 0, values, offset, n);
      offset += n;
    }
    std::vector<Index> in_dims = dims;
    in_dims[0] = count;
    std::vector<Index> out_dims(serialized.shape().dims().begin(),
                                serialized.shape().dims().end() - 1);
    out_dims.insert(out_dims.end(), dims.begin() + 1, dims.end());
    return reshape_sparse(ctx, indices, in_dims, out_dims);
  }

 private:
  DType dtype_ = DType::invalid;
};

// -- the SparseTensorsMap ops ----------------------------------------------------------------

// A SparseTensorsMap: SparseTensors under int64 handles counted from 0, each taken once.
class SparseTensorsMap : public ResourceBase {
 public:
  struct Stored {
    Tensor indices, values;
    std::vector<Index> shape;
  };

  explicit SparseTensorsMap(std::string name) : name_(std::move(name)) {}

  std::string debug_string() const override { return "A SparseTensorsMap"; }

  // Stores a SparseTensor; returns its handle.
  Index add(Stored st) {
    std::lock_guard<std::mutex> lock(mu_);
    const Index handle = counter_++;
    tensors_[handle] = std::move(st);
    return handle;
  }

  // RetrieveAndClearSparseTensors: the SparseTensors of `handles`, removed from the map; the
  // first unknown handle fails (those before it stay removed).
  Status take(const std::vector<Index>& handles, std::vector<Stored>* out) {
    std::lock_guard<std::mutex> lock(mu_);
    for (Index handle : handles) {
      auto it = tensors_.find(handle);
      if (it == tensors_.end())
        return invalid_argument("Unable to find SparseTensor: " + std::to_string(handle) +
                                " in map: " + name_);
      out->push_back(std::move(it->second));
      tensors_.erase(it);
    }
    return {};
  }

 private:
  const std::string name_;
  std::mutex mu_;
  Index counter_ = 0;
  std::unordered_map<Index, Stored> tensors_;
};

// IsValidContainerName: [A-Za-z0-9.][A-Za-z0-9_.\-/]*.
bool valid_container_name(const std::string& s) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (s.empty() || !(alnum(s[0]) || s[0] == '.')) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) {
    return alnum(c) || c == '_' || c == '.' || c == '-' || c == '/';
  });
}

// SparseTensorAccessingOp: finds (writers: creates) its map in the session's resources once,
// named as ContainerInfo::Init does: `shared_name`, else the writer's node name, else (a
// reader without shared_name) a name private to the kernel.
class SparseTensorAccessingOp : public StatusKernel {
 public:
  SparseTensorAccessingOp(OpKernelConstruction& c, bool is_writing) : StatusKernel(c) {
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    if (shared_name_.empty()) {
      static std::atomic<std::int64_t> counter{0};
      shared_name_ = is_writing ? c.def.name : "_" + std::to_string(counter++) + "_" + c.def.name;
    } else if (shared_name_[0] == '_') {
      init_error_ = invalid_argument("shared_name cannot start with '_':" + shared_name_);
    }
    if (!container_.empty() && !valid_container_name(container_))
      init_error_ = invalid_argument("container contains invalid characters: " + container_);
  }

 protected:
  Status get_map(OpKernelContext& ctx, std::shared_ptr<SparseTensorsMap>* out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!map_) {
      ACTORFLOW_RETURN_IF_ERROR(init_error_);
      if (!ctx.resource_mgr) return internal("no resource manager for " + name());
      ACTORFLOW_RETURN_IF_ERROR(ctx.resource_mgr->lookup_or_create<SparseTensorsMap>(
          container_, shared_name_, &map_, [&](std::shared_ptr<SparseTensorsMap>* m) {
            *m = std::make_shared<SparseTensorsMap>(shared_name_);
            return Status{};
          }));
    }
    *out = map_;
    return {};
  }
  // The map, then check_sparse_input_shapes of the SparseTensor of inputs 0-2 (the adding
  // ops' order of checks).
  Status get_map_for_input(OpKernelContext& ctx, std::shared_ptr<SparseTensorsMap>* out) {
    ACTORFLOW_RETURN_IF_ERROR(get_map(ctx, out));
    return check_sparse_input_shapes(ctx.input(0), ctx.input(1), ctx.input(2));
  }

 private:
  std::string container_, shared_name_;
  Status init_error_;
  std::mutex mu_;
  std::shared_ptr<SparseTensorsMap> map_;
};

// AddSparseToTensorsMap(sparse_indices, sparse_values, sparse_shape): the handle (int64
// scalar) of the SparseTensor stored in the map.
class AddSparseToTensorsMapOp : public SparseTensorAccessingOp {
 public:
  explicit AddSparseToTensorsMapOp(OpKernelConstruction& c) : SparseTensorAccessingOp(c, true) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    std::shared_ptr<SparseTensorsMap> map;
    ACTORFLOW_RETURN_IF_ERROR(get_map_for_input(ctx, &map));
    std::vector<Index> dims = index_values(shape);
    ACTORFLOW_RETURN_IF_ERROR(detail::sparse::build_tensor_shape(dims));
    ACTORFLOW_RETURN_IF_ERROR(
        detail::sparse::create_sparse_tensor(indices, values, static_cast<Index>(dims.size())));
    const Index handle = map->add({indices, values, std::move(dims)});
    ctx.set_output(0, Tensor(static_cast<std::int64_t>(handle)));
    return {};
  }
};

// AddManySparseToTensorsMap: the handles (int64 [N]) of the N batch entries stored one by
// one, the non-empty ones first, in order, then the empty ones.
class AddManySparseToTensorsMapOp : public SparseTensorAccessingOp {
 public:
  explicit AddManySparseToTensorsMapOp(OpKernelConstruction& c)
      : SparseTensorAccessingOp(c, true) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    std::shared_ptr<SparseTensorsMap> map;
    ACTORFLOW_RETURN_IF_ERROR(get_map_for_input(ctx, &map));
    if (values.shape().dim(0) != indices.shape().dim(0))
      return invalid_argument("Number of values must match first dimension of indices. Got " +
                              std::to_string(values.shape().dim(0)) +
                              " values, indices shape: " + indices.shape().to_string());
    if (shape.shape().dim(0) != indices.shape().dim(1))
      return invalid_argument("Number of dimensions must match second dimension of indices. Got " +
                              std::to_string(shape.shape().dim(0)) +
                              " dimensions, indices shape: " + indices.shape().to_string());
    std::vector<Index> dims;
    ACTORFLOW_RETURN_IF_ERROR(check_batch(indices, values, shape, &dims));
    const Index rank = shape.num_elements();
    const Index batch = dims[0];
    Tensor& handles = ctx.allocate_output(0, DType::int64, Shape{batch});
    std::int64_t* out = handles.data<std::int64_t>();
    const std::vector<Index> entry_shape(dims.begin() + 1, dims.end());
    std::vector<bool> visited(static_cast<std::size_t>(batch), false);
    ACTORFLOW_RETURN_IF_ERROR(
        for_each_batch_entry(indices, rank, batch, [&](Index b, Index first, Index count) {
          auto [entry_indices, entry_values] = batch_entry(indices, values, rank, first, count);
          visited[static_cast<std::size_t>(b)] = true;
          out[b] = map->add({std::move(entry_indices), std::move(entry_values), entry_shape});
          return Status{};
        }));
    const Tensor empty_indices(DType::int64, Shape{0, rank - 1});
    const Tensor empty_values(values.dtype(), Shape{0});
    for (Index b = 0; b < batch; ++b)
      if (!visited[static_cast<std::size_t>(b)])
        out[b] = map->add({empty_indices, empty_values, entry_shape});
    return {};
  }
};

// TakeManySparseFromTensorsMap(sparse_handles): the SparseTensors of the handles, taken out of
// the map and concatenated along a new first dimension, each later dimension the largest of
// theirs.
class TakeManySparseFromTensorsMapOp : public SparseTensorAccessingOp {
 public:
  TakeManySparseFromTensorsMapOp(OpKernelConstruction& c, Status* s)
      : SparseTensorAccessingOp(c, false) {
    *s = c.get_attr("dtype", &dtype_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<SparseTensorsMap> map;
    ACTORFLOW_RETURN_IF_ERROR(get_map(ctx, &map));
    const Tensor& handles = ctx.input(0);
    if (handles.rank() != 1)
      return invalid_argument("sparse_handles should be a vector but received shape " +
                              handles.shape().to_string());
    const Index batch = handles.shape().dim(0);
    if (batch <= 0)
      return invalid_argument(
          "Must have at least 1 serialized SparseTensor, but input matrix has 0 rows");
    std::vector<SparseTensorsMap::Stored> taken;
    ACTORFLOW_RETURN_IF_ERROR(map->take(index_values(handles), &taken));
    const auto rank = static_cast<Index>(taken[0].shape.size());
    std::vector<std::int64_t> dense(static_cast<std::size_t>(rank + 1), 0);
    dense[0] = batch;
    Index total = 0;
    for (Index i = 0; i < batch; ++i) {
      const SparseTensorsMap::Stored& st = taken[static_cast<std::size_t>(i)];
      const std::string at = "SparseTensor[" + std::to_string(i) + "]";
      if (st.values.dtype() != dtype_)
        return invalid_argument("Requested SparseTensor of type " + type_string(dtype_) + " but " +
                                at + ".values.dtype() == " + type_string(st.values.dtype()));
      const Index entries = st.indices.shape().dim(0);
      if (entries != st.values.shape().dim(0))
        return invalid_argument("Expected row counts of " + at + ".indices and " + at +
                                ".values to match but they do not: " + std::to_string(entries) +
                                " vs. " + std::to_string(st.values.shape().dim(0)));
      const Index tensor_rank = st.indices.shape().dim(1);
      if (tensor_rank != static_cast<Index>(st.shape.size()))
        return invalid_argument("Expected column counts of " + at + ".indices to match size of " +
                                at + ".shape but they do not: " + std::to_string(tensor_rank) +
                                " vs. " + std::to_string(st.shape.size()));
      if (rank != tensor_rank)
        return invalid_argument("Inconsistent rank across SparseTensors: rank prior to " + at +
                                " was: " + std::to_string(rank + 1) + " but rank of " + at +
                                " is: " + std::to_string(tensor_rank + 1));
      total += entries;
      for (Index d = 0; d < rank; ++d)
        dense[static_cast<std::size_t>(d + 1)] = std::max<std::int64_t>(
            dense[static_cast<std::size_t>(d + 1)], st.shape[static_cast<std::size_t>(d)]);
    }
    Tensor& indices = ctx.allocate_output(0, DType::int64, Shape{total, rank + 1});
    Tensor& values = ctx.allocate_output(1, dtype_, Shape{total});
    ctx.set_output(2, Tensor::from_vector(dense));
    std::int64_t* ix = indices.data<std::int64_t>();
    Index offset = 0;
    for (Index i = 0; i < batch; ++i) {
      const SparseTensorsMap::Stored& st = taken[static_cast<std::size_t>(i)];
      const Index n = st.indices.shape().dim(0);
      const std::int64_t* in = st.indices.data<std::int64_t>();
      for (Index k = 0; k < n; ++k) {
        ix[(offset + k) * (rank + 1)] = i;
        std::copy_n(in + k * rank, rank, ix + (offset + k) * (rank + 1) + 1);
      }
      detail::copy_elements(st.values, 0, values, offset, n);
      offset += n;
    }
    return {};
  }

 private:
  DType dtype_ = DType::invalid;
};

}  // namespace

namespace detail {

void register_sparse_serialize_kernels(KernelRegistry& r) {
  const std::vector<DType> serialized = {DType::string, DType::variant};
  r.add(make_kernel_def<SerializeSparseOp>("SerializeSparse", "CPU",
                                           {{"T", kValueTypes}, {"out_type", serialized}}));
  r.add(make_kernel_def<SerializeManySparseOp>("SerializeManySparse", "CPU",
                                               {{"T", kValueTypes}, {"out_type", serialized}}));
  r.add(make_kernel_def<DeserializeSparseOp>(
      "DeserializeSparse", "CPU", {{"dtype", kValueTypes}, {"Tserialized", serialized}}));
  r.add(make_kernel_def<DeserializeSparseOp>("DeserializeManySparse", "CPU",
                                             {{"dtype", kValueTypes}}));
  r.add(make_kernel_def<AddSparseToTensorsMapOp>("AddSparseToTensorsMap", "CPU",
                                                 {{"T", kValueTypes}}));
  r.add(make_kernel_def<AddManySparseToTensorsMapOp>("AddManySparseToTensorsMap", "CPU",
                                                     {{"T", kValueTypes}}));
  r.add(make_kernel_def<TakeManySparseFromTensorsMapOp>("TakeManySparseFromTensorsMap", "CPU",
                                                        {{"dtype", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
