#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/tensor_slice.hpp"
#include "actorflow/train/layers.hpp"

/// Variables cut into parts along one axis (TensorFlow's partitioned variables,
/// partitioned_variables.py and variable_scope.py): a table too large for one parameter
/// server becomes `name/part_0`, `name/part_1`, ... which `replica_device_setter` spreads over
/// the ps tasks like any other variables.
namespace af::train {

/// How many parts each axis of a variable of `shape` and `dtype` gets (TensorFlow's
/// partitioner protocol): one entry per axis, at most one of them above 1.
using Partitioner = std::function<std::vector<std::int64_t>(const Shape& shape, DType dtype)>;

/// `tf.fixed_size_partitioner`: `min(num_shards, shape[axis])` parts along `axis`.
Partitioner fixed_size_partitioner(std::int64_t num_shards, int axis = 0);

/// `tf.min_max_variable_partitioner`: as many parts along `axis` as slices of at least
/// `min_slice_size` bytes, between 1 and `max_partitions` (and at most `shape[axis]`). Strings
/// count `bytes_per_string_element` bytes.
Partitioner min_max_variable_partitioner(std::int64_t max_partitions = 1, int axis = 0,
                                         std::int64_t min_slice_size = 256 << 10,
                                         std::int64_t bytes_per_string_element = 16);

/// `tf.variable_axis_size_partitioner`: parts of at most `max_shard_bytes` along `axis` (at
/// least one slice each), capped at `max_shards`. Throws InvalidArgumentError when
/// `max_shard_bytes < 1` or `max_shards < 1`.
Partitioner variable_axis_size_partitioner(std::int64_t max_shard_bytes, int axis = 0,
                                           std::int64_t bytes_per_string_element = 16,
                                           std::optional<std::int64_t> max_shards = {});

/// `tf.PartitionedVariable`: the parts of one logical variable, in order along its
/// partitioned axis.
class PartitionedVariable {
 public:
  /// Empty.
  PartitionedVariable() = default;
  /// Wraps parts made by `get_partitioned_variable`.
  PartitionedVariable(std::string name, Shape shape, DType dtype, std::vector<Variable> parts,
                      std::vector<SaveSliceInfo> slices, int axis)
      : name_(std::move(name)),
        shape_(std::move(shape)),
        dtype_(dtype),
        parts_(std::move(parts)),
        slices_(std::move(slices)),
        axis_(axis) {}

  /// The full variable's name ("emb").
  const std::string& name() const noexcept { return name_; }
  /// The full variable's shape.
  const Shape& shape() const noexcept { return shape_; }
  /// The values' dtype.
  DType dtype() const noexcept { return dtype_; }
  /// The parts, `name/part_0` first.
  const std::vector<Variable>& parts() const noexcept { return parts_; }
  /// Where each part sits in the full variable.
  const std::vector<SaveSliceInfo>& save_slice_infos() const noexcept { return slices_; }
  /// The partitioned axis.
  int axis() const noexcept { return axis_; }
  /// The number of parts along each axis (1 except on `axis()`).
  std::vector<std::int64_t> partitions() const;
  /// The whole variable as one tensor (`<name>/ConcatPartitions/concat`): for dense use; an
  /// embedding lookup reads only the rows it needs (`embedding_lookup`).
  Output as_tensor() const;

 private:
  std::string name_;
  Shape shape_;
  DType dtype_ = DType::invalid;
  std::vector<Variable> parts_;
  std::vector<SaveSliceInfo> slices_;
  int axis_ = 0;
};

/// Options of `get_partitioned_variable` (`tf.get_variable`'s arguments).
struct PartitionedVariableOptions {
  /// Builds each part's initial value for the part's shape (default: glorot_uniform, as
  /// TensorFlow's default for floats).
  af::initializers::Initializer initializer;
  /// The values' dtype.
  DType dtype = DType::float32;
  /// How many parts (required).
  Partitioner partitioner;
  /// Whether the parts join TRAINABLE_VARIABLES.
  bool trainable = true;
  /// Resource variables for the parts (`use_resource`, TensorFlow 2's `tf.compat.v1`
  /// default): the embedding lookups then read rows with ResourceGather and the optimizers
  /// update them with the Resource* ops.
  bool use_resource = false;
};

/// `tf.get_variable(name, shape, partitioner=...)`: the variable `name` (variable scopes only:
/// the current name scope does not apply) cut into the parts the partitioner asks for. Part i
/// is the variable `name/part_i`; the first `shape[axis] % n` parts get one extra row. Only
/// the parts join the collections. Throws InvalidArgumentError with TensorFlow's messages:
/// "Partitioner returned a partition list that does not match the Variable's rank: [..] vs.
/// [..]", "Partitioner returned zero partitions for some axes: [..]", "Can only slice a
/// variable along one dimension: shape: [..], partitioning: [..]", and when no partitioner
/// is given.
PartitionedVariable get_partitioned_variable(Graph& g, const std::string& name, const Shape& shape,
                                             const PartitionedVariableOptions& options);

}  // namespace af::train
