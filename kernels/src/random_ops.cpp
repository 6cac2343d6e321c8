// RandomUniform, RandomStandardNormal and TruncatedNormal: the CPU kernels. The ops'
// definitions (shape function, builders) are in ops/src/defs/random_ops.cpp.
//
// The kernels reproduce TensorFlow's CPU output bit for bit for a given (seed, seed2):
// Philox4x32-10 (tensorflow/core/lib/random/philox_random.h), the distributions of
// random_distributions.h / random_distributions_utils.h, GuardedPhiloxRandom's reservation
// of 256 Philox samples per output element on every run, and FillPhiloxRandom's grouping
// (output group g is drawn from the generator skipped by g, whatever the sharding).
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "kernel_helpers.hpp"
#include "random_distributions.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

const std::vector<DType> kRandomTypes = {DType::float32, DType::float64, DType::bfloat16,
                                         DType::float16};
// The shape input's types (attr T).
using detail::kIndexTypes;

using detail::GuardedPhiloxRandom;
using detail::PhiloxNormal;
using detail::PhiloxTruncatedNormal;
using detail::PhiloxUniform;

// -- kernels ------------------------------------------------------------------------------

// Reads the output shape from a 1-D int32/int64 tensor (TensorFlow's AllocateOutputWithShape);
// a vector of another dtype fails with "shape must be a vector of {int32,int64}.".
Status checked_shape_from_tensor(const Tensor& t, Shape* out) {
  if (t.rank() == 1 && t.dtype() != DType::int32 && t.dtype() != DType::int64)
    return invalid_argument("shape must be a vector of {int32,int64}.");
  return detail::shape_from_tensor(t, out);
}

/// The kernel of RandomUniform / RandomStandardNormal (TensorFlow's PhiloxRandomOp with a
/// GuardedPhiloxRandom): every run reserves 256 Philox samples per output element, so
/// successive runs of one kernel continue TensorFlow's sequence.
template <template <class> class Distribution>
class PhiloxRandomOp : public OpKernel {
 public:
  PhiloxRandomOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    if (!s->ok()) return;
    *s = generator_.init(c);
  }

  void compute(OpKernelContext& ctx) override {
    Shape shape;
    if (Status s = checked_shape_from_tensor(ctx.input(0), &shape); !s.ok()) return ctx.fail(s);
    Tensor& out = ctx.allocate_output(0, dtype_, shape);
    const std::int64_t n = out.num_elements();
    // GuardedPhiloxRandom::ReserveRandomOutputs(n, 256).
    PhiloxRandom gen = generator_.reserve_samples128(static_cast<std::uint64_t>(n) * 256);
    switch (dtype_) {
      case DType::float32:
        detail::fill_philox_random(Distribution<float>{}, gen, out.data<float>(), n);
        break;
      case DType::float64:
        detail::fill_philox_random(Distribution<double>{}, gen, out.data<double>(), n);
        break;
      case DType::bfloat16:
        detail::fill_philox_random(Distribution<bfloat16_t>{}, gen, out.data<bfloat16_t>(), n);
        break;
      case DType::float16:
        detail::fill_philox_random(Distribution<half_t>{}, gen, out.data<half_t>(), n);
        break;
      default:
        ctx.fail(invalid_argument(type() + " does not support dtype " +
                                  std::string(dtype_name(dtype_))));
    }
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 private:
  DType dtype_ = DType::invalid;
  GuardedPhiloxRandom generator_;
};

}  // namespace

namespace detail {

void register_random_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<PhiloxRandomOp<PhiloxUniform>>(
      "RandomUniform", "CPU", {{"dtype", kRandomTypes}, {"T", kIndexTypes}}));
  r.add(make_kernel_def<PhiloxRandomOp<PhiloxNormal>>(
      "RandomStandardNormal", "CPU", {{"dtype", kRandomTypes}, {"T", kIndexTypes}}));
  r.add(make_kernel_def<PhiloxRandomOp<PhiloxTruncatedNormal>>(
      "TruncatedNormal", "CPU", {{"dtype", kRandomTypes}, {"T", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
