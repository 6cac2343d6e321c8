// SetSize, DenseToDenseSetOperation, DenseToSparseSetOperation and SparseToSparseSetOperation:
// CPU kernels with TensorFlow's checks and messages (set_kernels.cc, util/sparse/
// sparse_tensor.cc). Each set is the last dimension of a dense tensor, or the entries of a
// SparseTensor (rank >= 2) that share their first rank - 1 coordinates; results come out as a
// SparseTensor whose rows hold each set's values in ascending order (TensorFlow's btree_set),
// as TensorFlow. The definitions are in ops/src/defs/sets_sparse_ops.cpp.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "sparse_indices.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::StatusKernel;

// "2,3": dimensions as absl::StrJoin(shape, ",") writes them.
std::string join_dims(const std::vector<Index>& dims) {
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
  return out;
}

// TensorShape::BuildTensorShape of a set's dense shape, with TensorFlow 2.21's messages.
Status build_shape(const std::vector<Index>& dims) {
  Index count = 1;
  for (Index d : dims) {
    if (d < 0)
      return invalid_argument("Expected shape dimensions to be non-negative, got " +
                              std::to_string(d));
    if (d != 0 && count > std::numeric_limits<Index>::max() / d)
      return invalid_argument("Encountered overflow when multiplying " + std::to_string(count) +
                              " with " + std::to_string(d) + ", result: -1");
    count *= d;
  }
  return {};
}

// A set operand given as a SparseTensor: its indices, values and dense shape, its entries
// grouped by their first rank - 1 coordinates in the order they come (SparseTensor::group,
// which assumes row-major order and does not sort).
struct SparseSets {
  const Tensor* indices = nullptr;
  const Tensor* values = nullptr;
  std::vector<Index> shape;
  std::vector<std::vector<Index>> groups;

  Index rank() const { return static_cast<Index>(shape.size()); }
  const std::int64_t* ix() const { return indices->data<std::int64_t>(); }
  // The group coordinates (all but the last) of the first entry of `group`.
  std::vector<Index> key(const std::vector<Index>& group) const {
    const std::int64_t* row = ix() + group.front() * rank();
    return std::vector<Index>(row, row + rank() - 1);
  }
};

// SparseTensorFromContext: the SparseTensor of inputs [base, base + 3), its dense shape a
// vector of rank >= 2, checked as SparseTensor::Create does and, with `validate`, as
// IndicesValid does.
Status sparse_sets_from_context(OpKernelContext& ctx, int base, bool validate, SparseSets* out) {
  const Tensor& shape_t = ctx.input(base + 2);
  if (shape_t.rank() != 1) return invalid_argument("Shape must be a 1D tensor.");
  out->shape = index_values(shape_t);
  ACTORFLOW_RETURN_IF_ERROR(build_shape(out->shape));
  // CheckRankAtLeast2 fails the kernel and SparseTensorFromContext carries on; the first
  // error recorded is the one reported, so it wins over Create's.
  if (out->shape.size() < 2)
    return invalid_argument("Invalid rank " + std::to_string(out->shape.size()) + ".");
  const Tensor& indices = ctx.input(base);
  const Tensor& values = ctx.input(base + 1);
  if (values.rank() != 1)
    return invalid_argument("vals must be a vec, but got: " + values.shape().to_string());
  if (indices.rank() >= 1 && indices.shape().dim(0) != values.shape().dim(0))
    return invalid_argument("indices and values rows (indexing dimension) must match. (indices = " +
                            std::to_string(indices.shape().dim(0)) +
                            ", values = " + std::to_string(values.shape().dim(0)) + ")");
  if (indices.rank() != 2)
    return invalid_argument("indices must be a matrix, but got: " + indices.shape().to_string());
  if (indices.shape().dim(1) != out->rank())
    return invalid_argument("Order length must be SparseTensor rank.");
  out->indices = &indices;
  out->values = &values;
  const Index nnz = indices.shape().dim(0);
  if (validate)
    ACTORFLOW_RETURN_IF_ERROR(detail::sparse::indices_valid(out->ix(), nnz, out->shape));
  std::vector<Index> order(static_cast<std::size_t>(nnz));
  std::iota(order.begin(), order.end(), Index{0});
  out->groups = detail::sparse::group_runs(out->ix(), out->rank(), order,
                                           detail::sparse::standard_dims(out->rank() - 1));
  return {};
}

// CheckGroup: every coordinate of the group's entries below its dimension, every dimension
// positive (Internal errors, checked even without validate_indices).
Status check_group(const SparseSets& sp, const std::vector<Index>& group) {
  const Index rank = sp.rank();
  for (Index j = 0; j < rank; ++j) {
    const Index dim_size = sp.shape[static_cast<std::size_t>(j)];
    if (dim_size <= 0)
      return internal("Invalid dim_size[" + std::to_string(j) + "] = " + std::to_string(dim_size) +
                      ".");
    for (std::size_t i = 0; i < group.size(); ++i) {
      const Index index = sp.ix()[group[i] * rank + j];
      if (dim_size <= index)
        return internal("indices[" + std::to_string(i) + ", " + std::to_string(j) +
                        "] expected < " + std::to_string(dim_size) + ", got " +
                        std::to_string(index) + ".");
    }
  }
  return {};
}

// PopulateFromSparseGroup: the distinct values of a group's entries.
template <class T>
Status populate_from_sparse_group(const SparseSets& sp, const std::vector<Index>& group,
                                  std::unordered_set<T>* result) {
  ACTORFLOW_RETURN_IF_ERROR(check_group(sp, group));
  result->clear();
  const T* v = sp.values->data<T>();
  for (Index entry : group) result->insert(v[entry]);
  return {};
}

// PopulateFromDenseGroup: the distinct values of row `row` of the last dimension.
template <class T>
void populate_from_dense_group(const Tensor& t, Index row, std::unordered_set<T>* result) {
  result->clear();
  const Index n = t.shape().dim(t.rank() - 1);
  const T* v = t.data<T>() + row * n;
  result->insert(v, v + n);
}

// The dimensions of `t`'s shape.
std::vector<Index> dims_of(const Shape& s) {
  return std::vector<Index>(s.dims().begin(), s.dims().end());
}

// GroupShape: all but the last dimension ("Shape [2] has rank 1 < 2").
Status group_shape(const std::vector<Index>& shape, std::vector<Index>* out) {
  if (shape.size() < 2)
    return invalid_argument("Shape [" + join_dims(shape) + "] has rank " +
                            std::to_string(shape.size()) + " < 2");
  out->assign(shape.begin(), shape.end() - 1);
  return {};
}

// GroupShapeFromInputs: both operands of rank >= 2, their group shapes equal ("Mismatched
// shapes [1] vs [2]").
Status group_shape_from_inputs(const std::vector<Index>& shape1, const std::vector<Index>& shape2,
                               std::vector<Index>* out) {
  std::vector<Index> g1, g2;
  ACTORFLOW_RETURN_IF_ERROR(group_shape(shape1, &g1));
  ACTORFLOW_RETURN_IF_ERROR(group_shape(shape2, &g2));
  if (g1 != g2)
    return invalid_argument("Mismatched shapes [" + join_dims(g1) + "] vs [" + join_dims(g2) + "]");
  *out = std::move(g1);
  return {};
}

// PopulateGroupIndices: the coordinates of flat group `flat` in `shape`.
std::vector<Index> group_indices(Index flat, const std::vector<Index>& shape) {
  std::vector<Index> out(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    out[d] = flat % shape[d];
    flat /= shape[d];
  }
  return out;
}

// -- SetSize ------------------------------------------------------------------------------

// SetSize(set_indices, set_values, set_shape; validate_indices): the number of distinct values
// of each set, int32 of the dense shape less its last dimension (0 where no entry falls).
template <class T>
class SetSizeOp : public StatusKernel {
 public:
  SetSizeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (!c.get_attr("validate_indices", &validate_indices_).ok()) validate_indices_ = true;
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    SparseSets set;
    ACTORFLOW_RETURN_IF_ERROR(sparse_sets_from_context(ctx, 0, validate_indices_, &set));
    std::vector<Index> out_dims;
    ACTORFLOW_RETURN_IF_ERROR(group_shape(set.shape, &out_dims));
    const Shape out_shape(out_dims);
    Tensor& out = ctx.allocate_output(0, DType::int32, out_shape);
    std::int32_t* o = out.data<std::int32_t>();
    const std::vector<Index> strides = detail::row_major_strides(out_shape);
    std::unordered_set<T> values;
    for (const auto& group : set.groups) {
      ACTORFLOW_RETURN_IF_ERROR(populate_from_sparse_group(set, group, &values));
      const std::vector<Index> key = set.key(group);
      const Index at = std::inner_product(key.begin(), key.end(), strides.begin(), Index{0});
      // TensorFlow checks only the upper bound (a negative coordinate, possible without
      // validate_indices, writes out of bounds there); both are refused here.
      if (at < 0 || at >= out.num_elements()) {
        std::string rows;
        for (Index entry : group) {
          for (Index d = 0; d < set.rank(); ++d)
            rows += (d ? " " : "") + std::to_string(set.ix()[entry * set.rank() + d]);
          rows += "\n";
        }
        return invalid_argument("Index out of range, " + rows + " vs " + out_shape.to_string());
      }
      o[at] = static_cast<std::int32_t>(values.size());
    }
    return {};
  }

 private:
  bool validate_indices_ = true;
};

// -- set operations -----------------------------------------------------------------------

enum class SetOperation { a_minus_b, b_minus_a, intersection, set_union };

// A set operation's result: the group coordinates and the set, in order.
template <class T>
using GroupSets = std::vector<std::pair<std::vector<Index>, std::set<T>>>;

// {Dense,Sparse}To{Dense,Sparse}SetOperation(set1, set2; set_operation, validate_indices):
// "a-b", "b-a", "intersection" or "union" (any case) of each pair of sets, as a SparseTensor
// of the operands' group shape plus a last dimension as long as the largest result, each row
// sorted ascending. Empty results leave no entry.
template <class T>
class SetOperationOp : public StatusKernel {
 public:
  SetOperationOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = {};
    if (!c.get_attr("validate_indices", &validate_indices_).ok()) validate_indices_ = true;
    std::string op;
    if (!c.get_attr("set_operation", &op).ok()) {
      *s = invalid_argument("Missing set_operation." + detail::node_suffix(c.def.name));
      return;
    }
    std::transform(op.begin(), op.end(), op.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (op == "a-b") {
      set_operation_ = SetOperation::a_minus_b;
    } else if (op == "b-a") {
      set_operation_ = SetOperation::b_minus_a;
    } else if (op == "intersection") {
      set_operation_ = SetOperation::intersection;
    } else if (op != "union") {
      *s = invalid_argument("Invalid set_operation " + op + "." + detail::node_suffix(c.def.name));
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const std::string& op = type();
    if (op == "DenseToDenseSetOperation") return dense_to_dense(ctx);
    if (op == "DenseToSparseSetOperation") return dense_to_sparse(ctx);
    return sparse_to_sparse(ctx);
  }

 private:
  std::set<T> apply(const std::unordered_set<T>& set1, const std::unordered_set<T>& set2) const {
    std::set<T> result;
    auto difference = [&result](const std::unordered_set<T>& a, const std::unordered_set<T>& b) {
      for (const T& v : a)
        if (b.count(v) == 0) result.insert(v);
    };
    switch (set_operation_) {
      case SetOperation::a_minus_b:
        difference(set1, set2);
        break;
      case SetOperation::b_minus_a:
        difference(set2, set1);
        break;
      case SetOperation::intersection:
        for (const T& v : set1)
          if (set2.count(v) != 0) result.insert(v);
        break;
      case SetOperation::set_union:
        result.insert(set1.begin(), set1.end());
        result.insert(set2.begin(), set2.end());
        break;
    }
    return result;
  }

  // Adds a non-empty result for the group `key`.
  void add(std::vector<Index> key, std::set<T> result, GroupSets<T>* sets) {
    if (result.empty()) return;
    sets->emplace_back(std::move(key), std::move(result));
  }

  // OutputSparseTensor: each set's values at [group..., position in the set].
  static void output(OpKernelContext& ctx, const std::vector<Index>& group_shape,
                     const GroupSets<T>& sets) {
    Index num_values = 0, max_set_size = 0;
    for (const auto& entry : sets) {
      num_values += static_cast<Index>(entry.second.size());
      max_set_size = std::max(max_set_size, static_cast<Index>(entry.second.size()));
    }
    const auto rank = static_cast<Index>(group_shape.size()) + 1;
    Tensor& indices = ctx.allocate_output(0, DType::int64, Shape{num_values, rank});
    Tensor& values = ctx.allocate_output(1, dtype_of_v<T>, Shape{num_values});
    Tensor& shape = ctx.allocate_output(2, DType::int64, Shape{rank});
    std::int64_t* ix = indices.data<std::int64_t>();
    T* v = values.data<T>();
    Index at = 0;
    for (const auto& [key, set] : sets) {
      Index position = 0;
      for (const T& value : set) {
        std::copy(key.begin(), key.end(), ix + at * rank);
        ix[at * rank + rank - 1] = position++;
        v[at++] = value;
      }
    }
    std::int64_t* s = shape.data<std::int64_t>();
    std::copy(group_shape.begin(), group_shape.end(), s);
    s[rank - 1] = max_set_size;
  }

  Status dense_to_dense(OpKernelContext& ctx) {
    const Tensor& set1 = ctx.input(0);
    const Tensor& set2 = ctx.input(1);
    std::vector<Index> groups;
    ACTORFLOW_RETURN_IF_ERROR(
        group_shape_from_inputs(dims_of(set1.shape()), dims_of(set2.shape()), &groups));
    const Index num_groups =
        std::accumulate(groups.begin(), groups.end(), Index{1}, std::multiplies<Index>());
    GroupSets<T> sets;
    std::unordered_set<T> a, b;
    for (Index g = 0; g < num_groups; ++g) {
      populate_from_dense_group(set1, g, &a);
      populate_from_dense_group(set2, g, &b);
      add(group_indices(g, groups), apply(a, b), &sets);
    }
    output(ctx, groups, sets);
    return {};
  }

  Status dense_to_sparse(OpKernelContext& ctx) {
    const Tensor& set1 = ctx.input(0);
    SparseSets set2;
    ACTORFLOW_RETURN_IF_ERROR(sparse_sets_from_context(ctx, 1, validate_indices_, &set2));
    std::vector<Index> groups;
    ACTORFLOW_RETURN_IF_ERROR(group_shape_from_inputs(dims_of(set1.shape()), set2.shape, &groups));
    const Index num_groups =
        std::accumulate(groups.begin(), groups.end(), Index{1}, std::multiplies<Index>());
    GroupSets<T> sets;
    std::unordered_set<T> a, b;
    std::size_t next = 0;  // set2's group not consumed yet
    for (Index g = 0; g < num_groups; ++g) {
      std::vector<Index> key = group_indices(g, groups);
      populate_from_dense_group(set1, g, &a);
      b.clear();
      // A sparse group matching no dense group in turn (out of order, without
      // validate_indices) stops the walk through set2 there, as in TensorFlow.
      if (next < set2.groups.size() && set2.key(set2.groups[next]) == key)
        ACTORFLOW_RETURN_IF_ERROR(populate_from_sparse_group(set2, set2.groups[next++], &b));
      add(std::move(key), apply(a, b), &sets);
    }
    output(ctx, groups, sets);
    return {};
  }

  Status sparse_to_sparse(OpKernelContext& ctx) {
    SparseSets set1, set2;
    ACTORFLOW_RETURN_IF_ERROR(sparse_sets_from_context(ctx, 0, validate_indices_, &set1));
    ACTORFLOW_RETURN_IF_ERROR(sparse_sets_from_context(ctx, 3, validate_indices_, &set2));
    std::vector<Index> groups;
    ACTORFLOW_RETURN_IF_ERROR(group_shape_from_inputs(set1.shape, set2.shape, &groups));
    GroupSets<T> sets;
    std::unordered_set<T> a, b;
    std::size_t i = 0, j = 0;
    // The groups of both operands merged in the order of their coordinates (CompareGroups:
    // the first differing coordinate decides; an exhausted operand compares last).
    while (i < set1.groups.size() || j < set2.groups.size()) {
      Index compare = 0;
      std::vector<Index> key1, key2;
      if (i < set1.groups.size()) key1 = set1.key(set1.groups[i]);
      if (j < set2.groups.size()) key2 = set2.key(set2.groups[j]);
      if (key1.empty()) {
        compare = 1;
      } else if (key2.empty()) {
        compare = -1;
      } else {
        for (std::size_t d = 0; d < key1.size() && compare == 0; ++d) compare = key1[d] - key2[d];
      }
      std::vector<Index> key;
      a.clear();
      b.clear();
      if (compare <= 0) {
        ACTORFLOW_RETURN_IF_ERROR(populate_from_sparse_group(set1, set1.groups[i++], &a));
        key = key1;
      }
      if (compare >= 0) {
        ACTORFLOW_RETURN_IF_ERROR(populate_from_sparse_group(set2, set2.groups[j++], &b));
        key = key2;
      }
      add(std::move(key), apply(a, b), &sets);
    }
    output(ctx, groups, sets);
    return {};
  }

  SetOperation set_operation_ = SetOperation::set_union;
  bool validate_indices_ = true;
};

}  // namespace

namespace detail {

void register_set_kernels(KernelRegistry& r) {
  // TensorFlow's types: int8, int16, int32, int64, uint8, uint16 and string.
  register_for_types<SetSizeOp, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                     std::uint16_t, std::string>(r, "SetSize");
  for (const char* op :
       {"DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation"})
    register_for_types<SetOperationOp, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                       std::uint8_t, std::uint16_t, std::string>(r, op);
}

}  // namespace detail

}  // namespace af
