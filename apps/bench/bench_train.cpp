// Training benchmarks.
//
//   P6    one SGD step of an MLP 784-256-10, batch 128, fed from memory, through
//         sess.run(train_op), with 1 and 2 intra-op threads, beside a hand-written C++ step
//         calling OpenBLAS and then oneDNN directly for the same forward, backward and update
//         (the faster is the limit).
//   T85   wall seconds of training (evaluation excluded) until the Fashion-MNIST test accuracy
//         reaches 0.85 (MLP 784-256-128-10, Adam 1e-3, batch 128, checked every 47 steps),
//         median over seeds 1-7 (needs Debian's dataset-fashion-mnist), each seed's ms/step
//         paired with a block of the same step written by hand on oneDNN (the floor).
//   CKPT  Saver save and restore of a 256 MiB model vs writing (with fsync) and reading the same
//         bytes with plain file I/O.
#include <dlfcn.h>
#include <fcntl.h>
#include <immintrin.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"
#include "gemm_baselines.hpp"
#include "trainer.hpp"

namespace af::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBatch = 128, kIn = 784, kHidden = 256, kClasses = 10;
constexpr float kLr = 0.1f;

struct Batch {
  std::vector<float> x;
  std::vector<std::int32_t> y;
};

Batch random_batch(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Batch b;
  b.x.resize(static_cast<std::size_t>(kBatch * kIn));
  for (auto& v : b.x) v = u(rng);
  for (int i = 0; i < kBatch; ++i) b.y.push_back(static_cast<std::int32_t>(rng() % kClasses));
  return b;
}

std::vector<float> glorot(std::mt19937& rng, int in, int out) {
  const float limit = std::sqrt(6.0f / static_cast<float>(in + out));
  std::uniform_real_distribution<float> u(-limit, limit);
  std::vector<float> w(static_cast<std::size_t>(in * out));
  for (auto& v : w) v = u(rng);
  return w;
}

// A row-major sgemm: C = alpha * op(A) * op(B) + beta * C.
using SgemmFn = void (*)(bool ta, bool tb, int m, int n, int k, float alpha, const float* a,
                         int lda, const float* b, int ldb, float beta, float* c, int ldc);

void openblas_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
                    const float* b, int ldb, float beta, float* c, int ldc) {
  openblas_baseline()->gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void onednn_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
                  const float* b, int ldb, float beta, float* c, int ldc) {
  dnnl_sgemm_fn()(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Softmax cross-entropy of a batch's logits [kBatch, kClasses]: writes the gradient of the
// mean loss into `d` and returns the summed loss.
float softmax_xent_grad(const float* logits, const std::vector<std::int32_t>& labels, float* d) {
  float loss = 0;
  for (int i = 0; i < kBatch; ++i) {
    const float* l = logits + i * kClasses;
    float* g = d + i * kClasses;
    const std::int32_t label = labels[static_cast<std::size_t>(i)];
    const float m = *std::max_element(l, l + kClasses);
    float sum = 0;
    for (int c = 0; c < kClasses; ++c) sum += std::exp(l[c] - m);
    loss += std::log(sum) - (l[label] - m);
    for (int c = 0; c < kClasses; ++c)
      g[c] = (std::exp(l[c] - m) / sum - (c == label ? 1.0f : 0.0f)) / kBatch;
  }
  return loss;
}

// The same step written by hand: forward, softmax cross-entropy, backward, SGD, with the
// products through `gemm`.
struct HandStep {
  SgemmFn gemm;
  std::vector<float> w1, b1, w2, b2, h, logits, dlogits, dh, dw1, dw2;
  HandStep(std::mt19937& rng, SgemmFn g)
      : gemm(g),
        w1(glorot(rng, kIn, kHidden)),
        b1(kHidden, 0.0f),
        w2(glorot(rng, kHidden, kClasses)),
        b2(kClasses, 0.0f),
        h(kBatch * kHidden),
        logits(kBatch * kClasses),
        dlogits(kBatch * kClasses),
        dh(kBatch * kHidden),
        dw1(kIn * kHidden),
        dw2(kHidden * kClasses) {}
  float run(const Batch& b) {
    for (int i = 0; i < kBatch; ++i) std::copy(b1.begin(), b1.end(), h.begin() + i * kHidden);
    gemm(false, false, kBatch, kHidden, kIn, 1.0f, b.x.data(), kIn, w1.data(), kHidden, 1.0f,
         h.data(), kHidden);
    for (auto& v : h) v = std::max(v, 0.0f);
    for (int i = 0; i < kBatch; ++i) std::copy(b2.begin(), b2.end(), logits.begin() + i * kClasses);
    gemm(false, false, kBatch, kClasses, kHidden, 1.0f, h.data(), kHidden, w2.data(), kClasses,
         1.0f, logits.data(), kClasses);
    const float loss = softmax_xent_grad(logits.data(), b.y, dlogits.data());
    gemm(true, false, kHidden, kClasses, kBatch, 1.0f, h.data(), kHidden, dlogits.data(), kClasses,
         0.0f, dw2.data(), kClasses);
    gemm(false, true, kBatch, kHidden, kClasses, 1.0f, dlogits.data(), kClasses, w2.data(),
         kClasses, 0.0f, dh.data(), kHidden);
    for (std::size_t i = 0; i < dh.size(); ++i) dh[i] *= h[i] > 0.0f ? 1.0f : 0.0f;
    gemm(true, false, kIn, kHidden, kBatch, 1.0f, b.x.data(), kIn, dh.data(), kHidden, 0.0f,
         dw1.data(), kHidden);
    for (int i = 0; i < kBatch; ++i)
      for (int c = 0; c < kClasses; ++c)
        b2[static_cast<std::size_t>(c)] -=
            kLr * dlogits[static_cast<std::size_t>(i * kClasses + c)];
    for (int i = 0; i < kBatch; ++i)
      for (int j = 0; j < kHidden; ++j)
        b1[static_cast<std::size_t>(j)] -= kLr * dh[static_cast<std::size_t>(i * kHidden + j)];
    for (std::size_t i = 0; i < w2.size(); ++i) w2[i] -= kLr * dw2[i];
    for (std::size_t i = 0; i < w1.size(); ++i) w1[i] -= kLr * dw1[i];
    return loss / kBatch;
  }
};

// T85's step written by hand: the MLP 784-256-128-10 (ReLU), softmax cross-entropy and
// TensorFlow's Adam (lr 1e-3, beta1 0.9, beta2 0.999, epsilon 1e-8), the products through
// `gemm`. It bounds what any framework's step can take on this core: T85's floor.
struct HandAdamStep {
  static constexpr int kLayers = 3;
  static constexpr int kSizes[kLayers + 1] = {784, 256, 128, 10};
  static constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-8f;
  SgemmFn gemm;
  std::vector<float> w[kLayers], b[kLayers], mw[kLayers], vw[kLayers], mb[kLayers], vb[kLayers];
  std::vector<float> act[kLayers], grad[kLayers], dw[kLayers], db[kLayers];
  std::int64_t t = 0;
  HandAdamStep(std::mt19937& rng, SgemmFn g) : gemm(g) {
    for (int l = 0; l < kLayers; ++l) {
      const int in = kSizes[l], out = kSizes[l + 1];
      const auto n = static_cast<std::size_t>(out);
      w[l] = glorot(rng, in, out);
      b[l].assign(n, 0.0f);
      mw[l].assign(w[l].size(), 0.0f);
      vw[l].assign(w[l].size(), 0.0f);
      mb[l].assign(n, 0.0f);
      vb[l].assign(n, 0.0f);
      act[l].assign(kBatch * n, 0.0f);
      grad[l].assign(kBatch * n, 0.0f);
      dw[l].assign(w[l].size(), 0.0f);
      db[l].assign(n, 0.0f);
    }
  }
  static void adam(std::vector<float>& p, std::vector<float>& m, std::vector<float>& v,
                   const std::vector<float>& g, float lr_t) {
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return adam_avx2(p.data(), m.data(), v.data(), g.data(), p.size(), lr_t);
    adam_tail(p.data(), m.data(), v.data(), g.data(), 0, p.size(), lr_t);
  }
  static void adam_tail(float* p, float* m, float* v, const float* g, std::size_t from,
                        std::size_t n, float lr_t) {
    for (std::size_t i = from; i < n; ++i) {
      m[i] += (g[i] - m[i]) * (1 - kBeta1);
      v[i] += (g[i] * g[i] - v[i]) * (1 - kBeta2);
      p[i] -= lr_t * m[i] / (std::sqrt(v[i]) + kEpsilon);
    }
  }
  // Eight lanes at a time (std::sqrt's errno keeps GCC from vectorising the scalar loop).
  __attribute__((target("avx2,fma"))) static void adam_avx2(float* p, float* m, float* v,
                                                            const float* g, std::size_t n,
                                                            float lr_t) {
    const __m256 a1 = _mm256_set1_ps(1 - kBeta1), a2 = _mm256_set1_ps(1 - kBeta2);
    const __m256 eps = _mm256_set1_ps(kEpsilon), lr = _mm256_set1_ps(lr_t);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 gi = _mm256_loadu_ps(g + i);
      __m256 mi = _mm256_loadu_ps(m + i), vi = _mm256_loadu_ps(v + i);
      mi = _mm256_fmadd_ps(_mm256_sub_ps(gi, mi), a1, mi);
      vi = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_mul_ps(gi, gi), vi), a2, vi);
      _mm256_storeu_ps(m + i, mi);
      _mm256_storeu_ps(v + i, vi);
      const __m256 step =
          _mm256_div_ps(_mm256_mul_ps(lr, mi), _mm256_add_ps(_mm256_sqrt_ps(vi), eps));
      _mm256_storeu_ps(p + i, _mm256_sub_ps(_mm256_loadu_ps(p + i), step));
    }
    adam_tail(p, m, v, g, i, n, lr_t);
  }
  void run(const Batch& batch) {
    const float* in = batch.x.data();
    for (int l = 0; l < kLayers; ++l) {
      const int k = kSizes[l], n = kSizes[l + 1];
      float* out = act[l].data();
      for (int i = 0; i < kBatch; ++i) std::copy(b[l].begin(), b[l].end(), out + i * n);
      gemm(false, false, kBatch, n, k, 1.0f, in, k, w[l].data(), n, 1.0f, out, n);
      if (l + 1 < kLayers)
        for (auto& v : act[l]) v = std::max(v, 0.0f);
      in = out;
    }
    softmax_xent_grad(act[kLayers - 1].data(), batch.y, grad[kLayers - 1].data());
    for (int l = kLayers - 1; l >= 0; --l) {
      const int k = kSizes[l], n = kSizes[l + 1];
      const float* x = l == 0 ? batch.x.data() : act[l - 1].data();
      gemm(true, false, k, n, kBatch, 1.0f, x, k, grad[l].data(), n, 0.0f, dw[l].data(), n);
      std::fill(db[l].begin(), db[l].end(), 0.0f);
      for (int i = 0; i < kBatch; ++i)
        for (int j = 0; j < n; ++j)
          db[l][static_cast<std::size_t>(j)] += grad[l][static_cast<std::size_t>(i * n + j)];
      if (l == 0) break;
      gemm(false, true, kBatch, k, n, 1.0f, grad[l].data(), n, w[l].data(), n, 0.0f,
           grad[l - 1].data(), k);
      for (std::size_t i = 0; i < grad[l - 1].size(); ++i)
        if (act[l - 1][i] <= 0.0f) grad[l - 1][i] = 0.0f;
    }
    ++t;
    const float lr_t = 1e-3f * std::sqrt(1.0f - std::pow(kBeta2, static_cast<float>(t))) /
                       (1.0f - std::pow(kBeta1, static_cast<float>(t)));
    for (int l = 0; l < kLayers; ++l) {
      adam(w[l], mw[l], vw[l], dw[l], lr_t);
      adam(b[l], mb[l], vb[l], db[l], lr_t);
    }
  }
  /// Multiply-adds of the products, times 2: forward, weight gradients, and the input
  /// gradients of every layer but the first.
  static double flops() {
    double f = 0;
    for (int l = 0; l < kLayers; ++l)
      f += 2.0 * kBatch * kSizes[l] * kSizes[l + 1] * (l == 0 ? 2 : 3);
    return f;
  }
};

// One core's float32 multiply-add peak: 12 independent FMA chains (enough to fill both FMA
// pipes), AVX-512 where the CPU has it, else AVX2; GFLOP/s, the best of 5 runs. (Written out
// per instruction set: lambdas would not inherit the function's target.)
#define ACTORFLOW_FMA_PEAK_BODY(VEC, WIDTH, SET, FMA)                                 \
  double best = 0;                                                                    \
  for (int rep = 0; rep < 5; ++rep) {                                                 \
    VEC a[12];                                                                        \
    for (int i = 0; i < 12; ++i) a[i] = SET(static_cast<float>(i));                   \
    const VEC b = SET(1.0000001f), c = SET(1e-9f);                                    \
    constexpr long kIters = 20'000'000;                                               \
    const auto t = Clock::now();                                                      \
    for (long k = 0; k < kIters; ++k) {                                               \
      _Pragma("GCC unroll 12") for (int i = 0; i < 12; ++i) a[i] = FMA(a[i], b, c);   \
    }                                                                                 \
    const double secs = std::chrono::duration<double>(Clock::now() - t).count();      \
    float lanes[WIDTH];                                                               \
    volatile float sink = 0;                                                          \
    for (int i = 0; i < 12; ++i) {                                                    \
      std::memcpy(lanes, &a[i], sizeof lanes);                                        \
      sink = sink + lanes[0];                                                         \
    }                                                                                 \
    best = std::max(best, static_cast<double>(kIters) * 12 * WIDTH * 2 / secs / 1e9); \
  }                                                                                   \
  return best;

__attribute__((target("avx512f"))) double fma_peak_avx512() {
  ACTORFLOW_FMA_PEAK_BODY(__m512, 16, _mm512_set1_ps, _mm512_fmadd_ps)
}

__attribute__((target("avx2,fma"))) double fma_peak_avx2() {
  ACTORFLOW_FMA_PEAK_BODY(__m256, 8, _mm256_set1_ps, _mm256_fmadd_ps)
}
#undef ACTORFLOW_FMA_PEAK_BODY

double core_fma_peak_gflops() {
  if (__builtin_cpu_supports("avx512f")) return fma_peak_avx512();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fma_peak_avx2();
  return 0;
}

// Median µs per step over `reps` repetitions of `steps` steps.
template <class F>
double time_steps(F&& step, int steps, int reps) {
  std::vector<double> per_step;
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
    for (int i = 0; i < steps; ++i) step(i);
    per_step.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count() / steps);
  }
  return median_of(per_step);
}

}  // namespace

void bench_p6(bool quick) {
  const int steps = quick ? 100 : 500, reps = quick ? 3 : 5;
  std::mt19937 rng(7);
  std::vector<Batch> batches;
  for (int i = 0; i < 8; ++i) batches.push_back(random_batch(rng));
  std::vector<Tensor> xs, ys;
  for (auto& b : batches) {
    xs.push_back(Tensor::from_vector(b.x, Shape{kBatch, kIn}));
    ys.push_back(Tensor::from_vector(b.y));
  }
  // ACTORFLOW_P6_THREADS=n measures one thread count (for profiling).
  std::vector<int> thread_counts = {1, 2};
  if (const char* only = std::getenv("ACTORFLOW_P6_THREADS")) thread_counts = {std::atoi(only)};
  for (int threads : thread_counts) {
    Graph g;
    g.set_random_seed(7);
    Output x = g.placeholder(DType::float32, PartialShape{kBatch, kIn}, "x");
    Output y = g.placeholder(DType::int32, PartialShape{kBatch}, "y");
    Output h = layers::dense(x, kHidden, {.activation = [](const Output& t) { return relu(t); }});
    Output logits = layers::dense(h, kClasses);
    Output loss = reduce_mean(nn::sparse_softmax_cross_entropy_with_logits(y, logits));
    train::GradientDescentOptimizer sgd(kLr);
    Operation train_op = sgd.minimize(loss);
    SessionConfig config;
    // The step is a chain: one inter-op thread, and the products take the intra-op threads.
    // Two inter-op threads beside two-thread products oversubscribe two cores (1.39-1.46 ms
    // against 0.93-1.07 ms with one, 2026-11-23); ACTORFLOW_P6_INTER overrides it.
    config.intra_op_parallelism_threads = threads;
    config.inter_op_parallelism_threads = 1;
    if (const char* inter = std::getenv("ACTORFLOW_P6_INTER"))
      config.inter_op_parallelism_threads = std::atoi(inter);
    config.use_per_session_threads = true;
    Session sess(g, "", config);
    sess.run(g.global_variables_initializer());
    auto step = [&](int i) {
      const auto k = static_cast<std::size_t>(i) % xs.size();
      sess.run(train_op, {{x, xs[k]}, {y, ys[k]}});
    };
    for (int i = 0; i < 50; ++i) step(i);
    // The hand-written step with each library and its own threads (ACTORFLOW_P6_HAND=0 skips
    // them, for profiling the session alone); the limit is the faster one. Each repetition
    // runs the session's block of steps, then each hand-written block: interleaved pairs.
    struct Hand {
      const char* lib;
      std::function<void()> set_threads;
      std::unique_ptr<HandStep> step;
      std::vector<double> us;
    };
    std::vector<Hand> hands;
    const char* skip = std::getenv("ACTORFLOW_P6_HAND");
    if (skip == nullptr || std::strcmp(skip, "0") != 0) {
      std::mt19937 hand_rng(7);
      if (const auto* blas = openblas_baseline())
        hands.push_back({"OpenBLAS",
                         [blas, threads] { blas->set_num_threads(threads); },
                         std::make_unique<HandStep>(hand_rng, openblas_sgemm),
                         {}});
      hand_rng.seed(7);
      if (dnnl_sgemm_fn() != nullptr)
        hands.push_back({"oneDNN",
                         [threads] { set_dnnl_threads(threads); },
                         std::make_unique<HandStep>(hand_rng, onednn_sgemm),
                         {}});
    }
    auto hand_step = [&](Hand& hand) {
      return [&hand, &batches](int i) {
        hand.step->run(batches[static_cast<std::size_t>(i) % batches.size()]);
      };
    };
    for (auto& hand : hands) {
      hand.set_threads();
      for (int i = 0; i < 50; ++i) hand_step(hand)(i);
    }
    // Between blocks, a pause: the threads of the side that just ran (OpenMP's team, the
    // intra-op pool) spin a while before they sleep, and would steal the next block's cores.
    auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); };
    std::vector<double> af_us, limit_us;
    for (int r = 0; r < reps; ++r) {
      settle();
      af_us.push_back(time_steps(step, steps, 1));
      double limit = 0;
      for (auto& hand : hands) {
        hand.set_threads();
        settle();
        hand.us.push_back(time_steps(hand_step(hand), steps, 1));
        if (limit == 0 || hand.us.back() < limit) limit = hand.us.back();
      }
      if (limit > 0) limit_us.push_back(limit);
    }
    std::string line = "P6 MLP 784-256-10 SGD step, batch 128, " + std::to_string(threads) +
                       " intra-op thread" + (threads > 1 ? "s" : "") + " (inter-op " +
                       std::to_string(config.inter_op_parallelism_threads) + "): sess.run median " +
                       fixed(median_of(af_us), 1) + " us";
    auto per_second = [](const std::vector<double>& us) {
      std::vector<double> out;
      for (double u : us) out.push_back(1e6 / u);
      return out;
    };
    for (auto& hand : hands)
      line += std::string("; hand-written step on ") + hand.lib + " " +
              fixed(median_of(hand.us), 1) + " us (" +
              ratio_text(pair_ratio(per_second(af_us), per_second(hand.us))) + ")";
    if (!limit_us.empty()) {
      const auto ratio = record({"P6-" + std::to_string(threads),
                                 "MLP SGD step, " + std::to_string(threads) + " intra-op threads",
                                 "steps/s", per_second(af_us), per_second(limit_us),
                                 "the faster hand-written step", ">= 0.8x"});
      line += "; speed ratio " + ratio_text(ratio) + " of the limit";
    }
    std::printf("%s\n", line.c_str());
    if (threads == 1) {
      // P6 with TensorBoard: a merged scalar summary of the loss fetched with every step and
      // written to an events file, against the plain step, alternating (summary, plain) rounds.
      Output merged = summary::merge({summary::scalar("loss", loss)});
      const std::string logdir = (std::filesystem::temp_directory_path() /
                                  ("actorflow-bench-p6-" + std::to_string(::getpid())))
                                     .string();
      {
        summary::FileWriter writer(logdir);
        std::int64_t global = 0;
        auto summarized = [&](int i) {
          const auto k = static_cast<std::size_t>(i) % xs.size();
          auto out = sess.run({merged}, {{x, xs[k]}, {y, ys[k]}}, {train_op});
          writer.add_summary(out[0].scalar<std::string>(), ++global);
        };
        for (int i = 0; i < 50; ++i) summarized(i);
        std::vector<double> with, without;
        for (int r = 0; r < reps; ++r) {
          with.push_back(time_steps(summarized, steps, 1));
          without.push_back(time_steps(step, steps, 1));
        }
        const double w = median_of(with), wo = median_of(without);
        std::printf(
            "P6 with a merged scalar summary every step, written to an events file, 1 thread: "
            "median %s us "
            "(%s); plain step %s us (%s); %+.1f%%\n",
            fixed(w, 1).c_str(), spread(with).c_str(), fixed(wo, 1).c_str(),
            spread(without).c_str(), (w / wo - 1.0) * 100.0);
      }
      std::error_code ignored;
      std::filesystem::remove_all(logdir, ignored);
    }
  }
  // The floor: the step's products alone (forward, dW2, dh and dW1: 104.7 MFLOP) at one
  // core's measured multiply-add peak, what no 1-thread float32 step can beat.
  const double flops = 2.0 * kBatch * kIn * kHidden * 2 + 2.0 * kBatch * kHidden * kClasses * 3;
  if (const double peak = core_fma_peak_gflops(); peak > 0)
    std::printf(
        "P6 floor: one core's float32 FMA peak %s GFLOP/s; the step's %s MFLOP of products need >= "
        "%s us "
        "on 1 thread\n",
        fixed(peak, 1).c_str(), fixed(flops / 1e6, 1).c_str(),
        fixed(flops / peak / 1e3, 1).c_str());
}

namespace {

// T85's floor on this core: the hand-written Adam step on oneDNN (1 thread, the process
// already pinned). A block of its steps runs after each seed's training, so each seed's
// ms/step pairs with the floor's of the same minute; the VM's speed drifts more than that.
class T85Floor {
 public:
  explicit T85Floor(bool quick) : quick_(quick) {
    if (dnnl_sgemm_fn() == nullptr) return;
    set_dnnl_threads(1);
    std::mt19937 rng(7);
    for (int i = 0; i < 8; ++i) batches_.push_back(random_batch(rng));
    hand_ = std::make_unique<HandAdamStep>(rng, onednn_sgemm);
    for (int i = 0; i < 50; ++i) step(i);
  }
  bool enabled() const { return hand_ != nullptr; }
  /// ms per step of one block.
  double block() {
    set_dnnl_threads(1);
    return time_steps([this](int i) { step(i); }, quick_ ? 50 : 200, 1) / 1e3;
  }
  /// Prints the floor beside the seeds' ms/step (paired) and records it.
  void report(const std::vector<double>& ours_ms, const std::vector<double>& floor_ms,
              double steps) {
    if (ours_ms.empty()) {
      std::printf("T85 floor: no seed reached 0.85, so no step to pair with the floor\n");
      return;
    }
    const double peak = core_fma_peak_gflops();
    const double fma_ms = peak > 0 ? HandAdamStep::flops() / peak / 1e6 : 0;
    auto per_second = [](const std::vector<double>& ms) {
      std::vector<double> out;
      for (double m : ms) out.push_back(1e3 / m);
      return out;
    };
    const auto ratio = record({"T85-step", "T85 training step, fed from memory, 1 thread",
                               "steps/s", per_second(ours_ms), per_second(floor_ms),
                               "hand-written Adam step on oneDNN (the floor)", ""});
    std::printf(
        "T85 floor: the hand-written Adam step of the same MLP on oneDNN, 1 thread, median %s "
        "ms/step over the blocks after each seed; the session's step runs at %s of it; the "
        "step's %s MFLOP of products at the core's FMA peak (%s GFLOP/s) take %s ms; at the "
        "median's %.0f steps the floor is %s s (the FMA bound %s s)\n",
        fixed(median_of(floor_ms), 3).c_str(), ratio_text(ratio).c_str(),
        fixed(HandAdamStep::flops() / 1e6, 1).c_str(), fixed(peak, 1).c_str(),
        fixed(fma_ms, 3).c_str(), steps, fixed(median_of(floor_ms) * steps / 1e3, 2).c_str(),
        fixed(fma_ms * steps / 1e3, 2).c_str());
  }

 private:
  void step(int i) { hand_->run(batches_[static_cast<std::size_t>(i) % batches_.size()]); }
  bool quick_;
  std::vector<Batch> batches_;
  std::unique_ptr<HandAdamStep> hand_;
};

}  // namespace

void bench_time_to_accuracy(bool quick) {
  const std::string data = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(data + "/train-images-idx3-ubyte.gz")) {
    std::printf("T85 skipped: %s not installed (Debian's dataset-fashion-mnist)\n", data.c_str());
    return;
  }
  // Batches fed from memory (as the peers' scripts do), then through the trainer's reader
  // actors and shuffle queue. 7 seeds, each shown with its steps (a lucky initialisation
  // cannot carry the median); the process pinned to one CPU, as the peers' runs are.
  PinnedProcess pin(1);
  T85Floor floor(quick);
  for (bool from_memory : {true, false}) {
    std::vector<double> seconds, steps, ours_ms, floor_ms;
    std::string per_seed;
    for (std::int64_t seed = 1; seed <= (quick ? 1 : 7); ++seed) {
      apps::TrainOptions o;
      o.data_dir = data;
      o.epochs = quick ? 1 : 5;
      o.threads = 1;
      o.seed = seed;
      o.progress = false;
      o.target_accuracy = 0.85;
      o.eval_every = 47;
      o.feed_from_memory = from_memory;
      std::ostringstream log;
      auto report = apps::train_fashion_mnist(o, log);
      const bool reached = report.seconds_to_target >= 0;
      seconds.push_back(reached ? report.seconds_to_target : 1e9);
      steps.push_back(static_cast<double>(report.global_step));
      char buf[160];
      std::snprintf(
          buf, sizeof buf, "\n  seed %lld: %s, %lld steps, %.2f ms/step",
          static_cast<long long>(seed),
          reached ? (fixed(report.seconds_to_target, 2) + " s").c_str() : "never reached 0.85",
          static_cast<long long>(report.global_step),
          reached ? 1e3 * report.seconds_to_target /
                        static_cast<double>(std::max<std::int64_t>(1, report.global_step))
                  : 0.0);
      per_seed += buf;
      if (from_memory && reached && floor.enabled()) {
        ours_ms.push_back(1e3 * report.seconds_to_target /
                          static_cast<double>(std::max<std::int64_t>(1, report.global_step)));
        floor_ms.push_back(floor.block());
        per_seed += " (floor, the block after it: " + fixed(floor_ms.back(), 2) + " ms/step)";
      }
    }
    const std::string mode = from_memory ? "memory" : "readers";
    record({"T85-" + mode,
            "seconds of training to test accuracy 0.85, 1 thread, " + mode,
            "s",
            seconds,
            {},
            "",
            "<= 0.7x of TensorFlow (scripts/peers/time_to_accuracy_peers.py)"});
    record({"T85-" + mode + "-steps",
            "steps to test accuracy 0.85, " + mode,
            "steps",
            steps,
            {},
            "",
            ""});
    std::printf(
        "T85 Fashion-MNIST MLP 784-256-128-10, Adam 1e-3, batch 128, 1 thread, %s, pinned to CPU "
        "%s: median %s and %.0f steps of training to test accuracy 0.85 over %zu seeds:%s\n",
        from_memory ? "batches fed from memory" : "reader actors + shuffle queue",
        pin.cpus().c_str(),
        median_of(seconds) < 1e9 ? (fixed(median_of(seconds), 2) + " s").c_str() : "not reached",
        median_of(steps), seconds.size(), per_seed.c_str());
    if (from_memory && floor.enabled()) floor.report(ours_ms, floor_ms, median_of(steps));
  }
}

void bench_checkpoint(bool quick) {
  namespace fs = std::filesystem;
  const std::int64_t mib = quick ? 64 : 256;
  const std::int64_t per_var = 32LL * 1024 * 1024 / 4;  // 32 MiB of float32
  const int vars = static_cast<int>(mib / 32);
  const fs::path dir = fs::temp_directory_path() / ("af_bench_ckpt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Graph g;
  std::vector<Variable> variables;
  for (int i = 0; i < vars; ++i)
    variables.push_back(g.variable(random_uniform(g, Shape{per_var}, DType::float32),
                                   {.name = "v" + std::to_string(i)}));
  train::Saver saver(variables);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  const double bytes = static_cast<double>(mib) * 1024 * 1024;
  std::vector<double> save_s, restore_s, write_s, read_s;
  AlignedBytes buffer(static_cast<std::uint64_t>(per_var * 4), 1);
  for (int rep = 0; rep < (quick ? 2 : 5); ++rep) {
    const std::string prefix = (dir / "model").string();
    auto t = Clock::now();
    saver.save(sess, prefix, std::nullopt, "checkpoint", false);
    save_s.push_back(std::chrono::duration<double>(Clock::now() - t).count());
    t = Clock::now();
    saver.restore(sess, prefix);
    restore_s.push_back(std::chrono::duration<double>(Clock::now() - t).count());
    // Baseline: the same bytes written from an aligned buffer in 32 MiB writes into the
    // truncated file, fsynced, then read back.
    const std::string plain = (dir / "plain.bin").string();
    t = Clock::now();
    {
      int fd = ::open(plain.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      for (int i = 0; i < vars; ++i)
        if (::write(fd, buffer.data(), buffer.size()) < 0) break;
      ::fsync(fd);
      ::close(fd);
    }
    write_s.push_back(std::chrono::duration<double>(Clock::now() - t).count());
    t = Clock::now();
    {
      int fd = ::open(plain.c_str(), O_RDONLY);
      for (int i = 0; i < vars; ++i)
        if (::read(fd, buffer.data(), buffer.size()) < 0) break;
      ::close(fd);
    }
    read_s.push_back(std::chrono::duration<double>(Clock::now() - t).count());
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  auto rates = [&](const std::vector<double>& seconds) {
    std::vector<double> out;
    for (double s : seconds) out.push_back(bytes / s / 1e9);
    return out;
  };
  const auto save = rates(save_s), write = rates(write_s);
  const auto restore = rates(restore_s), read = rates(read_s);
  const std::string model = std::to_string(mib) + " MiB model";
  const auto save_ratio = record({"CKPT-save", "checkpoint save of a " + model, "GB/s", save, write,
                                  "the same bytes written and fsynced", ">= 0.9x"});
  const auto restore_ratio = record({"CKPT-restore", "checkpoint restore of a " + model, "GB/s",
                                     restore, read, "the same bytes read back", ""});
  std::printf(
      "CKPT %s: save median %.2f GB/s vs write+fsync %.2f GB/s, ratio %s; restore %.2f GB/s vs "
      "read %.2f GB/s, ratio %s\n",
      model.c_str(), median_of(save), median_of(write), ratio_text(save_ratio).c_str(),
      median_of(restore), median_of(read), ratio_text(restore_ratio).c_str());
}

}  // namespace af::bench
