#pragma once

// TensorFlow's random distributions over Philox (tensorflow/core/lib/random/
// random_distributions.h, random_distributions_utils.h) and FillPhiloxRandom's grouping
// (random_op_cpu.h), shared by the random kernel families; private to the kernels module.
// Also the stateless ops' seed scrambling (stateless_random_ops.cc GenerateKey), the
// Philox generator of a V2 op's key and counter inputs (philox_random.h
// GetPhiloxRandomFromCounterKeyMem), the output shape of a random op (tensor::MakeShape) and
// MultinomialOp's checks and draws (multinomial_op.cc).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/tensor.hpp"
#include "kernel_helpers.hpp"

namespace af::detail {

// -- from bits to floats (random_distributions_utils.h) -------------------------------------

/// Uint32ToFloat: a float in [0, 1) from the 23 low bits of `x` (exponent 127, minus 1).
inline float uint32_to_float(std::uint32_t x) {
  const std::uint32_t val = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &val, sizeof f);
  return f - 1.0f;
}

/// Uint64ToDouble: a double in [0, 1) from 20 bits of `x0` and all of `x1`.
inline double uint64_to_double(std::uint32_t x0, std::uint32_t x1) {
  const std::uint64_t man = (static_cast<std::uint64_t>(x0 & 0xfffffu) << 32) | x1;
  const std::uint64_t val = (std::uint64_t{1023} << 52) | man;
  double d;
  std::memcpy(&d, &val, sizeof d);
  return d - 1.0;
}

/// Uint16ToGfloat16: a bfloat16 in [0, 1) from the 7 low bits of `x` (exact in float).
inline bfloat16_t uint16_to_bfloat16(std::uint16_t x) {
  return bfloat16_t(static_cast<float>(x & 0x7fu) / 128.0f);
}

/// Uint16ToHalf: a float16 in [0, 1) from the 10 low bits of `x` (exact in float).
inline half_t uint16_to_half(std::uint16_t x) {
  return half_t(static_cast<float>(x & 0x3ffu) / 1024.0f);
}

/// BoxMullerFloat: two normals from two uniform uint32. The angle is computed in double
/// (TensorFlow's `2.0f * M_PI` promotes) and rounded to float, as TensorFlow's expression.
inline void box_muller_float(std::uint32_t x0, std::uint32_t x1, float* f0, float* f1) {
  constexpr float kEpsilon = 1.0e-7f;
  float u1 = uint32_to_float(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const auto v1 = static_cast<float>(2.0f * M_PI * uint32_to_float(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  ::sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

/// BoxMullerDouble: two normals from four uniform uint32.
inline void box_muller_double(std::uint32_t x0, std::uint32_t x1, std::uint32_t x2,
                              std::uint32_t x3, double* d0, double* d1) {
  constexpr double kEpsilon = 1.0e-7;
  double u1 = uint64_to_double(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double v1 = 2 * M_PI * uint64_to_double(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  ::sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// -- distributions: one Philox call (128 bits) to a group of kGroupSize values ---------------

/// UniformDistribution<PhiloxRandom, T> for float, double, bfloat16 and float16: [0, 1).
template <class T>
struct PhiloxUniform;

/// float: four values per call.
template <>
struct PhiloxUniform<float> {
  static constexpr int kGroupSize = 4;  ///< values per Philox call
  /// The next group.
  std::array<float, kGroupSize> draw(PhiloxRandom& gen) const {
    const auto s = gen();
    return {uint32_to_float(s[0]), uint32_to_float(s[1]), uint32_to_float(s[2]),
            uint32_to_float(s[3])};
  }
};

/// double: two values per call.
template <>
struct PhiloxUniform<double> {
  static constexpr int kGroupSize = 2;  ///< values per Philox call
  /// The next group.
  std::array<double, kGroupSize> draw(PhiloxRandom& gen) const {
    const auto s = gen();
    return {uint64_to_double(s[0], s[1]), uint64_to_double(s[2], s[3])};
  }
};

/// bfloat16 and float16: four values per call, from the low 16 bits of each word.
template <class T>
requires is_half_like_v<T>
struct PhiloxUniform<T> {
  static constexpr int kGroupSize = 4;  ///< values per Philox call
  /// The next group.
  std::array<T, kGroupSize> draw(PhiloxRandom& gen) const {
    const auto s = gen();
    std::array<T, kGroupSize> out;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto bits = static_cast<std::uint16_t>(s[i]);
      if constexpr (std::is_same_v<T, bfloat16_t>)
        out[i] = uint16_to_bfloat16(bits);
      else
        out[i] = uint16_to_half(bits);
    }
    return out;
  }
};

/// NormalDistribution<PhiloxRandom, T>: Box-Muller normals.
template <class T>
struct PhiloxNormal;

/// float: four values per call.
template <>
struct PhiloxNormal<float> {
  static constexpr int kGroupSize = 4;  ///< values per Philox call
  /// The next group.
  std::array<float, kGroupSize> draw(PhiloxRandom& gen) const {
    const auto s = gen();
    std::array<float, kGroupSize> out;
    box_muller_float(s[0], s[1], &out[0], &out[1]);
    box_muller_float(s[2], s[3], &out[2], &out[3]);
    return out;
  }
};

/// double: two values per call.
template <>
struct PhiloxNormal<double> {
  static constexpr int kGroupSize = 2;  ///< values per Philox call
  /// The next group.
  std::array<double, kGroupSize> draw(PhiloxRandom& gen) const {
    const auto s = gen();
    std::array<double, kGroupSize> out;
    box_muller_double(s[0], s[1], s[2], s[3], &out[0], &out[1]);
    return out;
  }
};

/// bfloat16 and float16: computed in float, each value rounded, as TensorFlow.
template <class T>
requires is_half_like_v<T>
struct PhiloxNormal<T> {
  static constexpr int kGroupSize = 4;  ///< values per Philox call
  /// The next group.
  std::array<T, kGroupSize> draw(PhiloxRandom& gen) const {
    const auto f = PhiloxNormal<float>{}.draw(gen);
    return {T(f[0]), T(f[1]), T(f[2]), T(f[3])};
  }
};

/// TruncatedNormalDistribution<SingleSampleAdapter<PhiloxRandom>, T>: Box-Muller normals from
/// single 32-bit samples, those with |x| >= 2 redrawn. A variable number of samples per
/// group, so fill_philox_random gives each group its own stretch of the generator.
template <class T>
struct PhiloxTruncatedNormal;

/// The loop of TruncatedNormalDistribution: pairs from `normals()`, those with |x| >= 2
/// dropped, until `kGroupSize` are kept.
template <class T, int kGroupSize, class Normals>
std::array<T, kGroupSize> keep_truncated_normals(Normals&& normals) {
  constexpr T kTruncateValue = 2;
  std::array<T, kGroupSize> out;
  std::size_t index = 0;
  while (true) {
    const std::array<T, 2> pair = normals();
    for (T v : pair) {
      if (std::fabs(v) < kTruncateValue) {
        out[index++] = v;
        if (index >= out.size()) return out;
      }
    }
  }
}

/// float: four values per group, two 32-bit samples per pair.
template <>
struct PhiloxTruncatedNormal<float> {
  static constexpr int kGroupSize = 4;                     ///< values per group
  static constexpr bool kVariableSamplesPerOutput = true;  ///< see fill_philox_random
  /// The next group.
  std::array<float, kGroupSize> draw(SingleSampleAdapter& gen) const {
    return keep_truncated_normals<float, kGroupSize>([&gen] {
      const std::uint32_t x0 = gen();
      const std::uint32_t x1 = gen();
      std::array<float, 2> f;
      box_muller_float(x0, x1, &f[0], &f[1]);
      return f;
    });
  }
};

/// double: two values per group, four 32-bit samples per pair.
template <>
struct PhiloxTruncatedNormal<double> {
  static constexpr int kGroupSize = 2;                     ///< values per group
  static constexpr bool kVariableSamplesPerOutput = true;  ///< see fill_philox_random
  /// The next group.
  std::array<double, kGroupSize> draw(SingleSampleAdapter& gen) const {
    return keep_truncated_normals<double, kGroupSize>([&gen] {
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

/// bfloat16 and float16: drawn and truncated in float, each kept value rounded.
template <class T>
requires is_half_like_v<T>
struct PhiloxTruncatedNormal<T> {
  static constexpr int kGroupSize = 4;                     ///< values per group
  static constexpr bool kVariableSamplesPerOutput = true;  ///< see fill_philox_random
  /// The next group.
  std::array<T, kGroupSize> draw(SingleSampleAdapter& gen) const {
    const auto f = PhiloxTruncatedNormal<float>{}.draw(gen);
    return {T(f[0]), T(f[1]), T(f[2]), T(f[3])};
  }
};

/// UniformDistribution<PhiloxRandom, int32/int64>: `lo + bits % (hi - lo)` in unsigned
/// arithmetic (a slight bias where the range does not divide 2^32 or 2^64, as TensorFlow);
/// four int32 or two int64 (low word first) per call. Needs lo < hi.
template <class T>
struct PhiloxUniformInt {
  static constexpr int kGroupSize = sizeof(T) == 8 ? 2 : 4;  ///< values per Philox call
  T lo;                                                      ///< the lower bound (inclusive)
  T hi;                                                      ///< the upper bound (exclusive)
  /// The next group.
  std::array<T, kGroupSize> draw(PhiloxRandom& gen) const {
    using U = std::make_unsigned_t<T>;
    const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
    const auto s = gen();
    std::array<T, kGroupSize> out;
    for (std::size_t k = 0; k < out.size(); ++k) {
      U bits;
      if constexpr (kGroupSize == 2)
        bits = static_cast<U>(s[2 * k]) | (static_cast<U>(s[2 * k + 1]) << 32);
      else
        bits = s[k];
      out[k] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
    }
    return out;
  }
};

/// UniformFullIntDistribution<PhiloxRandom, int32/int64>: the raw bits, four int32 or two
/// int64 (low word first) per call.
template <class T>
struct PhiloxUniformFullInt {
  static constexpr int kGroupSize = sizeof(T) == 8 ? 2 : 4;  ///< values per Philox call
  /// The next group.
  std::array<T, kGroupSize> draw(PhiloxRandom& gen) const {
    using U = std::make_unsigned_t<T>;
    const auto s = gen();
    std::array<T, kGroupSize> out;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if constexpr (kGroupSize == 2)
        out[k] = static_cast<T>(static_cast<U>(s[2 * k]) | (static_cast<U>(s[2 * k + 1]) << 32));
      else
        out[k] = static_cast<T>(s[k]);
    }
    return out;
  }
};

// -- filling a tensor (random_op_cpu.h) -------------------------------------------------------

/// FillPhiloxRandom on the CPU: group g takes the g-th Philox call after `gen`, a trailing
/// partial group a prefix of one more call; the values do not depend on the sharding. A
/// distribution with kVariableSamplesPerOutput gives group g a generator skipped by
/// g * kGroupSize * 256 / 4 calls (FillPhiloxRandomTask<Distribution, true>).
template <class Distribution, class T>
void fill_philox_random(const Distribution& dist, PhiloxRandom gen, T* data, Index size) {
  constexpr Index kGroupSize = Distribution::kGroupSize;
  if constexpr (requires { Distribution::kVariableSamplesPerOutput; }) {
    constexpr std::uint64_t kSkipPerGroup = kGroupSize * 256 / 4;
    for (Index offset = 0, g = 0; offset < size; offset += kGroupSize, ++g) {
      PhiloxRandom group_gen = gen;
      group_gen.skip(static_cast<std::uint64_t>(g) * kSkipPerGroup);
      SingleSampleAdapter single(&group_gen);
      const auto samples = dist.draw(single);
      std::copy(samples.begin(), samples.begin() + std::min(kGroupSize, size - offset),
                data + offset);
    }
  } else {
    for (Index offset = 0; offset < size; offset += kGroupSize) {
      const auto samples = dist.draw(gen);
      std::copy(samples.begin(), samples.begin() + std::min(kGroupSize, size - offset),
                data + offset);
    }
  }
}

// -- stateless seeds (stateless_random_ops.cc, philox_random.h) -------------------------------

/// The Philox generator of a 64-bit key and a 128-bit counter (`counter_lo` the low 64 bits):
/// TensorFlow's PhiloxRandom(counter, key), as GetPhiloxRandomFromCounterKeyMem builds it
/// from a V2 op's key and counter inputs.
inline PhiloxRandom philox_from_key_counter(std::uint64_t key, std::uint64_t counter_lo,
                                            std::uint64_t counter_hi) {
  PhiloxRandom gen(key, counter_hi);
  gen.skip(counter_lo);  // the low 64 bits start at zero: no carry
  return gen;
}

/// A stateless op's key and counter (what StatelessRandomGetKeyCounter outputs): the key
/// as one uint64, the counter as two (low first).
struct StatelessKeyCounter {
  std::uint64_t key = 0;         ///< key[0] | key[1] << 32
  std::uint64_t counter_lo = 0;  ///< counter[0] | counter[1] << 32 (always 0)
  std::uint64_t counter_hi = 0;  ///< counter[2] | counter[3] << 32
  /// The generator TensorFlow's kernels fill from.
  PhiloxRandom generator() const { return philox_from_key_counter(key, counter_lo, counter_hi); }
};

/// GenerateKey: scrambles the two seeds by one Philox call under the fixed key
/// (0x3ec8f720, 0x02461e29) with the seeds as counter; the key is the first two words of
/// the result, the counter's upper half the last two, its lower half zero.
inline StatelessKeyCounter generate_stateless_key(std::uint64_t seed0, std::uint64_t seed1) {
  PhiloxRandom scramble = philox_from_key_counter(0x02461e293ec8f720ull, seed0, seed1);
  const PhiloxRandom::Result mix = scramble();
  StatelessKeyCounter out;
  out.key = static_cast<std::uint64_t>(mix[0]) | (static_cast<std::uint64_t>(mix[1]) << 32);
  out.counter_hi = static_cast<std::uint64_t>(mix[2]) | (static_cast<std::uint64_t>(mix[3]) << 32);
  return out;
}

/// GenerateKey with the seed check of every stateless V1 kernel: "seed must have shape [2],
/// not [3]"; int32 seeds widen with their sign, as TensorFlow's static_cast<uint64>.
inline Status key_from_seed(const Tensor& seed, StatelessKeyCounter* out) {
  if (seed.rank() != 1 || seed.shape().dim(0) != 2)
    return invalid_argument("seed must have shape [2], not " + seed.shape().to_string());
  const std::vector<std::int64_t> s = index_values(seed);
  *out = generate_stateless_key(static_cast<std::uint64_t>(s[0]), static_cast<std::uint64_t>(s[1]));
  return {};
}

/// The stateless samplers' check of their parameter (StatelessRandomGammaV2/V3's alpha,
/// StatelessRandomPoisson's lam): the samples' shape must end with the parameter's
/// (TensorShapeUtils::EndsWith), else InvalidArgument "Shape passed in must end with
/// broadcasted shape.".
inline Status check_ends_with(const Shape& shape, const Shape& parameter) {
  bool ends = parameter.rank() <= shape.rank();
  for (int i = 0; ends && i < parameter.rank(); ++i)
    ends = shape.dim(shape.rank() - parameter.rank() + i) == parameter.dim(i);
  if (!ends) return invalid_argument("Shape passed in must end with broadcasted shape.");
  return {};
}

// -- the kernels' inputs ----------------------------------------------------------------------

/// tensor::MakeShape: the output shape of a random op from `t`, a 1-D int32/int64 tensor.
/// InvalidArgument "shape must be a vector of {int32,int64}, got shape [2,2]" for another
/// rank, "Dimension -1 must be >= 0" for a negative entry; `*out` is set only on success.
inline Status shape_from_tensor(const Tensor& t, Shape* out) {
  if (t.rank() != 1)
    return invalid_argument("shape must be a vector of {int32,int64}, got shape " +
                            t.shape().to_string());
  std::vector<std::int64_t> dims = index_values(t);
  for (auto d : dims)
    if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
  *out = Shape(std::move(dims));
  return {};
}

/// Tensor::DebugString of a small index tensor: "Tensor<type: int32 shape: [2] values: 1 2>"
/// (at most three values, then "..."; a vector's values bare, an empty one's nothing), and
/// for a higher rank the values bracketed as one row ("[1,1] values: [2]", exact for one row).
inline std::string index_tensor_debug_string(const Tensor& t) {
  std::string values;
  const std::vector<std::int64_t> v = index_values(t);
  for (std::size_t i = 0; i < v.size() && i < 3; ++i)
    values += (i ? " " : "") + std::to_string(v[i]);
  if (v.size() > 3) values += "...";
  if (t.rank() > 1) values = "[" + values + "]";
  return "Tensor<type: " + std::string(data_type_string(t.dtype())) +
         " shape: " + t.shape().to_string() + " values: " + values + ">";
}

// -- Multinomial (multinomial_op.cc) ----------------------------------------------------------

/// MultinomialOp's checks of `logits` (a matrix [batch, classes], batch and classes at most
/// max int32, classes positive) and `num_samples_t` (an int32 scalar, non-negative), with
/// TensorFlow's messages ("logits should be a matrix, got shape [3]"); on success
/// `*num_samples` is the number of draws per row.
inline Status check_multinomial_inputs(const Tensor& logits, const Tensor& num_samples_t,
                                       Index* num_samples) {
  if (logits.rank() != 2)
    return invalid_argument("logits should be a matrix, got shape " + logits.shape().to_string());
  if (num_samples_t.rank() != 0)
    return invalid_argument("num_samples should be a scalar, got shape " +
                            num_samples_t.shape().to_string());
  *num_samples = num_samples_t.data<std::int32_t>()[0];
  if (*num_samples < 0)
    return invalid_argument("num_samples should be non-negative, got " +
                            std::to_string(*num_samples));
  const Index batch = logits.shape().dim(0), classes = logits.shape().dim(1);
  if (batch > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("batch_size cannot exceed max int");
  if (classes > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("num_classes cannot exceed max int");
  if (classes <= 0)
    return invalid_argument("num_classes should be positive, got " + std::to_string(classes));
  return {};
}

/// MultinomialFunctor<CPUDevice> as one shard: fills `out` (int32 or int64, [batch,
/// num_samples]) with class indices drawn for the rows of `logits` (T = float, double or
/// bfloat16; checked by check_multinomial_inputs), rows one after another, each draw two
/// 32-bit samples of `single` (a double in [0, 1)) inverting the unnormalised CDF of
/// exp(logit - max) over the finite logits; non-finite logits are never drawn.
template <class T>
void draw_multinomial(const Tensor& logits, Index num_samples, SingleSampleAdapter& single,
                      Tensor& out) {
  const Index batch = logits.shape().dim(0), classes = logits.shape().dim(1);
  const T* lp = logits.data<T>();
  std::vector<double> cdf(static_cast<std::size_t>(classes));
  // bfloat16 through float; every logit as double, as the functor's cast<double>().
  auto value = [](T v) {
    if constexpr (is_half_like_v<T>)
      return static_cast<double>(static_cast<float>(v));
    else
      return static_cast<double>(v);
  };
  for (Index b = 0; b < batch; ++b) {
    const T* row = lp + b * classes;
    // The largest finite logit (the lowest value when there is none: then no class has
    // weight and every draw is `classes`, as TensorFlow's upper_bound gives).
    double max = std::numeric_limits<double>::lowest();
    for (Index j = 0; j < classes; ++j)
      if (std::isfinite(value(row[j]))) max = std::max(max, value(row[j]));
    double running_total = 0;
    for (Index j = 0; j < classes; ++j) {
      if (std::isfinite(value(row[j]))) running_total += std::exp(value(row[j]) - max);
      cdf[static_cast<std::size_t>(j)] = running_total;
    }
    for (Index j = 0; j < num_samples; ++j) {
      const std::uint32_t x0 = single();
      const std::uint32_t x1 = single();
      const double to_find = uint64_to_double(x0, x1) * running_total;
      const auto found = std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin();
      const Index at = b * num_samples + j;
      if (out.dtype() == DType::int64)
        out.data<std::int64_t>()[at] = found;
      else
        out.data<std::int32_t>()[at] = static_cast<std::int32_t>(found);
    }
  }
}

}  // namespace af::detail
