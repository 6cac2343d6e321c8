// RandomUniform, RandomStandardNormal and TruncatedNormal: the CPU kernels. The ops'
// definitions (shape function, builders) are in ops/src/defs/random_ops.cpp.
//
// The kernels reproduce TensorFlow's CPU output bit for bit for a given (seed, seed2):
// Philox4x32-10 (tensorflow/core/lib/random/philox_random.h), the distributions of
// random_distributions.h / random_distributions_utils.h, GuardedPhiloxRandom's reservation
// of 256 Philox samples per output element on every run, and FillPhiloxRandom's grouping
// (output group g is drawn from the generator skipped by g, whatever the sharding).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

const std::vector<DType> kRandomTypes = {DType::float32, DType::float64, DType::bfloat16};
// The shape input's types (attr T).
using detail::kIndexTypes;

using detail::GuardedPhiloxRandom;
using detail::SingleSampleAdapter;

// -- distributions (random_distributions_utils.h) -----------------------------------------

// A float in [0, 1) from the 23 low bits of `x` (exponent 127, then minus 1).
float uint32_to_float(std::uint32_t x) {
  const std::uint32_t val = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &val, sizeof f);
  return f - 1.0f;
}

// A double in [0, 1) from 20 bits of `x0` and all of `x1`.
double uint64_to_double(std::uint32_t x0, std::uint32_t x1) {
  const std::uint64_t man = (static_cast<std::uint64_t>(x0 & 0xfffffu) << 32) | x1;
  const std::uint64_t val = (std::uint64_t{1023} << 52) | man;
  double d;
  std::memcpy(&d, &val, sizeof d);
  return d - 1.0;
}

// A bfloat16 in [0, 1) from the 7 low bits of `x` (TensorFlow's Uint16ToBfloat16; the
// subtraction is exact, so it is done in float).
bfloat16_t uint16_to_bfloat16(std::uint16_t x) {
  return bfloat16_t(static_cast<float>(x & 0x7fu) / 128.0f);
}

// Box-Muller on two uniform uint32 (TensorFlow's BoxMullerFloat). The angle is computed in
// double (2.0f * M_PI promotes) and rounded to float, as TensorFlow's expression does.
void box_muller_float(std::uint32_t x0, std::uint32_t x1, float* f0, float* f1) {
  constexpr float kEpsilon = 1.0e-7f;
  float u1 = uint32_to_float(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const auto v1 = static_cast<float>(2.0f * M_PI * uint32_to_float(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  ::sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

// Box-Muller on four uniform uint32 (TensorFlow's BoxMullerDouble).
void box_muller_double(std::uint32_t x0, std::uint32_t x1, std::uint32_t x2, std::uint32_t x3,
                       double* d0, double* d1) {
  constexpr double kEpsilon = 1.0e-7;
  double u1 = uint64_to_double(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double v1 = 2 * M_PI * uint64_to_double(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  ::sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// A distribution turns one Philox call into a group of `kGroupSize` outputs.
template <class T>
struct UniformDistribution;

template <>
struct UniformDistribution<float> {
  static constexpr int kGroupSize = 4;
  static std::array<float, kGroupSize> draw(PhiloxRandom& gen) {
    auto s = gen();
    return {uint32_to_float(s[0]), uint32_to_float(s[1]), uint32_to_float(s[2]),
            uint32_to_float(s[3])};
  }
};

template <>
struct UniformDistribution<double> {
  static constexpr int kGroupSize = 2;
  static std::array<double, kGroupSize> draw(PhiloxRandom& gen) {
    auto s = gen();
    return {uint64_to_double(s[0], s[1]), uint64_to_double(s[2], s[3])};
  }
};

template <>
struct UniformDistribution<bfloat16_t> {
  static constexpr int kGroupSize = 4;
  static std::array<bfloat16_t, kGroupSize> draw(PhiloxRandom& gen) {
    auto s = gen();
    std::array<bfloat16_t, kGroupSize> out;
    for (int i = 0; i < kGroupSize; ++i)
      out[static_cast<std::size_t>(i)] =
          uint16_to_bfloat16(static_cast<std::uint16_t>(s[static_cast<std::size_t>(i)]));
    return out;
  }
};

template <class T>
struct NormalDistribution;

template <>
struct NormalDistribution<float> {
  static constexpr int kGroupSize = 4;
  static std::array<float, kGroupSize> draw(PhiloxRandom& gen) {
    auto s = gen();
    std::array<float, kGroupSize> out;
    box_muller_float(s[0], s[1], &out[0], &out[1]);
    box_muller_float(s[2], s[3], &out[2], &out[3]);
    return out;
  }
};

template <>
struct NormalDistribution<double> {
  static constexpr int kGroupSize = 2;
  static std::array<double, kGroupSize> draw(PhiloxRandom& gen) {
    auto s = gen();
    std::array<double, kGroupSize> out;
    box_muller_double(s[0], s[1], s[2], s[3], &out[0], &out[1]);
    return out;
  }
};

// TensorFlow computes in float and rounds each value to bfloat16.
template <>
struct NormalDistribution<bfloat16_t> {
  static constexpr int kGroupSize = 4;
  static std::array<bfloat16_t, kGroupSize> draw(PhiloxRandom& gen) {
    auto f = NormalDistribution<float>::draw(gen);
    return {bfloat16_t(f[0]), bfloat16_t(f[1]), bfloat16_t(f[2]), bfloat16_t(f[3])};
  }
};

// TensorFlow's TruncatedNormalDistribution: Box-Muller normals, those with |x| >= 2 redrawn.
// Consumes a variable number of samples per group, so FillPhiloxRandom gives every group a
// generator of its own (see fill_philox_random).
template <class T>
struct TruncatedNormalDistribution;

// The loop of TensorFlow's TruncatedNormalDistribution: the pairs of normals `normals()`
// draws, those with |x| >= 2 dropped, until a group of `kGroupSize` is kept.
template <class T, int kGroupSize, class Normals>
std::array<T, kGroupSize> keep_truncated(Normals&& normals) {
  constexpr T kTruncateValue = 2;
  std::array<T, kGroupSize> out;
  int index = 0;
  while (true) {
    const std::array<T, 2> pair = normals();
    for (T v : pair) {
      if (std::fabs(v) < kTruncateValue) {
        out[static_cast<std::size_t>(index++)] = v;
        if (index >= kGroupSize) return out;
      }
    }
  }
}

template <>
struct TruncatedNormalDistribution<float> {
  static constexpr int kGroupSize = 4;
  static constexpr bool kVariableSamplesPerOutput = true;
  static std::array<float, kGroupSize> draw(SingleSampleAdapter& gen) {
    return keep_truncated<float, kGroupSize>([&gen] {
      const std::uint32_t x0 = gen();
      const std::uint32_t x1 = gen();
      std::array<float, 2> f;
      box_muller_float(x0, x1, &f[0], &f[1]);
      return f;
    });
  }
};

template <>
struct TruncatedNormalDistribution<double> {
  static constexpr int kGroupSize = 2;
  static constexpr bool kVariableSamplesPerOutput = true;
  static std::array<double, kGroupSize> draw(SingleSampleAdapter& gen) {
    return keep_truncated<double, kGroupSize>([&gen] {
      const std::uint32_t x0 = gen();
      const std::uint32_t x1 = gen();
      const std::uint32_t x2 = gen();
      const std::uint32_t x3 = gen();
      std::array<double, 2> d;
      box_muller_double(x0, x1, x2, x3, &d[0], &d[1]);
      return d;
    });
  }
};

// TensorFlow draws in float, truncates in float and rounds each kept value to bfloat16.
template <>
struct TruncatedNormalDistribution<bfloat16_t> {
  static constexpr int kGroupSize = 4;
  static constexpr bool kVariableSamplesPerOutput = true;
  static std::array<bfloat16_t, kGroupSize> draw(SingleSampleAdapter& gen) {
    auto f = TruncatedNormalDistribution<float>::draw(gen);
    return {bfloat16_t(f[0]), bfloat16_t(f[1]), bfloat16_t(f[2]), bfloat16_t(f[3])};
  }
};

// FillPhiloxRandom: group g takes the g-th Philox call after `gen`; a trailing partial group
// takes a prefix of one more call. Sharding does not change the values, so one pass will do.
//
// A distribution taking a variable number of samples per group (TruncatedNormal) gives
// group g a generator skipped by g * kGroupSize * 256 / 4 Philox calls, as
// FillPhiloxRandomTask<Distribution, true>, so groups never share samples.
template <class Distribution, class T>
void fill_philox_random(PhiloxRandom gen, T* data, std::int64_t size) {
  constexpr std::int64_t kGroupSize = Distribution::kGroupSize;
  if constexpr (requires { Distribution::kVariableSamplesPerOutput; }) {
    constexpr std::uint64_t kSkipPerGroup = kGroupSize * 256 / 4;
    for (std::int64_t offset = 0, g = 0; offset < size; offset += kGroupSize, ++g) {
      PhiloxRandom group_gen = gen;
      group_gen.skip(static_cast<std::uint64_t>(g) * kSkipPerGroup);
      SingleSampleAdapter single(&group_gen);
      auto samples = Distribution::draw(single);
      std::copy(samples.begin(), samples.begin() + std::min(kGroupSize, size - offset),
                data + offset);
    }
  } else {
    const std::int64_t full_groups = size / kGroupSize;
    std::int64_t offset = 0;
    for (std::int64_t g = 0; g < full_groups; ++g, offset += kGroupSize) {
      auto samples = Distribution::draw(gen);
      std::copy(samples.begin(), samples.end(), data + offset);
    }
    if (offset < size) {
      auto samples = Distribution::draw(gen);
      std::copy(samples.begin(), samples.begin() + (size - offset), data + offset);
    }
  }
}

// -- kernels ------------------------------------------------------------------------------

// Reads the output shape from a 1-D int32/int64 tensor (TensorFlow's AllocateOutputWithShape).
Status shape_from_tensor(const Tensor& t, Shape* out) {
  if (t.rank() != 1)
    return invalid_argument("shape must be a vector of {int32,int64}, got shape " +
                            t.shape().to_string());
  std::vector<std::int64_t> dims;
  if (t.dtype() == DType::int32) {
    for (auto d : t.flat<std::int32_t>()) dims.push_back(d);
  } else if (t.dtype() == DType::int64) {
    for (auto d : t.flat<std::int64_t>()) dims.push_back(d);
  } else {
    return invalid_argument("shape must be a vector of {int32,int64}.");
  }
  for (auto d : dims)
    if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
  *out = Shape(std::move(dims));
  return {};
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
    if (Status s = shape_from_tensor(ctx.input(0), &shape); !s.ok()) return ctx.fail(s);
    Tensor& out = ctx.allocate_output(0, dtype_, shape);
    const std::int64_t n = out.num_elements();
    // GuardedPhiloxRandom::ReserveRandomOutputs(n, 256).
    PhiloxRandom gen = generator_.reserve_samples128(static_cast<std::uint64_t>(n) * 256);
    switch (dtype_) {
      case DType::float32:
        fill_philox_random<Distribution<float>>(gen, out.data<float>(), n);
        break;
      case DType::float64:
        fill_philox_random<Distribution<double>>(gen, out.data<double>(), n);
        break;
      case DType::bfloat16:
        fill_philox_random<Distribution<bfloat16_t>>(gen, out.data<bfloat16_t>(), n);
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
  r.add(make_kernel_def<PhiloxRandomOp<UniformDistribution>>(
      "RandomUniform", "CPU", {{"dtype", kRandomTypes}, {"T", kIndexTypes}}));
  r.add(make_kernel_def<PhiloxRandomOp<NormalDistribution>>(
      "RandomStandardNormal", "CPU", {{"dtype", kRandomTypes}, {"T", kIndexTypes}}));
  r.add(make_kernel_def<PhiloxRandomOp<TruncatedNormalDistribution>>(
      "TruncatedNormal", "CPU", {{"dtype", kRandomTypes}, {"T", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
