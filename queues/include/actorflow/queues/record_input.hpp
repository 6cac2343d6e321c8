#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"

namespace af {

/// Options of `RecordInput` (the Python constructor's arguments).
struct RecordInputOptions {
  /// Records each run yields (times `batches` when that is set).
  std::int64_t batch_size = 1;
  /// The most records the shuffling buffer holds (at least 1); yielding starts once half
  /// of it is full, or an epoch has been read whole.
  std::int64_t buffer_size = 1;
  /// Reader threads, each reading every `parallelism`-th file of an epoch (at least 1).
  std::int64_t parallelism = 1;
  /// Each epoch the shuffled file list is rotated left by `shift_ratio * files` (a ratio in
  /// [0, 1); others leave it as it is).
  float shift_ratio = 0;
  /// Seeds the order of the files (with the epoch) and of the records.
  std::int64_t seed = 0;
  /// The op's name; empty: "RecordInput".
  std::string name;
  /// Set: `get_yield_op_batches()` splits each run into this many lists of records.
  std::optional<std::int64_t> batches;
  /// "" , "ZLIB" or "GZIP".
  std::string compression_type;
};

/// `data_flow_ops.RecordInput`: reads TFRecord files on threads of its own into a shuffling
/// buffer and yields random records from it, `batch_size` per run, epoch after epoch: every
/// record once per epoch. The files are those matching the comma-separated glob patterns of
/// `file_pattern` (in the order the patterns and directory listings give), shuffled each
/// epoch as TensorFlow shuffles them, and records enter the buffer at TensorFlow's random
/// places and leave from its end: with one reader thread, records come in TensorFlow's order
/// wherever TensorFlow's own order does not depend on thread timing
/// (tests/conformance/record_input_test.cpp). A run waiting for records holds no thread; its
/// step's deadline or cancellation ends it, and the records it had taken go back, as do those
/// of a run whose step fails. The readers start when the session first builds the op's kernel
/// and stop when the session closes; at most `buffer_size + 16 * parallelism` records are read
/// ahead. Errors reach the runs: NotFound "Found no files at <pattern>", InvalidArgument
/// "Can't open <file>", DataLoss for a damaged file.
class RecordInput {
 public:
  /// Keeps the arguments; `get_yield_op` adds the op. Throws InvalidArgumentError for a
  /// buffer size, parallelism or batch size below 1 (0 for the batch size), `batches` below
  /// 1, or an unknown compression type.
  RecordInput(Graph& g, std::string file_pattern, RecordInputOptions options = {});

  /// Op RecordInput (attrs file_pattern, file_random_seed, file_shuffle_shift_ratio,
  /// file_buffer_size, file_parallelism, batch_size, compression_type): a string vector of
  /// `batch_size` (times `batches`) records per run.
  Output get_yield_op() const;
  /// With `batches` set: the op's records split into `batches` lists of `batch_size` string
  /// scalars (record i goes to list i % batches), as Python's get_yield_op does then.
  std::vector<std::vector<Output>> get_yield_op_batches() const;

 private:
  Graph* graph_;
  std::string file_pattern_;
  RecordInputOptions options_;
};

}  // namespace af
