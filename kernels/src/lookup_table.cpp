// The lookup tables of lookup_table.hpp: TensorFlow's HashTable, MutableHashTableOfScalars,
// MutableHashTableOfTensors and MutableDenseHashTable (lookup_table_op.{h,cc},
// initializable_lookup_table.cc, lookup_interface.cc) and the text file initializer
// (lookup_util.cc).
#include "lookup_table.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "csv_parse.hpp"
#include "tf_hash.hpp"

namespace af::detail {

namespace {

std::string type_name(DType t) { return std::string(data_type_string(t)); }

// How StrCat prints a key or value in TensorFlow's messages.
template <class T>
std::string text_of(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else {
    return std::to_string(v);
  }
}

// The shape `keys` maps to: its batch dims (the key shape's dims removed) + `value_shape`.
Shape batch_shape(const Shape& keys, const Shape& key_shape, const Shape& value_shape) {
  std::vector<std::int64_t> dims(keys.dims().begin(), keys.dims().end() - key_shape.rank());
  for (auto d : value_shape.dims()) dims.push_back(d);
  return Shape(dims);
}

// -- HashTable --------------------------------------------------------------------------

template <class K, class V>
class HashTable final : public LookupTable {
 public:
  using LookupTable::LookupTable;

  std::int64_t size() const override {
    if (!initialized_.load(std::memory_order_acquire)) return 0;
    std::shared_lock lock(mu_);
    return static_cast<std::int64_t>(table_.size());
  }
  bool initializable() const override { return true; }
  bool is_initialized() const override { return initialized_.load(std::memory_order_acquire); }

  Status initialize(const Tensor& keys, const Tensor& values, std::int64_t total_size) override {
    ACTORFLOW_RETURN_IF_ERROR(check_key_and_values(keys, values));
    if (keys.num_elements() == 0)
      return invalid_argument("keys and values cannot be empty tensors.");
    std::unique_lock lock(mu_);
    if (initialized_.load(std::memory_order_relaxed)) {
      // initializable_lookup_table.cc's AreEntriesSame compares sizes only.
      if (total_size == static_cast<std::int64_t>(table_.size())) return {};
      return failed_precondition("Table was already initialized with different data.");
    }
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    for (std::int64_t i = 0; i < keys.num_elements(); ++i) {
      auto [it, inserted] = table_.emplace(k[i], v[i]);
      if (!inserted && !(it->second == v[i]))
        return failed_precondition("HashTable has different value for same key. Key " +
                                   text_of(k[i]) + " has " + text_of(it->second) +
                                   " and trying to add value " + text_of(v[i]));
    }
    initialized_.store(true, std::memory_order_release);
    return {};
  }

  Status export_values(Tensor* keys, Tensor* values) override {
    if (!is_initialized()) return aborted("HashTable is not initialized.");
    std::shared_lock lock(mu_);
    const auto n = static_cast<std::int64_t>(table_.size());
    *keys = Tensor(key_dtype(), Shape{n});
    *values = Tensor(value_dtype(), Shape{n});
    K* ko = keys->data<K>();
    V* vo = values->data<V>();
    for (const auto& [key, value] : table_) *ko++ = key, *vo++ = value;
    return {};
  }

 protected:
  const char* kind() const override { return "HashTable"; }

  // TensorFlow's HashTable takes a default of one value per key but uses its first value for
  // every missing key (lookup_table_op.h's DoFind reads default_flat(0)).
  Status do_find(const Tensor& keys, const Tensor& dflt, bool, Tensor& out) override {
    if (!is_initialized()) return failed_precondition("Table not initialized.");
    const K* k = keys.data<K>();
    const V& d = dflt.data<V>()[0];
    V* o = out.data<V>();
    std::shared_lock lock(mu_);
    for (std::int64_t i = 0; i < keys.num_elements(); ++i) {
      auto it = table_.find(k[i]);
      o[i] = it != table_.end() ? it->second : d;
    }
    return {};
  }
  Status do_import(const Tensor& keys, const Tensor& values) override {
    return initialize(keys, values, keys.num_elements());
  }

 private:
  mutable std::shared_mutex mu_;
  std::atomic<bool> initialized_{false};
  std::unordered_map<K, V> table_;
};

// -- MutableHashTable (of scalars and of vectors) ----------------------------------------

// Values are vectors of `width` elements (1 for a table of scalars).
template <class K, class V>
class MutableHashTable final : public LookupTable {
 public:
  MutableHashTable(std::string name, DType key, DType value, Shape value_shape, bool of_tensors)
      : LookupTable(std::move(name), key, value, Shape{}, value_shape),
        width_(of_tensors ? value_shape.dim(0) : 1),
        of_tensors_(of_tensors) {}

  std::int64_t size() const override {
    std::shared_lock lock(mu_);
    return static_cast<std::int64_t>(table_.size());
  }

  Status export_values(Tensor* keys, Tensor* values) override {
    std::shared_lock lock(mu_);
    const auto n = static_cast<std::int64_t>(table_.size());
    *keys = Tensor(key_dtype(), Shape{n});
    *values = Tensor(value_dtype(), of_tensors_ ? Shape{n, width_} : Shape{n});
    K* ko = keys->data<K>();
    V* vo = values->data<V>();
    for (const auto& [key, value] : table_) {
      *ko++ = key;
      vo = std::copy(value.begin(), value.end(), vo);
    }
    return {};
  }

 protected:
  const char* kind() const override {
    return of_tensors_ ? "MutableHashTableOfTensors" : "MutableHashTable";
  }

  Status do_find(const Tensor& keys, const Tensor& dflt, bool full_default, Tensor& out) override {
    const K* k = keys.data<K>();
    const V* d = dflt.data<V>();
    V* o = out.data<V>();
    std::shared_lock lock(mu_);
    for (std::int64_t i = 0; i < keys.num_elements(); ++i, o += width_) {
      auto it = table_.find(k[i]);
      if (it != table_.end())
        std::copy(it->second.begin(), it->second.end(), o);
      else
        std::copy_n(d + (full_default ? i * width_ : 0), width_, o);
    }
    return {};
  }
  Status do_insert(const Tensor& keys, const Tensor& values) override {
    std::unique_lock lock(mu_);
    put(keys, values);
    return {};
  }
  Status do_remove(const Tensor& keys) override {
    const K* k = keys.data<K>();
    std::unique_lock lock(mu_);
    for (std::int64_t i = 0; i < keys.num_elements(); ++i) table_.erase(k[i]);
    return {};
  }
  Status do_import(const Tensor& keys, const Tensor& values) override {
    std::unique_lock lock(mu_);
    table_.clear();
    put(keys, values);
    return {};
  }

 private:
  void put(const Tensor& keys, const Tensor& values) {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    for (std::int64_t i = 0; i < keys.num_elements(); ++i)
      table_[k[i]].assign(v + i * width_, v + (i + 1) * width_);
  }

  const std::int64_t width_;
  const bool of_tensors_;
  mutable std::shared_mutex mu_;
  std::unordered_map<K, std::vector<V>> table_;
};

// -- MutableDenseHashTable ----------------------------------------------------------------

std::uint64_t hash_scalar(const std::string& k) { return tf_hash64(k); }
template <class K>
std::uint64_t hash_scalar(const K& k) {
  return static_cast<std::uint64_t>(k);
}

Shape vectorized(const Shape& s) { return s.rank() == 0 ? Shape{1} : s; }

// How a dense table stores values of type V (std::vector<bool> has no data()).
template <class V>
using Stored = std::conditional_t<std::is_same_v<V, bool>, char, V>;

// A tensor of `dtype` and `shape` holding `values` (of T, or of Stored<T>).
template <class T, class S>
Tensor tensor_of(DType dtype, Shape shape, const std::vector<S>& values) {
  Tensor t(dtype, std::move(shape));
  std::transform(values.begin(), values.end(), t.data<T>(), [](const S& v) { return T(v); });
  return t;
}

template <class K, class V>
class DenseHashTable final : public LookupTable {
 public:
  DenseHashTable(std::string name, DType key, DType value, const Tensor& empty_key,
                 const Tensor& deleted_key, Shape value_shape, float max_load_factor)
      : LookupTable(std::move(name), key, value, empty_key.shape(), value_shape),
        key_size_(empty_key.num_elements()),
        value_size_(value_shape.num_elements()),
        max_load_factor_(max_load_factor),
        empty_(empty_key.data<K>(), empty_key.data<K>() + key_size_),
        deleted_(deleted_key.data<K>(), deleted_key.data<K>() + key_size_),
        empty_hash_(hash(empty_.data())),
        deleted_hash_(hash(deleted_.data())) {}

  bool keys_distinct() const { return !(empty_hash_ == deleted_hash_ && empty_ == deleted_); }

  Status allocate(std::int64_t buckets) {
    if (buckets < 4 || (buckets & (buckets - 1)) != 0)
      return invalid_argument("Number of buckets must be at least 4 and a power of 2, got: " +
                              std::to_string(buckets));
    num_buckets_ = buckets;
    entries_ = 0;
    keys_.assign(static_cast<std::size_t>(buckets * key_size_), K{});
    for (std::int64_t b = 0; b < buckets; ++b)
      std::copy(empty_.begin(), empty_.end(), keys_.begin() + b * key_size_);
    values_.assign(static_cast<std::size_t>(buckets * value_size_), Stored<V>{});
    return {};
  }

  std::int64_t size() const override {
    std::shared_lock lock(mu_);
    return entries_;
  }

  Status export_values(Tensor* keys, Tensor* values) override {
    std::shared_lock lock(mu_);
    *keys = tensor_of<K>(key_dtype(), Shape{num_buckets_, key_size_}, keys_);
    *values = tensor_of<V>(value_dtype(), Shape{num_buckets_, value_size_}, values_);
    return {};
  }

 protected:
  const char* kind() const override { return "MutableDenseHashTable"; }

  Status do_find(const Tensor& keys, const Tensor& dflt, bool, Tensor& out) override {
    const std::int64_t n = keys.rank() == 0 ? 1 : keys.shape().dim(0);
    ACTORFLOW_RETURN_IF_ERROR(check_batch(keys, n));
    const K* k = keys.data<K>();
    const V* d = dflt.data<V>();
    V* o = out.data<V>();
    std::shared_lock lock(mu_);
    for (std::int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      std::int64_t bucket = 0;
      ACTORFLOW_RETURN_IF_ERROR(probe(key, "lookup", /*stop_at_deleted=*/false, &bucket));
      if (equal(bucket_key(bucket), key))
        std::copy_n(values_.begin() + bucket * value_size_, value_size_, o + i * value_size_);
      else
        std::copy_n(d, value_size_, o + i * value_size_);
    }
    return {};
  }

  Status do_insert(const Tensor& keys, const Tensor& values) override {
    const std::int64_t n = keys.rank() == 0 ? 1 : keys.shape().dim(0);
    ACTORFLOW_RETURN_IF_ERROR(check_batch(keys, n));
    std::unique_lock lock(mu_);
    // As TensorFlow: every key counts as new when deciding to grow.
    const std::int64_t pending = entries_ + n;
    if (pending > num_buckets_ * max_load_factor_) {
      std::int64_t grown = num_buckets_;
      do grown <<= 1;
      while (pending > grown * max_load_factor_);
      std::vector<K> old_keys = std::move(keys_);
      std::vector<Stored<V>> old_values = std::move(values_);
      const std::int64_t old_buckets = num_buckets_;
      ACTORFLOW_RETURN_IF_ERROR(allocate(grown));
      ACTORFLOW_RETURN_IF_ERROR(put(old_keys.data(), old_values.data(), old_buckets, true));
    }
    return put(keys.data<K>(), values.data<V>(), n, false);
  }

  Status do_remove(const Tensor& keys) override {
    const std::int64_t n = keys.rank() == 0 ? 1 : keys.shape().dim(0);
    ACTORFLOW_RETURN_IF_ERROR(check_batch(keys, n));
    const K* k = keys.data<K>();
    std::unique_lock lock(mu_);
    for (std::int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      std::int64_t bucket = 0;
      ACTORFLOW_RETURN_IF_ERROR(probe(key, "remove", false, &bucket));
      if (equal(bucket_key(bucket), key)) {
        --entries_;
        std::copy(deleted_.begin(), deleted_.end(), keys_.begin() + bucket * key_size_);
      }
    }
    return {};
  }

  Status check_import(const Tensor& keys, const Tensor& values) const override {
    ACTORFLOW_RETURN_IF_ERROR(check_types(keys, values));
    ACTORFLOW_RETURN_IF_ERROR(check_key_shape(keys.shape()));
    const Shape expected =
        batch_shape(keys.shape(), vectorized(key_shape()), vectorized(value_shape()));
    if (values.shape() != expected)
      return invalid_argument("Expected shape " + expected.to_string() + " for value, got " +
                              values.shape().to_string());
    return {};
  }

  Status do_import(const Tensor& keys, const Tensor& values) override {
    std::unique_lock lock(mu_);
    num_buckets_ = keys.rank() == 0 ? 1 : keys.shape().dim(0);
    keys_.assign(keys.data<K>(), keys.data<K>() + keys.num_elements());
    values_.assign(values.data<V>(), values.data<V>() + values.num_elements());
    entries_ = 0;
    for (std::int64_t b = 0; b < num_buckets_; ++b)
      if (!equal(bucket_key(b), empty_.data()) && !equal(bucket_key(b), deleted_.data()))
        ++entries_;
    return {};
  }

 private:
  std::uint64_t hash(const K* key) const {
    if (key_size_ == 1) return hash_scalar(key[0]);
    std::uint64_t h = 0;
    for (std::int64_t j = 0; j < key_size_; ++j) h = tf_hash64_combine(h, hash_scalar(key[j]));
    return h;
  }
  bool equal(const K* a, const K* b) const { return std::equal(a, a + key_size_, b); }
  const K* bucket_key(std::int64_t b) const { return keys_.data() + b * key_size_; }

  Status check_batch(const Tensor& keys, std::int64_t n) const {
    if (keys.num_elements() == n * key_size_) return {};
    std::vector<std::int64_t> dims{n};
    for (auto d : key_shape().dims()) dims.push_back(d);
    return invalid_argument("Expected key shape " + Shape(dims).to_string() + " got " +
                            keys.shape().to_string());
  }

  // Refuses the empty and deleted keys, then walks `key`'s probe sequence to the bucket
  // holding it, or to the first empty one (or, inserting, the first empty or deleted one).
  Status probe(const K* key, const char* what, bool stop_at_deleted, std::int64_t* out) const {
    const std::uint64_t h = hash(key);
    if (h == empty_hash_ && equal(empty_.data(), key))
      return invalid_argument("Using the empty_key as a table key is not allowed");
    if (h == deleted_hash_ && equal(deleted_.data(), key))
      return invalid_argument("Using the deleted_key as a table key is not allowed");
    const std::int64_t mask = num_buckets_ - 1;
    std::int64_t bucket = static_cast<std::int64_t>(h & static_cast<std::uint64_t>(mask));
    for (std::int64_t probes = 0;;) {
      const K* at = bucket_key(bucket);
      if (equal(at, key) || equal(at, empty_.data()) ||
          (stop_at_deleted && equal(at, deleted_.data()))) {
        *out = bucket;
        return {};
      }
      ++probes;
      bucket = (bucket + probes) & mask;  // quadratic probing
      if (probes >= num_buckets_)
        return internal(std::string("Internal error in MutableDenseHashTable ") + what);
    }
  }

  // DoInsert: `n` keys and values; `rebucketing` skips the empty and deleted keys.
  template <class S>
  Status put(const K* k, const S* v, std::int64_t n, bool rebucketing) {
    for (std::int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      if (rebucketing && (equal(key, empty_.data()) || equal(key, deleted_.data()))) continue;
      std::int64_t bucket = 0;
      ACTORFLOW_RETURN_IF_ERROR(probe(key, "insert", true, &bucket));
      if (!equal(bucket_key(bucket), key)) {
        ++entries_;
        std::copy_n(key, key_size_, keys_.begin() + bucket * key_size_);
      }
      std::copy_n(v + i * value_size_, value_size_, values_.begin() + bucket * value_size_);
    }
    return {};
  }

  const std::int64_t key_size_;
  const std::int64_t value_size_;
  const float max_load_factor_;
  const std::vector<K> empty_;
  const std::vector<K> deleted_;
  const std::uint64_t empty_hash_;
  const std::uint64_t deleted_hash_;
  mutable std::shared_mutex mu_;
  std::int64_t num_buckets_ = 0;
  std::int64_t entries_ = 0;
  std::vector<K> keys_;
  std::vector<Stored<V>> values_;
};

// -- making tables -------------------------------------------------------------------------

template <class F>
bool visit_key(DType t, F&& f) {
  switch (t) {
    case DType::int32:
      f(std::int32_t{});
      return true;
    case DType::int64:
      f(std::int64_t{});
      return true;
    case DType::string:
      f(std::string{});
      return true;
    default:
      return false;
  }
}

// The value types of tables: float, double, int32, int64, bool and string.
template <class F>
bool visit_value(DType t, F&& f) {
  switch (t) {
    case DType::string:
      f(std::string{});
      return true;
    case DType::float32:
    case DType::float64:
    case DType::int32:
    case DType::int64:
    case DType::boolean:
      return visit_numeric_dtype(t, [&](auto v) {
        using V = decltype(v);
        if constexpr (std::is_arithmetic_v<V>) f(v);
      });
    default:
      return false;
  }
}

// The key -> value dtype pairs TensorFlow registers CPU kernels for (lookup_table_op.cc).
bool registered(const std::string& op, DType k, DType v) {
  using D = DType;
  const bool numeric = v == D::float32 || v == D::float64 || v == D::int32;
  if (k == D::int32) return numeric || (op == "HashTableV2" && v == D::string);
  if (k == D::int64) {
    if (numeric || v == D::int64) return true;
    if (v == D::string) return op != "MutableDenseHashTableV2";
    return v == D::boolean && op == "MutableDenseHashTableV2";
  }
  if (k == D::string)
    return numeric || v == D::int64 || v == D::boolean || (v == D::string && op == "HashTableV2");
  return false;
}

}  // namespace

// -- LookupTable ----------------------------------------------------------------------------

LookupTable::LookupTable(std::string name, DType key_dtype, DType value_dtype, Shape key_shape,
                         Shape value_shape)
    : name_(std::move(name)),
      key_dtype_(key_dtype),
      value_dtype_(value_dtype),
      key_shape_(std::move(key_shape)),
      value_shape_(std::move(value_shape)) {}

std::string LookupTable::debug_string() const { return std::string(kind()) + "[" + name_ + "]"; }

Status LookupTable::check_types(const Tensor& keys, const Tensor& values) const {
  if (keys.dtype() != key_dtype_)
    return invalid_argument("Key must be type " + type_name(key_dtype_) + " but got " +
                            type_name(keys.dtype()));
  if (values.dtype() != value_dtype_)
    return invalid_argument("Value must be type " + type_name(value_dtype_) + " but got " +
                            type_name(values.dtype()));
  return {};
}

Status LookupTable::check_key_shape(const Shape& shape) const {
  const int n = key_shape_.rank();
  const bool ends_with =
      shape.rank() >= n &&
      std::equal(key_shape_.dims().begin(), key_shape_.dims().end(), shape.dims().end() - n);
  if (!ends_with)
    return invalid_argument("Input key shape " + shape.to_string() +
                            " must end with the table's key shape " + key_shape_.to_string());
  return {};
}

Status LookupTable::check_key_and_values(const Tensor& keys, const Tensor& values) const {
  ACTORFLOW_RETURN_IF_ERROR(check_types(keys, values));
  ACTORFLOW_RETURN_IF_ERROR(check_key_shape(keys.shape()));
  const Shape expected = batch_shape(keys.shape(), key_shape_, value_shape_);
  if (values.shape() != expected)
    return invalid_argument("Expected shape " + expected.to_string() + " for value, got " +
                            values.shape().to_string());
  return {};
}

Status LookupTable::check_import(const Tensor& keys, const Tensor& values) const {
  return check_key_and_values(keys, values);
}

Status LookupTable::find(const Tensor& keys, const Tensor& default_value, Tensor* out) {
  ACTORFLOW_RETURN_IF_ERROR(check_types(keys, default_value));
  ACTORFLOW_RETURN_IF_ERROR(check_key_shape(keys.shape()));
  const Shape full = batch_shape(keys.shape(), key_shape_, value_shape_);
  const bool full_default = default_value.shape() == full;
  if (default_value.shape() != value_shape_ && !full_default)
    return invalid_argument("Expected shape " + value_shape_.to_string() + " or " +
                            full.to_string() + " for default value, got " +
                            default_value.shape().to_string());
  *out = Tensor(value_dtype_, full);
  return do_find(keys, default_value, full_default && full != value_shape_, *out);
}

Status LookupTable::insert(const Tensor& keys, const Tensor& values) {
  ACTORFLOW_RETURN_IF_ERROR(check_key_and_values(keys, values));
  return do_insert(keys, values);
}

Status LookupTable::remove(const Tensor& keys) {
  if (keys.dtype() != key_dtype_)
    return invalid_argument("Key must be type " + type_name(key_dtype_) + " but got " +
                            type_name(keys.dtype()));
  ACTORFLOW_RETURN_IF_ERROR(check_key_shape(keys.shape()));
  return do_remove(keys);
}

Status LookupTable::import_values(const Tensor& keys, const Tensor& values) {
  ACTORFLOW_RETURN_IF_ERROR(check_import(keys, values));
  return do_import(keys, values);
}

Status LookupTable::initialize(const Tensor&, const Tensor&, std::int64_t) {
  return invalid_argument("Table " + name_ + " is not initializable");
}

Status LookupTable::do_insert(const Tensor&, const Tensor&) {
  return unimplemented("Insert not supported by InitializableLookupTable implementations");
}

Status LookupTable::do_remove(const Tensor&) {
  return unimplemented("Remove not supported by InitializableLookupTable implementations");
}

Status make_lookup_table(const TableSpec& spec, std::shared_ptr<LookupTable>* out) {
  if (!registered(spec.op, spec.key_dtype, spec.value_dtype))
    return invalid_argument(
        "No registered '" + spec.op + "' OpKernel for CPU devices compatible with key_dtype=" +
        type_name(spec.key_dtype) + ", value_dtype=" + type_name(spec.value_dtype));
  const bool tensors = spec.op == "MutableHashTableOfTensorsV2";
  const bool dense = spec.op == "MutableDenseHashTableV2";
  if (tensors && spec.value_shape.rank() != 1)
    return invalid_argument("Default value must be a vector, got shape " +
                            spec.value_shape.to_string());
  if (dense) {
    if (!(spec.max_load_factor > 0 && spec.max_load_factor < 1))
      return invalid_argument("max_load_factor must be between 0 and 1, got: " +
                              text_of(spec.max_load_factor));
    if (spec.value_shape.rank() > 1)
      return invalid_argument("Empty value must be a scalar or a vector, got shape " +
                              spec.value_shape.to_string());
    if (spec.empty_key.rank() > 1)
      return invalid_argument("Empty key must be a scalar or a vector, got shape " +
                              spec.empty_key.shape().to_string());
    if (spec.empty_key.shape() != spec.deleted_key.shape())
      return invalid_argument("Empty and deleted keys must have same shape, got shapes: " +
                              spec.empty_key.shape().to_string() + " and " +
                              spec.deleted_key.shape().to_string());
  }
  Status status;
  visit_key(spec.key_dtype, [&](auto k) {
    using K = decltype(k);
    visit_value(spec.value_dtype, [&](auto v) {
      using V = decltype(v);
      if (dense) {
        auto t = std::make_shared<DenseHashTable<K, V>>(spec.name, spec.key_dtype, spec.value_dtype,
                                                        spec.empty_key, spec.deleted_key,
                                                        spec.value_shape, spec.max_load_factor);
        if (!t->keys_distinct()) {
          status = invalid_argument("Empty and deleted keys cannot be equal");
          return;
        }
        status = t->allocate(spec.initial_num_buckets);
        *out = t;
      } else if (spec.op == "HashTableV2") {
        *out = std::make_shared<HashTable<K, V>>(spec.name, spec.key_dtype, spec.value_dtype,
                                                 Shape{}, Shape{});
      } else {
        *out =
            std::make_shared<MutableHashTable<K, V>>(spec.name, spec.key_dtype, spec.value_dtype,
                                                     tensors ? spec.value_shape : Shape{}, tensors);
      }
    });
  });
  return status;
}

// -- InitializeTableFromTextFileV2 ----------------------------------------------------------

namespace {

constexpr std::int64_t kLineNumber = -1;
constexpr std::int64_t kWholeLine = -2;

bool integer_type(DType t) { return t == DType::int32 || t == DType::int64 || t == DType::uint8; }

// TensorFlow's POSIX error text: "<file>; No such file or directory".
Status file_error(const std::string& filename, int err) {
  std::string message = filename + "; " + std::strerror(err);
  if (err == ENOENT || err == ENOTDIR) return not_found(std::move(message));
  if (err == EACCES || err == EPERM) return {Code::permission_denied, std::move(message)};
  return unknown(std::move(message));
}

// TextFileLineIterator::SetValue: line `line_no`'s key or value into element `i` of `t`.
Status set_value(const std::string& line, const std::vector<std::string>& tokens,
                 std::int64_t index, std::int64_t line_no, std::int64_t offset, Tensor& t,
                 std::int64_t i) {
  if (index == kLineNumber) {
    t.data<std::int64_t>()[i] = line_no + offset;
    return {};
  }
  const std::string& token = index == kWholeLine ? line : tokens[static_cast<std::size_t>(index)];
  auto bad = [&](const char* type) {
    return invalid_argument("Field " + token + " in line " + std::to_string(line_no) +
                            " is not a valid " + type + ".");
  };
  switch (t.dtype()) {
    case DType::int32: {
      std::int32_t v = 0;
      if (!csv::parse_int32(token, &v)) return bad("int32");
      t.data<std::int32_t>()[i] = static_cast<std::int32_t>(v + offset);
      return {};
    }
    case DType::int64:
      if (!csv::parse_int64(token, &t.data<std::int64_t>()[i])) return bad("int64");
      return {};
    case DType::float32:
      if (!csv::parse_float(token, &t.data<float>()[i])) return bad("float");
      return {};
    case DType::float64:
      if (!csv::parse_double(token, &t.data<double>()[i])) return bad("double");
      return {};
    case DType::string:
      t.data<std::string>()[i] = token;
      return {};
    default:
      return invalid_argument("Data type " + type_name(t.dtype()) + " not supported.");
  }
}

// The lines of `content` as TensorFlow's InputBuffer::ReadLine returns them (a trailing \r
// dropped, no empty last line after a final \n), each with the offset just past it.
std::vector<std::pair<std::string, std::int64_t>> lines_of(const std::string& content) {
  std::vector<std::pair<std::string, std::int64_t>> lines;
  std::size_t at = 0;
  while (at < content.size()) {
    std::size_t end = content.find('\n', at);
    const bool newline = end != std::string::npos;
    if (!newline) end = content.size();
    std::string line = content.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    at = newline ? end + 1 : end;
    lines.emplace_back(std::move(line), static_cast<std::int64_t>(at));
  }
  return lines;
}

}  // namespace

Status initialize_table_from_text_file(LookupTable& table, const std::string& filename,
                                       std::int64_t vocab_size, char delimiter,
                                       std::int64_t key_index, std::int64_t value_index,
                                       std::int64_t offset) {
  const DType key = table.key_dtype(), value = table.value_dtype();
  if (key_index == kLineNumber && key != DType::int64)
    return invalid_argument("Key index for line number requires table key dtype of int64, got " +
                            type_name(key));
  if (key_index == kWholeLine && !integer_type(key) && key != DType::string)
    return invalid_argument("Key index for whole line requires string or integer table key, got " +
                            type_name(key));
  if (value_index == kLineNumber && value != DType::int64)
    return invalid_argument(
        "Value index for line number requires table value dtype of int64, got " + type_name(value));
  if (value_index == kWholeLine && !integer_type(value) && value != DType::string)
    return invalid_argument(
        "Value index for whole line requires table value dtype of integer or string, got " +
        type_name(value));

  std::ifstream in(filename, std::ios::binary);
  if (!in) return file_error(filename, errno);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const auto lines = lines_of(buffer.str());

  std::int64_t n = static_cast<std::int64_t>(lines.size());
  if (vocab_size != -1) n = std::min(n, vocab_size);
  Tensor keys(key, Shape{n}), values(value, Shape{n});
  const bool split = std::max(key_index, value_index) >= 0;
  const auto columns = static_cast<std::size_t>(std::max(key_index, value_index) + 1);
  Status failed;
  std::int64_t done = 0;
  for (; done < n && failed.ok(); ++done) {
    const auto& [line, end] = lines[static_cast<std::size_t>(done)];
    if (line.empty()) {
      failed = invalid_argument("Invalid content in " + filename +
                                ": empty line found at position " + std::to_string(end) + ".");
      break;
    }
    std::vector<std::string> tokens;
    if (split) {
      std::size_t at = 0;
      for (std::size_t cut; (cut = line.find(delimiter, at)) != std::string::npos; at = cut + 1)
        tokens.push_back(line.substr(at, cut - at));
      tokens.push_back(line.substr(at));
      if (tokens.size() < columns) {
        failed =
            invalid_argument("Invalid number of columns in " + filename + " line " +
                             std::to_string(done) + " (" + line + ") : expected at least " +
                             std::to_string(columns) + " got " + std::to_string(tokens.size()));
        break;
      }
    }
    failed = set_value(line, tokens, key_index, done, offset, keys, done);
    if (failed.ok()) failed = set_value(line, tokens, value_index, done, offset, values, done);
    if (!failed.ok()) break;
  }
  if (failed.ok() && lines.empty() && vocab_size <= 0)
    failed = Status(Code::out_of_range, "Read less bytes than requested");
  else if (failed.ok() && vocab_size == 0)
    failed = Status(Code::out_of_range, "Finished reading 0 of lines from " + filename);
  if (failed.ok() && vocab_size != -1 && n != vocab_size)
    failed = invalid_argument("Invalid vocab_size in " + filename + ": expected " +
                              std::to_string(vocab_size) + " but got " + std::to_string(n));
  // TensorFlow reads the first line before it looks at the table: that line's error comes
  // first; then a table initialized already is left alone, whatever the file holds.
  if (!failed.ok() && done == 0) return failed;
  if (table.is_initialized()) return {};
  if (!failed.ok()) return failed;
  return table.initialize(keys, values, n);
}

}  // namespace af::detail
