// The range samplers (range_sampler.hpp), draw for draw as TensorFlow's range_sampler.cc,
// simple_philox.cc, exact_uniform_int.h, weighted_picker.cc and distribution_sampler.cc.
#include "range_sampler.hpp"

#include <cerrno>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "actorflow/ops/detail/errno_status.hpp"
#include "csv_parse.hpp"
#include "random_distributions.hpp"

namespace af::detail::sampling {

namespace {

// ExactUniformInt: an integer in [0, n) from `random()` draws of the unsigned type U,
// rejecting those below (2^bits - 1) % n + 1; a power of two masks one draw.
template <class U, class Draw>
U exact_uniform_int(U n, Draw&& random) {
  if (n == 0) return static_cast<U>(random() * n);  // consumes a draw, as TensorFlow
  if ((n & (n - 1)) == 0) return static_cast<U>(random() & (n - 1));
  const U range = ~static_cast<U>(0);
  const U rem = static_cast<U>(range % n + 1);
  U rnd;
  do {
    rnd = random();
  } while (rnd < rem);
  return static_cast<U>(rnd % n);
}

// ExpectedCountHelper, in float as TensorFlow's: p * batch_size when every draw was kept,
// else 1 - (1 - p)^num_tries.
float expected_count(float p, int batch_size, int num_tries) {
  if (num_tries == batch_size) return p * static_cast<float>(batch_size);
  return -std::expm1(static_cast<float>(num_tries) * std::log1p(-p));
}

}  // namespace

// -- SimplePhilox ----------------------------------------------------------------------------

std::uint64_t SimplePhilox::rand64() {
  const std::uint32_t lo = single_();
  const std::uint32_t hi = single_();
  return lo | static_cast<std::uint64_t>(hi) << 32;
}

float SimplePhilox::rand_float() { return uint32_to_float(single_()); }

double SimplePhilox::rand_double() {
  const std::uint32_t x0 = single_();
  const std::uint32_t x1 = single_();
  return uint64_to_double(x0, x1);
}

std::uint32_t SimplePhilox::uniform(std::uint32_t n) {
  return exact_uniform_int<std::uint32_t>(n, [this] { return rand32(); });
}

std::uint64_t SimplePhilox::uniform64(std::uint64_t n) {
  return exact_uniform_int<std::uint64_t>(n, [this] { return rand64(); });
}

// -- RangeSampler ----------------------------------------------------------------------------

void RangeSampler::sample_batch(SimplePhilox& rnd, bool unique, std::span<std::int64_t> batch,
                                std::span<float> batch_expected,
                                std::span<const std::int64_t> extras,
                                std::span<float> extras_expected) const {
  const int batch_size = static_cast<int>(batch.size());
  int num_tries = 0;
  if (unique) {
    std::unordered_set<std::int64_t> used(batch.size());
    int picked = 0;
    while (picked < batch_size) {
      ++num_tries;
      const std::int64_t value = sample(rnd);
      if (used.insert(value).second) batch[static_cast<std::size_t>(picked++)] = value;
    }
  } else {
    for (auto& value : batch) value = sample(rnd);
    num_tries = batch_size;
  }
  for (std::size_t i = 0; i < batch_expected.size(); ++i)
    batch_expected[i] = expected_count(probability(batch[i]), batch_size, num_tries);
  for (std::size_t i = 0; i < extras.size(); ++i)
    extras_expected[i] = expected_count(probability(extras[i]), batch_size, num_tries);
}

void AllSampler::sample_batch(SimplePhilox& /*rnd*/, bool /*unique*/, std::span<std::int64_t> batch,
                              std::span<float> batch_expected,
                              std::span<const std::int64_t> /*extras*/,
                              std::span<float> extras_expected) const {
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = static_cast<std::int64_t>(i);
  std::fill(batch_expected.begin(), batch_expected.end(), 1.0f);
  std::fill(extras_expected.begin(), extras_expected.end(), 1.0f);
}

// -- UniformSampler and LogUniformSampler ------------------------------------------------------

UniformSampler::UniformSampler(std::int64_t range)
    : RangeSampler(range), inv_range_(static_cast<float>(1.0 / static_cast<double>(range))) {}

std::int64_t UniformSampler::sample(SimplePhilox& rnd) const {
  return static_cast<std::int64_t>(rnd.uniform64(static_cast<std::uint64_t>(range_)));
}

float UniformSampler::probability(std::int64_t /*value*/) const { return inv_range_; }

LogUniformSampler::LogUniformSampler(std::int64_t range)
    : RangeSampler(range), log_range_(std::log1p(static_cast<double>(range))) {}

std::int64_t LogUniformSampler::sample(SimplePhilox& rnd) const {
  const auto value = static_cast<std::int64_t>(std::exp(rnd.rand_double() * log_range_)) - 1;
  return value % range_;  // within the range but for rounding
}

float LogUniformSampler::probability(std::int64_t value) const {
  const auto v = static_cast<double>(value);
  return static_cast<float>(std::log((v + 2.0) / (v + 1.0)) / log_range_);
}

// -- WeightedPicker and UnigramSampler ---------------------------------------------------------

WeightedPicker::WeightedPicker(std::int64_t n)
    : leaves_(static_cast<std::size_t>(n), 1), tree_(static_cast<std::size_t>(n) + 1, 0) {
  for (std::size_t i = 1; i < tree_.size(); ++i) {
    tree_[i] += 1;
    const std::size_t parent = i + (i & (~i + 1));
    if (parent < tree_.size()) tree_[parent] += tree_[i];
  }
  total_ = static_cast<std::int32_t>(n);
}

std::int64_t WeightedPicker::pick(SimplePhilox& rnd) const {
  if (total_ == 0) return -1;
  // UnbiasedUniform over the total, then the leaf whose prefix-sum interval holds it: the
  // descent of TensorFlow's tree of level sums finds the same leaf.
  auto position = static_cast<std::int32_t>(rnd.uniform(static_cast<std::uint32_t>(total_)));
  std::size_t at = 0;
  std::size_t step = 1;
  while (step * 2 < tree_.size()) step *= 2;
  for (; step > 0; step /= 2)
    if (at + step < tree_.size() && tree_[at + step] <= position) {
      at += step;
      position -= tree_[at];
    }
  return static_cast<std::int64_t>(at);  // 0-based: the first leaf past the prefix
}

void WeightedPicker::set_weight(std::int64_t index, std::int32_t weight) {
  const std::int32_t delta = weight - leaves_[static_cast<std::size_t>(index)];
  leaves_[static_cast<std::size_t>(index)] = weight;
  total_ += delta;
  for (auto i = static_cast<std::size_t>(index) + 1; i < tree_.size(); i += i & (~i + 1))
    tree_[i] += delta;
}

std::int64_t UnigramSampler::sample(SimplePhilox& rnd) const { return picker_.pick(rnd); }

float UnigramSampler::probability(std::int64_t value) const {
  return static_cast<float>(picker_.weight(value)) / static_cast<float>(picker_.total_weight());
}

void UnigramSampler::update(std::span<const std::int64_t> values) {
  const std::int64_t room = std::numeric_limits<std::int32_t>::max() - picker_.total_weight();
  const auto n = std::min<std::int64_t>(static_cast<std::int64_t>(values.size()), room);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t value = values[static_cast<std::size_t>(i)];
    picker_.set_weight(value, picker_.weight(value) + 1);
  }
}

// -- DistributionSampler and FixedUnigramSampler -----------------------------------------------

DistributionSampler::DistributionSampler(const std::vector<float>& weights)
    : data_(weights.size(), {0.0f, -1}) {
  const int n = static_cast<int>(weights.size());
  std::vector<double> pr(weights.size());
  double sum = 0.0;
  for (float w : weights) sum += w;
  std::vector<int> high, low;
  high.reserve(weights.size());
  low.reserve(weights.size());
  for (int i = 0; i < n; ++i) {
    const double p = (weights[static_cast<std::size_t>(i)] * n) / sum;
    pr[static_cast<std::size_t>(i)] = p;
    (p < 1.0 ? low : high).push_back(i);
  }
  // Pair the long buckets with the short ones.
  while (!high.empty() && !low.empty()) {
    const int l = low.back();
    low.pop_back();
    const int h = high.back();
    high.pop_back();
    data_[static_cast<std::size_t>(l)].second = h;
    const double remaining =
        pr[static_cast<std::size_t>(h)] - (1.0 - pr[static_cast<std::size_t>(l)]);
    pr[static_cast<std::size_t>(h)] = remaining;
    (remaining < 1.0 ? low : high).push_back(h);
  }
  for (int i = 0; i < n; ++i)
    data_[static_cast<std::size_t>(i)].first = static_cast<float>(pr[static_cast<std::size_t>(i)]);
  // What rounding left in either list is a whole bucket of its own.
  for (const auto* rest : {&high, &low})
    for (int idx : *rest) data_[static_cast<std::size_t>(idx)] = {1.0f, idx};
}

std::int64_t DistributionSampler::sample(SimplePhilox& rnd) const {
  const float r = rnd.rand_float();
  const auto idx = rnd.uniform(static_cast<std::uint32_t>(data_.size()));
  const auto& [prob, alt] = data_[idx];
  return r < prob ? static_cast<std::int64_t>(idx) : alt;
}

FixedUnigramSampler::FixedUnigramSampler(std::int64_t range, float distortion,
                                         std::int32_t num_reserved_ids, std::int32_t num_shards,
                                         std::int32_t shard)
    : RangeSampler(range), num_shards_(num_shards), shard_(shard), distortion_(distortion) {
  for (std::int32_t id = 0; id < num_reserved_ids; ++id)
    if (id % num_shards_ == shard_) weights_.push_back(0.0f);
}

void FixedUnigramSampler::add_weight(float w) {
  w = std::pow(w, distortion_);
  total_weight_ += w;
  weights_.push_back(w);
}

Status FixedUnigramSampler::finish() {
  if (range_ != static_cast<std::int64_t>(weights_.size()))
    return invalid_argument("range is " + std::to_string(range_) +
                            " must be equal to weights size  " + std::to_string(weights_.size()));
  dist_ = std::make_unique<DistributionSampler>(weights_);
  return {};
}

Status FixedUnigramSampler::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errno_status(path, errno);
  // The ids count on from the reserved ones this shard holds, as TensorFlow's.
  auto id = static_cast<std::int32_t>(weights_.size());
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // InputBuffer::ReadLine
    if (id % num_shards_ == shard_) {
      const std::size_t comma = line.rfind(',');
      float w = 0.0f;
      if (!csv::parse_float(comma == std::string::npos ? line : line.substr(comma + 1), &w))
        return invalid_argument("Wrong vocabulary format at line: " + line);
      add_weight(w);
    }
    ++id;
  }
  if (in.bad()) return errno_status(path, errno);
  return finish();
}

Status FixedUnigramSampler::load_unigrams(const std::vector<float>& unigrams) {
  auto id = static_cast<std::int32_t>(weights_.size());
  for (float w : unigrams) {
    if (id % num_shards_ == shard_) add_weight(w);
    ++id;
  }
  return finish();
}

std::int64_t FixedUnigramSampler::sample(SimplePhilox& rnd) const { return dist_->sample(rnd); }

float FixedUnigramSampler::probability(std::int64_t value) const {
  if (value < 0 || value >= static_cast<std::int64_t>(weights_.size())) return 0.0f;
  return weights_[static_cast<std::size_t>(value)] / total_weight_;
}

}  // namespace af::detail::sampling
