#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "actorflow/ops/tensor.hpp"

/// The seeded click log actorflow-wide-deep trains on: rows of categorical features whose
/// values follow a Zipf law, each row clicked with the probability a hidden logistic model
/// gives it, so the best AUC and log loss any model can reach on a test set are known.
namespace af::apps::wide_deep {

/// The generator's parameters; the same values and seed give the same log on every machine.
struct ClickLogOptions {
  int fields = 8;                    ///< categorical features per row
  std::int64_t vocabulary = 100000;  ///< values per field, ranked by frequency
  double zipf_exponent = 1.1;        ///< P(rank r) ∝ 1 / (r + 1)^exponent
  double weight_scale = 0.6;         ///< the hidden weights are N(0, scale²)
  double bias = -1.5;                ///< the hidden model's intercept
  std::uint64_t seed = 42;           ///< the hidden weights' seed
};

/// A batch of rows: what the model sees and what only the generator knows.
struct ClickBatch {
  Tensor features;            ///< string [rows, fields]: "f<field>_<rank>"
  Tensor clicks;              ///< float32 [rows]: 1 clicked, 0 not
  std::vector<double> truth;  ///< the hidden model's click probability of each row
};

/// The generator: the hidden weights are a pure function of (seed, field, rank), so every
/// worker and the evaluator share one ground truth without storing it.
class ClickLog {
 public:
  /// Throws InvalidArgumentError for fewer than one field or value, or a non-positive
  /// exponent.
  explicit ClickLog(ClickLogOptions options);

  /// The options it was made with.
  const ClickLogOptions& options() const noexcept { return options_; }
  /// `rows` rows drawn with `rng` (a worker's own stream).
  ClickBatch batch(std::mt19937_64& rng, std::int64_t rows) const;
  /// The hidden weight of value `rank` of `field`.
  double weight(int field, std::int64_t rank) const noexcept;

 private:
  ClickLogOptions options_;
  std::vector<double> cdf_;  ///< the Zipf law's cumulative distribution over ranks
};

/// The area under the ROC curve of `scores` against the 0/1 `labels` (ties count half);
/// 0.5 when either class is absent.
double auc(const std::vector<double>& scores, const std::vector<float>& labels);

/// The mean binary cross-entropy of probabilities `p` (clipped to [1e-7, 1 - 1e-7]).
double log_loss(const std::vector<double>& p, const std::vector<float>& labels);

}  // namespace af::apps::wide_deep
