#pragma once

// Lookup tables (TensorFlow's LookupInterface and its three kinds, lookup_table_op.cc):
// HashTable (initialized once, then read-only), MutableHashTable (of scalars or of vectors)
// and MutableDenseHashTable (open addressing with quadratic probing, its bucket layout as
// TensorFlow's so LookupTableExportV2 gives the same tensors). Private to the kernels module;
// the ops are in lookup_table_ops.cpp, their definitions in ops/src/defs/lookup_ops.cpp.
#include <cstdint>
#include <memory>
#include <string>

#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// A table of keys to values, a session resource that table ops create and the
/// LookupTable* ops read and change. Thread-safe.
class LookupTable : public ResourceBase {
 public:
  /// A table of `key_dtype` keys of `key_shape` (a scalar but for dense tables) to
  /// `value_dtype` values of `value_shape`.
  LookupTable(std::string name, DType key_dtype, DType value_dtype, Shape key_shape,
              Shape value_shape);

  /// The keys' dtype.
  DType key_dtype() const noexcept { return key_dtype_; }
  /// The values' dtype.
  DType value_dtype() const noexcept { return value_dtype_; }
  /// One key's shape.
  const Shape& key_shape() const noexcept { return key_shape_; }
  /// One value's shape.
  const Shape& value_shape() const noexcept { return value_shape_; }
  /// The number of entries (0 for a HashTable not initialized yet).
  virtual std::int64_t size() const = 0;
  /// "TableKind[name]".
  std::string debug_string() const override;

  /// LookupTableFindV2: the value of each key of `keys` (whose shape ends with the key shape),
  /// `default_value` (one value, or one per key) where absent; `*out` is allocated. Errors as
  /// TensorFlow's CheckFindArguments: "Key must be type string but got int64", "Expected shape
  /// [] or [2] for default value, got [3]"; a HashTable not initialized: FailedPrecondition
  /// "Table not initialized.".
  Status find(const Tensor& keys, const Tensor& default_value, Tensor* out);
  /// LookupTableInsertV2: adds or replaces entries (values shaped keys' batch shape + value
  /// shape). A HashTable: Unimplemented "Insert not supported by InitializableLookupTable
  /// implementations".
  Status insert(const Tensor& keys, const Tensor& values);
  /// LookupTableRemoveV2: removes the keys present.
  Status remove(const Tensor& keys);
  /// LookupTableImportV2: replaces the whole content (a HashTable: initializes it, as
  /// InitializeTableV2); a dense table takes its exported buckets back.
  Status import_values(const Tensor& keys, const Tensor& values);
  /// LookupTableExportV2: every key and value (a dense table: its buckets, empty ones holding
  /// the empty key). A HashTable not initialized: Aborted "HashTable is not initialized.".
  virtual Status export_values(Tensor* keys, Tensor* values) = 0;

  /// True for a HashTable, which InitializeTableV2 and InitializeTableFromTextFileV2 fill.
  virtual bool initializable() const { return false; }
  /// True once an initializer ran.
  virtual bool is_initialized() const { return true; }
  /// InitializeTableV2 (`keys` and `values` vectors of one length): fills the table once; an
  /// initialized table takes the same number of entries again silently and refuses others,
  /// FailedPrecondition "Table was already initialized with different data."; one key with
  /// two values: FailedPrecondition "HashTable has different value for same key. Key a has
  /// 1 and trying to add value 2".
  virtual Status initialize(const Tensor& keys, const Tensor& values, std::int64_t total_size);

 protected:
  /// The kind named in debug_string ("HashTable", "MutableHashTable", ...).
  virtual const char* kind() const = 0;
  /// find after the checks; `full_default` when `default_value` holds one value per key.
  virtual Status do_find(const Tensor& keys, const Tensor& default_value, bool full_default,
                         Tensor& out) = 0;
  virtual Status do_insert(const Tensor& keys, const Tensor& values);
  virtual Status do_remove(const Tensor& keys);
  virtual Status do_import(const Tensor& keys, const Tensor& values) = 0;
  /// TensorFlow's CheckKeyAndValueTensorsForImport (a dense table's differs).
  virtual Status check_import(const Tensor& keys, const Tensor& values) const;

  Status check_types(const Tensor& keys, const Tensor& values) const;
  Status check_key_shape(const Shape& shape) const;
  Status check_key_and_values(const Tensor& keys, const Tensor& values) const;

 private:
  std::string name_;
  DType key_dtype_;
  DType value_dtype_;
  Shape key_shape_;
  Shape value_shape_;
};

/// What a table op's attributes and inputs ask for.
struct TableSpec {
  std::string op;    ///< HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2, ...
  std::string name;  ///< the resource's name, for messages
  DType key_dtype = DType::invalid;
  DType value_dtype = DType::invalid;
  Shape value_shape;   ///< tables of tensors and dense tables
  Tensor empty_key;    ///< dense tables
  Tensor deleted_key;  ///< dense tables
  std::int64_t initial_num_buckets = 131072;
  float max_load_factor = 0.8f;
};

/// Makes the table `spec` describes; InvalidArgument for a key/value dtype pair TensorFlow
/// registers no kernel for, or the dense table's checks ("Empty and deleted keys cannot be
/// equal", "Number of buckets must be at least 4 and a power of 2, got: 10", ...).
Status make_lookup_table(const TableSpec& spec, std::shared_ptr<LookupTable>* out);

/// InitializeTableFromTextFileV2 (lookup_util.cc): one entry per line of `filename`, the key
/// and value each the whole line (-2), the line number plus `offset` (-1) or a column split at
/// `delimiter`; at most `vocab_size` lines (-1: all, more lines than the file has fails). An
/// initialized table is left as it is. Errors name the file and line: "Invalid number of
/// columns in F line 2 (c\t3) : expected at least 3 got 2", "Field x in line 1 is not a
/// valid int64.", "Invalid vocab_size in F: expected 5 but got 3", "Invalid content in F:
/// empty line found at position 5.", NotFound "F; No such file or directory".
Status initialize_table_from_text_file(LookupTable& table, const std::string& filename,
                                       std::int64_t vocab_size, char delimiter,
                                       std::int64_t key_index, std::int64_t value_index,
                                       std::int64_t offset);

}  // namespace af::detail
