#pragma once

// TensorFlow's CTC machinery for the CPU kernels of seq_ctc_ops.cpp, step for step so that the
// results (and the decoded paths' order) are TensorFlow's: the loss calculator of
// util/ctc/ctc_loss_calculator.h, the beam search of util/ctc/ctc_beam_search.h and
// ctc_beam_entry.h with the default (identity) scorer and no label selection, and the
// gtl::TopN the beam keeps its leaves in. Private to the kernels module.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af::detail::ctc {

/// kLogZero: the log of probability 0.
template <class T>
constexpr T log_zero() {
  return -std::numeric_limits<T>::infinity();
}

/// TensorFlow's ctc::LogSumExp: log(exp(a) + exp(b)) of two log probabilities. As TensorFlow,
/// the correction term is computed in float (log1pf(expf(...))) whatever T is.
template <class T>
T log_sum_exp(T a, T b) {
  if (a == log_zero<T>()) return b;
  if (b == log_zero<T>()) return a;
  return a > b ? a + std::log1p(std::exp(static_cast<float>(b - a)))
               : b + std::log1p(std::exp(static_cast<float>(a - b)));
}

/// Labels joined by `sep` (str_util::Join).
inline std::string join_labels(const std::vector<int>& labels, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < labels.size(); ++i) out += (i ? sep : "") + std::to_string(labels[i]);
  return out;
}

// -- loss ------------------------------------------------------------------------------------

/// CTCLossCalculator<T> with blank index `num_classes - 1` and no output delay, over
/// time-major logits `[max_time, batch, num_classes]`.
template <class T>
class LossCalculator {
 public:
  /// A calculator for `num_classes` classes (the last is the blank).
  explicit LossCalculator(int num_classes) : num_classes_(num_classes), blank_(num_classes - 1) {}

  /// PopulateLPrimes: each batch entry's label sequence l' (blanks around every label), with
  /// TensorFlow's checks ("Labels length is zero in batch 1", "Saw a non-null label ...",
  /// "All labels must be nonnegative integers, ...", "Not enough time for target transition
  /// sequence ..."). Labels at or above num_classes - 1 end a sequence (the blank).
  Status l_primes(const std::vector<std::vector<int>>& labels, const std::vector<int>& seq_len,
                  bool preprocess_collapse_repeated, bool ignore_longer_outputs_than_inputs,
                  std::vector<std::vector<int>>* out) const {
    out->assign(labels.size(), {});
    for (std::size_t b = 0; b < labels.size(); ++b) {
      const std::vector<int>& label = labels[b];
      if (label.empty())
        return invalid_argument("Labels length is zero in batch " + std::to_string(b));
      std::vector<int> l;
      bool finished_sequence = false;
      for (std::size_t i = 0; i < label.size(); ++i) {
        if (i == 0 || !preprocess_collapse_repeated || label[i] != label[i - 1]) {
          if (label[i] >= num_classes_ - 1) {
            finished_sequence = true;
          } else {
            if (finished_sequence)
              return invalid_argument(
                  "Saw a non-null label (index >= num_classes - 1) following a null label, "
                  "batch: " +
                  std::to_string(b) + " num_classes: " + std::to_string(num_classes_) +
                  " labels: " + join_labels(label, ",") +
                  " labels seen so far: " + join_labels(l, ","));
            l.push_back(label[i]);
          }
        }
      }
      for (int l_i : l) {
        if (l_i < 0)
          return invalid_argument("All labels must be nonnegative integers, batch: " +
                                  std::to_string(b) + " labels: " + join_labels(l, ","));
        if (l_i >= num_classes_)
          return invalid_argument("No label may be greater than num_classes. num_classes: " +
                                  std::to_string(num_classes_) + ", batch: " + std::to_string(b) +
                                  " labels: " + join_labels(l, ","));
      }
      if (!ignore_longer_outputs_than_inputs) {
        const int time = seq_len[b];
        const int required_time = static_cast<int>(label.size());
        if (required_time > time)
          return invalid_argument("Not enough time for target transition sequence (required: " +
                                  std::to_string(required_time) +
                                  ", available: " + std::to_string(time) + ")" + std::to_string(b) +
                                  "You can turn this error into a warning by using the flag "
                                  "ignore_longer_outputs_than_inputs");
      }
      std::vector<int>& l_prime = (*out)[b];
      for (int label_id : l) {
        l_prime.push_back(blank_);
        l_prime.push_back(label_id);
      }
      l_prime.push_back(blank_);
    }
    return {};
  }

  /// The loss of batch entry `b` of `batch` (`seq_len` > 0 steps of the logits `inputs`,
  /// time-major) for the label sequence `l_prime`, and its gradient written to `gradient`
  /// (same layout; steps from `seq_len` on are left alone). The loss is -log p(z|x), +inf
  /// when no path fits (the gradient is then the softmax, as TensorFlow's "No valid path").
  T loss(const T* inputs, std::int64_t batch, std::int64_t b, int seq_len,
         const std::vector<int>& l_prime, bool ctc_merge_repeated, T* gradient) const {
    const int classes = num_classes_;
    const int steps = seq_len;
    // y(l, t): the softmax of step t, in the input's precision.
    std::vector<T> y(static_cast<std::size_t>(classes) * static_cast<std::size_t>(steps));
    auto y_at = [&](int l, int t) -> T& {
      return y[static_cast<std::size_t>(l) + static_cast<std::size_t>(t) * classes];
    };
    for (int t = 0; t < steps; ++t) {
      const T* row = inputs + (t * batch + b) * classes;
      T max_coeff = row[0];
      for (int l = 1; l < classes; ++l) max_coeff = std::max(max_coeff, row[l]);
      T sum = 0;
      for (int l = 0; l < classes; ++l) sum += (y_at(l, t) = std::exp(row[l] - max_coeff));
      for (int l = 0; l < classes; ++l) y_at(l, t) /= sum;
    }
    const int u_count = static_cast<int>(l_prime.size());
    Matrix log_alpha(u_count, steps), log_beta(u_count, steps);
    forward(l_prime, y_at, steps, ctc_merge_repeated, log_alpha);
    backward(l_prime, y_at, steps, ctc_merge_repeated, log_beta);
    T log_p_z_x = log_zero<T>();
    for (int u = 0; u < u_count; ++u)
      log_p_z_x = log_sum_exp(log_p_z_x, log_alpha.at(u, 0) + log_beta.at(u, 0));
    // CalculateGradient, written straight to the output rows of batch entry b.
    for (int t = 0; t < steps; ++t) {
      T* out = gradient + (t * batch + b) * classes;
      if (log_p_z_x == log_zero<T>()) {  // no valid path: the gradient is y
        for (int l = 0; l < classes; ++l) out[l] = y_at(l, t);
        continue;
      }
      std::vector<T> prob_sum(static_cast<std::size_t>(classes), log_zero<T>());
      for (int u = 0; u < u_count; ++u) {
        T& sum = prob_sum[static_cast<std::size_t>(l_prime[static_cast<std::size_t>(u)])];
        sum = log_sum_exp(sum, log_alpha.at(u, t) + log_beta.at(u, t));
      }
      for (int l = 0; l < classes; ++l) {
        // expf, as TensorFlow's, whatever T is.
        const float negative_term =
            std::exp(static_cast<float>(prob_sum[static_cast<std::size_t>(l)] - log_p_z_x));
        out[l] = y_at(l, t) - negative_term;
      }
    }
    return -log_p_z_x;
  }

 private:
  // A column-major (u, t) matrix as Eigen's, its storage padded on both sides: TensorFlow
  // writes log_alpha(1, 0) and log_beta(U - 2, T - 1) even when the label sequence is empty
  // (l' = [blank], U = 1), which lands on another coefficient (or just outside the matrix);
  // the padding reproduces the first and keeps the second harmless.
  class Matrix {
   public:
    Matrix(int rows, int cols)
        : rows_(rows),
          values_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) + 2 * kPad,
                  log_zero<T>()) {}
    T& at(int u, int t) {
      return values_[static_cast<std::size_t>(kPad + u + static_cast<std::ptrdiff_t>(t) * rows_)];
    }

   private:
    static constexpr std::ptrdiff_t kPad = 2;
    std::ptrdiff_t rows_;
    std::vector<T> values_;
  };

  // CalculateForwardVariables (GravesTh Eq. 7.5, 7.6 and 7.9) over `steps` steps.
  template <class Y>
  void forward(const std::vector<int>& l_prime, Y& y, int steps, bool merge,
               Matrix& log_alpha) const {
    const int u_count = static_cast<int>(l_prime.size());
    log_alpha.at(0, 0) = std::log(y(blank_, 0));
    const int label_0 = u_count > 1 ? l_prime[1] : blank_;
    log_alpha.at(1, 0) = std::log(y(label_0, 0));
    for (int t = 1; t < steps; ++t) {
      for (int u = std::max(0, u_count - 2 * (steps - t)); u < std::min(u_count, 2 * (t + 1));
           ++u) {
        const int l_u = l_prime[static_cast<std::size_t>(u)];
        T sum_log_alpha = log_zero<T>();
        if (merge || l_u == blank_) sum_log_alpha = log_alpha.at(u, t - 1);
        if (u > 0) sum_log_alpha = log_sum_exp(sum_log_alpha, log_alpha.at(u - 1, t - 1));
        if (u > 1) {
          const bool matching_labels_merge =
              merge && l_u == l_prime[static_cast<std::size_t>(u - 2)];
          if (l_u != blank_ && !matching_labels_merge)
            sum_log_alpha = log_sum_exp(sum_log_alpha, log_alpha.at(u - 2, t - 1));
        }
        log_alpha.at(u, t) = std::log(y(l_u, t)) + sum_log_alpha;
      }
    }
  }

  // CalculateBackwardVariables (GravesTh Eq. 7.13 and 7.15) over `steps` steps.
  template <class Y>
  void backward(const std::vector<int>& l_prime, Y& y, int steps, bool merge,
                Matrix& log_beta) const {
    const int u_count = static_cast<int>(l_prime.size());
    for (int u = u_count - 2; u < u_count; ++u) log_beta.at(u, steps - 1) = 0;
    for (int t = steps - 2; t >= 0; --t) {
      for (int u = std::max(0, u_count - 2 * (steps - t)); u < std::min(u_count, 2 * (t + 1));
           ++u) {
        const int l_u = l_prime[static_cast<std::size_t>(u)];
        T& beta = log_beta.at(u, t);
        if (merge || l_u == blank_)
          beta = log_sum_exp(beta, log_beta.at(u, t + 1) + std::log(y(l_u, t + 1)));
        if (u + 1 < u_count) {
          const int next = l_prime[static_cast<std::size_t>(u + 1)];
          beta = log_sum_exp(beta, log_beta.at(u + 1, t + 1) + std::log(y(next, t + 1)));
        }
        if (u + 2 < u_count) {
          const int skip = l_prime[static_cast<std::size_t>(u + 2)];
          const bool matching_labels_merge = merge && l_u == skip;
          if (l_u != blank_ && !matching_labels_merge)
            beta = log_sum_exp(beta, log_beta.at(u + 2, t + 1) + std::log(y(skip, t + 1)));
        }
      }
    }
  }

  int num_classes_;
  int blank_;
};

// -- beam search -----------------------------------------------------------------------------

/// gtl::TopN: the `limit` greatest of the elements pushed under `greater`, kept as TensorFlow
/// keeps them (an unsorted vector, then a heap once it overflows), so that equal elements come
/// out in TensorFlow's order.
template <class E, class Greater>
class TopN {
 public:
  /// Keeps at most `limit` elements.
  explicit TopN(std::size_t limit, Greater greater = {}) : limit_(limit), greater_(greater) {}

  /// The number of elements held.
  std::size_t size() const { return elements_.size(); }

  /// Adds `v`, dropping the least element when there are more than `limit`.
  void push(E v) {
    if (limit_ == 0) return;
    if (state_ != State::heap_sorted) {
      elements_.push_back(v);
      if (elements_.size() == limit_ + 1) {
        std::make_heap(elements_.begin(), elements_.end(), greater_);
        std::pop_heap(elements_.begin(), elements_.end(), greater_);
        elements_.pop_back();
        state_ = State::heap_sorted;
      } else if (state_ == State::unordered || greater_(elements_.back(), elements_.front())) {
        // the bottom stays in front
      } else {
        std::swap(elements_.front(), elements_.back());
      }
    } else if (greater_(v, elements_.front())) {
      std::pop_heap(elements_.begin(), elements_.end(), greater_);
      elements_.back() = v;
      std::push_heap(elements_.begin(), elements_.end(), greater_);
    }
  }

  /// The least element (the held elements must not be empty).
  const E& peek_bottom() {
    if (state_ == State::unordered) {
      std::size_t min_candidate = 0;
      for (std::size_t i = 1; i < elements_.size(); ++i)
        if (greater_(elements_[min_candidate], elements_[i])) min_candidate = i;
      if (min_candidate != 0) std::swap(elements_[0], elements_[min_candidate]);
      state_ = State::bottom_known;
    }
    return elements_.front();
  }

  /// The elements, greatest first (Extract); leaves this empty.
  std::vector<E> extract() {
    std::vector<E> out;
    out.swap(elements_);
    if (state_ != State::heap_sorted)
      std::sort(out.begin(), out.end(), greater_);
    else
      std::sort_heap(out.begin(), out.end(), greater_);
    state_ = State::unordered;
    return out;
  }

  /// The elements in the order they are held.
  const std::vector<E>& unsorted() const { return elements_; }

  /// Removes every element.
  void reset() {
    elements_.clear();
    state_ = State::unordered;
  }

 private:
  enum class State { unordered, bottom_known, heap_sorted };
  std::vector<E> elements_;
  std::size_t limit_;
  Greater greater_;
  State state_ = State::unordered;
};

/// ctc_beam_search::BeamProbability: log probabilities of a prefix, in total, ending in a
/// blank and ending in its last label.
template <class T>
struct BeamProbability {
  T total = log_zero<T>();  ///< the prefix's log probability
  T blank = log_zero<T>();  ///< of the paths ending in a blank
  T label = log_zero<T>();  ///< of the paths ending in the prefix's last label
  /// Back to probability 0.
  void reset() { total = blank = label = log_zero<T>(); }
};

/// ctc_beam_search::BeamEntry: one prefix (the labels on the way from the root) of the beam's
/// tree; entries are owned by the BeamSearch that made them.
template <class T>
struct BeamEntry {
  BeamEntry* parent = nullptr;         ///< the prefix without the last label (null: root)
  int label = -1;                      ///< the last label (-1 for the root)
  std::map<int, BeamEntry*> children;  ///< the extensions made so far, by label
  BeamProbability<T> oldp;             ///< at the previous step
  BeamProbability<T> newp;             ///< at this step
  /// In the beam: its probability is not 0.
  bool active() const { return newp.total != log_zero<T>(); }
  /// The labels of the prefix, repeats merged when `merge_repeated` (LabelSeq).
  std::vector<int> label_seq(bool merge_repeated) const {
    std::vector<int> labels;
    int prev_label = -1;
    for (const BeamEntry* c = this; c->parent != nullptr; c = c->parent) {
      if (!merge_repeated || c->label != prev_label) labels.push_back(c->label);
      prev_label = c->label;
    }
    std::reverse(labels.begin(), labels.end());
    return labels;
  }
};

/// ctc_beam_search::BeamComparer: the greater entry has the greater newp.total.
template <class T>
struct BeamGreater {
  /// a > b.
  bool operator()(const BeamEntry<T>* a, const BeamEntry<T>* b) const {
    return a->newp.total > b->newp.total;
  }
};

/// CTCBeamSearchDecoder<T> with the default scorer: the `beam_width` most probable label
/// prefixes of the steps given (the blank is the last class), as TensorFlow's.
template <class T>
class BeamSearch {
 public:
  /// A search over `num_classes` classes keeping `beam_width` prefixes.
  BeamSearch(int num_classes, int beam_width)
      : num_classes_(num_classes),
        blank_(num_classes - 1),
        beam_width_(beam_width),
        leaves_(static_cast<std::size_t>(beam_width)) {
    reset();
  }

  /// Starts over with the empty prefix (probability 1).
  void reset() {
    leaves_.reset();
    entries_.clear();
    BeamEntry<T>* root = add_entry(nullptr, -1);
    root->newp.total = 0;
    root->newp.blank = 0;
    leaves_.push(root);
  }

  /// One step of logits (`num_classes` values): Step() of TensorFlow's decoder.
  void step(const T* raw_input) {
    T max_coeff = raw_input[0];
    for (int j = 1; j < num_classes_; ++j) max_coeff = std::max(max_coeff, raw_input[j]);
    // The softmax's normalization, log(sum(exp(logit - max))).
    T logsumexp = T(0);
    for (int j = 0; j < num_classes_; ++j) logsumexp += std::exp(raw_input[j] - max_coeff);
    logsumexp = std::log(logsumexp);
    const T norm_offset = max_coeff + logsumexp;

    const std::vector<BeamEntry<T>*> branches = leaves_.extract();
    leaves_.reset();
    for (BeamEntry<T>* b : branches) b->oldp = b->newp;
    for (BeamEntry<T>* b : branches) {
      if (b->parent != nullptr) {
        if (b->parent->active()) {
          const T previous =
              b->label == b->parent->label ? b->parent->oldp.blank : b->parent->oldp.total;
          b->newp.label = log_sum_exp(b->newp.label, previous);
        }
        b->newp.label += raw_input[b->label] - norm_offset;
      }
      b->newp.blank = b->oldp.total + raw_input[blank_] - norm_offset;
      b->newp.total = log_sum_exp(b->newp.blank, b->newp.label);
      leaves_.push(b);
    }
    // A new leaf enters when its probability is not 0 and beats the beam's least.
    auto is_candidate = [this](const BeamProbability<T>& prob) {
      return prob.total > log_zero<T>() &&
             (leaves_.size() < static_cast<std::size_t>(beam_width_) ||
              prob.total > leaves_.peek_bottom()->newp.total);
    };
    for (BeamEntry<T>* b : branches) {
      if (!is_candidate(b->oldp)) continue;
      for (int label = 0; label < num_classes_ - 1; ++label) {
        BeamEntry<T>& c = child(b, label);
        if (c.active()) continue;
        c.newp.blank = log_zero<T>();
        const T previous = c.label == b->label ? b->oldp.blank : b->oldp.total;
        c.newp.label = raw_input[label] - norm_offset + previous;
        c.newp.total = c.newp.label;
        if (is_candidate(c.newp)) {
          // The least leaf leaves the beam: probability 0 marks it out.
          if (leaves_.size() == static_cast<std::size_t>(beam_width_))
            leaves_.peek_bottom()->newp.reset();
          leaves_.push(&c);
        } else {
          c.oldp.reset();
          c.newp.reset();
        }
      }
    }
  }

  /// TopPaths: the `n` most probable prefixes, most probable first, and their log
  /// probabilities; "requested more paths than the beam width." or "Less leaves in the beam
  /// search than requested." when there are not `n`.
  Status top_paths(int n, bool merge_repeated, std::vector<std::vector<int>>* paths,
                   std::vector<T>* log_probs) const {
    paths->clear();
    log_probs->clear();
    if (n > beam_width_) return invalid_argument("requested more paths than the beam width.");
    if (static_cast<std::size_t>(n) > leaves_.size())
      return invalid_argument("Less leaves in the beam search than requested.");
    TopN<BeamEntry<T>*, BeamGreater<T>> top_branches(static_cast<std::size_t>(n));
    for (BeamEntry<T>* e : leaves_.unsorted()) top_branches.push(e);
    const std::vector<BeamEntry<T>*> branches = top_branches.extract();
    for (int i = 0; i < n; ++i) {
      const BeamEntry<T>* e = branches[static_cast<std::size_t>(i)];
      paths->push_back(e->label_seq(merge_repeated));
      log_probs->push_back(e->newp.total);
    }
    return {};
  }

 private:
  // BeamRoot::AddEntry: entries live until the next reset.
  BeamEntry<T>* add_entry(BeamEntry<T>* parent, int label) {
    entries_.push_back(std::make_unique<BeamEntry<T>>());
    BeamEntry<T>* e = entries_.back().get();
    e->parent = parent;
    e->label = label;
    return e;
  }

  // BeamEntry::GetChild: the child for `label`, made on first use.
  BeamEntry<T>& child(BeamEntry<T>* parent, int label) {
    auto [it, inserted] = parent->children.emplace(label, nullptr);
    if (inserted) it->second = add_entry(parent, label);
    return *it->second;
  }

  int num_classes_;
  int blank_;
  int beam_width_;
  TopN<BeamEntry<T>*, BeamGreater<T>> leaves_;
  std::vector<std::unique_ptr<BeamEntry<T>>> entries_;
};

}  // namespace af::detail::ctc
