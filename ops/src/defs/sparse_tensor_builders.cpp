// The graph-building functions of sparse_tensor_ops.hpp (TensorFlow's sparse_ops.py): each
// creates its op under the name given (default: the op type) and the Consts it needs in the
// op's name scope. The op definitions are in sparse_tensor_ops.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/sparse_tensor_ops.hpp"

namespace af {

namespace {

void check_valid(const SparseTensor& sp, const char* who) {
  if (!sp.valid())
    throw InvalidArgumentError(invalid_argument(std::string(who) + ": an invalid SparseTensor"));
}

// The op's unique name from `name` or its type; Consts go under "<name>/".
std::string op_name(Graph& g, std::string_view name, const char* type) {
  return g.unique_name(name.empty() ? std::string_view(type) : name);
}

// A Const "<op>/<const_name>" of `value`.
Output scoped_constant(Graph& g, const std::string& op, const Tensor& value,
                       const char* const_name) {
  auto scope = g.name_scope(op + "/");
  return g.constant(value, const_name);
}

// The int32 reduction axes: those given, else every dimension (a Const of range(rank) when the
// dense shape's length is known while building, else Range(0, Size(dense_shape))).
Output reduction_axes(Graph& g, const std::string& op, const SparseTensor& sp,
                      const std::optional<std::vector<std::int64_t>>& axes) {
  if (axes)
    return scoped_constant(
        g, op, Tensor::from_vector(std::vector<std::int32_t>(axes->begin(), axes->end())),
        "reduction_axes");
  const PartialShape& s = sp.dense_shape.shape();
  if (s.rank_known() && s.dim(0) >= 0) {
    std::vector<std::int32_t> all(static_cast<std::size_t>(s.dim(0)));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int32_t>(i);
    return scoped_constant(g, op, Tensor::from_vector(all), "reduction_axes");
  }
  auto scope = g.name_scope(op + "/");
  return range(size(sp.dense_shape, DType::int32, "Size"), "range");
}

Operation reduce_op(const char* type, const SparseTensor& sp,
                    const std::optional<std::vector<std::int64_t>>& axes, bool keep_dims,
                    std::string_view name) {
  check_valid(sp, type);
  Graph& g = sp.values.graph();
  const std::string op = op_name(g, name, type);
  const Output axes_t = reduction_axes(g, op, sp, axes);
  return g.create_op(type, {sp.indices, sp.values, sp.dense_shape, axes_t},
                     {{"keep_dims", keep_dims}, {"T", sp.values.dtype()}}, op + "/");
}

SparseTensor cwise(const char* type, const SparseTensor& sp, const Output& dense,
                   std::string_view name) {
  check_valid(sp, type);
  const Output values = sp.values.graph()
                            .create_op(type, {sp.indices, sp.values, sp.dense_shape, dense},
                                       {{"T", sp.values.dtype()}}, name.empty() ? type : name)
                            .output(0);
  return SparseTensor{sp.indices, values, sp.dense_shape};
}

SparseTensor sparse_sparse(const char* type, const SparseTensor& a, const SparseTensor& b,
                           std::string_view name) {
  check_valid(a, type);
  check_valid(b, type);
  Operation op = a.values.graph().create_op(
      type, {a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape},
      {{"T", a.values.dtype()}}, name.empty() ? type : name);
  return SparseTensor{op.output(0), op.output(1), a.dense_shape};
}

// The inputs of a cross op: int32 values and dense inputs cast to int64 ("Cast" ops, as
// sparse_ops.py); whether any input is an integer (SparseCross's internal_type int64).
struct CrossInputs {
  std::vector<Output> inputs;  // indices..., values..., shapes..., dense...
  std::vector<DType> sparse_types, dense_types;
  bool any_int = false;
};

CrossInputs cross_inputs(Graph& g, const std::vector<SparseTensor>& sparse,
                         const std::vector<Output>& dense) {
  CrossInputs c;
  auto as_feature = [&](const Output& x) {
    if (x.dtype() == DType::string) return x;
    c.any_int = true;
    return x.dtype() == DType::int64 ? x : cast(x, DType::int64, "Cast");
  };
  std::vector<Output> values, dense_in;
  for (const SparseTensor& sp : sparse) {
    check_valid(sp, "sparse_cross");
    c.inputs.push_back(sp.indices);
    values.push_back(as_feature(sp.values));
    c.sparse_types.push_back(values.back().dtype());
  }
  for (const Output& v : values) c.inputs.push_back(v);
  for (const SparseTensor& sp : sparse) c.inputs.push_back(sp.dense_shape);
  for (const Output& d : dense) {
    dense_in.push_back(as_feature(d));
    c.dense_types.push_back(dense_in.back().dtype());
    c.inputs.push_back(dense_in.back());
  }
  (void)g;
  return c;
}

SparseTensor cross_op(const char* type, const std::vector<SparseTensor>& sparse,
                      const std::vector<Output>& dense, AttrMap attrs, std::string_view name,
                      const std::vector<std::pair<const char*, Tensor>>& trailing) {
  if (sparse.empty() && dense.empty())
    throw InvalidArgumentError(invalid_argument(std::string(type) + ": no inputs to cross"));
  Graph& g = sparse.empty() ? dense.front().graph() : sparse.front().values.graph();
  CrossInputs c = cross_inputs(g, sparse, dense);
  const std::string op = op_name(g, name, type);
  for (const auto& [const_name, value] : trailing)
    c.inputs.push_back(scoped_constant(g, op, value, const_name));
  attrs.emplace("N", static_cast<std::int64_t>(sparse.size()));
  attrs.emplace("sparse_types", c.sparse_types);
  attrs.emplace("dense_types", c.dense_types);
  if (std::string_view(type) == "SparseCross")
    attrs.emplace("internal_type", c.any_int ? DType::int64 : DType::string);
  Operation o = g.create_op(type, c.inputs, std::move(attrs), op + "/");
  return SparseTensor{o.output(0), o.output(1), o.output(2)};
}

}  // namespace

Output sparse_tensor_dense_matmul(const SparseTensor& a, const Output& b, bool adjoint_a,
                                  bool adjoint_b, std::string_view name) {
  check_valid(a, "sparse_tensor_dense_matmul");
  return b.graph()
      .create_op("SparseTensorDenseMatMul", {a.indices, a.values, a.dense_shape, b},
                 {{"T", a.values.dtype()},
                  {"Tindices", a.indices.dtype()},
                  {"adjoint_a", adjoint_a},
                  {"adjoint_b", adjoint_b}},
                 name.empty() ? "SparseTensorDenseMatMul" : name)
      .output(0);
}

SparseTensor sparse_add(const SparseTensor& a, const SparseTensor& b, const Output& thresh,
                        std::string_view name) {
  check_valid(a, "sparse_add");
  check_valid(b, "sparse_add");
  Operation op = a.values.graph().create_op(
      "SparseAdd", {a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, thresh},
      {{"T", a.values.dtype()}, {"Treal", thresh.dtype()}}, name.empty() ? "SparseAdd" : name);
  return SparseTensor{op.output(0), op.output(1), op.output(2)};
}

SparseTensor sparse_add(const SparseTensor& a, const SparseTensor& b, double thresh,
                        std::string_view name) {
  check_valid(a, "sparse_add");
  Graph& g = a.values.graph();
  const std::string op = op_name(g, name, "SparseAdd");
  Tensor t;
  switch (a.values.dtype()) {
    case DType::float64:
      t = Tensor(thresh);
      break;
    case DType::int32:
      t = Tensor(static_cast<std::int32_t>(thresh));
      break;
    case DType::int64:
      t = Tensor(static_cast<std::int64_t>(thresh));
      break;
    default:
      t = Tensor(static_cast<float>(thresh));
  }
  return sparse_add(a, b, scoped_constant(g, op, t, "thresh"), op + "/");
}

std::pair<Output, Output> sparse_add_grad(const Output& backprop_val_grad, const Output& a_indices,
                                          const Output& b_indices, const Output& sum_indices,
                                          std::string_view name) {
  Operation op = backprop_val_grad.graph().create_op(
      "SparseAddGrad", {backprop_val_grad, a_indices, b_indices, sum_indices},
      {{"T", backprop_val_grad.dtype()}}, name.empty() ? "SparseAddGrad" : name);
  return {op.output(0), op.output(1)};
}

Output sparse_tensor_dense_add(const SparseTensor& a, const Output& b, std::string_view name) {
  check_valid(a, "sparse_tensor_dense_add");
  return b.graph()
      .create_op("SparseTensorDenseAdd", {a.indices, a.values, a.dense_shape, b},
                 {{"T", a.values.dtype()}, {"Tindices", a.indices.dtype()}},
                 name.empty() ? "SparseTensorDenseAdd" : name)
      .output(0);
}

Output sparse_reduce_sum(const SparseTensor& sp,
                         const std::optional<std::vector<std::int64_t>>& axes, bool keep_dims,
                         std::string_view name) {
  return reduce_op("SparseReduceSum", sp, axes, keep_dims, name).output(0);
}

SparseTensor sparse_reduce_sum_sparse(const SparseTensor& sp,
                                      const std::optional<std::vector<std::int64_t>>& axes,
                                      bool keep_dims, std::string_view name) {
  Operation op = reduce_op("SparseReduceSumSparse", sp, axes, keep_dims, name);
  return SparseTensor{op.output(0), op.output(1), op.output(2)};
}

Output sparse_reduce_max(const SparseTensor& sp,
                         const std::optional<std::vector<std::int64_t>>& axes, bool keep_dims,
                         std::string_view name) {
  return reduce_op("SparseReduceMax", sp, axes, keep_dims, name).output(0);
}

SparseTensor sparse_reduce_max_sparse(const SparseTensor& sp,
                                      const std::optional<std::vector<std::int64_t>>& axes,
                                      bool keep_dims, std::string_view name) {
  Operation op = reduce_op("SparseReduceMaxSparse", sp, axes, keep_dims, name);
  return SparseTensor{op.output(0), op.output(1), op.output(2)};
}

SparseTensor sparse_reorder(const SparseTensor& sp, std::string_view name) {
  check_valid(sp, "sparse_reorder");
  Operation op = sp.values.graph().create_op(
      "SparseReorder", {sp.indices, sp.values, sp.dense_shape}, {{"T", sp.values.dtype()}},
      name.empty() ? "SparseReorder" : name);
  return SparseTensor{op.output(0), op.output(1), sp.dense_shape};
}

SparseTensor sparse_concat(std::int64_t axis, const std::vector<SparseTensor>& inputs,
                           std::string_view name) {
  if (inputs.empty()) throw InvalidArgumentError(invalid_argument("sparse_concat: no inputs"));
  std::vector<Output> in;
  for (const auto& sp : inputs) check_valid(sp, "sparse_concat"), in.push_back(sp.indices);
  for (const auto& sp : inputs) in.push_back(sp.values);
  for (const auto& sp : inputs) in.push_back(sp.dense_shape);
  Operation op =
      inputs.front().values.graph().create_op("SparseConcat", in,
                                              {{"concat_dim", axis},
                                               {"N", static_cast<std::int64_t>(inputs.size())},
                                               {"T", inputs.front().values.dtype()}},
                                              name.empty() ? "SparseConcat" : name);
  return SparseTensor{op.output(0), op.output(1), op.output(2)};
}

SparseTensor sparse_slice(const SparseTensor& sp, const std::vector<std::int64_t>& start,
                          const std::vector<std::int64_t>& size, std::string_view name) {
  check_valid(sp, "sparse_slice");
  Graph& g = sp.values.graph();
  const std::string op = op_name(g, name, "SparseSlice");
  const Output start_t = scoped_constant(g, op, Tensor::from_vector(start), "start");
  const Output size_t_ = scoped_constant(g, op, Tensor::from_vector(size), "size");
  Operation o =
      g.create_op("SparseSlice", {sp.indices, sp.values, sp.dense_shape, start_t, size_t_},
                  {{"T", sp.values.dtype()}}, op + "/");
  return SparseTensor{o.output(0), o.output(1), o.output(2)};
}

Output sparse_slice_grad(const Output& backprop_val_grad, const Output& input_indices,
                         const Output& input_start, const Output& output_indices,
                         std::string_view name) {
  return backprop_val_grad.graph()
      .create_op("SparseSliceGrad", {backprop_val_grad, input_indices, input_start, output_indices},
                 {{"T", backprop_val_grad.dtype()}}, name.empty() ? "SparseSliceGrad" : name)
      .output(0);
}

SparseTensor sparse_softmax(const SparseTensor& sp, std::string_view name) {
  check_valid(sp, "sparse_softmax");
  const Output values =
      sp.values.graph()
          .create_op("SparseSoftmax", {sp.indices, sp.values, sp.dense_shape},
                     {{"T", sp.values.dtype()}}, name.empty() ? "SparseSoftmax" : name)
          .output(0);
  return SparseTensor{sp.indices, values, sp.dense_shape};
}

SparseTensor sparse_dense_cwise_mul(const SparseTensor& sp, const Output& dense,
                                    std::string_view name) {
  return cwise("SparseDenseCwiseMul", sp, dense, name);
}

SparseTensor sparse_dense_cwise_div(const SparseTensor& sp, const Output& dense,
                                    std::string_view name) {
  return cwise("SparseDenseCwiseDiv", sp, dense, name);
}

SparseTensor sparse_dense_cwise_add(const SparseTensor& sp, const Output& dense,
                                    std::string_view name) {
  return cwise("SparseDenseCwiseAdd", sp, dense, name);
}

SparseTensor sparse_maximum(const SparseTensor& a, const SparseTensor& b, std::string_view name) {
  return sparse_sparse("SparseSparseMaximum", a, b, name);
}

SparseTensor sparse_minimum(const SparseTensor& a, const SparseTensor& b, std::string_view name) {
  return sparse_sparse("SparseSparseMinimum", a, b, name);
}

SparseTensor sparse_cross(const std::vector<SparseTensor>& sparse, const std::vector<Output>& dense,
                          std::string_view name) {
  return cross_op("SparseCross", sparse, dense,
                  {{"hashed_output", false},
                   {"num_buckets", std::int64_t{0}},
                   {"hash_key", kDefaultCrossHashKey},
                   {"out_type", DType::string}},
                  name, {});
}

SparseTensor sparse_cross_v2(const std::vector<SparseTensor>& sparse,
                             const std::vector<Output>& dense, std::string_view separator,
                             std::string_view name) {
  return cross_op("SparseCrossV2", sparse, dense, {}, name,
                  {{"sep", Tensor(std::string(separator))}});
}

SparseTensor sparse_cross_hashed(const std::vector<SparseTensor>& sparse,
                                 const std::vector<Output>& dense, std::int64_t num_buckets,
                                 std::int64_t hash_key, std::string_view name) {
  return cross_op("SparseCross", sparse, dense,
                  {{"hashed_output", true},
                   {"num_buckets", num_buckets},
                   {"hash_key", hash_key},
                   {"out_type", DType::int64}},
                  name, {});
}

SparseTensor sparse_cross_hashed_salted(const std::vector<SparseTensor>& sparse,
                                        const std::vector<Output>& dense, std::int64_t num_buckets,
                                        bool strong_hash, const std::array<std::int64_t, 2>& salt,
                                        std::string_view name) {
  return cross_op(
      "SparseCrossHashed", sparse, dense, {}, name,
      {{"num_buckets", Tensor(num_buckets)},
       {"strong_hash", Tensor(strong_hash)},
       {"salt", Tensor::from_vector(std::vector<std::int64_t>(salt.begin(), salt.end()))}});
}

}  // namespace af
