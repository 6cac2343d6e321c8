// The ops of complex numbers: Complex (a broadcasting binary op of the real and imaginary
// parts), Real, Imag, Angle, ComplexAbs (complex in, real out) and Conj. CPU kernels with
// TensorFlow's element semantics (cwise_op_complex.cc, cwise_op_real.cc, cwise_op_imag.cc,
// cwise_op_arg.cc, cwise_op_abs.cc, cwise_op_conj.cc); their definitions are in
// ops/src/defs/complex_ops.cpp. The FFTs are in fft_ops.cpp.
#include <cmath>
#include <complex>

#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise machinery

// Complex(real, imag): one number of the two parts.
struct MakeComplexFn {
  static constexpr double kCycles = 1;
  template <class C>
  std::complex<C> operator()(C re, C im) const {
    return {re, im};
  }
};

// The real-valued functions of a complex number.
struct RealFn {
  template <class R>
  R operator()(std::complex<R> z) const {
    return z.real();
  }
};
struct ImagFn {
  template <class R>
  R operator()(std::complex<R> z) const {
    return z.imag();
  }
};
struct AngleFn {  // atan2(imag, real), as std::arg
  template <class R>
  R operator()(std::complex<R> z) const {
    return std::arg(z);
  }
};
struct ComplexAbsFn {  // hypot(real, imag): no overflow for large parts
  template <class R>
  R operator()(std::complex<R> z) const {
    return std::hypot(z.real(), z.imag());
  }
};

// Conj as a UnaryOp functor.
struct ConjFn {
  static constexpr double kCycles = 1;
  static constexpr bool kEigen = false;
  template <class C>
  C operator()(C z) const {
    return std::conj(z);
  }
};

// A kernel of one complex input T and a real output of T's part type, element by element.
template <class Fn, class T>
class ComplexToRealOp : public UnaryKernelBase {
 public:
  using UnaryKernelBase::UnaryKernelBase;

  void compute(OpKernelContext& ctx) override {
    using R = typename T::value_type;
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    R* o = ctx.allocate_output_for_overwrite(0, dtype_of_v<R>, x.shape()).template data<R>();
    const Index n = x.num_elements();
    parallel_for(ctx, n, n, elementwise_cost<T>(1, 4), [&](Index b, Index e) {
      Fn fn;
      for (Index i = b; i < e; ++i) o[i] = fn(xp[i]);
    });
  }
};

template <class T>
using MakeComplexKernel = BinaryOp<MakeComplexFn, T, std::complex<T>>;
template <class T>
using ConjKernel = UnaryOp<ConjFn, T>;

}  // namespace

namespace detail {

void register_complex_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<MakeComplexKernel<float>>(
      "Complex", "CPU", {{"T", {DType::float32}}, {"Tout", {DType::complex64}}}));
  r.add(make_kernel_def<MakeComplexKernel<double>>(
      "Complex", "CPU", {{"T", {DType::float64}}, {"Tout", {DType::complex128}}}));
  auto to_real = [&r]<class Fn>(const char* op, Fn) {
    r.add(make_kernel_def<ComplexToRealOp<Fn, complex64_t>>(
        op, "CPU", {{"T", {DType::complex64}}, {"Tout", {DType::float32}}}));
    r.add(make_kernel_def<ComplexToRealOp<Fn, complex128_t>>(
        op, "CPU", {{"T", {DType::complex128}}, {"Tout", {DType::float64}}}));
  };
  to_real("Real", RealFn{});
  to_real("Imag", ImagFn{});
  to_real("Angle", AngleFn{});
  to_real("ComplexAbs", ComplexAbsFn{});
  register_for_types<ConjKernel, complex64_t, complex128_t>(r, "Conj");
}

}  // namespace detail

}  // namespace af
