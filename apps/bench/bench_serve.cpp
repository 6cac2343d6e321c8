// SERVE: a SavedModel TensorFlow wrote, served by signature: the load (SavedModelBundle: read,
// import, restore, init op) and one request after another to "serving_default" with a batch
// of `batch` rows of its first input. Its baselines, TensorFlow serving the same directory
// (its TensorFlow 1 loader in a Session, and its TensorFlow 2 loader calling the signature),
// are measured by scripts/peers/saved_model_peers.py in the same run (interleaved): that
// script writes the model.
#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace af::bench {

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

}  // namespace

void bench_serve(bool quick, const std::string& dir, int batch) {
  if (dir.empty()) {
    std::printf(
        "SERVE needs --saved-model DIR (scripts/peers/saved_model_peers.py writes one and runs "
        "this beside TensorFlow)\n");
    return;
  }
  std::vector<double> load_ms;
  for (int r = 0; r < (quick ? 2 : 5); ++r) {
    const auto t0 = Clock::now();
    saved_model::SavedModelBundle once(dir, {saved_model::kServing});
    load_ms.push_back(us_since(t0) / 1e3);
  }
  saved_model::SavedModelBundle model(dir, {saved_model::kServing});
  const SignatureDef& sig = model.signature(saved_model::kDefaultServingSignatureDefKey);
  const auto& [key, info] = *sig.inputs.begin();
  if (info.dtype != DType::float32 || info.shape.rank() != 2 || info.shape.dim(1) < 0)
    throw InvalidArgumentError(
        invalid_argument("SERVE: input '" + key + "' must be float32 [?, D]"));
  const std::int64_t width = info.shape.dim(1);
  Tensor x(DType::float32, Shape{batch, width});
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (std::int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = normal(rng);
  const std::map<std::string, Tensor> inputs{{key, x}};
  const int calls = quick ? 100 : 300;
  for (int i = 0; i < 50; ++i) model.run(saved_model::kDefaultServingSignatureDefKey, inputs);
  std::vector<double> per_call_us;
  for (int r = 0; r < (quick ? 3 : 7); ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) model.run(saved_model::kDefaultServingSignatureDefKey, inputs);
    per_call_us.push_back(us_since(t0) / calls);
  }
  std::printf(
      "SERVE %s batch %d: load median %.1f ms (%s); a request median %.1f us (%s), %.0f "
      "rows/s\n",
      dir.c_str(), batch, median_of(load_ms), spread(load_ms).c_str(), median_of(per_call_us),
      spread(per_call_us).c_str(), batch / median_of(per_call_us) * 1e6);
  std::fflush(stdout);
}

}  // namespace af::bench
