#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "actorflow/ops/graph.hpp"

/// Lookup tables (TensorFlow's `tf.lookup` / `tf.contrib.lookup` and the ops of
/// lookup_ops.cc): a table is a session resource a table op makes on its first run and finds
/// again on later runs; initializer ops fill a HashTable once (they join the collection
/// `kTableInitializers`, which `tables_initializer` groups), and the LookupTable* ops read or
/// change any table. Keys are int32, int64 or string; values float, double, int32, int64,
/// bool or string, the pairs TensorFlow registers. None of the ops is differentiable.
namespace af::lookup {

/// The collection of table initializers (`tf.GraphKeys.TABLE_INITIALIZERS`).
inline constexpr const char* kTableInitializers = "table_initializer";

/// Where a table lives (the table ops' `container`, `shared_name` and
/// `use_node_name_sharing`): without a shared name a table is private to its node.
struct TableOptions {
  std::string container;               ///< "" for the session's default container
  std::string shared_name;             ///< tables of one name in one container are one table
  bool use_node_name_sharing = false;  ///< without shared_name, share under the node's name
  /// Mutable tables only: join `kSaveableObjects`, so that a `train::Saver` of the graph saves
  /// and restores the table (`checkpoint=True` of TensorFlow's mutable tables).
  bool checkpoint = true;
};

/// The collection of the tables a `train::Saver` of a whole graph saves beside its variables
/// (`tf.GraphKeys.SAVEABLE_OBJECTS`); its values are `SaveableTable`s. An exported MetaGraphDef
/// leaves it out, as TensorFlow's does.
inline constexpr const char* kSaveableObjects = "saveable_objects";

/// A mutable table as a Saver sees it (TensorFlow's `MutableHashTable._Saveable`): saved as the
/// checkpoint keys `<name>-keys` and `<name>-values` from its export, restored by
/// `<name>_table_restore/LookupTableImportV2`. The mutable table builders make one (and its
/// export op, `<name>_lookup_table_export_values/LookupTableExportV2`) unless
/// `TableOptions::checkpoint` is false.
struct SaveableTable {
  /// The checkpoint keys' prefix: the name the table was built with, without name scopes
  /// (TensorFlow's, so two tables left at the default name collide in a Saver).
  std::string name;
  Output table;   ///< the table's resource handle
  Output keys;    ///< the export's keys
  Output values;  ///< the export's values
};

/// Op HashTableV2 (default name "hash_table"): a table that initializers fill once and that
/// is read-only afterwards. Finding in it before an initializer ran fails, FailedPrecondition
/// "Table not initialized."; its size is 0 until then.
Output hash_table(Graph& g, DType key_dtype, DType value_dtype, const TableOptions& options = {},
                  std::string_view name = {});

/// Op MutableHashTableV2 (default name "MutableHashTable"): a table of scalars that
/// `lookup_table_insert`, `lookup_table_remove` and `lookup_table_import` change.
Output mutable_hash_table(Graph& g, DType key_dtype, DType value_dtype,
                          const TableOptions& options = {}, std::string_view name = {});

/// Op MutableHashTableOfTensorsV2 (default name "MutableHashTableOfTensors"): as
/// `mutable_hash_table` with vector values of `value_shape` (a rank-1 shape; another fails when
/// the table is made: "Default value must be a vector, got shape [2,2]").
Output mutable_hash_table_of_tensors(Graph& g, DType key_dtype, DType value_dtype,
                                     const Shape& value_shape, const TableOptions& options = {},
                                     std::string_view name = {});

/// What a dense table is made with (MutableDenseHashTableV2's attributes).
struct DenseTableOptions {
  Shape value_shape;                          ///< a scalar or a vector
  std::int64_t initial_num_buckets = 131072;  ///< a power of 2, at least 4
  float max_load_factor = 0.8f;               ///< in (0, 1): the table doubles past it
};

/// Op MutableDenseHashTableV2 (default name "MutableDenseHashTable"): a mutable table with
/// open addressing, keys of `empty_key`'s shape (a scalar or a vector); `empty_key` marks free
/// buckets and `deleted_key` removed ones, so neither may be used as a key ("Using the
/// empty_key as a table key is not allowed"). Its export is its buckets, laid out as
/// TensorFlow's (TensorFlow's hashes, quadratic probing).
Output mutable_dense_hash_table(const Output& empty_key, const Output& deleted_key,
                                DType value_dtype, const DenseTableOptions& dense = {},
                                const TableOptions& options = {}, std::string_view name = {});

/// Op InitializeTableV2 (default name "table_init"): fills the HashTable `table` with the
/// vectors `keys` and `values` (of one length) when it runs; runs again with as many entries
/// pass, others fail ("Table was already initialized with different data."). Joins
/// `kTableInitializers`.
Operation initialize_table(const Output& table, const Output& keys, const Output& values,
                           std::string_view name = {});

/// Where a text file initializer takes keys and values from (`tf.lookup.TextFileIndex`).
enum TextFileIndex : std::int64_t {
  kWholeLine = -2,  ///< the whole line (string or integer tables)
  kLineNumber = -1  ///< the line's number plus the offset (int64)
};

/// Op InitializeTableFromTextFileV2 (default name "text_file_init"): fills the HashTable
/// `table` from the text file named by the string scalar `filename`, one entry per line, key
/// and value each the whole line, the line number or the column `key_index` / `value_index`
/// of the line split at `delimiter` (one character); at most `vocab_size` lines (-1: all). A
/// table initialized already is left alone. Errors name the file and line, as TensorFlow's
/// ("Invalid number of columns in vocab.txt line 2 (c\t3) : expected at least 3 got 2").
/// Joins `kTableInitializers`.
Operation initialize_table_from_text_file(const Output& table, const Output& filename,
                                          std::int64_t key_index, std::int64_t value_index,
                                          std::int64_t vocab_size = -1,
                                          const std::string& delimiter = "\t",
                                          std::int64_t offset = 0, std::string_view name = {});

/// Op LookupTableFindV2 (default name "LookupTableFindV2"): the value of each key of `keys`,
/// `default_value` (one value, or one per key; a HashTable uses the first value for every
/// key, as TensorFlow's) for keys not in the table; shaped as `keys`
/// (less a dense table's key dims) plus the value shape.
Output lookup_table_find(const Output& table, const Output& keys, const Output& default_value,
                         std::string_view name = {});

/// Op LookupTableInsertV2: adds or replaces entries of a mutable table (a HashTable refuses:
/// "Insert not supported by InitializableLookupTable implementations").
Operation lookup_table_insert(const Output& table, const Output& keys, const Output& values,
                              std::string_view name = {});

/// Op LookupTableRemoveV2: removes the keys of `keys` that a mutable table holds.
Operation lookup_table_remove(const Output& table, const Output& keys, std::string_view name = {});

/// Op LookupTableSizeV2: the number of entries, an int64 scalar.
Output lookup_table_size(const Output& table, std::string_view name = {});

/// Op LookupTableExportV2: (keys, values), every entry in no set order (a dense table: all
/// its buckets, `[buckets, key size]` and `[buckets, value size]`).
std::pair<Output, Output> lookup_table_export(const Output& table, DType key_dtype,
                                              DType value_dtype, std::string_view name = {});

/// Op LookupTableImportV2: replaces a table's content with `keys` and `values` (a HashTable:
/// initializes it; a dense table: takes exported buckets back).
Operation lookup_table_import(const Output& table, const Output& keys, const Output& values,
                              std::string_view name = {});

/// `tf.tables_initializer(name)`: a NoOp depending on every op of `kTableInitializers`, or a
/// bare NoOp when there is none.
Operation tables_initializer(Graph& g, std::string_view name = "init_all_tables");

/// A HashTable with its default value and out-of-vocabulary buckets: what
/// `index_table_from_tensor`, `index_table_from_file` and the index-to-string helpers return.
struct StaticTable {
  Output handle;                     ///< the HashTableV2's resource
  Operation initializer;             ///< the op filling it (in `kTableInitializers`)
  Output default_value;              ///< for keys not in the table
  std::int64_t num_oov_buckets = 0;  ///< hash buckets after the vocabulary

  /// `table.lookup(keys)`: LookupTableFindV2 of `keys` (its static shape kept); with
  /// out-of-vocabulary buckets, a key not found gets `size + hash bucket` instead, the bucket
  /// StringToHashBucketFast's (integer keys hashed as their decimal strings).
  Output lookup(const Output& keys, std::string_view name = {}) const;
  /// The number of entries plus `num_oov_buckets`, an int64 scalar.
  Output size(std::string_view name = {}) const;
};

/// `tf.contrib.lookup.index_table_from_tensor(vocabulary_list, num_oov_buckets,
/// default_value)`: a table of each string (or integer) of the vector `vocabulary_list` to its
/// int64 position, `default_value` for others unless `num_oov_buckets` > 0.
StaticTable index_table_from_tensor(const Output& vocabulary_list, std::int64_t num_oov_buckets = 0,
                                    std::int64_t default_value = -1, std::string_view name = {});

/// `tf.contrib.lookup.index_table_from_file(vocabulary_file, ...)`: a table of each line of
/// the file (the first `vocab_size`, all for -1) to its int64 line number, shared under
/// TensorFlow's name "hash_table_<file>_<vocab_size>_-2_-1". The file name's constant joins
/// the `asset_filepaths` collection (a SavedModel's assets).
StaticTable index_table_from_file(Graph& g, const std::string& vocabulary_file,
                                  std::int64_t num_oov_buckets = 0, std::int64_t vocab_size = -1,
                                  std::int64_t default_value = -1, DType key_dtype = DType::string,
                                  std::string_view name = {});

/// `tf.contrib.lookup.index_to_string_table_from_tensor(vocabulary_list, default_value)`: a
/// table of int64 positions to the strings of `vocabulary_list`.
StaticTable index_to_string_table_from_tensor(const Output& vocabulary_list,
                                              const std::string& default_value = "UNK",
                                              std::string_view name = {});

/// `tf.contrib.lookup.index_to_string_table_from_file(vocabulary_file, vocab_size,
/// default_value)`: a table of int64 line numbers to the file's lines.
StaticTable index_to_string_table_from_file(Graph& g, const std::string& vocabulary_file,
                                            std::int64_t vocab_size = -1,
                                            const std::string& default_value = "UNK",
                                            std::string_view name = {});

}  // namespace af::lookup
