// RandomGamma's derivative RandomGammaGrad (cwise_op_random_grad.cc), the Poisson samplers
// RandomPoisson and RandomPoissonV2 (random_poisson_op.cc) and StatelessRandomPoisson
// (stateless_random_ops.cc), StatelessRandomBinomial (random_binomial_op.cc), and
// ParameterizedTruncatedNormal and StatelessParameterizedTruncatedNormal
// (parameterized_truncated_normal_op.cc): CPU kernels with TensorFlow's checks and messages;
// their definitions are in ops/src/defs/random_more2_ops.cpp and, for the stateless ones,
// ops/src/defs/random_more_ops.cpp.
//
// The stateful samplers draw TensorFlow's values for the same (seed, seed2) on their first run
// and continue the stream on later runs, as TensorFlow's GuardedPhiloxRandom; the stateless
// ones draw from the generator of their seed input. Each Poisson and binomial output starts at
// the generator skipped by a fixed number of calls per output before it (independent of the
// sharding); the truncated normals draw their batches one after another from one generator,
// as TensorFlow's single shard (its choice for all but large outputs).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "cwise_ops_common.hpp"
#include "half_steps.hpp"
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

// -- doubles drawn last first ------------------------------------------------------------------

// The UNIFORM macro of TensorFlow's Poisson and binomial samplers: doubles in [0, 1) from
// UniformDistribution<PhiloxRandom, double>, two per Philox call, each pair handed out last
// first (`uniform_result[--uniform_remaining]`).
class BackwardUniforms {
 public:
  explicit BackwardUniforms(PhiloxRandom& gen) : gen_(&gen) {}

  double next() {
    if (remaining_ == 0) {
      values_ = PhiloxUniform<double>{}.draw(*gen_);
      remaining_ = values_.size();
    }
    return values_[--remaining_];
  }

 private:
  PhiloxRandom* gen_;
  std::array<double, PhiloxUniform<double>::kGroupSize> values_{};
  std::size_t remaining_ = 0;
};

// -- RandomPoisson, RandomPoissonV2 ------------------------------------------------------------

// RandomPoisson(shape, rate; seed, seed2) and RandomPoissonV2 (rate of attr R, output of attr
// dtype): samples of shape `shape + rate.shape`, output [s..., r...] drawn with rate[r]. The
// rate is read as double; rate < 10 counts Knuth's uniform products until they fall to
// exp(-rate), rate >= 10 uses Hormann's transformed rejection (pairs of uniforms). Output i
// draws from the generator skipped by 256 * i calls (BackwardUniforms).
constexpr std::uint64_t kPoissonSamplesPerOutput = 256;

// One sample for `rate` from the generator of its output (TensorFlow computes the per-rate
// constants once per rate; the same values).
template <class U>
double poisson_draw(double rate, PhiloxRandom& gen) {
  const auto highest = static_cast<double>(std::numeric_limits<U>::max());
  BackwardUniforms uniforms(gen);
  auto uniform = [&uniforms] { return uniforms.next(); };
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

// -- parameters broadcast over the sampled batches (BCastList) ---------------------------------

// The stateless samplers' parameters broadcast to one batch shape (BCastList with flattened
// batch indices): `indices[i][b]` is the element of parameter i that batch b reads.
struct ParameterBroadcast {
  Shape shape;
  std::vector<std::vector<Index>> indices;
};

// NumPy's broadcasting of `shapes` (each dimension equal or 1 across them); false when they
// do not broadcast.
bool broadcast_parameters(const std::vector<Shape>& shapes, ParameterBroadcast* out) {
  int rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.rank());
  // The parameter's dimension along output axis `axis`, 1 where it has none.
  auto dim_at = [rank](const Shape& s, int axis) -> Index {
    const int own = axis - (rank - s.rank());
    return own < 0 ? 1 : s.dim(own);
  };
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), 1);
  for (int axis = 0; axis < rank; ++axis) {
    bool set = false;
    for (const Shape& s : shapes) {
      const Index d = dim_at(s, axis);
      if (d == 1) continue;
      if (set && d != dims[static_cast<std::size_t>(axis)]) return false;
      dims[static_cast<std::size_t>(axis)] = d;
      set = true;
    }
  }
  out->shape = Shape(dims);
  const Index total = out->shape.num_elements();
  out->indices.assign(shapes.size(), {});
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    // The parameter's stride along each output axis, 0 where it is broadcast.
    std::vector<Index> strides(static_cast<std::size_t>(rank), 0);
    Index stride = 1;
    for (int axis = rank - 1; axis >= 0; --axis) {
      const Index d = dim_at(shapes[i], axis);
      if (d != 1) strides[static_cast<std::size_t>(axis)] = stride;
      stride *= d;
    }
    std::vector<Index>& index = out->indices[i];
    index.resize(static_cast<std::size_t>(total));
    for (Index b = 0; b < total; ++b) {
      Index rest = b, at = 0;
      for (int axis = rank - 1; axis >= 0; --axis) {
        const auto u = static_cast<std::size_t>(axis);
        at += (rest % dims[u]) * strides[u];
        rest /= dims[u];
      }
      index[static_cast<std::size_t>(b)] = at;
    }
  }
  return true;
}

// The output of a stateless sampler over broadcast parameters: `shape`, the shape input's
// value, is [samples..., batches...] with the batch dimensions the parameters' broadcast shape;
// element (s, b) lies at s * num_batches + b.
struct SampleLayout {
  Shape shape;
  Index samples_per_batch = 1;
  Index num_batches = 1;
};

// The stateless samplers' checks of the shape input against the broadcast shape, with
// TensorFlow's messages: "Input shape should be a vector, got shape: [2,2]", "Dimension -1 must
// be >= 0", "Shape passed in must end with broadcasted shape.".
Status sample_layout(const Tensor& shape_t, const Shape& batch_shape, SampleLayout* out) {
  if (shape_t.rank() != 1)
    return invalid_argument("Input shape should be a vector, got shape: " +
                            shape_t.shape().to_string());
  ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(shape_t, &out->shape));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_ends_with(out->shape, batch_shape));
  const int sample_dims = out->shape.rank() - batch_shape.rank();
  for (int i = 0; i < out->shape.rank(); ++i)
    (i < sample_dims ? out->samples_per_batch : out->num_batches) *= out->shape.dim(i);
  return {};
}

// -- arithmetic in the parameters' type --------------------------------------------------------

// The arithmetic of T in TensorFlow's kernels: float and double their own, Eigen::half each
// operation computed in float and rounded to half.
template <class T>
using Arith = std::conditional_t<is_half_like_v<T>, detail::HalfSteps<T>, T>;

// The value of `x` (float, double or HalfSteps) as a double.
template <class C>
double as_double(C x) {
  if constexpr (std::is_floating_point_v<C>)
    return static_cast<double>(x);
  else
    return static_cast<double>(static_cast<float>(x));
}

// -- StatelessRandomBinomial -------------------------------------------------------------------

// The stretch of Philox calls each binomial output owns: 256 for BTRS; 42 for inversion, whose
// mean and variance are at most 10 (ten standard deviations of draws).
constexpr std::uint64_t kBtrsCallsPerOutput = 256;
constexpr std::uint64_t kInversionCallsPerOutput = 42;

// Binomial inversion: how many geometric(prob) variables ceil(log u / log1p(-prob)) add up to
// at most `count` (for count * prob < 10).
double binomial_inversion(double count, double prob, PhiloxRandom& gen) {
  BackwardUniforms uniforms(gen);
  double geometric_sum = 0;
  int successes = 0;
  while (true) {
    geometric_sum += std::ceil(std::log(uniforms.next()) / std::log1p(-prob));
    if (geometric_sum > count) return successes;
    ++successes;
  }
}

// The tail of Stirling's approximation of log(k!): TensorFlow's table for k <= 9, else the
// series 1/12 - 1/360 / (k+1)^2 + 1/1260 / (k+1)^4 over k + 1, in its evaluation order.
double stirling_approx_tail(double k) {
  static constexpr std::array<double, 10> kTail = {
      0.0810614667953272,  0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
      0.0166446911898211,  0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
      0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<std::size_t>(static_cast<int>(k))];
  const double next_squared = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / next_squared) / next_squared) / (k + 1);
}

// Hormann's BTRS (transformed rejection with squeeze; count * prob >= 10, prob <= 0.5): one
// Philox call (u, then v) per attempt; TensorFlow's acceptance bound, which keeps the log of
// the ratio against the log of v's transform.
double btrs(double count, double prob, PhiloxRandom& gen) {
  const double spq = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = std::floor((count + 1) * prob);
  BackwardUniforms uniforms(gen);
  while (true) {
    const double u = uniforms.next() - 0.5;
    const double v = uniforms.next();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;  // inside the box: no bound needed
    if (k < 0 || k > count) continue;
    const double log_v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
                         stirling_approx_tail(m) + stirling_approx_tail(count - m) -
                         stirling_approx_tail(k) - stirling_approx_tail(count - k);
    if (log_v <= bound) return k;
  }
}

// RandomBinomialFunctor's draw for output `output_idx` (batch-major order) from (count, prob),
// compared in T's arithmetic as TensorFlow does: 0 for count <= 0 or prob <= 0, count for
// prob >= 1, NaN for a NaN prob; else a draw for min(prob, 1 - prob) (1 - prob in T), by BTRS
// when count times it is at least 10 (in T), by inversion otherwise, subtracted from count when
// prob > 0.5.
template <class T>
double binomial_sample(Arith<T> count, Arith<T> prob, const PhiloxRandom& rng, Index output_idx) {
  using C = Arith<T>;
  const double dcount = as_double(count);
  if (dcount <= 0.0 || prob <= C(0.0)) return 0;
  if (prob >= C(1.0)) return dcount;
  if (!(prob <= C(0.5)) && !(prob > C(0.5))) return std::numeric_limits<double>::quiet_NaN();
  const bool flipped = prob > C(0.5);
  const C p = flipped ? C(1.0) - prob : prob;
  PhiloxRandom gen = rng;
  double k;
  if (count * p >= C(10.0)) {
    gen.skip(kBtrsCallsPerOutput * static_cast<std::uint64_t>(output_idx));
    k = btrs(dcount, as_double(p), gen);
  } else {
    gen.skip(kInversionCallsPerOutput * static_cast<std::uint64_t>(output_idx));
    k = binomial_inversion(dcount, as_double(p), gen);
  }
  return flipped ? dcount - k : k;
}

// A sample of type U from its double, as static_cast<U>; a NaN, which TensorFlow's kernel
// leaves undefined for an integer U, becomes 0.
template <class U>
U to_sample(double v) {
  if constexpr (std::is_integral_v<U>)
    return std::isnan(v) ? U{0} : static_cast<U>(v);
  else if constexpr (is_half_like_v<U>)
    return U(static_cast<float>(v));
  else
    return static_cast<U>(v);
}

// StatelessRandomBinomial(shape, seed, counts, probs) (random_binomial_op.cc): samples of shape
// `shape`, which must end with the broadcast shape of counts and probs (attr T), of Binomial(
// counts[b], probs[b]) for batch b, as type U (attr dtype). Output (s, b) is output_idx
// b * samples_per_batch + s of RandomBinomialFunctor, drawn from the seed's generator skipped by
// 256 (BTRS) or 42 (inversion) calls per output_idx.
template <class T, class U>
class StatelessRandomBinomialOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    detail::StatelessKeyCounter kc;
    ACTORFLOW_RETURN_IF_ERROR(detail::key_from_seed(ctx.input(1), &kc));
    const Tensor& counts = ctx.input(2);
    const Tensor& probs = ctx.input(3);
    ParameterBroadcast bcast;
    if (!broadcast_parameters({counts.shape(), probs.shape()}, &bcast))
      return invalid_argument("counts and probs must have compatible batch dimensions: " +
                              counts.shape().to_string() + " vs. " + probs.shape().to_string());
    SampleLayout layout;
    ACTORFLOW_RETURN_IF_ERROR(sample_layout(ctx.input(0), bcast.shape, &layout));
    Tensor& out = ctx.allocate_output(0, dtype_of_v<U>, layout.shape);
    if (layout.shape.num_elements() == 0) return {};
    const PhiloxRandom rng = kc.generator();
    const T* count_data = counts.data<T>();
    const T* prob_data = probs.data<T>();
    U* samples = out.data<U>();
    for (Index b = 0; b < layout.num_batches; ++b) {
      const auto at = static_cast<std::size_t>(b);
      const Arith<T> count(count_data[bcast.indices[0][at]]);
      const Arith<T> prob(prob_data[bcast.indices[1][at]]);
      for (Index s = 0; s < layout.samples_per_batch; ++s)
        samples[s * layout.num_batches + b] =
            to_sample<U>(binomial_sample<T>(count, prob, rng, b * layout.samples_per_batch + s));
    }
    return {};
  }
};

// -- ParameterizedTruncatedNormal, StatelessParameterizedTruncatedNormal -----------------------

// TensorFlow's kMaxIterations: the rejections in a row after which a sampler gives up.
constexpr int kMaxIterations = 1000;

// "[2,3]": TensorShape::DebugString.
std::string debug_shape(const Tensor& t) { return t.shape().to_string(); }

// TruncatedNormalFunctor's (and V2's) draws for one batch: `count` normals of `mean` and
// `stddev` kept in [minval, maxval], from `gen` (left after the last group drawn; the rest of
// a group is dropped when the batch is full), value j written to out[j * stride]; computed in
// T's arithmetic. InvalidArgument "Invalid parameters" unless stddev > 0, minval < maxval and
// a bound is finite (checked even for no values); Internal after kMaxIterations rejections in
// a row.
template <class T>
Status sample_truncated_normal(T mean_in, T stddev_in, T minval_in, T maxval_in, Index count,
                               PhiloxRandom& gen, T* out, Index stride) {
  using C = Arith<T>;
  using std::exp;
  using std::log;
  using std::sqrt;
  C mean(mean_in), stddev(stddev_in), minval(minval_in), maxval(maxval_in);
  // kStdDevsInsideBoundsToUseRandnSampler.
  const C kRandnBound(1.3);
  if (!(stddev > C(0.0) && minval < maxval &&
        (std::isfinite(as_double(minval)) || std::isfinite(as_double(maxval)))))
    return invalid_argument("Invalid parameters");
  // Make a one-sided bound the lower one, or both bounds positive: flip the calculation.
  if ((std::isinf(as_double(minval)) && minval < C(0.0)) || maxval < mean) {
    std::swap(minval, maxval);
    stddev = -stddev;
  }
  const C norm_min = (minval - mean) / stddev;
  const C norm_max = (maxval - mean) / stddev;
  const C sqrt_factor = sqrt((norm_min * norm_min) + C(4.0));
  const C cutoff = C(2.0) * exp(C(0.5) + (norm_min * (norm_min - sqrt_factor)) / C(4.0)) /
                   (norm_min + sqrt_factor);
  const C diff = norm_max - norm_min;
  Index j = 0;
  int rejections = 0;
  if (((norm_min < -kRandnBound) && (norm_max >= C(0.0))) ||
      ((norm_max > kRandnBound) && (norm_min <= C(0.0)))) {
    // Normals, those outside the bounds rejected.
    while (j < count) {
      for (const T drawn : PhiloxNormal<T>{}.draw(gen)) {
        const C r(drawn);
        if (r >= norm_min && r <= norm_max) {
          out[j * stride] = static_cast<T>(r * stddev + mean);
          if (++j >= count) break;
          rejections = 0;
        } else if (++rejections > kMaxIterations) {
          return internal("TruncatedNormal randn rejection sampler failed to accept a sample.");
        }
      }
    }
  } else if (diff < cutoff) {
    // Uniform proposals on [norm_min, norm_max], a second group of uniforms deciding.
    const C plus_factor = (norm_min < C(0.0)) ? C(0.0) : norm_min * norm_min;
    constexpr std::size_t kGroup = PhiloxUniform<T>::kGroupSize;
    while (j < count) {
      const auto proposals = PhiloxUniform<T>{}.draw(gen);
      std::array<C, kGroup> z, g;
      for (std::size_t i = 0; i < kGroup; ++i) {
        z[i] = C(proposals[i]) * diff + norm_min;
        g[i] = (plus_factor - z[i] * z[i]) / C(2.0);
      }
      const auto u = PhiloxUniform<T>{}.draw(gen);
      for (std::size_t i = 0; i < kGroup; ++i) {
        const bool accept = C(u[i]) <= exp(g[i]);
        if (!accept && rejections + 1 < kMaxIterations) {
          ++rejections;
          continue;
        }
        if (!accept)
          return internal("TruncatedNormal uniform rejection sampler failed to  accept a sample.");
        out[j * stride] = static_cast<T>(z[i] * stddev + mean);
        if (++j >= count) break;
        rejections = 0;
      }
    }
  } else {
    // Exponential proposals offset by norm_min, the rate maximising acceptance; (z, u) from
    // consecutive uniforms.
    const C alpha = (norm_min + sqrt((norm_min * norm_min) + C(4.0))) / C(2.0);
    while (j < count) {
      const auto rand = PhiloxUniform<T>{}.draw(gen);
      for (std::size_t i = 0; i + 1 < rand.size(); i += 2) {
        const C z = -log(C(rand[i])) / alpha + norm_min;
        const C x = norm_min < alpha ? alpha - z : norm_min - alpha;
        const C g = exp(-x * x / C(2.0));
        const C u(rand[i + 1]);
        const bool accept = u <= g && z < norm_max;
        if (!accept && rejections + 1 < kMaxIterations) {
          ++rejections;
          continue;
        }
        if (!accept)
          return internal(
              "TruncatedNormal exponential distribution rejection sampler failed to accept a "
              "sample.");
        out[j * stride] = static_cast<T>(z * stddev + mean);
        if (++j >= count) break;
        rejections = 0;
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
    PhiloxRandom gen = generator_.reserve_samples128(
        static_cast<std::uint64_t>(num_batches * 2 * kMaxIterations * (samples_per_batch + 3) / 4));
    // TruncatedNormalFunctor as one shard: batch b (the last may be short) with the b-th
    // parameters (or the only one), the batches one after another from one generator.
    auto param = [](const Tensor* p, Index b) {
      return p->data<T>()[p->num_elements() == 1 ? 0 : b];
    };
    for (Index b = 0; b < num_batches; ++b) {
      const Index first = b * samples_per_batch;
      const Index count = std::min(first + samples_per_batch, num_elements) - first;
      ACTORFLOW_RETURN_IF_ERROR(sample_truncated_normal<T>(param(params[0], b), param(params[1], b),
                                                           param(params[2], b), param(params[3], b),
                                                           count, gen, out.data<T>() + first, 1));
    }
    return {};
  }

 private:
  static constexpr Index kDesiredBatchSize = 100;
  detail::GuardedPhiloxRandom generator_;
};

// StatelessParameterizedTruncatedNormal(shape, seed, means, stddevs, minvals, maxvals): samples
// of shape `shape`, which must end with the broadcast shape of the four parameters, of the
// normal of means[b] and stddevs[b] truncated to [minvals[b], maxvals[b]] for batch b (the
// broadcast index). TruncatedNormalFunctorV2 as one shard (TensorFlow's choice for small
// outputs; its shards of large ones each start at their own offset of the stream): the batches
// one after another from the seed's generator, output (s, b) the s-th value of batch b.
template <class T>
class StatelessParameterizedTruncatedNormalOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    detail::StatelessKeyCounter kc;
    ACTORFLOW_RETURN_IF_ERROR(detail::key_from_seed(ctx.input(1), &kc));
    const Tensor* params[] = {&ctx.input(2), &ctx.input(3), &ctx.input(4), &ctx.input(5)};
    ParameterBroadcast bcast;
    if (!broadcast_parameters(
            {params[0]->shape(), params[1]->shape(), params[2]->shape(), params[3]->shape()},
            &bcast))
      return invalid_argument(
          "means, stddevs, minvals, maxvals must have compatible batch dimensions: " +
          debug_shape(*params[0]) + " vs. " + debug_shape(*params[1]) + " vs. " +
          debug_shape(*params[2]) + " vs. " + debug_shape(*params[3]));
    SampleLayout layout;
    ACTORFLOW_RETURN_IF_ERROR(sample_layout(ctx.input(0), bcast.shape, &layout));
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, layout.shape);
    if (layout.shape.num_elements() == 0) return {};
    PhiloxRandom gen = kc.generator();
    for (Index b = 0; b < layout.num_batches; ++b) {
      auto param = [&](int i) {
        const auto at = static_cast<std::size_t>(b);
        return params[i]->data<T>()[bcast.indices[static_cast<std::size_t>(i)][at]];
      };
      ACTORFLOW_RETURN_IF_ERROR(sample_truncated_normal<T>(param(0), param(1), param(2), param(3),
                                                           layout.samples_per_batch, gen,
                                                           out.data<T>() + b, layout.num_batches));
    }
    return {};
  }
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

// StatelessRandomBinomial for counts and probs of type T and samples of each of Us.
template <class T, class... Us>
void register_stateless_binomial(KernelRegistry& r) {
  (r.add(make_kernel_def<StatelessRandomBinomialOp<T, Us>>("StatelessRandomBinomial", "CPU",
                                                           {{"S", kIndexTypes},
                                                            {"Tseed", kIndexTypes},
                                                            {"T", {dtype_of_v<T>}},
                                                            {"dtype", {dtype_of_v<Us>}}})),
   ...);
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
  // TensorFlow's kernels take counts and probs of half, float and double only.
  register_stateless_binomial<half_t, half_t, float, double, std::int32_t, std::int64_t>(r);
  register_stateless_binomial<float, half_t, float, double, std::int32_t, std::int64_t>(r);
  register_stateless_binomial<double, half_t, float, double, std::int32_t, std::int64_t>(r);
  register_for_types_on<StatelessParameterizedTruncatedNormalOp, half_t, float, double>(
      r, "StatelessParameterizedTruncatedNormal", "dtype",
      {{"S", kIndexTypes}, {"Tseed", kIndexTypes}});
}

}  // namespace detail

}  // namespace af
