#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/shape.hpp"

/// Stateless random numbers (TensorFlow's `tf.random.stateless_*`, stateless_random_ops.py):
/// the same `seed` gives the same values on every run, TensorFlow's values bit for bit on
/// the CPU. The builders make the graphs TensorFlow 2.x makes under tf.compat.v1: op
/// StatelessRandomGetKeyCounter turns the seed into a Philox key and counter, and the V2 ops
/// (StatelessRandomUniformV2, ...) fill from them with algorithm 3 (auto-select, Philox on
/// the CPU). TensorFlow's key and counter are uint64; actorflow carries them as int64
/// tensors of the same bits. The stateless ops have no gradient (TensorFlow registers them
/// not differentiable, StatelessParameterizedTruncatedNormal aside, which has no entry). Also the
/// stateful samplers tf.random.gamma (RandomGamma, with its gradient RandomGammaGrad),
/// tf.random.poisson (RandomPoissonV2) and ParameterizedTruncatedNormal, TensorFlow's values for
/// the same (seed, seed2).
namespace af {

/// `tf.random.stateless_uniform(shape, seed, minval, maxval, dtype)` for a float `dtype`
/// (float32, float64, bfloat16): values uniform in [minval, maxval). Under the scope
/// (default "stateless_random_uniform") the Consts "shape", "min" and "max", op
/// StatelessRandomGetKeyCounter, op StatelessRandomUniformV2 (its algorithm the Const
/// "StatelessRandomUniformV2/alg"), "sub", "mul" and the AddV2 named after the scope. `seed`
/// is an int32 or int64 tensor of shape [2]. Throws InvalidArgumentError for another dtype
/// or a bad seed shape ("Dimension must be 2 but is 3").
Output stateless_random_uniform(const Shape& shape, const Output& seed, DType dtype = float32,
                                double minval = 0.0, double maxval = 1.0,
                                std::string_view name = {});

/// `tf.random.stateless_uniform(shape, seed, minval, maxval, dtype)` for an int32 or int64
/// `dtype`: integers in [minval, maxval) as TensorFlow's `lo + bits % (hi - lo)` (a slight
/// bias where the range does not divide 2^32 or 2^64). Under the scope (default
/// "stateless_random_uniform") the Consts "shape", "min", "max", op
/// StatelessRandomGetKeyCounter, the Const "alg" and op StatelessRandomUniformIntV2 named
/// after the scope. Running fails with "Need minval < maxval, got 5 >= 5" unless minval <
/// maxval (not checked when the output is empty).
Output stateless_random_uniform_int(const Shape& shape, const Output& seed, std::int64_t minval,
                                    std::int64_t maxval, DType dtype = int32,
                                    std::string_view name = {});

/// `tf.random.stateless_uniform(shape, seed, minval=None, maxval=None, dtype)` for an int32 or
/// int64 `dtype`: integers over the dtype's whole range (the raw Philox bits). Under the
/// scope (default "stateless_random_uniform") the Const "shape", op
/// StatelessRandomGetKeyCounter, the Const "alg" and op StatelessRandomUniformFullIntV2 named
/// after the scope. (TensorFlow also takes uint32 and uint64, which actorflow lacks.)
Output stateless_random_uniform_full_int(const Shape& shape, const Output& seed,
                                         DType dtype = int64, std::string_view name = {});

/// `tf.random.stateless_normal(shape, seed, mean, stddev, dtype)`: Box-Muller normals scaled
/// by `stddev` and shifted by `mean`. Under the scope (default "stateless_random_normal") the
/// Consts "shape", "mean", "stddev", op StatelessRandomGetKeyCounter, op
/// StatelessRandomNormalV2, "mul" and the AddV2 named after the scope.
Output stateless_random_normal(const Shape& shape, const Output& seed, DType dtype = float32,
                               double mean = 0.0, double stddev = 1.0, std::string_view name = {});

/// `tf.random.stateless_truncated_normal(shape, seed, mean, stddev, dtype)`: normals with
/// those more than two standard deviations out redrawn, scaled and shifted. The graph is
/// stateless_random_normal's with op StatelessTruncatedNormalV2 under the scope (default
/// "stateless_truncated_normal").
Output stateless_truncated_normal(const Shape& shape, const Output& seed, DType dtype = float32,
                                  double mean = 0.0, double stddev = 1.0,
                                  std::string_view name = {});

/// `tf.random.stateless_categorical(logits, num_samples, seed, dtype)`: `num_samples` class
/// indices per row of the float `logits` [batch, classes], drawn with probabilities
/// softmax(logits) (non-finite logits never drawn); `dtype` int32 or int64. Op
/// StatelessMultinomial under the scope (default "stateless_categorical"), its num_samples
/// the int32 Const "StatelessMultinomial/num_samples". Running fails with "num_classes should
/// be positive, got 0" for logits without classes. (TensorFlow's CPU kernel splits large
/// batches across threads, each shard starting at its own offset of the stream; this one
/// draws as a single shard, TensorFlow's choice for small batches.)
Output stateless_categorical(const Output& logits, std::int64_t num_samples, const Output& seed,
                             DType dtype = int64, std::string_view name = {});

/// `tf.random.stateless_binomial(shape, seed, counts, probs, output_dtype)`: samples of
/// Binomial(counts, probs) of shape `shape`, which must end with the broadcast shape of `counts`
/// and `probs` (one dtype: float16, float32 or float64; TensorFlow's CPU kernels take no other),
/// sample [..., b] drawn with counts[b] and probs[b], as `dtype` (float16, float32, float64,
/// int32 or int64). Op StatelessRandomBinomial under the scope (default
/// "stateless_random_binomial") with the int32 Const "shape". TensorFlow's values bit for bit:
/// each sample draws from its own stretch of the seed's Philox stream, by inversion where
/// count * min(p, 1 - p) < 10 and by Hormann's BTRS otherwise; a count <= 0 or a prob <= 0
/// gives 0, a prob >= 1 the count, a NaN prob NaN (0 for an integer `dtype`, where
/// TensorFlow's value is undefined). Not differentiable (TensorFlow registers it so). Throws
/// InvalidArgumentError for another `dtype` or mismatched `counts` and `probs` dtypes; running
/// fails with "seed must have shape [2], not [3]", "counts and probs must have compatible batch
/// dimensions: [2] vs. [3]" and "Shape passed in must end with broadcasted shape.". (A NaN or
/// infinite count with a prob in (0, 1) never ends the draw, as in TensorFlow.)
Output stateless_random_binomial(const Shape& shape, const Output& seed, const Output& counts,
                                 const Output& probs, DType dtype = int32,
                                 std::string_view name = {});

/// `tf.random.stateless_parameterized_truncated_normal(shape, seed, means, stddevs, minvals,
/// maxvals)`: normals of mean `means` and standard deviation `stddevs` kept in [minvals,
/// maxvals], of shape `shape`, which must end with the broadcast shape of the four parameters
/// (one dtype: float16, float32 or float64); sample [..., b] drawn with the parameters' b-th
/// broadcast elements. Op StatelessParameterizedTruncatedNormal under the scope (default
/// "stateless_parameterized_truncated_normal") with the int32 Const "shape". TensorFlow's values
/// bit for bit while its CPU kernel draws in one shard (small outputs, up to some hundreds of
/// elements): rejection from normals, from uniforms or from exponentials as the bounds lie,
/// float16 computed with a rounding after every operation as Eigen::half. No gradient (as in
/// TensorFlow: af::gradients through it throws NotFoundError). Building fails with "Dimensions
/// must be equal, but are 2 and 3" for parameters that do not broadcast; running fails with
/// InvalidArgument "Invalid parameters" unless stddevs > 0, minvals < maxvals and a bound is
/// finite, "means, stddevs, minvals, maxvals must have compatible batch dimensions: [2] vs. [3]
/// vs. [] vs. []" and "Shape passed in must end with broadcasted shape.".
Output stateless_parameterized_truncated_normal(const Shape& shape, const Output& seed,
                                                const Output& means, const Output& stddevs,
                                                const Output& minvals, const Output& maxvals,
                                                std::string_view name = {});

/// What `stateless_random_get_key_counter` returns.
struct StatelessKeyCounterOutputs {
  Output key;      ///< int64 [1]: TensorFlow's uint64 Philox key, bit for bit
  Output counter;  ///< int64 [2]: TensorFlow's uint64 Philox counter, low half first
  Output alg;      ///< int32 scalar, 1 (Philox); invalid from stateless_random_get_key_counter
};

/// `tf.raw_ops.StatelessRandomGetKeyCounter(seed)`: the key and counter the V2 ops take for
/// the int32 or int64 seed of shape [2] (TensorFlow's GenerateKey scrambling). Running fails
/// with "seed must have shape [2], not [3]" for another shape.
StatelessKeyCounterOutputs stateless_random_get_key_counter(const Output& seed,
                                                            std::string_view name = {});

/// `tf.raw_ops.StatelessRandomGetKeyCounterAlg(seed)`: the key, the counter and the
/// algorithm (1, Philox).
StatelessKeyCounterOutputs stateless_random_get_key_counter_alg(const Output& seed,
                                                                std::string_view name = {});

/// `tf.raw_ops.StatelessRandomGetAlg()`: the int32 algorithm id of the device's kernels, 1
/// (Philox) on the CPU. Stateful, as TensorFlow's op.
Output stateless_random_get_alg(Graph& g, std::string_view name = {});

/// `tf.random.gamma(shape, alpha, beta, seed=seed)`: samples of Gamma(alpha, beta) (beta the
/// inverse scale, 1 when invalid) of shape `shape + broadcast(alpha.shape, beta.shape)`, at
/// least the dtype's smallest normal value. `alpha` is float32 or float64, `beta` of its
/// dtype, `shape` an int32 vector. TensorFlow's graph under the scope (default
/// "random_gamma"): the Const "beta" when none is given, "Shape_1" and "Shape_2" (Consts when
/// the static shapes are known, else ops Shape), "BroadcastArgs", "BroadcastTo", op
/// RandomGamma (stateful; (seed, seed2) from `g.get_seed(seed)`), RealDiv "truediv" and the
/// Maximum "Maximum" with its Const "Maximum/x". RandomGamma gives TensorFlow's values for the
/// same (seed, seed2): each output draws from its own stretch of 256 Philox calls
/// (Marsaglia-Tsang rejection in double; alpha == 1 an exponential); later runs continue the
/// stream. Differentiable with respect to alpha (RandomGamma's gradient: RandomGammaGrad's
/// implicit derivative summed over the sample dimensions) and beta. Throws
/// InvalidArgumentError for another dtype or a `shape`/`beta` of the wrong dtype ("Tensor
/// conversion requested dtype int32 for Tensor with dtype int64: ..."); running fails with
/// "Dimension -2 must be >= 0" for a negative dimension and "Incompatible shapes: [2] vs. [3]"
/// when alpha and beta do not broadcast.
Output random_gamma(const Output& shape, const Output& alpha, const Output& beta = {},
                    std::optional<std::int64_t> seed = std::nullopt, std::string_view name = {});

/// random_gamma with the sample shape as a Shape: the int32 Const "shape" in the scope.
Output random_gamma(const Shape& shape, const Output& alpha, const Output& beta = {},
                    std::optional<std::int64_t> seed = std::nullopt, std::string_view name = {});

/// `tf.raw_ops.RandomGammaGrad(alpha, sample)`: op RandomGammaGrad (default name
/// "RandomGammaGrad"), d sample / d alpha of Gamma(alpha, 1) samples, element-wise with
/// broadcasting (float32 or float64, one dtype): the implicit derivative -(dF/dalpha) /
/// (dF/dsample) of the regularized incomplete gamma function F (Eigen's
/// gamma_sample_der_alpha, as TensorFlow): 0 at sample 0, NaN for alpha <= 0 or a negative
/// sample. Not differentiable itself (TensorFlow registers no gradient). Throws
/// InvalidArgumentError for mismatched dtypes; building fails with "Incompatible shapes: [2]
/// vs. [3]" for shapes that do not broadcast.
Output random_gamma_grad(const Output& alpha, const Output& sample, std::string_view name = {});

/// `tf.random.poisson(shape, lam, dtype, seed)` (TF 2's argument order): op RandomPoissonV2
/// (stateful) named "RandomPoissonV2" under the scope (default "random_poisson") with the
/// int32 Const "shape": samples of Poisson(lam) of shape `shape + lam.shape` and type `dtype`
/// (float32, float64, int32 or int64; `lam` any of those). TensorFlow's values for the same
/// (seed, seed2) from `g.get_seed(seed)`: each output draws from its own stretch of 256
/// Philox calls (Knuth's products of uniforms for lam < 10, Hormann's transformed rejection
/// for lam >= 10, in double); later runs continue the stream. A lam <= 0 gives 0. Not
/// differentiable: TensorFlow registers no gradient, so af::gradients through it throws
/// NotFoundError ("No gradient defined"). Throws InvalidArgumentError for another dtype.
/// (A NaN or infinite lam never ends the rejection loop, as in TensorFlow.)
Output random_poisson(const Shape& shape, const Output& lam, DType dtype = float32,
                      std::optional<std::int64_t> seed = std::nullopt, std::string_view name = {});

/// `tf.raw_ops.ParameterizedTruncatedNormal(shape, means, stdevs, minvals, maxvals, seed,
/// seed2)`: op ParameterizedTruncatedNormal (default name "ParameterizedTruncatedNormal",
/// stateful) of shape `shape` (an int32/int64 vector, not empty): for batch b (index b of the
/// first dimension) normals of mean means[b] and standard deviation stdevs[b] kept in
/// [minvals[b], maxvals[b]]; each parameter a float32 or float64 scalar or a vector of 1 or
/// shape[0] elements, all of one dtype. TensorFlow's values for the same (seed, seed2) from
/// `g.get_seed(seed)` while TensorFlow draws in one shard (outputs of up to about a thousand
/// elements): rejection from normals, from uniforms or from exponentials as the bounds lie.
/// Not differentiable (TensorFlow registers it so). Running fails with InvalidArgument
/// "Invalid parameters" unless stdevs > 0, minvals < maxvals and a bound is finite, "Input
/// means should have length 1 or shape[0], got shape: [3]", "Input stddevs should be a scalar
/// or vector, got shape: [1,1]" and "Shape tensor must not be empty, got ...".
Output parameterized_truncated_normal(const Output& shape, const Output& means,
                                      const Output& stdevs, const Output& minvals,
                                      const Output& maxvals,
                                      std::optional<std::int64_t> seed = std::nullopt,
                                      std::string_view name = {});

}  // namespace af
