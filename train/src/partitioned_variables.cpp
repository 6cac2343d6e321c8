// Partitioned variables (TensorFlow's partitioned_variables.py and the partitioned path of
// variable_scope.py's get_variable): the three partitioners, the parts and their slice infos.
#include "actorflow/train/partitioned_variables.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "actorflow/ops/ops.hpp"

namespace af::train {

namespace {

std::string python_list(const std::vector<std::int64_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string python_shape(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s.dim(i));
  if (s.rank() == 1) out += ",";
  return out + ")";
}

std::int64_t element_bytes(DType dtype, std::int64_t bytes_per_string_element) {
  return dtype == DType::string ? bytes_per_string_element
                                : static_cast<std::int64_t>(dtype_size(dtype));
}

void check_axis(const Shape& shape, int axis) {
  if (axis < 0 || axis >= shape.rank())
    throw InvalidArgumentError(invalid_argument("Can not partition on axis " +
                                                std::to_string(axis) + " as shape has " +
                                                std::to_string(shape.rank()) + " dims."));
}

}  // namespace

Partitioner fixed_size_partitioner(std::int64_t num_shards, int axis) {
  return [num_shards, axis](const Shape& shape, DType) {
    check_axis(shape, axis);
    std::vector<std::int64_t> parts(static_cast<std::size_t>(shape.rank()), 1);
    parts[static_cast<std::size_t>(axis)] = std::min(num_shards, shape.dim(axis));
    return parts;
  };
}

Partitioner min_max_variable_partitioner(std::int64_t max_partitions, int axis,
                                         std::int64_t min_slice_size,
                                         std::int64_t bytes_per_string_element) {
  return [=](const Shape& shape, DType dtype) {
    check_axis(shape, axis);
    const double total =
        static_cast<double>(shape.num_elements() * element_bytes(dtype, bytes_per_string_element));
    const auto wanted =
        static_cast<std::int64_t>(std::ceil(total / static_cast<double>(min_slice_size)));
    std::vector<std::int64_t> parts(static_cast<std::size_t>(shape.rank()), 1);
    parts[static_cast<std::size_t>(axis)] =
        std::max<std::int64_t>(1, std::min({shape.dim(axis), max_partitions, wanted}));
    return parts;
  };
}

Partitioner variable_axis_size_partitioner(std::int64_t max_shard_bytes, int axis,
                                           std::int64_t bytes_per_string_element,
                                           std::optional<std::int64_t> max_shards) {
  if (max_shard_bytes < 1 || bytes_per_string_element < 1)
    throw InvalidArgumentError(
        invalid_argument("Both max_shard_bytes and bytes_per_string_element must be positive."));
  if (max_shards && *max_shards < 1)
    throw InvalidArgumentError(invalid_argument("max_shards must be positive."));
  return [=](const Shape& shape, DType dtype) {
    check_axis(shape, axis);
    std::vector<std::int64_t> parts(static_cast<std::size_t>(shape.rank()), 1);
    const double bytes_per_slice =
        static_cast<double>(shape.num_elements()) / static_cast<double>(shape.dim(axis)) *
        static_cast<double>(element_bytes(dtype, bytes_per_string_element));
    const double per_shard =
        std::max(1.0, std::floor(static_cast<double>(max_shard_bytes) / bytes_per_slice));
    auto shards =
        static_cast<std::int64_t>(std::ceil(static_cast<double>(shape.dim(axis)) / per_shard));
    if (max_shards) shards = std::min(*max_shards, shards);
    parts[static_cast<std::size_t>(axis)] = shards;
    return parts;
  };
}

std::vector<std::int64_t> PartitionedVariable::partitions() const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(shape_.rank()), 1);
  if (!out.empty()) out[static_cast<std::size_t>(axis_)] = static_cast<std::int64_t>(parts_.size());
  return out;
}

Output PartitionedVariable::as_tensor() const {
  if (parts_.empty())
    throw InvalidArgumentError(invalid_argument("PartitionedVariable " + name_ + " has no parts"));
  Graph& g = parts_[0].graph();
  if (parts_.size() == 1) return parts_[0].value();
  auto root = g.name_scope("/");
  auto scope = g.name_scope(name_ + "/ConcatPartitions/");
  std::vector<Output> values;
  for (auto& p : parts_) values.push_back(p.value());
  return concat(values, axis_, "concat");
}

PartitionedVariable get_partitioned_variable(Graph& g, const std::string& name, const Shape& shape,
                                             const PartitionedVariableOptions& options) {
  if (!options.partitioner)
    throw InvalidArgumentError(
        invalid_argument("get_partitioned_variable(" + name + "): no partitioner given"));
  if (shape.rank() < 1)
    throw InvalidArgumentError(invalid_argument(
        "A partitioned Variable must have rank at least 1, shape: " + python_shape(shape)));
  const std::vector<std::int64_t> partitions = options.partitioner(shape, options.dtype);
  if (static_cast<int>(partitions.size()) != shape.rank())
    throw InvalidArgumentError(invalid_argument(
        "Partitioner returned a partition list that does not match the Variable's rank: " +
        python_list(partitions) + " vs. " + python_shape(shape)));
  if (std::any_of(partitions.begin(), partitions.end(), [](std::int64_t p) { return p < 1; }))
    throw InvalidArgumentError(invalid_argument(
        "Partitioner returned zero partitions for some axes: " + python_list(partitions)));
  int axis = 0;
  std::int64_t n = 1;
  for (int i = 0; i < shape.rank(); ++i) {
    if (partitions[static_cast<std::size_t>(i)] == 1) continue;
    if (n != 1)
      throw InvalidArgumentError(invalid_argument(
          "Can only slice a variable along one dimension: shape: " + python_shape(shape) +
          ", partitioning: " + python_list(partitions)));
    axis = i;
    n = partitions[static_cast<std::size_t>(i)];
  }
  const af::initializers::Initializer init =
      options.initializer ? options.initializer : af::initializers::glorot_uniform();
  const std::vector<std::int64_t> full(shape.dims().begin(), shape.dims().end());
  const std::int64_t excess = shape.dim(axis) % n, min_rows = shape.dim(axis) / n;
  std::vector<Variable> parts;
  std::vector<SaveSliceInfo> slices;
  std::vector<std::int64_t> offset(full.size(), 0);
  auto root = g.name_scope("/");
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> part_shape = full;
    part_shape[static_cast<std::size_t>(axis)] = min_rows + (i < excess ? 1 : 0);
    const std::string part_name = name + "/part_" + std::to_string(i);
    VariableOptions vo;
    vo.name = part_name + "/";
    vo.trainable = options.trainable;
    vo.use_resource = options.use_resource;
    vo.save_slice_info = SaveSliceInfo{name, full, offset, part_shape};
    // Each part's initial value is computed on the part's own task.
    parts.push_back(g.variable(
        [&](Graph& graph) { return init(graph, Shape(part_shape), options.dtype); }, vo));
    slices.push_back(*vo.save_slice_info);
    offset[static_cast<std::size_t>(axis)] += part_shape[static_cast<std::size_t>(axis)];
  }
  return PartitionedVariable(name, shape, options.dtype, std::move(parts), std::move(slices), axis);
}

}  // namespace af::train
