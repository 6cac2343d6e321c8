#pragma once

// Square roots that round as TensorFlow's do. Under its default EIGEN_FAST_MATH, Debian's
// Eigen 3.4.0 takes `sqrt()` of a float packet as an approximate reciprocal square root and
// one Newton step, an ulp off now and then (sqrt(0.001f): 0.0316227749 for the correctly
// rounded 0.0316227786), while TensorFlow's Eigen takes the square-root instruction. The
// kernels take `x.unaryExpr(ExactSqrtOp<T>())` in place of `x.sqrt()`.
#include <Eigen/Core>
#include <cmath>

namespace af::detail {

#if defined(EIGEN_VECTORIZE_SSE)
/// The square-root instruction on four floats: correctly rounded, as std::sqrt.
inline Eigen::internal::Packet4f exact_psqrt(const Eigen::internal::Packet4f& a) {
  return _mm_sqrt_ps(a);
}
#endif
#if defined(EIGEN_VECTORIZE_AVX)
/// The square-root instruction on eight floats.
inline Eigen::internal::Packet8f exact_psqrt(const Eigen::internal::Packet8f& a) {
  return _mm256_sqrt_ps(a);
}
#endif
/// Other packets (double's): Eigen's own psqrt, which is the instruction for them.
template <class Packet>
Packet exact_psqrt(const Packet& a) {
  return Eigen::internal::psqrt(a);
}

/// Eigen's scalar_sqrt_op with a correctly rounded square root in every form, scalar or
/// packet, so an element's result does not depend on where a block boundary falls.
template <class Scalar>
struct ExactSqrtOp {
  Scalar operator()(const Scalar& a) const {
    using std::sqrt;
    return sqrt(a);
  }
  template <class Packet>
  Packet packetOp(const Packet& a) const {
    return exact_psqrt(a);
  }
};

}  // namespace af::detail

namespace Eigen::internal {

/// As scalar_sqrt_op's traits: vectorised where Eigen vectorises the square root.
template <class Scalar>
struct functor_traits<af::detail::ExactSqrtOp<Scalar>> {
  enum {
    Cost = functor_traits<scalar_sqrt_op<Scalar>>::Cost,
    PacketAccess = functor_traits<scalar_sqrt_op<Scalar>>::PacketAccess
  };
};

}  // namespace Eigen::internal
