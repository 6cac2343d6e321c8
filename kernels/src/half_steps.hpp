#pragma once

// Arithmetic on float16 and bfloat16 as TensorFlow's CPU kernels do it with Eigen::half and
// Eigen::bfloat16: each operation computed in float and its result rounded to the type, so
// a formula written once for float (the optimizers' update_span) rounds at every step as
// TensorFlow's does. Private to the kernels module.
#include <cmath>

#include "actorflow/ops/dtype.hpp"

namespace af::detail {

/// A value of the half-like type H (half_t, bfloat16_t) held as its exact float; every
/// operation rounds its float result to H.
template <class H>
struct HalfSteps {
  float v = 0;  ///< the value, exactly representable in H

  /// Zero.
  HalfSteps() = default;
  /// `x` rounded to H.
  explicit HalfSteps(double x) : v(round(static_cast<float>(x))) {}
  /// The value of `h`.
  explicit HalfSteps(H h) : v(static_cast<float>(h)) {}
  /// The value as H (exact).
  explicit operator H() const { return H(v); }
  /// The value as float (exact).
  explicit operator float() const { return v; }

  /// `x` rounded to H, as a float.
  static float round(float x) { return static_cast<float>(H(x)); }
  /// The HalfSteps of the float `x`, rounded.
  static HalfSteps of(float x) {
    HalfSteps out;
    out.v = round(x);
    return out;
  }

  friend HalfSteps operator+(HalfSteps a, HalfSteps b) { return of(a.v + b.v); }
  friend HalfSteps operator-(HalfSteps a, HalfSteps b) { return of(a.v - b.v); }
  friend HalfSteps operator*(HalfSteps a, HalfSteps b) { return of(a.v * b.v); }
  friend HalfSteps operator/(HalfSteps a, HalfSteps b) { return of(a.v / b.v); }
  friend HalfSteps operator-(HalfSteps a) { return of(-a.v); }
  HalfSteps& operator+=(HalfSteps b) { return *this = *this + b; }
  HalfSteps& operator-=(HalfSteps b) { return *this = *this - b; }
  HalfSteps& operator*=(HalfSteps b) { return *this = *this * b; }
  friend bool operator==(HalfSteps a, HalfSteps b) { return a.v == b.v; }
  friend bool operator<(HalfSteps a, HalfSteps b) { return a.v < b.v; }
  friend bool operator>(HalfSteps a, HalfSteps b) { return a.v > b.v; }
  friend bool operator<=(HalfSteps a, HalfSteps b) { return a.v <= b.v; }
  friend bool operator>=(HalfSteps a, HalfSteps b) { return a.v >= b.v; }

  // Eigen's numext functions of half: the float function, rounded.
  friend HalfSteps sqrt(HalfSteps a) { return of(std::sqrt(a.v)); }
  friend HalfSteps pow(HalfSteps a, HalfSteps b) { return of(std::pow(a.v, b.v)); }
  friend HalfSteps exp(HalfSteps a) { return of(std::exp(a.v)); }
  friend HalfSteps log(HalfSteps a) { return of(std::log(a.v)); }
  friend HalfSteps abs(HalfSteps a) { return of(std::fabs(a.v)); }
};

}  // namespace af::detail
