// The stateless random ops: StatelessRandomUniform, StatelessRandomNormal,
// StatelessTruncatedNormal, StatelessRandomUniformInt, StatelessRandomUniformFullInt,
// StatelessMultinomial, their V2 forms taking a key, counter and algorithm
// (StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2,
// StatelessRandomUniformIntV2, StatelessRandomUniformFullIntV2) and the ops that make the key
// and counter (StatelessRandomGetKeyCounterAlg, StatelessRandomGetKeyCounter,
// StatelessRandomGetAlg), the stateful RandomGamma and StatelessRandomGammaV2/V3. CPU kernels with
// TensorFlow's checks and messages (stateless_random_ops.cc, stateless_random_ops_v2.cc,
// stateless_random_ops_v2_util.h, multinomial_op.cc, random_op.cc); their definitions are in
// ops/src/defs/random_more_ops.cpp.
//
// The values are TensorFlow's for the same seed: GenerateKey scrambles the seed pair into a
// Philox key and counter, and the V1 and V2 kernels fill the output from that generator as
// the stateful kernels do (FillPhiloxRandom, random_distributions.hpp), with no reservation.
// TensorFlow's key and counter are uint64 tensors; here they are still int64 tensors holding
// the same bits (from before actorflow had uint64).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "kernel_helpers.hpp"
#include "random_distributions.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::key_from_seed;
using detail::kIndexTypes;
using detail::PhiloxNormal;
using detail::PhiloxTruncatedNormal;
using detail::PhiloxUniform;
using detail::PhiloxUniformFullInt;
using detail::PhiloxUniformInt;
using detail::shape_from_tensor;
using detail::SingleSampleAdapter;
using detail::StatelessKeyCounter;
using detail::StatusKernel;

// rng_alg.h: the algorithm ids. The CPU kernels run Philox only; auto-select means Philox.
constexpr std::int32_t kRngAlgPhilox = 1;
constexpr std::int32_t kRngAlgAutoSelect = 3;
// RNG_KEY_SIZE and RNG_MAX_COUNTER_SIZE: the lengths of the key and counter tensors.
constexpr Index kRngKeySize = 1;
constexpr Index kRngMaxCounterSize = 2;

// GetKeyCounterAlgFromInputs: the algorithm (input `alg_at`, an int32 scalar; auto-select
// means Philox) and CheckKeyCounterShape. TensorFlow asks for a counter of at least `alg`
// elements (1 for Philox), so a counter of one element passes; its missing upper half reads
// as zero here (TensorFlow reads past the tensor).
Status key_counter_alg(const OpKernelContext& ctx, int key_at, StatelessKeyCounter* kc,
                       std::int32_t* alg) {
  const int alg_at = key_at + 2;
  const Tensor& alg_t = ctx.input(alg_at);
  if (alg_t.rank() != 0)
    return invalid_argument("input " + std::to_string(alg_at) +
                            " (0-based) must have shape [], not " + alg_t.shape().to_string());
  if (alg_t.dtype() != DType::int32)
    return invalid_argument("dtype of input " + std::to_string(alg_at) +
                            " (0-based) must be int32, not " +
                            std::string(data_type_string(alg_t.dtype())));
  *alg = alg_t.data<std::int32_t>()[0];
  if (*alg == kRngAlgAutoSelect) *alg = kRngAlgPhilox;
  const Tensor& key = ctx.input(key_at);
  const Tensor& counter = ctx.input(key_at + 1);
  if (key.rank() != 1 || key.shape().dim(0) != kRngKeySize)
    return invalid_argument("key must have shape [1], not " + key.shape().to_string() +
                            ". (Note that batched keys are not supported yet.)");
  if (counter.rank() != 1 || counter.shape().dim(0) < *alg)
    return invalid_argument("counter must be a vector with length at least " +
                            std::to_string(*alg) + "; got shape: " + counter.shape().to_string() +
                            ". (Note that batched counters are not supported yet.)");
  const std::vector<std::int64_t> k = index_values(key);
  const std::vector<std::int64_t> c = index_values(counter);
  kc->key = static_cast<std::uint64_t>(k[0]);
  kc->counter_lo = c.empty() ? 0 : static_cast<std::uint64_t>(c[0]);
  kc->counter_hi = c.size() < 2 ? 0 : static_cast<std::uint64_t>(c[1]);
  return {};
}

// FillRandomTensor's algorithm check: only Philox has a CPU kernel.
Status check_philox(std::int32_t alg) {
  if (alg != kRngAlgPhilox)
    return invalid_argument("Unsupported algorithm id: " + std::to_string(alg));
  return {};
}

// The integer bounds of StatelessRandomUniformInt(V2): scalars with lo < hi (checked only for
// a non-empty output, as TensorFlow's Fill).
template <class T>
Status int_bounds(const OpKernelContext& ctx, int at, T* lo, T* hi) {
  const Tensor& minval = ctx.input(at);
  const Tensor& maxval = ctx.input(at + 1);
  if (minval.rank() != 0)
    return invalid_argument("minval must be 0-D, got shape " + minval.shape().to_string());
  if (maxval.rank() != 0)
    return invalid_argument("maxval must be 0-D, got shape " + maxval.shape().to_string());
  *lo = minval.data<T>()[0];
  *hi = maxval.data<T>()[0];
  if (!(*lo < *hi))
    return invalid_argument("Need minval < maxval, got " + std::to_string(*lo) +
                            " >= " + std::to_string(*hi));
  return {};
}

// The distributions the kernels fill with, by op.
template <class T>
struct UniformFill {
  static constexpr bool kBounded = false;
  using Distribution = PhiloxUniform<T>;
};
template <class T>
struct NormalFill {
  static constexpr bool kBounded = false;
  using Distribution = PhiloxNormal<T>;
};
template <class T>
struct TruncatedNormalFill {
  static constexpr bool kBounded = false;
  using Distribution = PhiloxTruncatedNormal<T>;
};
template <class T>
struct UniformIntFill {
  static constexpr bool kBounded = true;
  using Distribution = PhiloxUniformInt<T>;
};
template <class T>
struct UniformFullIntFill {
  static constexpr bool kBounded = false;
  using Distribution = PhiloxUniformFullInt<T>;
};

// StatelessRandomOpBase / StatelessRandomOpBaseWithKeyCounter with their Fill: the V1 ops
// take (shape, seed[, minval, maxval]), the V2 ops (shape, key, counter, alg[, minval,
// maxval]). Fill<T>::Distribution fills the output of dtype T.
template <template <class> class Fill, class T>
class StatelessRandomOp : public StatusKernel {
 public:
  StatelessRandomOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c), v2_(c.def.op.ends_with("V2")) {
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    StatelessKeyCounter kc;
    std::int32_t alg = kRngAlgPhilox;
    Shape shape;
    if (v2_) {
      ACTORFLOW_RETURN_IF_ERROR(key_counter_alg(ctx, 1, &kc, &alg));
      ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(ctx.input(0), &shape));
    } else {
      ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(ctx.input(0), &shape));
      const Tensor& seed = ctx.input(1);
      if (seed.rank() != 1 || seed.shape().dim(0) != 2)
        return invalid_argument("seed must have shape [2], not " + seed.shape().to_string());
    }
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, shape);
    const Index n = out.num_elements();
    if (n == 0) return {};
    if (!v2_) ACTORFLOW_RETURN_IF_ERROR(key_from_seed(ctx.input(1), &kc));
    typename Fill<T>::Distribution dist{};
    if constexpr (Fill<T>::kBounded)
      ACTORFLOW_RETURN_IF_ERROR(int_bounds<T>(ctx, v2_ ? 4 : 2, &dist.lo, &dist.hi));
    ACTORFLOW_RETURN_IF_ERROR(check_philox(alg));
    detail::fill_philox_random(dist, kc.generator(), out.data<T>(), n);
    return {};
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 private:
  bool v2_;
};

// StatelessMultinomial(logits, num_samples, seed; output_dtype): MultinomialOp's DoCompute
// on the generator of the seed. TensorFlow's CPU functor shards the batch and starts shard
// [b0, b1) at the generator skipped by b0 * (num_samples + 3) / 4 calls; this kernel draws
// as one shard (TensorFlow's choice for all but large batches): rows one after another, two
// 32-bit samples (a double in [0, 1)) per draw, the unnormalised CDF of exp(logit - max)
// over the finite logits inverted.
template <class T>
class StatelessMultinomialOp : public StatusKernel {
 public:
  StatelessMultinomialOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (!c.get_attr("output_dtype", &output_dtype_).ok()) output_dtype_ = DType::int64;
    *s = {};
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    StatelessKeyCounter kc;
    ACTORFLOW_RETURN_IF_ERROR(key_from_seed(ctx.input(2), &kc));
    Index num_samples = 0;
    ACTORFLOW_RETURN_IF_ERROR(detail::check_multinomial_inputs(logits, ctx.input(1), &num_samples));
    const Index batch = logits.shape().dim(0);
    Tensor& out = ctx.allocate_output(0, output_dtype_, Shape{batch, num_samples});
    if (out.num_elements() == 0) return {};
    PhiloxRandom gen = kc.generator();
    SingleSampleAdapter single(&gen);
    detail::draw_multinomial<T>(logits, num_samples, single, out);
    return {};
  }

 private:
  DType output_dtype_ = DType::int64;
};

// StatelessRandomGetKeyCounterAlg / StatelessRandomGetKeyCounter (seed): GenerateKey's key
// [1] and counter [2] (int64 holding TensorFlow's uint64 bits), and for the first the
// algorithm, Philox (1).
class GetKeyCounterOp : public StatusKernel {
 public:
  GetKeyCounterOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c), with_alg_(c.def.op == "StatelessRandomGetKeyCounterAlg") {
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& seed = ctx.input(0);
    if (seed.rank() != 1 || seed.shape().dim(0) != 2)
      return invalid_argument("seed must have shape [2], not " + seed.shape().to_string());
    Tensor& key = ctx.allocate_output(0, DType::int64, Shape{kRngKeySize});
    Tensor& counter = ctx.allocate_output(1, DType::int64, Shape{kRngMaxCounterSize});
    if (with_alg_)
      ctx.allocate_output(2, DType::int32, Shape{}).data<std::int32_t>()[0] = kRngAlgPhilox;
    StatelessKeyCounter kc;
    ACTORFLOW_RETURN_IF_ERROR(key_from_seed(seed, &kc));
    key.data<std::int64_t>()[0] = static_cast<std::int64_t>(kc.key);
    counter.data<std::int64_t>()[0] = static_cast<std::int64_t>(kc.counter_lo);
    counter.data<std::int64_t>()[1] = static_cast<std::int64_t>(kc.counter_hi);
    return {};
  }

 private:
  bool with_alg_;
};

// StatelessRandomGetAlg: the algorithm the device's kernels use, Philox (1) on the CPU.
class GetAlgOp : public OpKernel {
 public:
  GetAlgOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = {}; }
  void compute(OpKernelContext& ctx) override {
    ctx.allocate_output(0, DType::int32, Shape{}).data<std::int32_t>()[0] = kRngAlgPhilox;
  }
};

// -- RandomGamma (random_op.cc RandomGammaOp), StatelessRandomGammaV2/V3 -----------------------

// Each output reserves this many Philox calls: output i starts at the generator skipped by
// 256 * i, so the values do not depend on TensorFlow's sharding.
constexpr std::uint64_t kGammaSamplesPerOutput = 256;

// One Gamma(alpha, 1) sample from the generator of its output: Marsaglia and Tsang's
// transformation-rejection from double normals and uniforms; alpha < 1 boosted by one and
// scaled by u^(1/alpha); alpha == 1 an exponential, -log1p(-u). Normals and uniforms come two
// per call and are used last first, as TensorFlow's `result[--remaining]` (its SampleBuffer).
double gamma_draw(double alpha, PhiloxRandom& gen) {
  std::array<double, 2> uniform_result{}, norm_result{};
  int uniform_remaining = 0, norm_remaining = 0;
  auto uniform = [&] {
    if (uniform_remaining == 0) {
      uniform_remaining = 2;
      uniform_result = detail::PhiloxUniform<double>{}.draw(gen);
    }
    return uniform_result[static_cast<std::size_t>(--uniform_remaining)];
  };
  if (alpha == 1.0) return -std::log1p(-uniform());
  const bool alpha_less_than_one = alpha < 1;
  const double d = alpha + (alpha_less_than_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  while (true) {
    if (norm_remaining == 0) {
      norm_remaining = 2;
      norm_result = detail::PhiloxNormal<double>{}.draw(gen);
    }
    const double x = norm_result[static_cast<std::size_t>(--norm_remaining)];
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform();
    // The squeeze first, then the log test (TensorFlow's order of evaluation).
    if ((u < 1 - 0.0331 * (x * x) * (x * x)) ||
        (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))) {
      double res = d * v;
      if (alpha_less_than_one) res *= std::pow(uniform(), 1 / alpha);
      return res;
    }
  }
}

// Fills `samples` ([s..., a...]) with samples_per_alpha draws per alpha from `rng`.
template <class T>
void gamma_fill(const PhiloxRandom& rng, const T* alpha_flat, Index num_alphas,
                Index samples_per_alpha, T* samples) {
  for (Index output_idx = 0; output_idx < samples_per_alpha * num_alphas; ++output_idx) {
    const Index alpha_idx = output_idx / samples_per_alpha;
    const Index sample_idx = output_idx % samples_per_alpha;
    PhiloxRandom gen = rng;
    gen.skip(kGammaSamplesPerOutput * static_cast<std::uint64_t>(output_idx));
    // float16 and bfloat16 through float, as Eigen's conversions.
    if constexpr (is_half_like_v<T>) {
      const double sample =
          gamma_draw(static_cast<double>(static_cast<float>(alpha_flat[alpha_idx])), gen);
      samples[sample_idx * num_alphas + alpha_idx] = T(static_cast<float>(sample));
    } else {
      const double sample = gamma_draw(static_cast<double>(alpha_flat[alpha_idx]), gen);
      samples[sample_idx * num_alphas + alpha_idx] = static_cast<T>(sample);
    }
  }
}

// RandomGamma(shape, alpha; seed, seed2): samples of shape `shape + alpha.shape`, output
// [s..., a...] drawn with alpha[a]; each run reserves 256 Philox calls per output.
template <class T>
class RandomGammaOp : public StatusKernel {
 public:
  RandomGammaOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = generator_.init(c); }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& shape_t = ctx.input(0);
    const Tensor& alpha_t = ctx.input(1);
    if (shape_t.rank() != 1 || (shape_t.dtype() != DType::int32 && shape_t.dtype() != DType::int64))
      return invalid_argument("shape must be a vector of {int32,int64}, got shape: " +
                              detail::index_tensor_debug_string(shape_t));
    Shape samples_shape;
    ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(shape_t, &samples_shape));
    const Index samples_per_alpha = samples_shape.num_elements();
    std::vector<std::int64_t> dims = samples_shape.dims();
    for (auto d : alpha_t.shape().dims()) dims.push_back(d);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape(std::move(dims)));
    if (out.num_elements() == 0) return {};
    const Index num_alphas = alpha_t.num_elements();
    const PhiloxRandom rng = generator_.reserve_samples128(
        static_cast<std::uint64_t>(samples_per_alpha * num_alphas) * kGammaSamplesPerOutput);
    gamma_fill(rng, alpha_t.data<T>(), num_alphas, samples_per_alpha, out.data<T>());
    return {};
  }

 private:
  detail::GuardedPhiloxRandom generator_;
};

// StatelessRandomGammaV2(shape, seed, alpha) and StatelessRandomGammaV3(shape, key, counter,
// alg, alpha) (stateless_random_gamma_op.cc): samples of shape `shape`, which must end with
// alpha's shape, from the generator of the seed (or key and counter), as RandomGamma draws.
template <class T, bool V3>
class StatelessRandomGammaOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    Shape shape;
    ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(ctx.input(0), &shape));
    StatelessKeyCounter kc;
    if constexpr (V3) {
      std::int32_t alg = 0;
      ACTORFLOW_RETURN_IF_ERROR(key_counter_alg(ctx, 1, &kc, &alg));
      ACTORFLOW_RETURN_IF_ERROR(check_philox(alg));
    } else {
      ACTORFLOW_RETURN_IF_ERROR(key_from_seed(ctx.input(1), &kc));
    }
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, shape);
    if (shape.num_elements() == 0) return {};
    const Tensor& alpha_t = ctx.input(V3 ? 4 : 2);
    ACTORFLOW_RETURN_IF_ERROR(detail::check_ends_with(shape, alpha_t.shape()));
    const Index num_alphas = alpha_t.num_elements();
    if (num_alphas <= 0)
      return invalid_argument("Input alpha should have non-zero element count, got: " +
                              std::to_string(num_alphas));
    gamma_fill(kc.generator(), alpha_t.data<T>(), num_alphas, shape.num_elements() / num_alphas,
               out.data<T>());
    return {};
  }
};

template <class T>
using StatelessGammaV2Op = StatelessRandomGammaOp<T, false>;
template <class T>
using StatelessGammaV3Op = StatelessRandomGammaOp<T, true>;

template <class T>
using UniformOp = StatelessRandomOp<UniformFill, T>;
template <class T>
using NormalOp = StatelessRandomOp<NormalFill, T>;
template <class T>
using TruncatedNormalOp = StatelessRandomOp<TruncatedNormalFill, T>;
template <class T>
using UniformIntOp = StatelessRandomOp<UniformIntFill, T>;
template <class T>
using UniformFullIntOp = StatelessRandomOp<UniformFullIntFill, T>;

}  // namespace

namespace detail {

void register_random_more_kernels(KernelRegistry& r) {
  // V1: shape attr T, seed attr Tseed; V2: shape attr Tshape (key, counter, alg fixed).
  const std::vector<std::pair<std::string, std::vector<DType>>> v1 = {{"T", kIndexTypes},
                                                                      {"Tseed", kIndexTypes}};
  const std::vector<std::pair<std::string, std::vector<DType>>> v2 = {{"Tshape", kIndexTypes}};
  for (const auto* constraints : {&v1, &v2}) {
    const bool is_v2 = constraints == &v2;
    const std::string suffix = is_v2 ? "V2" : "";
    register_for_types_on<UniformOp, float, double, bfloat16_t, half_t>(
        r, ("StatelessRandomUniform" + suffix).c_str(), "dtype", *constraints);
    register_for_types_on<NormalOp, float, double, bfloat16_t, half_t>(
        r, ("StatelessRandomNormal" + suffix).c_str(), "dtype", *constraints);
    register_for_types_on<TruncatedNormalOp, float, double, bfloat16_t, half_t>(
        r, ("StatelessTruncatedNormal" + suffix).c_str(), "dtype", *constraints);
    register_for_types_on<UniformIntOp, std::int32_t, std::int64_t>(
        r, ("StatelessRandomUniformInt" + suffix).c_str(), "dtype", *constraints);
    register_for_types_on<UniformFullIntOp, std::int32_t, std::int64_t, std::uint32_t,
                          std::uint64_t>(r, ("StatelessRandomUniformFullInt" + suffix).c_str(),
                                         "dtype", *constraints);
  }
  register_for_types_on<StatelessMultinomialOp, float, double, bfloat16_t>(
      r, "StatelessMultinomial", "T", {{"output_dtype", kIndexTypes}, {"Tseed", kIndexTypes}});
  r.add(make_kernel_def<GetKeyCounterOp>("StatelessRandomGetKeyCounterAlg", "CPU",
                                         {{"Tseed", kIndexTypes}}));
  r.add(make_kernel_def<GetKeyCounterOp>("StatelessRandomGetKeyCounter", "CPU",
                                         {{"Tseed", kIndexTypes}}));
  r.add(make_kernel_def<GetAlgOp>("StatelessRandomGetAlg", "CPU", {}));
  register_for_types_on<RandomGammaOp, float, double>(r, "RandomGamma", "T", {{"S", kIndexTypes}});
  register_for_types_on<StatelessGammaV2Op, float, double, half_t, bfloat16_t>(
      r, "StatelessRandomGammaV2", "dtype", {{"T", kIndexTypes}, {"Tseed", kIndexTypes}});
  register_for_types_on<StatelessGammaV3Op, float, double, half_t, bfloat16_t>(
      r, "StatelessRandomGammaV3", "dtype", {{"shape_dtype", kIndexTypes}});
}

}  // namespace detail

}  // namespace af
