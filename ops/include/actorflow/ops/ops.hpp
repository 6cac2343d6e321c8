#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/parsing_ops.hpp"

/// Graph-building functions for the standard ops. Each creates a node in the graph of its
/// first input (or the graph passed in) and throws InvalidArgumentError, naming the node,
/// when shape or type inference rejects the inputs. Default names follow TensorFlow's
/// Python API (`tf.add` -> "Add"; the `+` operator -> "add").
namespace af {

// -- array ops ----------------------------------------------------------------------------

/// `tf.identity`: op Identity.
Output identity(const Output& x, std::string_view name = {});
/// `tf.reshape`: op Reshape; one dimension may be -1.
Output reshape(const Output& x, const Output& shape, std::string_view name = {});
/// As above with `shape` as an int64 Const "<op>/shape".
Output reshape(const Output& x, const std::vector<std::int64_t>& shape, std::string_view name = {});
/// `tf.stack`: op Pack, default name "stack".
Output stack(const std::vector<Output>& values, int axis = 0, std::string_view name = {});
/// `tf.concat`: op ConcatV2, default name "concat".
Output concat(const std::vector<Output>& values, int axis, std::string_view name = {});
/// `tf.fill`: op Fill.
Output fill(const Output& dims, const Output& value, std::string_view name = {});
/// `tf.zeros` / `tf.ones`: a Const when small (< 1000 elements), else a Fill.
Output zeros(Graph& g, const Shape& shape, DType dtype = DType::float32,
             std::string_view name = {});
/// As `zeros`, filled with ones (default name "ones").
Output ones(Graph& g, const Shape& shape, DType dtype = DType::float32, std::string_view name = {});
/// `tf.cast`: op Cast (SrcT, DstT); default name "Cast". Returns `x` itself (no op) when it
/// already has `dtype`.
Output cast(const Output& x, DType dtype, std::string_view name = {});

/// `tf.range(start, limit, delta)`: op Range (Tidx int32, int64, float32 or float64) under
/// the name scope `name` (default "range"); the Range op takes the scope's name. The three
/// values are cast to the widest of their dtypes (int32 < int64 < float32 < float64), as
/// TensorFlow infers the dtype, with Casts "<scope>/Cast", "<scope>/Cast_1". With constant
/// inputs the output length is known at construction, and an empty-or-backwards range
/// throws InvalidArgumentError ("Requires start <= limit when delta > 0: 3/1", "Requires
/// delta != 0"); otherwise running the op fails with InvalidArgument and those messages.
/// Float ranges accumulate `start += delta` as TensorFlow 1.x's kernel does.
/// Throws InvalidArgumentError when an input has another dtype.
Output range(const Output& start, const Output& limit, const Output& delta,
             std::string_view name = {});
/// `tf.range(limit)` for a tensor limit: Consts "<scope>/start" (int32 0) and
/// "<scope>/delta" (int32 1), cast to `limit`'s dtype when that is wider.
Output range(const Output& limit, std::string_view name = {});
/// `tf.range(limit)` for a number: [0, 1, ..., limit - 1] (int32 unless `limit` needs int64).
Output range(Graph& g, std::int64_t limit, std::string_view name = {});
/// `tf.range(start, limit, delta)` for numbers: Consts "<scope>/start", "<scope>/limit",
/// "<scope>/delta", each int32 unless its value needs int64.
Output range(Graph& g, std::int64_t start, std::int64_t limit, std::int64_t delta = 1,
             std::string_view name = {});
/// `tf.gather(params, indices)`: op GatherV2 along axis 0 (default name "GatherV2", the axis
/// a Const "<op>/axis"). `params` may have any dtype, `indices` is int32 or int64 of any
/// shape; the output has shape `indices.shape + params.shape[1:]`. Running it fails with
/// InvalidArgument "indices[1] = 5 is not in [0, 3)" for an index out of range.
Output gather(const Output& params, const Output& indices, std::string_view name = {});
/// `tf.gather(params, indices, axis=axis)`: the output has shape `params.shape[:axis] +
/// indices.shape + params.shape[axis + 1:]`; a negative axis counts from the end.
Output gather(const Output& params, const Output& indices, std::int64_t axis,
              std::string_view name = {});
/// `tf.size`: the number of elements of `x` as a scalar of `out_type` (int32 or int64).
/// As TensorFlow 1.x, a statically known answer (a fully defined shape, or a zero
/// dimension) is a Const named `name` (default "Size"); otherwise op Size.
/// Throws InvalidArgumentError for another `out_type`.
Output size(const Output& x, DType out_type = DType::int32, std::string_view name = {});
/// `tf.shape`: the shape of `x` as a vector of `out_type` (int32 or int64); a Const named
/// `name` (default "Shape") when the static shape is fully defined, else op Shape.
Output shape(const Output& x, DType out_type = DType::int32, std::string_view name = {});

// -- math ops -----------------------------------------------------------------------------

/// Element-wise with NumPy broadcasting: ops Add, Sub, Mul, RealDiv (floats) / Div (ints).
/// `tf.add`: op Add.
Output add(const Output& a, const Output& b, std::string_view name = {});
/// `tf.subtract`: op Sub.
Output sub(const Output& a, const Output& b, std::string_view name = {});
/// `tf.multiply`: op Mul.
Output mul(const Output& a, const Output& b, std::string_view name = {});
/// `tf.truediv` on floats (op RealDiv); truncating op Div on integers.
Output div(const Output& a, const Output& b, std::string_view name = {});
/// `tf.negative`: op Neg.
Output neg(const Output& x, std::string_view name = {});
/// `tf.matmul`: op MatMul on rank-2 inputs.
Output matmul(const Output& a, const Output& b, bool transpose_a = false, bool transpose_b = false,
              std::string_view name = {});
/// `tf.reduce_sum` / `reduce_mean` / `reduce_max`: ops Sum, Mean, Max. Absent `axes`
/// (`std::nullopt`, TF's `axis=None`) reduces all dimensions; an empty list reduces none,
/// as in TensorFlow; negative axes count from the end. `tf.reduce_sum`: op Sum.
Output reduce_sum(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                  bool keep_dims = false, std::string_view name = {});
/// `tf.reduce_mean`: op Mean (axes as above).
Output reduce_mean(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                   bool keep_dims = false, std::string_view name = {});
/// `tf.reduce_max`: op Max (axes as above).
Output reduce_max(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                  bool keep_dims = false, std::string_view name = {});
/// Activations: ops Relu, Sigmoid, Tanh, Softmax (softmax over the last dimension).
/// `tf.nn.relu`: op Relu.
Output relu(const Output& x, std::string_view name = {});
/// `tf.sigmoid`: op Sigmoid.
Output sigmoid(const Output& x, std::string_view name = {});
/// `tf.tanh`: op Tanh.
Output tanh(const Output& x, std::string_view name = {});
/// `tf.nn.softmax`: op Softmax over the last dimension.
Output softmax(const Output& x, std::string_view name = {});

// -- random ops ---------------------------------------------------------------------------

/// `tf.random_uniform`: values in [minval, maxval) (ops RandomUniform, mul, add under the
/// name scope "random_uniform"). With a seed, sequences match TensorFlow's Philox output.
Output random_uniform(Graph& g, const Shape& shape, DType dtype = DType::float32,
                      double minval = 0.0, double maxval = 1.0,
                      std::optional<std::int64_t> seed = {}, std::string_view name = {});
/// `tf.random_normal`: ops RandomStandardNormal, mul, add under "random_normal".
Output random_normal(Graph& g, const Shape& shape, DType dtype = DType::float32, double mean = 0.0,
                     double stddev = 1.0, std::optional<std::int64_t> seed = {},
                     std::string_view name = {});
/// `tf.random_shuffle`: op RandomShuffle (default name "RandomShuffle"), a random
/// permutation of `value` along dimension 0 (scalars and single rows pass through). Seeds
/// come from `Graph::get_seed(seed)`; with them fixed, every run draws the next permutation
/// of TensorFlow's sequence (the op is stateful: each run advances its generator).
Output random_shuffle(const Output& value, std::optional<std::int64_t> seed = {},
                      std::string_view name = {});

// -- state and control ops ----------------------------------------------------------------

/// `tf.assign(ref, value)`: op Assign; `ref` must be a variable's reference output.
Output assign(const Output& ref, const Output& value, std::string_view name = {});
/// `tf.is_variable_initialized(ref)`: op IsVariableInitialized (bool scalar), colocated with
/// the variable through its reference input.
Output is_variable_initialized(const Output& ref, std::string_view name = {});
/// `tf.assign_add(ref, delta)`: op AssignAdd; outputs the new value.
Output assign_add(const Output& ref, const Output& delta, std::string_view name = {});
/// `tf.assign_sub(ref, delta)`: op AssignSub; outputs the new value.
Output assign_sub(const Output& ref, const Output& delta, std::string_view name = {});
/// `tf.compat.v1.get_session_handle(value)`: op GetSessionHandle (default name
/// "GetSessionHandle"), keeps `value` in the session, on the op's device, and outputs its
/// handle, a string scalar "<node>;<id>;<device>" that later runs feed to
/// `get_session_tensor` (the tensor is kept when the op runs, whether or not the run fetches
/// the handle, which TensorFlow requires).
Output get_session_handle(const Output& value, std::string_view name = {});
/// `tf.compat.v1.get_session_tensor`'s op: GetSessionTensor (default name
/// "GetSessionTensor"), the kept tensor the string scalar `handle` names, of `dtype`. Place
/// it on the handle's device. InvalidArgument "The tensor with handle 'h' is not in the
/// session store." for a handle the session does not hold (deleted, or another session's).
Output get_session_tensor(const Output& handle, DType dtype, std::string_view name = {});
/// `tf.compat.v1.delete_session_tensor`'s op: DeleteSessionTensor (default name
/// "DeleteSessionTensor"), drops the kept tensor `handle` names; fails as
/// `get_session_tensor` for an unknown handle.
Operation delete_session_tensor(const Output& handle, std::string_view name = {});
/// `tf.count_up_to(ref, limit)`: op CountUpTo (default name "CountUpTo", colocated with the
/// variable) on a scalar int32 or int64 variable: increments it and outputs the value
/// before the increment. Once the value has reached `limit`, running the op fails with
/// OutOfRange "Reached limit of <limit>" and leaves the variable unchanged; on an
/// uninitialized variable it fails with FailedPrecondition. Throws InvalidArgumentError
/// when `ref` is not a variable's reference output of int32 / int64, or not a scalar. A
/// resource variable (`ResourceVariable.count_up_to`) gets op ResourceCountUpTo (default
/// name "ResourceCountUpTo"), which runs alike.
Output count_up_to(const Variable& ref, std::int64_t limit, std::string_view name = {});
/// As above on a variable's reference output.
Output count_up_to(const Output& ref, std::int64_t limit, std::string_view name = {});
/// Forwards `x` after waiting `delay` without holding a thread (op `_Delay`, an
/// asynchronous kernel; an actorflow extension useful for tests and demos).
Output delay(const Output& x, std::chrono::microseconds delay, std::string_view name = {});

// -- operators ----------------------------------------------------------------------------

/// A scalar constant of `like`'s dtype in `like`'s graph, named `name` (default "Const").
Output scalar_like(const Output& like, double value, std::string_view name = {});

namespace detail {
/// Applies binary op `fn` to `a` and a scalar, naming the scalar "<op>/y" (or "<op>/x" when
/// it is the left operand) as TensorFlow's Python operators do.
template <class Fn>
Output with_scalar(const Output& tensor, double scalar, bool scalar_first, const char* op, Fn fn) {
  std::string op_name = tensor.graph().unique_name(op, /*mark_as_used=*/false);
  Output c = scalar_like(tensor, scalar, op_name + (scalar_first ? "/x/" : "/y/"));
  return scalar_first ? fn(c, tensor, op) : fn(tensor, c, op);
}
}  // namespace detail

/// `a + b`: op Add named "add".
inline Output operator+(const Output& a, const Output& b) { return add(a, b, "add"); }
/// `a - b`: op Sub named "sub".
inline Output operator-(const Output& a, const Output& b) { return sub(a, b, "sub"); }
/// `a * b`: op Mul named "mul".
inline Output operator*(const Output& a, const Output& b) { return mul(a, b, "mul"); }
/// `a / b`: `div` named "truediv".
inline Output operator/(const Output& a, const Output& b) { return div(a, b, "truediv"); }
/// `-a`: op Neg.
inline Output operator-(const Output& a) { return neg(a, "Neg"); }

/// Tensor-number operators: the number becomes a Const of the tensor's dtype named
/// "<op>/y" ("<op>/x" when it is the left operand), as TensorFlow's Python operators do.
template <class T>
requires std::is_arithmetic_v<T> Output operator+(const Output& a, T b) {
  return detail::with_scalar(a, static_cast<double>(b), false, "add",
                             [](auto& x, auto& y, auto n) { return add(x, y, n); });
}
/// `x + b` with a number `x` (see above).
template <class T>
requires std::is_arithmetic_v<T> Output operator+(T a, const Output& b) {
  return detail::with_scalar(b, static_cast<double>(a), true, "add",
                             [](auto& x, auto& y, auto n) { return add(x, y, n); });
}
/// `a - x` with a number `x`.
template <class T>
requires std::is_arithmetic_v<T> Output operator-(const Output& a, T b) {
  return detail::with_scalar(a, static_cast<double>(b), false, "sub",
                             [](auto& x, auto& y, auto n) { return sub(x, y, n); });
}
/// `x - b` with a number `x`.
template <class T>
requires std::is_arithmetic_v<T> Output operator-(T a, const Output& b) {
  return detail::with_scalar(b, static_cast<double>(a), true, "sub",
                             [](auto& x, auto& y, auto n) { return sub(x, y, n); });
}
/// `a * x` with a number `x`.
template <class T>
requires std::is_arithmetic_v<T> Output operator*(const Output& a, T b) {
  return detail::with_scalar(a, static_cast<double>(b), false, "mul",
                             [](auto& x, auto& y, auto n) { return mul(x, y, n); });
}
/// `x * b` with a number `x`.
template <class T>
requires std::is_arithmetic_v<T> Output operator*(T a, const Output& b) {
  return detail::with_scalar(b, static_cast<double>(a), true, "mul",
                             [](auto& x, auto& y, auto n) { return mul(x, y, n); });
}
/// `a / x` with a number `x`.
template <class T>
requires std::is_arithmetic_v<T> Output operator/(const Output& a, T b) {
  return detail::with_scalar(a, static_cast<double>(b), false, "truediv",
                             [](auto& x, auto& y, auto n) { return div(x, y, n); });
}
/// `x / b` with a number `x`.
template <class T>
requires std::is_arithmetic_v<T> Output operator/(T a, const Output& b) {
  return detail::with_scalar(b, static_cast<double>(a), true, "truediv",
                             [](auto& x, auto& y, auto n) { return div(x, y, n); });
}

// Variables convert to their value.
/// `v + b` on the variable's value (`<name>/read`).
inline Output operator+(const Variable& a, const Output& b) { return Output(a) + b; }
/// `v * b` on the variable's value.
inline Output operator*(const Variable& a, const Output& b) { return Output(a) * b; }
/// `v - b` on the variable's value.
inline Output operator-(const Variable& a, const Output& b) { return Output(a) - b; }
/// `v / b` on the variable's value.
inline Output operator/(const Variable& a, const Output& b) { return Output(a) / b; }

}  // namespace af
