#pragma once

// DecodeCSV's work on a batch of records, shared by the DecodeCSV kernel and by reader
// actors that decode the lines they read themselves (a ReaderRead / ReaderReadUpTo whose
// records feed only a DecodeCSV runs as one fused node; see execution_plan.hpp).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af {

/// The configuration of one DecodeCSV node (`OUT_TYPE`, `field_delim`, `use_quote_delim`,
/// `na_value`, `select_cols`, `has_keys`). Immutable once made, so one decoder may serve
/// many threads, each with its own `CsvBatch`.
class CsvDecoder {
 public:
  /// Reads the attributes of DecodeCSV node `def`; InvalidArgument with TensorFlow's kernel
  /// construction messages (select_cols order, field_delim length).
  static Status create(const NodeDef& def, std::shared_ptr<const CsvDecoder>* out);

  /// The output column dtypes (`OUT_TYPE`).
  const std::vector<DType>& out_types() const noexcept { return out_types_; }
  /// Whether the node takes the reader's keys as its last input (errors name "file:line").
  bool has_keys() const noexcept { return has_keys_; }
  /// The DecodeCSV node's name.
  const std::string& node_name() const noexcept { return node_name_; }
  /// "\n\t [[{{node <name>}}]]", as the executor appends to a kernel's error.
  std::string node_suffix() const;

  /// Frees the configuration.
  ~CsvDecoder();

 private:
  friend class CsvBatch;
  CsvDecoder();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<DType> out_types_;
  bool has_keys_ = false;
  std::string node_name_;
};

/// One batch being decoded: the output columns and the splitting buffers. Reusable: a
/// `start` begins the next batch, and buffers grow only for longer records than before.
/// Not thread-safe; one per decoding thread.
class CsvBatch {
 public:
  /// An empty batch; call `start` before decoding.
  CsvBatch();
  /// Frees the buffers and any columns not taken.
  ~CsvBatch();
  CsvBatch(const CsvBatch&) = delete;
  CsvBatch& operator=(const CsvBatch&) = delete;

  /// Checks the record defaults (at most rank 1, at most one element: InvalidArgument with
  /// TensorFlow's messages, no context) and allocates one column of shape `records` per
  /// output. `decoder` must outlive the batch's use.
  Status start(const CsvDecoder& decoder, std::span<const Tensor> defaults, const Shape& records);

  /// Decodes record `r` (row `r` of the flattened columns). On error, TensorFlow's message
  /// for record `r` without context (no key, no node); the columns' row `r` is unspecified.
  Status decode(std::string_view record, std::int64_t r);

  /// Reallocates rank-1 columns to `rows` rows (more than now), keeping the rows decoded:
  /// for a batch whose record count is only known as records come.
  void grow(std::int64_t rows);

  /// The decoded columns; take them (std::move) when the batch is done.
  std::vector<Tensor>& columns() noexcept { return columns_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<Tensor> columns_;
};

}  // namespace af
