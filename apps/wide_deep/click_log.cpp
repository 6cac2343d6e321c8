#include "click_log.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "actorflow/ops/errors.hpp"

namespace af::apps::wide_deep {

namespace {

std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unit(std::uint64_t bits) noexcept {  // (0, 1)
  return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0;
}

}  // namespace

ClickLog::ClickLog(ClickLogOptions options) : options_(options) {
  if (options_.fields < 1 || options_.vocabulary < 1 || !(options_.zipf_exponent > 0))
    throw InvalidArgumentError(invalid_argument(
        "click log: fields and vocabulary must be at least 1 and the Zipf exponent positive"));
  cdf_.resize(static_cast<std::size_t>(options_.vocabulary));
  double total = 0;
  for (std::int64_t r = 0; r < options_.vocabulary; ++r) {
    total += std::pow(static_cast<double>(r + 1), -options_.zipf_exponent);
    cdf_[static_cast<std::size_t>(r)] = total;
  }
  for (double& c : cdf_) c /= total;
}

double ClickLog::weight(int field, std::int64_t rank) const noexcept {
  const std::uint64_t key =
      splitmix64(options_.seed ^ splitmix64((static_cast<std::uint64_t>(field) << 40) ^
                                            static_cast<std::uint64_t>(rank)));
  // Box-Muller from two hashes of the key.
  const double u1 = unit(splitmix64(key)), u2 = unit(splitmix64(key + 1));
  return options_.weight_scale * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

ClickBatch ClickLog::batch(std::mt19937_64& rng, std::int64_t rows) const {
  const int fields = options_.fields;
  ClickBatch b{Tensor(DType::string, Shape{rows, fields}), Tensor(DType::float32, Shape{rows}),
               std::vector<double>(static_cast<std::size_t>(rows))};
  auto* names = b.features.data<std::string>();
  auto* clicks = b.clicks.data<float>();
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (std::int64_t i = 0; i < rows; ++i) {
    double logit = options_.bias;
    for (int f = 0; f < fields; ++f) {
      const auto rank = static_cast<std::int64_t>(
          std::lower_bound(cdf_.begin(), cdf_.end() - 1, uniform(rng)) - cdf_.begin());
      logit += weight(f, rank);
      names[i * fields + f] = "f" + std::to_string(f) + "_" + std::to_string(rank);
    }
    const double p = 1.0 / (1.0 + std::exp(-logit));
    b.truth[static_cast<std::size_t>(i)] = p;
    clicks[i] = uniform(rng) < p ? 1.0f : 0.0f;
  }
  return b;
}

double auc(const std::vector<double>& scores, const std::vector<float>& labels) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return scores[a] < scores[b]; });
  // Mann-Whitney: the positives' ranks (ties averaged) against all pairs.
  double positive_ranks = 0, positives = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j) + 1) / 2;  // 1-based
    for (std::size_t k = i; k < j; ++k)
      if (labels[order[k]] > 0.5f) {
        positive_ranks += rank;
        positives += 1;
      }
    i = j;
  }
  const double negatives = static_cast<double>(scores.size()) - positives;
  if (positives == 0 || negatives == 0) return 0.5;
  return (positive_ranks - positives * (positives + 1) / 2) / (positives * negatives);
}

double log_loss(const std::vector<double>& p, const std::vector<float>& labels) {
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double q = std::clamp(p[i], 1e-7, 1 - 1e-7);
    sum -= labels[i] > 0.5f ? std::log(q) : std::log(1 - q);
  }
  return p.empty() ? 0 : sum / static_cast<double>(p.size());
}

}  // namespace af::apps::wide_deep
