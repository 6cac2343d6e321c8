#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/shape.hpp"

namespace af {

/// A resource (resource.hpp).
class ResourceBase;

/// An n-dimensional array of one dtype (TensorFlow's `Tensor`).
///
/// Copies share the buffer (reference counted, like TensorFlow's tensors); kernels produce
/// new tensors instead of writing into inputs. Numeric data is contiguous, row-major and
/// 64-byte aligned; string tensors hold `std::string` elements. A default-constructed
/// tensor is uninitialized (`dtype() == DType::invalid`).
class Tensor {
 public:
  // -- constructors -----------------------------------------------------------

  /// An uninitialized tensor.
  Tensor() = default;

  /// A zero-filled tensor (empty strings for `string`) of `dtype` and `shape`. Throws
  /// InvalidArgumentError for a negative dimension.
  Tensor(DType dtype, Shape shape);

  /// Tag of the constructor below.
  struct ForOverwrite {};
  /// The tag value: `Tensor(dtype, shape, Tensor::for_overwrite)`.
  static constexpr ForOverwrite for_overwrite{};
  /// A tensor of `dtype` and `shape` whose bytes are not set (strings are still empty): for
  /// code that writes every element, as `std::make_unique_for_overwrite`.
  Tensor(DType dtype, Shape shape, ForOverwrite);

  /// Scalars of the matching dtype (float32, float64, int32, int64, bool, bfloat16, string).
  Tensor(float v);         // NOLINT(google-explicit-constructor)
  Tensor(double v);        // NOLINT
  Tensor(std::int32_t v);  // NOLINT
  Tensor(std::int64_t v);  // NOLINT
  Tensor(bool v);          // NOLINT
  Tensor(bfloat16_t v);    // NOLINT
  Tensor(std::string v);   // NOLINT
  Tensor(const char* v);   // NOLINT

  /// A tensor of `shape` holding `values` in row-major order (shape defaults to a vector).
  /// Throws InvalidArgumentError when the element count does not match the shape.
  template <class T>
  static Tensor from_vector(const std::vector<T>& values, std::optional<Shape> shape = {});

  /// A numeric tensor over `buffer`, which holds at least `total_bytes()` bytes and is
  /// released through its deleter when the last tensor sharing it goes (an allocator's
  /// block). The contents are whatever the buffer holds. `on_device` marks accelerator
  /// memory the host cannot read: `data()`, `flat()`, printing and `deep_copy` then throw
  /// InternalError, and only device kernels and copies touch `raw_data()`. Throws
  /// InvalidArgumentError for string, resource or invalid dtypes.
  static Tensor from_buffer(DType dtype, Shape shape, std::shared_ptr<void> buffer, bool on_device);

  /// A tensor holding a reference to a resource (variables, queues); internal.
  static Tensor from_resource(std::shared_ptr<ResourceBase> resource);

  /// The value of a dead output: what the untaken output of a `Switch` carries, and every
  /// output of a node with a dead input (TensorFlow's `is_dead`). It has no dtype, shape or
  /// elements (`is_initialized()` is false); executors propagate it instead of running
  /// kernels, and `_Send`/`_Recv` carry it across devices and tasks.
  static Tensor dead() noexcept {
    Tensor t;
    t.dead_ = true;
    return t;
  }

  // -- observers --------------------------------------------------------------

  /// False for a default-constructed tensor.
  bool is_initialized() const noexcept { return dtype_ != DType::invalid; }
  /// True when the elements live in device (GPU) memory; see `from_buffer`.
  bool on_device() const noexcept { return on_device_; }
  /// True for `Tensor::dead()`.
  bool is_dead() const noexcept { return dead_; }
  /// The element dtype (`DType::invalid` when uninitialized).
  DType dtype() const noexcept { return dtype_; }
  /// The shape.
  const Shape& shape() const noexcept { return shape_; }
  /// The number of dimensions.
  int rank() const noexcept { return shape_.rank(); }
  /// The product of the dimensions (1 for a scalar).
  std::int64_t num_elements() const noexcept { return shape_.num_elements(); }
  /// Bytes of numeric data (0 for strings and resources).
  std::size_t total_bytes() const noexcept;

  /// Typed pointer to the elements. Throws InvalidArgumentError on a dtype mismatch.
  template <class T>
  T* data() {
    check_type(dtype_of_v<T>);
    return static_cast<T*>(raw_data());
  }
  /// As above, read-only.
  template <class T>
  const T* data() const {
    check_type(dtype_of_v<T>);
    return static_cast<const T*>(raw_data());
  }

  /// The elements as a span.
  template <class T>
  std::span<T> flat() {
    return {data<T>(), static_cast<std::size_t>(num_elements())};
  }
  /// As above, read-only.
  template <class T>
  std::span<const T> flat() const {
    return {data<T>(), static_cast<std::size_t>(num_elements())};
  }

  /// The single element of a one-element tensor. Throws InvalidArgumentError when the
  /// dtype differs or the tensor does not hold exactly one element.
  template <class T>
  T scalar() const {
    if (num_elements() != 1)
      throw InvalidArgumentError(af::invalid_argument(
          "scalar() on a tensor of shape " + shape_.to_string() + " (expected one element)"));
    return data<T>()[0];
  }

  /// The elements copied into a vector.
  template <class T>
  std::vector<T> to_vector() const {
    auto f = flat<T>();
    return {f.begin(), f.end()};
  }

  /// The untyped buffer (null when uninitialized; `std::string*` for strings).
  void* raw_data() noexcept { return buf_.get(); }
  /// As above, read-only.
  const void* raw_data() const noexcept { return buf_.get(); }

  /// Whether this tensor holds the only reference to its buffer: no other tensor, view or
  /// slice shares it, so a kernel that owns this tensor (a variable's value, under the
  /// variable's lock) may write the elements in place without another reader seeing them.
  bool sole_owner() const noexcept { return buf_ != nullptr && buf_.use_count() == 1; }

  /// The resource of a resource tensor, or null.
  std::shared_ptr<ResourceBase> resource() const;

  // -- derived tensors --------------------------------------------------------

  /// A tensor sharing this buffer with another shape of the same element count.
  /// Throws InvalidArgumentError otherwise.
  Tensor reshaped(Shape shape) const;

  /// The `index`-th sub-tensor along dimension 0, sharing the buffer (a view). Throws
  /// InvalidArgumentError for a scalar or an index out of range.
  Tensor slice(std::int64_t index) const;

  /// Rows `[begin, end)` along dimension 0, sharing the buffer (a view). Throws
  /// InvalidArgumentError unless `0 <= begin <= end <= dim(0)`.
  Tensor slice_rows(std::int64_t begin, std::int64_t end) const;

  /// A copy with a buffer of its own (uninitialized and resource tensors are returned as
  /// they are). Throws InternalError for a tensor in device memory.
  Tensor deep_copy() const;

  /// True when both tensors view the same buffer.
  bool shares_buffer_with(const Tensor& other) const noexcept { return buf_ == other.buf_; }

  // -- printing ---------------------------------------------------------------

  /// Renders the values as NumPy prints an array (`12.0`, `[1. 2.5]`, `[[1 2]\n [3 4]]`).
  std::string to_string() const;

  /// Renders dtype, shape and values: `Tensor<float32, [2]>: [1. 2.]`.
  std::string debug_string() const;

  /// Element-wise equality of dtype, shape and values (NaN != NaN).
  friend bool operator==(const Tensor& a, const Tensor& b);

 private:
  void check_type(DType expected) const;
  void allocate(bool zero = true);

  DType dtype_ = DType::invalid;
  Shape shape_;
  // Numeric: aligned bytes; string: std::string[num_elements]; resource: ResourceBase.
  // Views alias the owner through shared_ptr's aliasing constructor.
  std::shared_ptr<void> buf_;
  bool on_device_ = false;
  bool dead_ = false;
};

/// Prints `t.to_string()` (the values only).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

template <class T>
Tensor Tensor::from_vector(const std::vector<T>& values, std::optional<Shape> shape) {
  using E = std::conditional_t<std::is_same_v<T, const char*>, std::string, T>;
  Shape s = shape ? *shape : Shape{static_cast<std::int64_t>(values.size())};
  if (s.num_elements() != static_cast<std::int64_t>(values.size()))
    throw InvalidArgumentError(
        af::invalid_argument("from_vector: " + std::to_string(values.size()) +
                             " values do not fill shape " + s.to_string()));
  Tensor t(dtype_of_v<E>, s);
  E* out = t.data<E>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = E(values[i]);
  return t;
}

}  // namespace af
