// TensorArrayV3 and its ops (Write, Read, Gather, Scatter, Concat, Split, Size, Close, Grad):
// CPU kernels, as TensorFlow's tensor_array.h and tensor_array_ops.cc. A TensorArrayV3 makes
// a new array each time it runs (once per step); its handle is a resource tensor that keeps
// the array alive until the step's last user lets go, and its flow output is a float scalar
// whose only role is to order the ops that use the array. The gradient arrays of an array
// (TensorArrayGradV3, one per `source`, "gradients", "gradients_1", ...) live inside it.
// Definitions and the graph API: ops/src/defs/tensor_array_ops.cpp.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::copy_elements;
using detail::Index;
using detail::StatusKernel;

/// TensorFlow's PartialTensorShape::DebugString: "[2,?]", "<unknown>".
std::string shape_string(const PartialShape& s) {
  if (!s.rank_known()) return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    out += s.dim(i) < 0 ? "?" : std::to_string(s.dim(i));
  }
  return out + "]";
}

std::string dtype_string(DType t) { return std::string(data_type_string(t)); }

/// Attr `name` into `*out` when the node has it (else `*out` keeps its default, TensorFlow's
/// op default); InvalidArgument into `*s` when it has another type.
template <class T>
void optional_attr(const OpKernelConstruction& c, const std::string& name, T* out, Status* s) {
  if (!c.def.attrs.count(name)) return;
  if (const T* v = c.def.attr<T>(name)) {
    *out = *v;
  } else if (s->ok()) {
    *s = invalid_argument("Attr '" + name + "' of node '" + c.def.name + "' has the wrong type");
  }
}

/// `*sum = a + b` element-wise (TensorFlow's tensor_array::AddToTensor), for the number types.
Status add_into(Tensor* sum, const Tensor& a, const Tensor& b) {
  const Index n = a.num_elements();
  auto add = [&](auto zero) {
    using T = decltype(zero);
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* out = sum->data<T>();
    for (Index i = 0; i < n; ++i) out[i] = T(x[i] + y[i]);
  };
  switch (a.dtype()) {
    case DType::float32:
      add(float{});
      break;
    case DType::float64:
      add(double{});
      break;
    case DType::int32:
      add(std::int32_t{});
      break;
    case DType::int64:
      add(std::int64_t{});
      break;
    case DType::uint8:
      add(std::uint8_t{});
      break;
    case DType::bfloat16: {
      const bfloat16_t* x = a.data<bfloat16_t>();
      const bfloat16_t* y = b.data<bfloat16_t>();
      bfloat16_t* out = sum->data<bfloat16_t>();
      for (Index i = 0; i < n; ++i) out[i] = bfloat16_t(float(x[i]) + float(y[i]));
      break;
    }
    default:
      return invalid_argument("tensor_array::AddToTensor type not supported: " +
                              dtype_string(a.dtype()));
  }
  return {};
}

/// An array of tensors (TensorFlow's TensorArray resource); thread-safe. Each index is
/// written once (a gradient array sums further writes) and read any number of times unless
/// `clear_after_read`.
class TensorArray final : public ResourceBase {
 public:
  struct Config {
    std::string name;  ///< the handle's name: "<tensor_array_name>_<counter>", "<name>@<source>"
    DType dtype = DType::invalid;
    std::int32_t size = 0;
    PartialShape element_shape;
    bool identical_element_shapes = false;
    bool dynamic_size = false;
    bool multiple_writes_aggregate = false;
    bool is_grad = false;
    std::int32_t marked_size = -1;
    bool clear_after_read = true;
  };

  explicit TensorArray(Config c)
      : name_(std::move(c.name)),
        dtype_(c.dtype),
        dynamic_size_(c.dynamic_size),
        multiple_writes_aggregate_(c.multiple_writes_aggregate),
        clear_after_read_(c.clear_after_read),
        is_grad_(c.is_grad),
        marked_size_(c.marked_size),
        element_shape_(std::move(c.element_shape)),
        identical_element_shapes_(c.identical_element_shapes),
        tensors_(static_cast<std::size_t>(c.size)) {}

  std::string debug_string() const override {
    std::lock_guard<std::mutex> guard(mu_);
    return "TensorArray[" + std::to_string(tensors_.size()) + "]";
  }

  const std::string& name() const noexcept { return name_; }
  DType dtype() const noexcept { return dtype_; }

  Status write_many(const std::vector<std::int32_t>& indices, const std::vector<Tensor>& values) {
    std::lock_guard<std::mutex> guard(mu_);
    for (std::size_t i = 0; i < indices.size(); ++i)
      ACTORFLOW_RETURN_IF_ERROR(locked_write(indices[i], values[i]));
    return {};
  }

  Status read_many(const std::vector<std::int32_t>& indices, std::vector<Tensor>* values) {
    std::lock_guard<std::mutex> guard(mu_);
    values->assign(indices.size(), Tensor());
    for (std::size_t i = 0; i < indices.size(); ++i)
      ACTORFLOW_RETURN_IF_ERROR(locked_read(indices[i], &(*values)[i]));
    return {};
  }

  PartialShape element_shape() const {
    std::lock_guard<std::mutex> guard(mu_);
    return element_shape_;
  }

  Status set_element_shape(const PartialShape& candidate) {
    std::lock_guard<std::mutex> guard(mu_);
    PartialShape merged;
    ACTORFLOW_RETURN_IF_ERROR(element_shape_.merge_with(candidate, &merged));
    element_shape_ = std::move(merged);
    return {};
  }

  Status size(std::int32_t* out) const {
    std::lock_guard<std::mutex> guard(mu_);
    ACTORFLOW_RETURN_IF_ERROR(return_if_closed());
    *out = static_cast<std::int32_t>(tensors_.size());
    return {};
  }

  /// Records the size after a split (or a legacy unpack); a gradient array keeps its own.
  Status set_marked_size(std::int32_t size) {
    std::lock_guard<std::mutex> guard(mu_);
    ACTORFLOW_RETURN_IF_ERROR(return_if_closed());
    if (!is_grad_) marked_size_ = size;
    return {};
  }

  /// The number of elements Concat joins: a gradient array's marked size, else its size.
  Status pack_or_concat_size(std::int32_t* out) const {
    std::lock_guard<std::mutex> guard(mu_);
    ACTORFLOW_RETURN_IF_ERROR(return_if_closed());
    if (is_grad_ && marked_size_ < 0)
      return invalid_argument("TensorArray " + name_ +
                              ": a gradient array concatenates only when its forward array "
                              "was split");
    *out = is_grad_ ? marked_size_ : static_cast<std::int32_t>(tensors_.size());
    return {};
  }

  bool has_dynamic_size() const {
    std::lock_guard<std::mutex> guard(mu_);
    return dynamic_size_;
  }

  void close() {
    std::lock_guard<std::mutex> guard(mu_);
    tensors_.clear();
    closed_ = true;
  }

  /// TensorArrayGradV3: the gradient array of `source`, created on first use with this
  /// array's size, dtype and element shapes (whose unwritten entries read as zeros). Once
  /// gradients are computed, this array no longer grows.
  Status gradient(const std::string& source, const Shape* shape_to_prepend,
                  std::shared_ptr<TensorArray>* out) {
    std::lock_guard<std::mutex> guard(mu_);
    dynamic_size_ = false;
    ACTORFLOW_RETURN_IF_ERROR(return_if_closed());
    if (gradients_disallowed_)
      return invalid_argument("Unable to create a gradients TensorArray for " + name_ +
                              ".  Perhaps you used the multiple_writes_aggregate flag on a "
                              "previous write?  Gradient calculation is impossible when "
                              "multiple writes are performed to the same index.");
    auto it = grads_.find(source);
    if (it != grads_.end()) {
      *out = it->second;
      return {};
    }
    Config c;
    c.name = name_ + "@" + source;
    c.dtype = dtype_;
    c.size = static_cast<std::int32_t>(tensors_.size());
    c.element_shape = element_shape_;
    if (shape_to_prepend != nullptr) {
      if (element_shape_.rank_known()) {
        std::vector<std::int64_t> dims = shape_to_prepend->dims();
        for (auto d : element_shape_.dims()) dims.push_back(d);
        c.element_shape = PartialShape(std::move(dims));
      } else {
        c.element_shape = PartialShape::unknown();
      }
    }
    c.identical_element_shapes = identical_element_shapes_;
    c.multiple_writes_aggregate = true;
    c.is_grad = true;
    c.marked_size = marked_size_;
    c.clear_after_read = true;
    auto grad = std::make_shared<TensorArray>(std::move(c));
    // CopyShapesFrom: the written entries' shapes, so that unwritten gradients read as zeros.
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
      if (!tensors_[i].written) continue;
      std::vector<std::int64_t> dims;
      if (shape_to_prepend != nullptr) dims = shape_to_prepend->dims();
      for (auto d : tensors_[i].shape.dims()) dims.push_back(d);
      grad->tensors_[i].shape = Shape(std::move(dims));
      grad->tensors_[i].written = true;
    }
    grads_.emplace(source, grad);
    *out = std::move(grad);
    return {};
  }

 private:
  struct Entry {
    Tensor tensor;
    Shape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
    bool local_copy = false;
  };

  Status return_if_closed() const {
    if (closed_) return invalid_argument("TensorArray " + name_ + " has already been closed.");
    return {};
  }

  std::string prefix() const { return "TensorArray " + name_ + ": "; }

  Status locked_write(std::int32_t index, const Tensor& value) {
    ACTORFLOW_RETURN_IF_ERROR(return_if_closed());
    if (index < 0 || (!dynamic_size_ && static_cast<std::size_t>(index) >= tensors_.size()))
      return invalid_argument(
          prefix() + "Tried to write to index " + std::to_string(index) +
          " but array is not resizeable and size is: " + std::to_string(tensors_.size()));
    if (dynamic_size_ && static_cast<std::size_t>(index) >= tensors_.size())
      tensors_.resize(static_cast<std::size_t>(index) + 1);
    Entry& t = tensors_[static_cast<std::size_t>(index)];
    const std::string at = "Could not write to TensorArray index " + std::to_string(index);
    if (value.dtype() != dtype_)
      return invalid_argument(prefix() + at + " because the value dtype is " +
                              dtype_string(value.dtype()) + " but TensorArray dtype is " +
                              dtype_string(dtype_) + ".");
    if (!element_shape_.is_compatible_with(value.shape()))
      return invalid_argument(
          prefix() + at + " because the value shape is " + value.shape().to_string() +
          " which is incompatible with the TensorArray's inferred element "
          "shape: " +
          shape_string(element_shape_) + " (consider setting infer_shape=False).");
    if (identical_element_shapes_ && !element_shape_.fully_defined())
      element_shape_ = PartialShape(value.shape());
    if (t.read) return invalid_argument(prefix() + at + " because it has already been read.");
    if (!multiple_writes_aggregate_ && t.written)
      return invalid_argument(prefix() + at + " because it has already been written to.");
    if (!t.written) {
      t.tensor = value;
      t.shape = value.shape();
      t.written = true;
      return {};
    }
    // A gradient array sums the writes to one index (one per read of it in the forward pass).
    if (value.shape() != t.shape)
      return invalid_argument(prefix() + "Could not aggregate to TensorArray index " +
                              std::to_string(index) + " because the existing shape is " +
                              t.shape.to_string() + " but the new input shape is " +
                              value.shape().to_string() + ".");
    if (!t.tensor.is_initialized() || t.tensor.num_elements() == 0) {
      t.tensor = value;  // only a shape was stored: zeros
      return {};
    }
    Tensor sum = t.local_copy ? t.tensor : Tensor(dtype_, t.shape, Tensor::for_overwrite);
    ACTORFLOW_RETURN_IF_ERROR(add_into(&sum, t.tensor, value));
    t.tensor = std::move(sum);
    t.local_copy = true;
    gradients_disallowed_ = true;
    return {};
  }

  Status locked_read(std::int32_t index, Tensor* value) {
    ACTORFLOW_RETURN_IF_ERROR(return_if_closed());
    const auto i = static_cast<std::size_t>(index);
    if (index < 0 || (!is_grad_ && i >= tensors_.size()))
      return invalid_argument("Tried to read from index " + std::to_string(index) +
                              " but array size is: " + std::to_string(tensors_.size()));
    if ((is_grad_ && (i >= tensors_.size() || !tensors_[i].written)) ||
        (!is_grad_ && !tensors_[i].written)) {
      // An entry never written reads as zeros of a known shape: the gradient of an element
      // the forward pass did not use.
      Shape shape;
      if (is_grad_ && i < tensors_.size() && tensors_[i].shape.rank() > 0) {
        shape = tensors_[i].shape;
      } else if (!element_shape_.fully_defined()) {
        return invalid_argument(
            prefix() + "Could not read from TensorArray index " + std::to_string(index) +
            ".  Furthermore, the element shape is not fully defined: " +
            shape_string(element_shape_) +
            ".  It is possible you are working with a resizeable TensorArray and "
            "stop_gradients is not allowing the gradients to be written.  If you set the full "
            "element_shape property on the forward TensorArray, the proper all-zeros tensor "
            "will be returned instead of incurring this error.");
      } else {
        shape = *element_shape_.to_shape();
      }
      if (i >= tensors_.size()) {
        const std::size_t old = tensors_.size();
        tensors_.resize(i + 1);
        for (std::size_t k = old; k <= i; ++k) {
          tensors_[k].shape = shape;
          tensors_[k].written = true;
        }
      } else {
        tensors_[i].shape = shape;
        tensors_[i].written = true;
      }
    }
    Entry& t = tensors_[i];
    if (t.cleared)
      return invalid_argument(prefix() + "Could not read index " + std::to_string(index) +
                              " twice because it was cleared after a previous read (perhaps "
                              "try setting clear_after_read = false?).");
    if (!t.tensor.is_initialized() || t.tensor.num_elements() == 0)
      t.tensor = Tensor(dtype_, t.shape);  // zeros
    *value = t.tensor;
    if (clear_after_read_) {
      t.tensor = Tensor();
      t.cleared = true;
    }
    t.read = true;
    return {};
  }

  const std::string name_;
  const DType dtype_;
  mutable std::mutex mu_;
  bool closed_ = false;
  bool dynamic_size_;
  const bool multiple_writes_aggregate_;
  bool gradients_disallowed_ = false;
  const bool clear_after_read_;
  const bool is_grad_;
  std::int32_t marked_size_;
  PartialShape element_shape_;
  const bool identical_element_shapes_;
  std::vector<Entry> tensors_;
  std::map<std::string, std::shared_ptr<TensorArray>> grads_;
};

/// The array behind input 0, or InvalidArgument.
Status array_of(OpKernelContext& ctx, TensorArray** out) {
  const Tensor& h = ctx.input(0);
  *out = dynamic_cast<TensorArray*>(h.dtype() == DType::resource ? h.resource().get() : nullptr);
  if (*out == nullptr)
    return invalid_argument("Input 0 of " + ctx.def().name + " is not a TensorArray handle");
  return {};
}

/// The int32 vector of input `i` (TensorArray indices).
Status index_vector(const Tensor& t, std::vector<std::int32_t>* out) {
  if (t.rank() != 1)
    return invalid_argument("Expected indices to be a vector, but received shape: " +
                            t.shape().to_string());
  const auto* p = t.data<std::int32_t>();
  out->assign(p, p + t.num_elements());
  return {};
}

Status scalar_index(const Tensor& t, std::int32_t* out) {
  if (t.rank() != 0)
    return invalid_argument("TensorArray index must be scalar, but had shape: " +
                            t.shape().to_string());
  *out = t.scalar<std::int32_t>();
  return {};
}

Status check_requested(const TensorArray& ta, DType requested) {
  if (requested != ta.dtype())
    return invalid_argument("TensorArray dtype is " + dtype_string(ta.dtype()) +
                            " but Op requested dtype " + dtype_string(requested) + ".");
  return {};
}

Status check_written(const TensorArray& ta, DType written) {
  if (written != ta.dtype())
    return invalid_argument("TensorArray dtype is " + dtype_string(ta.dtype()) +
                            " but Op is trying to write dtype " + dtype_string(written) + ".");
  return {};
}

/// The flow output: a float scalar 0 (its value never matters).
void set_flow(OpKernelContext& ctx, int i) { ctx.allocate_output(i, DType::float32, Shape{}); }

// -- TensorArrayV3 -------------------------------------------------------------------------

class TensorArrayOp : public StatusKernel {
 public:
  TensorArrayOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    if (s->ok() && (dtype_ == DType::resource || dtype_ == DType::invalid))
      *s = invalid_argument("TensorArray " + c.def.name + " cannot hold elements of dtype " +
                            dtype_string(dtype_));
    optional_attr(c, "element_shape", &element_shape_, s);
    optional_attr(c, "dynamic_size", &dynamic_size_, s);
    optional_attr(c, "identical_element_shapes", &identical_, s);
    optional_attr(c, "clear_after_read", &clear_after_read_, s);
    optional_attr(c, "tensor_array_name", &tensor_array_name_, s);
    if (tensor_array_name_.empty()) tensor_array_name_ = c.def.name;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& size = ctx.input(0);
    if (size.rank() != 0)
      return invalid_argument("TensorArray size must be scalar, but had shape: " +
                              size.shape().to_string());
    const std::int32_t n = size.scalar<std::int32_t>();
    if (n < 0) return invalid_argument("Size should be >= 0.");
    // As TensorFlow, every array's name is made unique by a counter.
    static std::atomic<std::int64_t> counter{0};
    TensorArray::Config c;
    c.name = tensor_array_name_ + "_" + std::to_string(counter.fetch_add(1));
    c.dtype = dtype_;
    c.size = n;
    c.element_shape = element_shape_;
    c.identical_element_shapes = identical_;
    c.dynamic_size = dynamic_size_;
    c.clear_after_read = clear_after_read_;
    ctx.set_output(0, Tensor::from_resource(std::make_shared<TensorArray>(std::move(c))));
    set_flow(ctx, 1);
    return {};
  }

 private:
  DType dtype_ = DType::invalid;
  PartialShape element_shape_;
  bool dynamic_size_ = false;
  bool identical_ = false;
  bool clear_after_read_ = true;
  std::string tensor_array_name_;
};

// -- TensorArrayGradV3, TensorArrayGradWithShape ---------------------------------------------

class TensorArrayGradOp : public StatusKernel {
 public:
  TensorArrayGradOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("source", &source_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    std::optional<Shape> prepend;
    if (ctx.num_inputs() > 2) {
      const Tensor& s = ctx.input(2);
      if (s.rank() != 1)
        return invalid_argument("shape_to_prepend must be a vector, but had shape: " +
                                s.shape().to_string());
      std::vector<std::int64_t> dims(static_cast<std::size_t>(s.num_elements()));
      std::int64_t elements = 1;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        dims[i] = s.dtype() == DType::int64 ? s.data<std::int64_t>()[i] : s.data<std::int32_t>()[i];
        if (dims[i] < 0 || (dims[i] > 0 && elements > (std::int64_t{1} << 40) / dims[i]))
          return invalid_argument("shape_to_prepend " + s.debug_string() + " is not a valid shape");
        elements *= std::max<std::int64_t>(dims[i], 1);
      }
      prepend = Shape(std::move(dims));
    }
    std::shared_ptr<TensorArray> grad;
    ACTORFLOW_RETURN_IF_ERROR(ta->gradient(source_, prepend ? &*prepend : nullptr, &grad));
    ctx.set_output(0, Tensor::from_resource(std::move(grad)));
    set_flow(ctx, 1);
    return {};
  }

 private:
  std::string source_;
};

// -- TensorArrayWriteV3, TensorArrayReadV3 --------------------------------------------------

class TensorArrayWriteOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::int32_t index = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_index(ctx.input(1), &index));
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    ACTORFLOW_RETURN_IF_ERROR(check_written(*ta, ctx.input(2).dtype()));
    ACTORFLOW_RETURN_IF_ERROR(ta->write_many({index}, {ctx.input(2)}));
    ctx.set_output(0, ctx.input(3));
    return {};
  }
};

class TensorArrayReadOp : public StatusKernel {
 public:
  TensorArrayReadOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::int32_t index = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_index(ctx.input(1), &index));
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    ACTORFLOW_RETURN_IF_ERROR(check_requested(*ta, dtype_));
    std::vector<Tensor> values;
    ACTORFLOW_RETURN_IF_ERROR(ta->read_many({index}, &values));
    ctx.set_output(0, std::move(values[0]));
    return {};
  }

 private:
  DType dtype_ = DType::invalid;
};

// -- TensorArrayGatherV3, TensorArrayConcatV3 ------------------------------------------------

class TensorArrayGatherOp : public StatusKernel {
 public:
  TensorArrayGatherOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    optional_attr(c, "element_shape", &element_shape_, s);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    ACTORFLOW_RETURN_IF_ERROR(check_requested(*ta, dtype_));
    ACTORFLOW_RETURN_IF_ERROR(ta->set_element_shape(element_shape_));
    std::vector<std::int32_t> indices;
    ACTORFLOW_RETURN_IF_ERROR(index_vector(ctx.input(1), &indices));
    if (indices.empty()) {
      if (!element_shape_.fully_defined())
        return unimplemented("TensorArray has size zero, but element shape " +
                             shape_string(element_shape_) +
                             " is not fully defined. Currently only static shapes are "
                             "supported when packing zero-size TensorArrays.");
      std::vector<std::int64_t> dims = element_shape_.dims();
      dims.insert(dims.begin(), 0);
      ctx.allocate_output(0, dtype_, Shape(std::move(dims)));
      return {};
    }
    std::vector<Tensor> values;
    ACTORFLOW_RETURN_IF_ERROR(ta->read_many(indices, &values));
    const Shape& first = values[0].shape();
    if (!element_shape_.is_compatible_with(first))
      return invalid_argument("TensorArray was passed element_shape " +
                              shape_string(element_shape_) +
                              " which does not match the Tensor at index 0: " + first.to_string());
    for (std::size_t i = 1; i < values.size(); ++i)
      if (values[i].shape() != first)
        return invalid_argument(
            "TensorArray has inconsistent shapes.  Index 0 has shape: " + first.to_string() +
            " but index " + std::to_string(i) + " has shape: " + values[i].shape().to_string());
    std::vector<std::int64_t> dims = first.dims();
    dims.insert(dims.begin(), static_cast<std::int64_t>(values.size()));
    Tensor& out = ctx.allocate_output_for_overwrite(0, dtype_, Shape(std::move(dims)));
    const Index each = first.num_elements();
    for (std::size_t i = 0; i < values.size(); ++i)
      copy_elements(values[i], 0, out, static_cast<Index>(i) * each, each);
    return {};
  }

 private:
  DType dtype_ = DType::invalid;
  PartialShape element_shape_;
};

class TensorArrayConcatOp : public StatusKernel {
 public:
  TensorArrayConcatOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    optional_attr(c, "element_shape_except0", &except0_, s);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    ACTORFLOW_RETURN_IF_ERROR(check_requested(*ta, dtype_));
    std::int32_t n = 0;
    ACTORFLOW_RETURN_IF_ERROR(ta->pack_or_concat_size(&n));
    if (n <= 0) {
      if (!except0_.fully_defined())
        return unimplemented("TensorArray has size zero, but element_shape_except0 " +
                             shape_string(except0_) +
                             " is not fully defined. Currently only static shapes are "
                             "supported when concatenating zero-size TensorArrays.");
      std::vector<std::int64_t> dims = except0_.dims();
      dims.insert(dims.begin(), 0);
      ctx.allocate_output(0, dtype_, Shape(std::move(dims)));
      ctx.allocate_output(1, DType::int64, Shape{0});
      return {};
    }
    std::vector<std::int32_t> indices(static_cast<std::size_t>(n));
    std::iota(indices.begin(), indices.end(), 0);
    std::vector<Tensor> values;
    ACTORFLOW_RETURN_IF_ERROR(ta->read_many(indices, &values));
    Tensor& lengths = ctx.allocate_output(1, DType::int64, Shape{static_cast<std::int64_t>(n)});
    std::vector<std::int64_t> except0;
    std::int64_t rows = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const Shape& s = values[i].shape();
      if (s.rank() < 1)
        return invalid_argument("Concat saw a scalar shape at index " + std::to_string(i) +
                                " but requires at least vectors.  Did you mean to call pack?");
      lengths.data<std::int64_t>()[i] = s.dim(0);
      std::vector<std::int64_t> rest(s.dims().begin() + 1, s.dims().end());
      if (i == 0) {
        except0 = rest;
        if (!except0_.is_compatible_with(PartialShape(rest)))
          return invalid_argument(
              "TensorArray was passed element_shape_except0 " + shape_string(except0_) +
              " but index 0 has (excepting dimension 0) shape: " + Shape(rest).to_string() +
              " which does not match.");
      } else if (rest != except0) {
        return invalid_argument(
            "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: " +
            Shape(except0).to_string() + " but index " + std::to_string(i) +
            " has (excepting dimension 0) shape: " + Shape(rest).to_string());
      }
      rows += s.dim(0);
    }
    std::vector<std::int64_t> dims = except0;
    dims.insert(dims.begin(), rows);
    Tensor& out = ctx.allocate_output_for_overwrite(0, dtype_, Shape(std::move(dims)));
    Index at = 0;
    for (const Tensor& v : values) {
      copy_elements(v, 0, out, at, v.num_elements());
      at += v.num_elements();
    }
    return {};
  }

 private:
  DType dtype_ = DType::invalid;
  PartialShape except0_;
};

// -- TensorArrayScatterV3, TensorArraySplitV3 ------------------------------------------------

/// Rows `[begin, begin + count)` of `value` as a tensor of `shape` with a buffer of its own.
Tensor rows_of(const Tensor& value, Index begin, Index count, Index row_elements, Shape shape) {
  Tensor t(value.dtype(), std::move(shape), Tensor::for_overwrite);
  copy_elements(value, begin * row_elements, t, 0, count * row_elements);
  return t;
}

class TensorArrayScatterOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    const Tensor& value = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(check_written(*ta, value.dtype()));
    if (value.rank() < 1)
      return invalid_argument(
          "Input value for unpack must be at least a vector but received "
          "shape: " +
          value.shape().to_string());
    std::int32_t size = 0;
    ACTORFLOW_RETURN_IF_ERROR(ta->size(&size));
    std::vector<std::int32_t> indices;
    ACTORFLOW_RETURN_IF_ERROR(index_vector(ctx.input(1), &indices));
    const std::int64_t n = value.shape().dim(0);
    if (static_cast<std::int64_t>(indices.size()) != n)
      return invalid_argument("Expected len(indices) == values.shape[0], but saw: " +
                              std::to_string(indices.size()) + " vs. " + std::to_string(n));
    const std::int64_t max_index =
        indices.empty() ? -1 : *std::max_element(indices.begin(), indices.end());
    if (ta->has_dynamic_size() && size < max_index + 1)
      size = static_cast<std::int32_t>(max_index + 1);
    if (max_index >= size)
      return invalid_argument("Max scatter index must be < array size (" +
                              std::to_string(max_index) + " vs. " + std::to_string(size) + ")");
    Shape element(
        std::vector<std::int64_t>(value.shape().dims().begin() + 1, value.shape().dims().end()));
    const Index each = element.num_elements();
    std::vector<Tensor> rows;
    rows.reserve(indices.size());
    for (std::int64_t i = 0; i < n; ++i) rows.push_back(rows_of(value, i, 1, each, element));
    ACTORFLOW_RETURN_IF_ERROR(ta->write_many(indices, rows));
    ctx.set_output(0, ctx.input(3));
    return {};
  }
};

class TensorArraySplitOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    const Tensor& value = ctx.input(1);
    const Tensor& lengths = ctx.input(2);
    if (lengths.rank() != 1)
      return invalid_argument("Expected lengths to be a vector, received shape: " +
                              lengths.shape().to_string());
    const auto n = static_cast<std::int32_t>(lengths.num_elements());
    const std::int64_t* len = lengths.data<std::int64_t>();
    if (value.rank() < 1)
      return invalid_argument("Expected value to be at least a vector, but received shape: " +
                              value.shape().to_string());
    std::int64_t total = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      if (len[i] < 0)
        return invalid_argument("Expected lengths to be non-negative, but lengths[" +
                                std::to_string(i) + "] is " + std::to_string(len[i]));
      if (len[i] > value.shape().dim(0) - total)  // more rows than value has; no overflow
        return invalid_argument(
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
            "larger and value's shape is: " +
            value.shape().to_string());
      total += len[i];
    }
    if (total != value.shape().dim(0))
      return invalid_argument(
          "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is " +
          std::to_string(total) + " and value's shape is: " + value.shape().to_string());
    const Index per_row = total == 0 ? 0 : value.num_elements() / total;
    std::int32_t size = 0;
    ACTORFLOW_RETURN_IF_ERROR(ta->size(&size));
    if (ta->has_dynamic_size() && size < n) size = n;
    if (size != n)
      return invalid_argument("TensorArray's size is not equal to the size of lengths (" +
                              std::to_string(size) + " vs. " + std::to_string(n) +
                              "), and the TensorArray is not marked as dynamically resizeable");
    ACTORFLOW_RETURN_IF_ERROR(check_written(*ta, value.dtype()));
    std::vector<Tensor> pieces;
    std::vector<std::int32_t> indices(static_cast<std::size_t>(n));
    std::iota(indices.begin(), indices.end(), 0);
    Index row = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      std::vector<std::int64_t> dims = value.shape().dims();
      dims[0] = len[i];
      pieces.push_back(rows_of(value, row, len[i], per_row, Shape(std::move(dims))));
      row += len[i];
    }
    ACTORFLOW_RETURN_IF_ERROR(ta->set_marked_size(size));
    ACTORFLOW_RETURN_IF_ERROR(ta->write_many(indices, pieces));
    ctx.set_output(0, ctx.input(3));
    return {};
  }
};

// -- TensorArraySizeV3, TensorArrayCloseV3 ---------------------------------------------------

class TensorArraySizeOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    std::int32_t n = 0;
    ACTORFLOW_RETURN_IF_ERROR(ta->size(&n));
    ctx.set_output(0, Tensor(n));
    return {};
  }
};

class TensorArrayCloseOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    TensorArray* ta = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(array_of(ctx, &ta));
    ta->close();
    return {};
  }
};

}  // namespace

namespace detail {

void register_tensor_array_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<TensorArrayOp>("TensorArrayV3", "CPU"));
  r.add(make_kernel_def<TensorArrayGradOp>("TensorArrayGradV3", "CPU"));
  r.add(make_kernel_def<TensorArrayGradOp>("TensorArrayGradWithShape", "CPU"));
  r.add(make_kernel_def<TensorArrayWriteOp>("TensorArrayWriteV3", "CPU"));
  r.add(make_kernel_def<TensorArrayReadOp>("TensorArrayReadV3", "CPU"));
  r.add(make_kernel_def<TensorArrayGatherOp>("TensorArrayGatherV3", "CPU"));
  r.add(make_kernel_def<TensorArrayConcatOp>("TensorArrayConcatV3", "CPU"));
  r.add(make_kernel_def<TensorArrayScatterOp>("TensorArrayScatterV3", "CPU"));
  r.add(make_kernel_def<TensorArraySplitOp>("TensorArraySplitV3", "CPU"));
  r.add(make_kernel_def<TensorArraySizeOp>("TensorArraySizeV3", "CPU"));
  r.add(make_kernel_def<TensorArrayCloseOp>("TensorArrayCloseV3", "CPU"));
}

}  // namespace detail

}  // namespace af
