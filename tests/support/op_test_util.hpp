#pragma once

// Small helpers shared by the op conformance tests (tests/conformance): tensor and Const
// makers, a tensor's values as a vector, and checks that building or running a graph fails
// with TensorFlow's message. Each check reports a failure, never passes, when nothing throws;
// an exception of another type propagates and fails the test case. The text matchers are
// matchers.hpp's.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"
#include "actorflow/ops/tensor.hpp"
#include "matchers.hpp"

namespace af::test {

// -- Tensors and Consts ----------------------------------------------------------------------

/// A 1-D tensor of `v`.
template <class T>
Tensor vec(std::vector<T> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_vector(v, Shape{n});
}

/// A tensor of `v` of shape `shape` (InvalidArgumentError when the sizes differ).
template <class T>
Tensor vec(std::vector<T> v, Shape shape) {
  return Tensor::from_vector(v, shape);
}

/// A Const of the 1-D tensor of `v` in `g`, named `name` (the graph's default when empty).
template <class T>
Output vec(Graph& g, std::vector<T> v, const std::string& name = {}) {
  return g.constant(Tensor::from_vector(std::move(v)), name);
}

/// A 1-D float32 tensor of `v`.
inline Tensor floats(std::vector<float> v) { return Tensor::from_vector(std::move(v)); }

/// A float32 tensor of `v` of shape `shape` (InvalidArgumentError when the sizes differ).
inline Tensor floats(std::vector<float> v, Shape shape) {
  return Tensor::from_vector(std::move(v), shape);
}

/// The `n` floats `from`, `from + 1`, ..., `from + n - 1`.
inline std::vector<float> iota(int n, float from = 1.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = from + static_cast<float>(i);
  return v;
}

/// A SparseTensor of Consts in `g`: `indices` holds the [N, rank] index matrix row by row
/// (N = indices.size() / rank, 0 for rank 0), `values` the N values and `shape` the dense
/// shape, whose size is the rank.
inline SparseTensor sparse(Graph& g, const std::vector<std::int64_t>& indices, const Tensor& values,
                           const std::vector<std::int64_t>& shape) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  const auto n = rank == 0 ? 0 : static_cast<std::int64_t>(indices.size()) / rank;
  return SparseTensor{g.constant(Tensor::from_vector(indices, Shape{n, rank})), g.constant(values),
                      g.constant(Tensor::from_vector(shape))};
}

/// The elements of `t` (of C++ type `T`, which must match its dtype) in row-major order.
template <class T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// -- Expected errors -------------------------------------------------------------------------

namespace detail {

/// Calls `f` and checks that it throws an `E` whose message contains each of `parts`; when
/// `f` returns, reports an error of `instead` followed by the first part.
template <class E, class F>
void expect_error(F&& f, const char* instead, std::initializer_list<std::string> parts) {
  try {
    f();
    BOOST_ERROR(instead << *parts.begin());
  } catch (const E& e) {
    for (const std::string& part : parts) BOOST_TEST(contains(e.what(), part), e.what());
  }
}

}  // namespace detail

/// Calls `f` (building a graph, or running one) and expects an `E` whose message contains
/// `message`.
template <class E = InvalidArgumentError, class F>
void refuses(F&& f, const std::string& message) {
  detail::expect_error<E>(std::forward<F>(f), "no error; expected ", {message});
}

/// Calls `build` and expects an InvalidArgumentError (a shape or type check while building
/// the graph) whose message contains `message`.
template <class F>
void refused_while_building(F&& build, const std::string& message) {
  detail::expect_error<InvalidArgumentError>(std::forward<F>(build), "built; expected ", {message});
}

/// Runs `y` in `sess` with `feeds` and expects an af::Error (of any kind) whose message
/// contains `message`.
inline void fails_with(Session& sess, const Output& y, const std::string& message,
                       const FeedDict& feeds = {}) {
  detail::expect_error<Error>([&] { sess.run(y, feeds); }, "no error; expected ", {message});
}

/// Runs `y` in a new session of `g` and expects an `E` whose message contains both `message`
/// and `node` (the name of the node that fails, which the error names).
template <class E = InvalidArgumentError>
void refused_when_run(Graph& g, const Output& y, const std::string& message,
                      const std::string& node) {
  Session sess(g);
  detail::expect_error<E>([&] { sess.run(y); }, "ran; expected ", {message, node});
}

}  // namespace af::test
