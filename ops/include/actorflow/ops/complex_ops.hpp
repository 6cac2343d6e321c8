#pragma once

#include <string_view>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/graph.hpp"

/// Graph-building functions for TensorFlow's complex numbers (`tf.complex`, `tf.math.real`,
/// `tf.math.imag`, `tf.math.angle`, `tf.math.conj`, `tf.abs` of a complex tensor). complex64
/// pairs with float32 parts, complex128 with float64. Each creates a node in the graph of its
/// first input and throws InvalidArgumentError when inference rejects the inputs (as
/// op_def_library words it); default names follow TensorFlow's Python API. The gradients are
/// TensorFlow's (math_grad.py): Real's is Complex(grad, 0), Imag's Complex(0, grad), Conj's
/// the conjugate, Complex's the real and imaginary parts of the gradient summed over the
/// broadcast dimensions, ComplexAbs's grad * x / |x| (0 where x is 0), Angle's
/// -grad / (imag + i real).
namespace af {

/// `tf.complex(real, imag)`: op Complex (default name "Complex"), real + i imag, broadcasting
/// as NumPy does; float32 parts give complex64, float64 complex128. The parts must share a
/// dtype ("Input 'imag' of 'Complex' Op has type float64 that does not match type float32 of
/// argument 'real'.").
Output complex(const Output& real, const Output& imag, std::string_view name = {});

/// `tf.math.real(x)`: op Real (default name "Real") of a complex tensor, its real parts
/// (float32 for complex64, float64 for complex128); a real tensor is returned as it is.
Output real(const Output& x, std::string_view name = {});

/// `tf.math.imag(x)`: op Imag (default name "Imag"), the imaginary parts; of a real tensor,
/// zeros of its shape and type (as TensorFlow's `tf.zeros_like`).
Output imag(const Output& x, std::string_view name = {});

/// `tf.math.angle(x)`: op Angle (default name "Angle"), atan2(imag, real) of a complex
/// tensor; of a real tensor, pi where it is negative and 0 elsewhere (TensorFlow's
/// `atan2(0, x)`... as `tf.math.angle` computes it: `where(x < 0, pi, 0)`).
Output angle(const Output& x, std::string_view name = {});

/// `tf.math.conj(x)`: op Conj (default name "Conj"), real - i imag; a real tensor is returned
/// as it is.
Output conj(const Output& x, std::string_view name = {});

/// `tf.abs` of a complex tensor: op ComplexAbs (default name "ComplexAbs"),
/// hypot(real, imag) without overflow, float32 for complex64 and float64 for complex128.
/// InvalidArgument for a real tensor (use `af::abs`).
Output complex_abs(const Output& x, std::string_view name = {});

}  // namespace af
