#include "actorflow/ops/tensor.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/variant.hpp"
#include "large_buffers.hpp"

namespace af {

namespace {

constexpr std::size_t kAlignment = 64;
/// Room for the shared_ptr control block at the front of a tensor's chunk.
constexpr std::size_t kHeadRoom = 64;

/// Hands the front of one malloc'd chunk to shared_ptr for its control block and frees the
/// chunk with it: a tensor's bytes and their reference counts are one allocation, from
/// malloc's per-thread cache (aligned allocations bypass it and lock the arena every time).
template <class T>
struct ChunkAllocator {
  using value_type = T;
  void* chunk;
  explicit ChunkAllocator(void* c) noexcept : chunk(c) {}
  template <class U>
  ChunkAllocator(const ChunkAllocator<U>& other) noexcept
      : chunk(other.chunk) {}  // NOLINT: rebinding
  T* allocate(std::size_t n) {
    static_assert(sizeof(T) <= kHeadRoom && alignof(T) <= alignof(std::max_align_t),
                  "shared_ptr's control block must fit in the chunk's head room");
    if (n != 1) throw std::bad_alloc();
    return static_cast<T*>(chunk);
  }
  void deallocate(T*, std::size_t) noexcept { std::free(chunk); }
  template <class U>
  bool operator==(const ChunkAllocator<U>& other) const noexcept {
    return chunk == other.chunk;
  }
};

std::shared_ptr<void> allocate_bytes(std::size_t bytes, bool zero) {
  if (bytes >= detail::kLargeBufferBytes) {
    auto large = detail::allocate_large(bytes, zero);
    if (large == nullptr) throw std::bad_alloc();
    return large;
  }
  std::size_t rounded = ((bytes + kAlignment - 1) / kAlignment) * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  // malloc aligns to 16: up to kAlignment - 16 bytes go to lining the data up.
  void* chunk = std::malloc(kHeadRoom + kAlignment - alignof(std::max_align_t) + rounded);
  if (chunk == nullptr) throw std::bad_alloc();
  auto start = reinterpret_cast<std::uintptr_t>(chunk) + kHeadRoom;
  void* data = reinterpret_cast<void*>((start + kAlignment - 1) & ~(kAlignment - 1));
  if (zero) std::memset(data, 0, rounded);
  // The deleter does nothing: the bytes go when the control block's allocator frees the chunk.
  return {data, [](void*) {}, ChunkAllocator<char>(chunk)};
}

// An array of n default-constructed elements (strings, variants); at least one, so that an
// empty tensor still has a buffer.
template <class T>
std::shared_ptr<void> allocate_elements(std::int64_t n) {
  auto* arr = new T[static_cast<std::size_t>(n > 0 ? n : 1)];
  return {static_cast<void*>(arr), [](void* q) { delete[] static_cast<T*>(q); }};
}

}  // namespace

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  for (auto d : shape_.dims())
    if (d < 0)
      throw InvalidArgumentError(
          af::invalid_argument("Tensor shape " + shape_.to_string() + " has a negative dimension"));
  allocate();
}

Tensor::Tensor(DType dtype, Shape shape, ForOverwrite) : dtype_(dtype), shape_(std::move(shape)) {
  for (auto d : shape_.dims())
    if (d < 0)
      throw InvalidArgumentError(
          af::invalid_argument("Tensor shape " + shape_.to_string() + " has a negative dimension"));
  allocate(false);
}

void Tensor::allocate(bool zero) {
  if (dtype_ == DType::string) {
    buf_ = allocate_elements<std::string>(num_elements());
  } else if (dtype_ == DType::variant) {
    buf_ = allocate_elements<Variant>(num_elements());
  } else if (dtype_ == DType::resource || dtype_ == DType::invalid) {
    throw InvalidArgumentError(af::invalid_argument(
        std::string("cannot allocate a tensor of dtype ") + std::string(dtype_name(dtype_))));
  } else {
    try {
      buf_ = allocate_bytes(static_cast<std::size_t>(num_elements()) * dtype_size(dtype_), zero);
    } catch (const std::bad_alloc&) {
      // TensorFlow's text; the executor adds the node, and so the variable, it ran for.
      throw ResourceExhaustedError(resource_exhausted("OOM when allocating tensor with shape" +
                                                      shape_.to_string() + " and type " +
                                                      std::string(data_type_string(dtype_))));
    }
  }
}

#define ACTORFLOW_SCALAR_CTOR(Type)                   \
  Tensor::Tensor(Type v) : dtype_(dtype_of_v<Type>) { \
    allocate();                                       \
    *static_cast<Type*>(buf_.get()) = v;              \
  }
ACTORFLOW_SCALAR_CTOR(float)
ACTORFLOW_SCALAR_CTOR(double)
ACTORFLOW_SCALAR_CTOR(std::int32_t)
ACTORFLOW_SCALAR_CTOR(std::int64_t)
ACTORFLOW_SCALAR_CTOR(bool)
ACTORFLOW_SCALAR_CTOR(bfloat16_t)
#undef ACTORFLOW_SCALAR_CTOR

Tensor::Tensor(std::string v) : dtype_(DType::string) {
  allocate();
  *static_cast<std::string*>(buf_.get()) = std::move(v);
}

Tensor::Tensor(const char* v) : Tensor(std::string(v)) {}

Tensor Tensor::from_buffer(DType dtype, Shape shape, std::shared_ptr<void> buffer, bool on_device) {
  if (dtype == DType::string || dtype == DType::resource || dtype == DType::variant ||
      dtype == DType::invalid)
    throw InvalidArgumentError(af::invalid_argument(
        std::string("from_buffer: dtype ") + std::string(dtype_name(dtype)) + " is not numeric"));
  if (!buffer && shape.num_elements() > 0)
    throw InvalidArgumentError(
        af::invalid_argument("from_buffer: no buffer for shape " + shape.to_string()));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buf_ = std::move(buffer);
  t.on_device_ = on_device;
  return t;
}

Tensor Tensor::from_resource(std::shared_ptr<ResourceBase> resource) {
  Tensor t;
  t.dtype_ = DType::resource;
  t.buf_ = std::move(resource);
  return t;
}

std::shared_ptr<ResourceBase> Tensor::resource() const {
  if (dtype_ != DType::resource) return nullptr;
  return std::static_pointer_cast<ResourceBase>(buf_);
}

std::size_t Tensor::total_bytes() const noexcept {
  return static_cast<std::size_t>(num_elements()) * dtype_size(dtype_);
}

void Tensor::check_type(DType expected) const {
  if (on_device_)
    throw InternalError(af::internal(
        "tensor of shape " + shape_.to_string() +
        " lives in device memory; the host reads it only after a device-to-host copy"));
  if (expected != dtype_)
    throw InvalidArgumentError(
        af::invalid_argument(std::string("tensor has dtype ") + std::string(dtype_name(dtype_)) +
                             ", accessed as " + std::string(dtype_name(expected))));
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape.num_elements() != num_elements())
    throw InvalidArgumentError(af::invalid_argument(
        "Cannot reshape a tensor with " + std::to_string(num_elements()) + " elements to shape " +
        shape.to_string() + " (" + std::to_string(shape.num_elements()) + " elements)"));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::slice_rows(std::int64_t begin, std::int64_t end) const {
  if (rank() < 1 || begin < 0 || end < begin || end > shape_.dim(0))
    throw InvalidArgumentError(
        af::invalid_argument("slice_rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                             ") out of range for shape " + shape_.to_string()));
  Tensor t;
  t.dtype_ = dtype_;
  t.on_device_ = on_device_;
  t.shape_ = shape_;
  t.shape_.mutable_dims()[0] = end - begin;
  std::int64_t row = shape_.dim(0) ? num_elements() / shape_.dim(0) : 0;
  if (dtype_ == DType::string) {
    t.buf_ = std::shared_ptr<void>(buf_, static_cast<std::string*>(buf_.get()) + begin * row);
  } else if (dtype_ == DType::variant) {
    t.buf_ = std::shared_ptr<void>(buf_, static_cast<Variant*>(buf_.get()) + begin * row);
  } else {
    t.buf_ = std::shared_ptr<void>(buf_,
                                   static_cast<char*>(buf_.get()) +
                                       begin * row * static_cast<std::int64_t>(dtype_size(dtype_)));
  }
  return t;
}

Tensor Tensor::slice(std::int64_t index) const {
  Tensor t = slice_rows(index, index + 1);
  t.shape_ = shape_;
  t.shape_.mutable_dims().erase_front();
  return t;
}

Tensor Tensor::deep_copy() const {
  if (!is_initialized() || dtype_ == DType::resource) return *this;
  if (on_device_)
    throw InternalError(
        af::internal("deep_copy of a tensor in device memory (copy it on its device)"));
  Tensor t(dtype_, shape_);
  if (dtype_ == DType::string) {
    auto src = flat<std::string>();
    std::copy(src.begin(), src.end(), t.data<std::string>());
  } else if (dtype_ == DType::variant) {
    auto src = flat<Variant>();  // the values are immutable: sharing them is a copy
    std::copy(src.begin(), src.end(), t.data<Variant>());
  } else {
    std::memcpy(t.raw_data(), raw_data(), total_bytes());
  }
  return t;
}

bool operator==(const Tensor& a, const Tensor& b) {
  if (a.dtype_ != b.dtype_ || a.shape_ != b.shape_) return false;
  if (!a.is_initialized()) return true;
  if (a.dtype_ == DType::resource) return a.buf_ == b.buf_;
  if (a.dtype_ == DType::string) {
    auto x = a.flat<std::string>(), y = b.flat<std::string>();
    return std::equal(x.begin(), x.end(), y.begin());
  }
  if (a.dtype_ == DType::variant) {
    auto x = a.flat<Variant>(), y = b.flat<Variant>();
    return std::equal(x.begin(), x.end(), y.begin());
  }
  bool equal = true;
  visit_numeric_dtype(a.dtype_, [&](auto tag) {
    using T = decltype(tag);
    auto x = a.flat<T>(), y = b.flat<T>();
    for (std::size_t i = 0; i < x.size() && equal; ++i) {
      if constexpr (is_half_like_v<T>)
        equal = static_cast<float>(x[i]) == static_cast<float>(y[i]);
      else
        equal = x[i] == y[i];
    }
  });
  return equal;
}

std::string Tensor::debug_string() const {
  return "Tensor<" + std::string(dtype_name(dtype_)) + ", " + shape_.to_string() +
         ">: " + to_string();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.to_string(); }

}  // namespace af
