// RandomGamma's derivative RandomGammaGrad (cwise_op_random_grad.cc), the Poisson samplers
// RandomPoisson and RandomPoissonV2 (random_poisson_op.cc) and StatelessRandomPoisson
// (stateless_random_ops.cc), and ParameterizedTruncatedNormal
// (parameterized_truncated_normal_op.cc): CPU kernels with TensorFlow's checks and messages;
// their definitions are in ops/src/defs/random_more2_ops.cpp.
//
// The samplers draw TensorFlow's values for the same (seed, seed2) on their first run and
// continue the stream on later runs, as TensorFlow's GuardedPhiloxRandom: each Poisson output
// starts at the generator skipped by 256 calls per output before it (independent of the
// sharding); ParameterizedTruncatedNormal draws its batches one after another from one
// generator, as TensorFlow's single shard (its choice for all but large outputs).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "random_distributions.hpp"
#include "standard_kernels.hpp"

// Eigen's gamma_sample_der_alpha and lgamma, the functions TensorFlow's kernels call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
#include <unsupported/Eigen/SpecialFunctions>
#pragma GCC diagnostic pop

namespace af {

namespace {

using detail::Index;
using detail::kIndexTypes;
using detail::PhiloxNormal;
using detail::PhiloxUniform;
using detail::shape_from_tensor;
using detail::StatusKernel;

// -- RandomGammaGrad ---------------------------------------------------------------------------

// RandomGammaGrad(alpha, sample): d sample / d alpha of a Gamma(alpha, 1) sample, the implicit
// derivative -(d igamma(alpha, x) / d alpha) / (d igamma(alpha, x) / dx) (Eigen's
// gamma_sample_der_alpha, in the element type): 0 at sample 0, NaN for alpha <= 0 or a
// negative sample. A broadcasting binary op.
struct GammaSampleDerAlphaFn {
  static constexpr double kCycles = 200;
  template <class C>
  C operator()(C alpha, C sample) const {
    return Eigen::numext::gamma_sample_der_alpha(alpha, sample);
  }
};

template <class T>
using RandomGammaGradOp = cwise::BinaryOp<GammaSampleDerAlphaFn, T>;

// -- RandomPoisson, RandomPoissonV2 ------------------------------------------------------------

// RandomPoisson(shape, rate; seed, seed2) and RandomPoissonV2 (rate of attr R, output of attr
// dtype): samples of shape `shape + rate.shape`, output [s..., r...] drawn with rate[r]. The
// rate is read as double; rate < 10 counts Knuth's uniform products until they fall to
// exp(-rate), rate >= 10 uses Hormann's transformed rejection (pairs of uniforms). Output i
// draws from the generator skipped by 256 * i calls; uniforms come two per call, used last
// first (TensorFlow's `uniform_result[--uniform_remaining]`).
constexpr std::uint64_t kPoissonSamplesPerOutput = 256;

// One sample for `rate` from the generator of its output (TensorFlow computes the per-rate
// constants once per rate; the same values).
template <class U>
double poisson_draw(double rate, PhiloxRandom& gen) {
  const auto highest = static_cast<double>(std::numeric_limits<U>::max());
  std::array<double, 2> uniform_result{};
  int uniform_remaining = 0;
  auto uniform = [&] {
    if (uniform_remaining == 0) {
      uniform_remaining = 2;
      uniform_result = PhiloxUniform<double>{}.draw(gen);
    }
    return uniform_result[static_cast<std::size_t>(--uniform_remaining)];
  };
  if (rate < 10) {
    // Knuth: the least x with u_0 * ... * u_x <= exp(-rate) (0 for a rate <= 0).
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1;
    double x = 0;
    while (true) {
      prod = prod * uniform();
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  // Hormann's transformed rejection, G(u) = (2a / (0.5 - |u|) + b) u + rate + 0.43.
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    double u = uniform();
    u -= 0.5;
    const double v = uniform();
    const double u_shifted = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;  // retried, as TensorFlow, rather than overflow U
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s = std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - Eigen::numext::lgamma(k + 1);
    if (s <= t) return k;
  }
}

// PoissonFunctor: `samples` ([s..., r...]) filled with num_samples draws per rate from `rng`,
// output i from the generator skipped by 256 * i calls.
template <class T, class U>
void poisson_fill(const PhiloxRandom& rng, const T* rate_flat, Index num_rate, Index num_samples,
                  U* samples) {
  for (Index output_idx = 0; output_idx < num_samples * num_rate; ++output_idx) {
    const Index rate_idx = output_idx / num_samples;
    const Index sample_idx = output_idx % num_samples;
    PhiloxRandom gen = rng;
    gen.skip(kPoissonSamplesPerOutput * static_cast<std::uint64_t>(output_idx));
    samples[sample_idx * num_rate + rate_idx] =
        static_cast<U>(poisson_draw<U>(static_cast<double>(rate_flat[rate_idx]), gen));
  }
}

template <class T, class U>
class RandomPoissonOp : public StatusKernel {
 public:
  RandomPoissonOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = generator_.init(c); }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& rate_t = ctx.input(1);
    Shape samples_shape;
    ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(ctx.input(0), &samples_shape));
    const Index num_samples = samples_shape.num_elements();
    std::vector<std::int64_t> dims = samples_shape.dims();
    for (auto d : rate_t.shape().dims()) dims.push_back(d);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<U>, Shape(std::move(dims)));
    if (num_samples == 0) return {};
    const Index num_rate = rate_t.num_elements();
    // ReserveRandomOutputs(num_samples * num_rate, 256).
    const PhiloxRandom rng = generator_.reserve_samples128(
        static_cast<std::uint64_t>(num_samples * num_rate) * kPoissonSamplesPerOutput);
    poisson_fill(rng, rate_t.data<T>(), num_rate, num_samples, out.data<U>());
    return {};
  }

 private:
  detail::GuardedPhiloxRandom generator_;
};

// RandomPoisson: one type for the rate and the samples (attr dtype).
template <class T>
using RandomPoissonV1Op = RandomPoissonOp<T, T>;

// StatelessRandomPoisson(shape, seed, lam) (stateless_random_ops.cc): samples of shape
// `shape`, which must end with lam's shape, from the seed's generator, as RandomPoisson draws
// (lam of attr Rtype, T here; the samples of attr dtype, U).
template <class T, class U>
class StatelessRandomPoissonOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    Shape shape;
    ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(ctx.input(0), &shape));
    detail::StatelessKeyCounter kc;
    ACTORFLOW_RETURN_IF_ERROR(detail::key_from_seed(ctx.input(1), &kc));
    Tensor& out = ctx.allocate_output(0, dtype_of_v<U>, shape);
    if (shape.num_elements() == 0) return {};
    const Tensor& rate_t = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(detail::check_ends_with(shape, rate_t.shape()));
    const Index num_rate = rate_t.num_elements();
    poisson_fill(kc.generator(), rate_t.data<T>(), num_rate, shape.num_elements() / num_rate,
                 out.data<U>());
    return {};
  }
};

// -- ParameterizedTruncatedNormal --------------------------------------------------------------

// TensorFlow's kMaxIterations: the rejections in a row after which a sampler gives up.
constexpr int kMaxIterations = 1000;

// "[2,3]": TensorShape::DebugString.
std::string debug_shape(const Tensor& t) { return t.shape().to_string(); }

// TruncatedNormalFunctor<CPUDevice, T> as one shard: batch b of `samples_per_batch` outputs
// (the last may be short) with the b-th parameters (or the only one), from one generator.
template <class T>
Status truncated_normal_batches(Index num_batches, Index samples_per_batch, Index num_elements,
                                const Tensor& means, const Tensor& stddevs, const Tensor& minvals,
                                const Tensor& maxvals, PhiloxRandom gen, T* output) {
  const T kStdDevsInsideBoundsToUseRandnSampler = T(1.3);
  auto param = [](const Tensor& p, Index b) { return p.data<T>()[p.num_elements() == 1 ? 0 : b]; };
  for (Index b = 0; b < num_batches; ++b) {
    T mean = param(means, b);
    T stddev = param(stddevs, b);
    T minval = param(minvals, b);
    T maxval = param(maxvals, b);
    const Index limit_sample = std::min((b + 1) * samples_per_batch, num_elements);
    Index sample = b * samples_per_batch;
    if (!(stddev > T(0) && minval < maxval && (std::isfinite(minval) || std::isfinite(maxval))))
      return invalid_argument("Invalid parameters");
    int num_iterations = 0;
    // Make a one-sided bound the lower one, or both bounds positive: flip the calculation.
    if ((std::isinf(minval) && minval < T(0)) || maxval < mean) {
      std::swap(minval, maxval);
      stddev = -stddev;
    }
    const T norm_min = (minval - mean) / stddev;
    const T norm_max = (maxval - mean) / stddev;
    const T sqrt_factor = std::sqrt((norm_min * norm_min) + T(4));
    const T cutoff = T(2) * std::exp(T(0.5) + (norm_min * (norm_min - sqrt_factor)) / T(4)) /
                     (norm_min + sqrt_factor);
    const T diff = norm_max - norm_min;
    if (((norm_min < -kStdDevsInsideBoundsToUseRandnSampler) && (norm_max >= T(0.))) ||
        ((norm_max > kStdDevsInsideBoundsToUseRandnSampler) && (norm_min <= T(0.)))) {
      // Normals, those outside the bounds rejected.
      while (sample < limit_sample) {
        const auto randn = PhiloxNormal<T>{}.draw(gen);
        for (T r : randn) {
          if (r >= norm_min && r <= norm_max) {
            output[sample] = r * stddev + mean;
            if (++sample >= limit_sample) break;
            num_iterations = 0;
          } else if (++num_iterations > kMaxIterations) {
            return internal("TruncatedNormal randn rejection sampler failed to accept a sample.");
          }
        }
      }
    } else if (diff < cutoff) {
      // Uniform proposals on [norm_min, norm_max].
      const T plus_factor = (norm_min < T(0)) ? T(0) : norm_min * norm_min;
      while (sample < limit_sample) {
        const auto rand = PhiloxUniform<T>{}.draw(gen);
        std::array<T, PhiloxUniform<T>::kGroupSize> z, g;
        for (std::size_t i = 0; i < rand.size(); ++i) z[i] = rand[i] * diff + norm_min;
        for (std::size_t i = 0; i < rand.size(); ++i) g[i] = (plus_factor - z[i] * z[i]) / T(2.0);
        const auto u = PhiloxUniform<T>{}.draw(gen);
        for (std::size_t i = 0; i < rand.size(); ++i) {
          const bool accept = u[i] <= std::exp(g[i]);
          if (accept || num_iterations + 1 >= kMaxIterations) {
            if (!accept)
              return internal(
                  "TruncatedNormal uniform rejection sampler failed to  accept a sample.");
            output[sample] = z[i] * stddev + mean;
            if (++sample >= limit_sample) break;
            num_iterations = 0;
          } else {
            ++num_iterations;
          }
        }
      }
    } else {
      // Exponential proposals offset by norm_min, the rate maximising acceptance; (z, u) from
      // consecutive uniforms.
      const T alpha = (norm_min + std::sqrt((norm_min * norm_min) + T(4))) / T(2);
      while (sample < limit_sample) {
        const auto rand = PhiloxUniform<T>{}.draw(gen);
        for (std::size_t i = 0; i < rand.size(); i += 2) {
          const T z = -std::log(rand[i]) / alpha + norm_min;
          const T x = norm_min < alpha ? alpha - z : norm_min - alpha;
          const T g = std::exp(-x * x / T(2.0));
          const T u = rand[i + 1];
          const bool accept = (u <= g && z < norm_max);
          if (accept || num_iterations + 1 >= kMaxIterations) {
            if (!accept)
              return internal(
                  "TruncatedNormal exponential distribution rejection sampler failed to accept "
                  "a sample.");
            output[sample] = z * stddev + mean;
            if (++sample >= limit_sample) break;
            num_iterations = 0;
          } else {
            ++num_iterations;
          }
        }
      }
    }
  }
  return {};
}

// ParameterizedTruncatedNormal(shape, means, stdevs, minvals, maxvals; seed, seed2): normals
// of mean means[b] and standard deviation stdevs[b] truncated to [minvals[b], maxvals[b]] for
// batch b (the first dimension of `shape`); each parameter a scalar or a vector of 1 or
// shape[0] elements. When every parameter is a single value the outputs are drawn in batches
// of 100 instead (TensorFlow's kDesiredBatchSize), which sets how the stream is consumed.
template <class T>
class ParameterizedTruncatedNormalOp : public StatusKernel {
 public:
  ParameterizedTruncatedNormalOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = generator_.init(c);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& shape_t = ctx.input(0);
    const Tensor* params[] = {&ctx.input(1), &ctx.input(2), &ctx.input(3), &ctx.input(4)};
    const char* names[] = {"means", "stddevs", "minvals", "maxvals"};
    if (shape_t.rank() != 1)
      return invalid_argument("Input shape should be a vector, got shape: " + debug_shape(shape_t));
    if (shape_t.num_elements() == 0)
      return invalid_argument("Shape tensor must not be empty, got " +
                              detail::index_tensor_debug_string(shape_t));
    Shape shape;
    ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(shape_t, &shape));
    Index num_batches = shape.dim(0);
    Index samples_per_batch = 1;
    for (int i = 1; i < shape.rank(); ++i) samples_per_batch *= shape.dim(i);
    const Index num_elements = num_batches * samples_per_batch;
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, shape);
    for (int i = 0; i < 4; ++i)
      if (params[i]->rank() > 1)
        return invalid_argument(
            "Input " + std::string(names[i]) +
            " should be a scalar or vector, got shape: " + debug_shape(*params[i]));
    auto single = [](const Tensor& p) { return p.rank() == 0 || p.shape().dim(0) == 1; };
    if (single(*params[0]) && single(*params[1]) && params[2]->rank() == 0 &&
        params[3]->rank() == 0) {
      // The same parameters for every batch: batches of kDesiredBatchSize.
      num_batches = (num_elements + kDesiredBatchSize - 1) / kDesiredBatchSize;
      samples_per_batch = kDesiredBatchSize;
    } else {
      for (int i = 0; i < 4; ++i)
        if (!(single(*params[i]) || params[i]->shape().dim(0) == num_batches))
          return invalid_argument(
              "Input " + std::string(names[i]) +
              " should have length 1 or shape[0], got shape: " + debug_shape(*params[i]));
    }
    PhiloxRandom rng = generator_.reserve_samples128(
        static_cast<std::uint64_t>(num_batches * 2 * kMaxIterations * (samples_per_batch + 3) / 4));
    return truncated_normal_batches<T>(num_batches, samples_per_batch, num_elements, *params[0],
                                       *params[1], *params[2], *params[3], rng, out.data<T>());
  }

 private:
  static constexpr Index kDesiredBatchSize = 100;
  detail::GuardedPhiloxRandom generator_;
};

// Registers RandomPoissonV2<T, U> for every output type U of `Us`.
template <class T, class... Us>
void register_poisson_v2(KernelRegistry& r) {
  (r.add(make_kernel_def<RandomPoissonOp<T, Us>>(
       "RandomPoissonV2", "CPU",
       {{"S", kIndexTypes}, {"R", {dtype_of_v<T>}}, {"dtype", {dtype_of_v<Us>}}})),
   ...);
}

template <class... Ts>
void register_poisson_v2_all(KernelRegistry& r) {
  (register_poisson_v2<Ts, float, double, std::int32_t, std::int64_t>(r), ...);
}

// StatelessRandomPoisson for a lam of type T and samples of each of Us.
template <class T, class... Us>
void register_stateless_poisson(KernelRegistry& r) {
  (r.add(make_kernel_def<StatelessRandomPoissonOp<T, Us>>("StatelessRandomPoisson", "CPU",
                                                          {{"T", kIndexTypes},
                                                           {"Tseed", kIndexTypes},
                                                           {"Rtype", {dtype_of_v<T>}},
                                                           {"dtype", {dtype_of_v<Us>}}})),
   ...);
}

}  // namespace

namespace detail {

void register_random_more2_kernels(KernelRegistry& r) {
  register_for_types<RandomGammaGradOp, float, double>(r, "RandomGammaGrad");
  register_for_types_on<RandomPoissonV1Op, float, double>(r, "RandomPoisson", "dtype",
                                                          {{"S", kIndexTypes}});
  register_poisson_v2_all<float, double, std::int32_t, std::int64_t>(r);
  register_stateless_poisson<float, float, double, std::int32_t, std::int64_t>(r);
  register_stateless_poisson<double, float, double, std::int32_t, std::int64_t>(r);
  register_stateless_poisson<std::int32_t, float, double, std::int32_t, std::int64_t>(r);
  register_stateless_poisson<std::int64_t, float, double, std::int32_t, std::int64_t>(r);
  register_for_types_on<ParameterizedTruncatedNormalOp, float, double>(
      r, "ParameterizedTruncatedNormal", "dtype", {{"T", kIndexTypes}});
}

}  // namespace detail

}  // namespace af
