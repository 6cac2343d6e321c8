#include "trainer.hpp"

#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <numeric>
#include <ostream>
#include <random>
#include <tuple>

namespace af::apps {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kPixels = 28 * 28;
constexpr std::int64_t kTrainExamples = 60000;
constexpr std::int64_t kTestExamples = 10000;

struct IdxFiles {
  std::string images, labels;
};

IdxFiles idx_files(const std::string& dir, const char* split) {
  IdxFiles f{(fs::path(dir) / (std::string(split) + "-images-idx3-ubyte.gz")).string(),
             (fs::path(dir) / (std::string(split) + "-labels-idx1-ubyte.gz")).string()};
  for (const auto& path : {f.images, f.labels})
    if (!fs::exists(path))
      throw NotFoundError(not_found(
          path + " not found (install Debian's dataset-fashion-mnist, or pass --data-dir)"));
  return f;
}

// The IDX files through two FixedLengthRecordReader actors (gzip, 16- and 8-byte headers),
// `per_step` records per step from each, so images and labels stay in step as long as one
// loop runs the read. Pixels become floats in [0, 1], labels int32.
std::pair<Output, Output> read_idx(Graph& g, const IdxFiles& files, std::int64_t per_step,
                                   std::optional<std::int64_t> num_epochs) {
  FIFOQueue image_files = string_input_producer(
      g, {files.images}, {.num_epochs = num_epochs, .shuffle = false, .name = "image_files"});
  FIFOQueue label_files = string_input_producer(
      g, {files.labels}, {.num_epochs = num_epochs, .shuffle = false, .name = "label_files"});
  FixedLengthRecordReader image_reader(
      g, {.record_bytes = kPixels, .header_bytes = 16, .encoding = "GZIP", .name = "image_reader"});
  FixedLengthRecordReader label_reader(
      g, {.record_bytes = 1, .header_bytes = 8, .encoding = "GZIP", .name = "label_reader"});
  auto [image_keys, image_records] = image_reader.read_up_to(image_files, per_step);
  auto [label_keys, label_records] = label_reader.read_up_to(label_files, per_step);
  Output pixels = decode_raw(image_records, DType::uint8, true, "decode_images");
  Output images = mul(cast(pixels, DType::float32),
                      scalar_like(cast(pixels, DType::float32), 1.0 / 255.0), "scale");
  Output labels =
      reshape(cast(decode_raw(label_records, DType::uint8, true, "decode_labels"), DType::int32),
              std::vector<std::int64_t>{-1}, "labels");
  return {images, labels};
}

// A whole split, read once by reader actors.
std::pair<Tensor, Tensor> load_split(const IdxFiles& files, std::int64_t count) {
  Graph g;
  auto [images, labels] = read_idx(g, files, count, 1);
  // Reading is host work: the loader's session opens no GPU (a first session that did would
  // reserve the GPU's memory for the process, and a CPU-only task would hold it idle), and it
  // has thread pools of its own: as the process's first session it would otherwise size the
  // shared pools every later session uses (one per core), whatever the training session asks
  // (`--threads 1` trained on two intra-op threads, and two OpenMP threads fought over T85's
  // one pinned CPU).
  SessionConfig config;
  config.device_count["GPU"] = 0;
  config.use_per_session_threads = true;
  Session sess(g, "", config);
  sess.run(g.local_variables_initializer());
  Coordinator coord;
  auto runners = start_queue_runners(sess, coord, g);
  auto values = sess.run({images, labels}, {}, {}, {.timeout_in_ms = 120000});
  coord.request_stop();
  coord.join(runners);
  if (values[0].shape() != Shape{count, kPixels} || values[1].num_elements() != count)
    throw DataLossError(data_loss(files.images + ": expected " + std::to_string(count) +
                                  " examples, got " + values[0].shape().to_string()));
  return {values[0], values[1]};
}

Output build_model(const std::string& model, const Output& images) {
  layers::Activation relu = [](const Output& x) { return af::relu(x); };
  if (model == "mlp") {
    Output h1 = layers::dense(images, 256, {.activation = relu});
    Output h2 = layers::dense(h1, 128, {.activation = relu});
    return layers::dense(h2, 10);
  }
  if (model == "cnn") {
    Output x = reshape(images, std::vector<std::int64_t>{-1, 28, 28, 1}, "image");
    Output c1 = layers::conv2d(x, 16, {3, 3}, {.padding = "same", .activation = relu});
    Output p1 = layers::max_pooling2d(c1, {2, 2}, {2, 2});
    Output c2 = layers::conv2d(p1, 32, {3, 3}, {.padding = "same", .activation = relu});
    Output p2 = layers::max_pooling2d(c2, {2, 2}, {2, 2});
    Output h = layers::dense(layers::flatten(p2), 128, {.activation = relu});
    return layers::dense(h, 10);
  }
  throw InvalidArgumentError(invalid_argument("unknown model '" + model + "' (mlp or cnn)"));
}

void progress_line(std::ostream& log, int epoch, int epochs, std::int64_t done, std::int64_t total,
                   double loss, double rate) {
  constexpr int kWidth = 30;
  const auto flags = log.flags();
  const auto precision = log.precision();
  const int filled = static_cast<int>(kWidth * done / std::max<std::int64_t>(total, 1));
  log << "\repoch " << epoch << "/" << epochs << " ["
      << std::string(static_cast<std::size_t>(filled), '=') << (filled < kWidth ? ">" : "")
      << std::string(static_cast<std::size_t>(std::max(0, kWidth - filled - 1)), ' ') << "] "
      << done << "/" << total << " loss " << std::fixed << std::setprecision(4) << loss << " "
      << std::setprecision(0) << rate << " examples/s" << std::flush;
  log.flags(flags);
  log.precision(precision);
}

}  // namespace

ShuffledBatches::ShuffledBatches(const Tensor& images, const Tensor& labels, std::int64_t rows,
                                 std::uint64_t seed)
    : images_(images),
      labels_(labels),
      rows_(rows),
      rng_(seed),
      order_(static_cast<std::size_t>(labels.num_elements())) {
  std::iota(order_.begin(), order_.end(), 0);
  cursor_ = order_.size();
}

std::pair<Tensor, Tensor> ShuffledBatches::next() {
  Tensor x(DType::float32, Shape{rows_, kPixels}, Tensor::ForOverwrite{});
  Tensor y(DType::int32, Shape{rows_}, Tensor::ForOverwrite{});
  for (std::int64_t r = 0; r < rows_; ++r) {
    if (cursor_ == order_.size()) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      cursor_ = 0;
    }
    const std::int64_t i = order_[cursor_++];
    std::copy_n(images_.data<float>() + i * kPixels, kPixels, x.data<float>() + r * kPixels);
    y.data<std::int32_t>()[r] = labels_.data<std::int32_t>()[i];
  }
  return {x, y};
}

Variable initialized_variable(Graph& g, const std::string& name, const Shape& shape,
                              const initializers::Initializer& init) {
  return g.variable([&](Graph& graph) { return init(graph, shape, DType::float32); },
                    {.name = name});
}

std::vector<Variable> mlp_variables(Graph& g, const std::vector<std::int64_t>& sizes) {
  std::vector<Variable> vars;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const std::string layer = i + 2 == sizes.size() ? "logits" : "hidden" + std::to_string(i + 1);
    vars.push_back(initialized_variable(g, layer + "/kernel", Shape{sizes[i], sizes[i + 1]},
                                        initializers::glorot_uniform()));
    vars.push_back(
        initialized_variable(g, layer + "/bias", Shape{sizes[i + 1]}, initializers::zeros()));
  }
  return vars;
}

Output mlp_logits(const Output& x, const std::vector<Variable>& vars,
                  const std::function<Output(const Variable&)>& read) {
  auto value = [&](const Variable& v) { return read ? read(v) : v.value(); };
  Output h = x;
  for (std::size_t i = 0; i + 1 < vars.size(); i += 2) {
    h = nn::bias_add(matmul(h, value(vars[i])), value(vars[i + 1]));
    if (i + 2 < vars.size()) h = relu(h);
  }
  return h;
}

std::pair<Tensor, Tensor> load_fashion_mnist(const std::string& dir, const char* split,
                                             std::int64_t count) {
  return load_split(idx_files(dir, split), count);
}

TrainReport train_fashion_mnist(const TrainOptions& o, std::ostream& log) {
  const IdxFiles train_files = idx_files(o.data_dir, "train");
  const IdxFiles test_files = idx_files(o.data_dir, "t10k");
  auto [test_images, test_labels] = load_split(test_files, kTestExamples);

  Graph g;
  g.set_random_seed(o.seed);
  Output x, y;
  Tensor train_images, train_labels;
  if (o.feed_from_memory) {
    std::tie(train_images, train_labels) = load_split(train_files, kTrainExamples);
    // On the model's device, so a step is one partition there (the feeds copied in).
    ScopeGuard pinned = o.device.empty() ? ScopeGuard() : g.device(o.device);
    x = g.placeholder(DType::float32, PartialShape{-1, kPixels}, "images");
    y = g.placeholder(DType::int32, PartialShape{-1}, "labels");
  } else {
    auto [images, labels] = read_idx(g, train_files, 1000, std::nullopt);
    RandomShuffleQueue examples(g, {.capacity = 20000,
                                    .min_after_dequeue = 10000,
                                    .dtypes = {DType::float32, DType::int32},
                                    .shapes = {{kPixels}, {}},
                                    .name = "shuffle_batch/random_shuffle_queue",
                                    .seed = o.seed});
    // One loop: the two readers must advance together.
    add_queue_runner(g, QueueRunner(examples, {examples.enqueue_many({images, labels})}));
    // dequeue_up_to: the batch dimension stays unknown, so evaluation can feed the whole
    // test set in place of a batch (the queue never closes while training, so batches are
    // full).
    auto batch = examples.dequeue_up_to(static_cast<std::int32_t>(o.batch_size));
    x = batch[0];
    y = batch[1];
  }

  Output logits, loss, accuracy;
  Variable global_step;
  Operation train_op;
  {
    ScopeGuard pinned = o.device.empty() ? ScopeGuard() : g.device(o.device);
    global_step = train::get_or_create_global_step(g);
    logits = build_model(o.model, x);
    loss = losses::sparse_softmax_cross_entropy(y, logits);
    Output predictions = argmax(logits, 1, DType::int32);
    accuracy = metrics::batch_accuracy(y, predictions);
    train::AdamOptimizer adam(o.learning_rate);
    train_op = adam.minimize(loss, global_step);
  }
  train::Saver saver(g, {.max_to_keep = 5});
  // TensorBoard: the training loss and batch accuracy, the learning rate, the weights'
  // histograms, the graph.
  Output summaries;
  std::unique_ptr<summary::FileWriter> writer;
  if (!o.logdir.empty()) {
    summary::scalar("loss", loss);
    summary::scalar("accuracy", accuracy);
    summary::scalar("learning_rate",
                    g.constant(Tensor(static_cast<float>(o.learning_rate)), "learning_rate_value"));
    for (const auto& any : g.get_collection(kTrainableVariables)) {
      const auto& v = std::any_cast<const Variable&>(any);
      summary::histogram(v.op().name() + "/values", v.value());
    }
    summaries = *summary::merge_all(g);
    writer = std::make_unique<summary::FileWriter>(o.logdir);
    writer->add_graph(serialize_graph_def(export_graph_def(g, true)));
  }

  SessionConfig config;
  config.intra_op_parallelism_threads = o.threads;
  config.inter_op_parallelism_threads = o.threads;
  config.allow_soft_placement = !o.device.empty();
  config.log_device_placement = o.log_device_placement;
  Session sess(g, "", config);
  sess.run(g.global_variables_initializer());
  sess.run(g.local_variables_initializer());
  TrainReport report;
  if (o.restore && !o.checkpoint_dir.empty()) {
    if (auto latest = train::latest_checkpoint(o.checkpoint_dir)) {
      saver.restore(sess, *latest);
      report.restored_from = *latest;
      log << "restored " << *latest << "\n";
    } else {
      log << "no checkpoint in " << o.checkpoint_dir << ", starting fresh\n";
    }
  }
  report.first_step = sess.run(global_step.value()).scalar<std::int64_t>();
  if (!o.checkpoint_dir.empty()) fs::create_directories(o.checkpoint_dir);

  auto evaluate = [&] {
    return static_cast<double>(
        sess.run(accuracy, {{x, test_images}, {y, test_labels}}).scalar<float>());
  };

  Coordinator coord;
  auto runners = start_queue_runners(sess, coord, g);
  const std::int64_t per_epoch =
      (o.train_examples > 0 ? o.train_examples : kTrainExamples) / o.batch_size;
  std::int64_t total = static_cast<std::int64_t>(o.epochs) * per_epoch;
  if (o.max_steps > 0) total = std::min(total, o.max_steps);
  std::int64_t step = report.first_step;
  const std::int64_t start_epoch = step / per_epoch;
  Clock::duration training{};
  bool reached = false;
  for (std::int64_t epoch = start_epoch; step < total && !reached; ++epoch) {
    EpochReport er;
    er.epoch = static_cast<int>(epoch + 1);
    double loss_sum = 0;
    std::int64_t n = 0;
    const auto epoch_start = Clock::now();
    Clock::duration epoch_training{};
    const std::int64_t epoch_end = std::min(total, (epoch + 1) * per_epoch);
    std::vector<std::int32_t> order;
    if (o.feed_from_memory) {
      order.resize(static_cast<std::size_t>(kTrainExamples));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(),
                   std::mt19937(static_cast<std::uint32_t>(o.seed * 1000 + epoch)));
    }
    for (; step < epoch_end; ++step) {
      const auto t0 = Clock::now();
      FeedDict feeds;
      if (o.feed_from_memory) {
        // The batch's rows gathered from memory, timed as part of the step.
        const std::int64_t first = (step - epoch * per_epoch) * o.batch_size;
        Tensor bx(DType::float32, Shape{o.batch_size, kPixels}, Tensor::for_overwrite);
        Tensor by(DType::int32, Shape{o.batch_size}, Tensor::for_overwrite);
        for (std::int64_t r = 0; r < o.batch_size; ++r) {
          const std::int32_t at = order[static_cast<std::size_t>((first + r) % kTrainExamples)];
          std::memcpy(bx.data<float>() + r * kPixels, train_images.data<float>() + at * kPixels,
                      kPixels * sizeof(float));
          by.data<std::int32_t>()[r] = train_labels.data<std::int32_t>()[at];
        }
        feeds = {{x, bx}, {y, by}};
      }
      std::vector<Tensor> out;
      try {
        // A step that waits this long means the input pipeline stopped: its error, if any,
        // is the coordinator's.
        const bool summarize = writer && (step + 1) % o.summary_every == 0;
        out = sess.run(summarize ? std::vector<Output>{loss, summaries} : std::vector<Output>{loss},
                       feeds, {train_op}, {.timeout_in_ms = 120000});
        if (summarize) writer->add_summary(out[1].scalar<std::string>(), step + 1);
      } catch (const DeadlineExceededError&) {
        coord.request_stop();
        coord.join(runners, std::chrono::seconds(5), /*ignore_live_runners=*/true);
        throw;
      }
      epoch_training += Clock::now() - t0;
      loss_sum += out[0].scalar<float>();
      ++n;
      const std::int64_t done = step + 1 - epoch * per_epoch;
      if (o.progress &&
          (done % std::max<std::int64_t>(1, per_epoch / 20) == 0 || step + 1 == epoch_end))
        progress_line(log, er.epoch, o.epochs, done, per_epoch, loss_sum / static_cast<double>(n),
                      static_cast<double>(n * o.batch_size) /
                          std::chrono::duration<double>(epoch_training).count());
      if (o.target_accuracy > 0 && o.eval_every > 0 && (step + 1) % o.eval_every == 0) {
        if (evaluate() >= o.target_accuracy) {
          report.seconds_to_target =
              std::chrono::duration<double>(training + epoch_training).count();
          reached = true;
          ++step;
          break;
        }
      }
    }
    training += epoch_training;
    if (o.progress) log << "\n";
    er.global_step = step;
    er.mean_loss = n ? loss_sum / static_cast<double>(n) : 0;
    er.examples_per_second = static_cast<double>(n * o.batch_size) /
                             std::chrono::duration<double>(epoch_training).count();
    er.test_accuracy = evaluate();
    if (!o.checkpoint_dir.empty())
      er.checkpoint = saver.save(sess, (fs::path(o.checkpoint_dir) / "model.ckpt").string(), step);
    if (writer) {
      writer->add_summary(summary::scalar("test_accuracy", static_cast<float>(er.test_accuracy)),
                          step);
      writer->add_summary(
          summary::scalar("examples_per_sec", static_cast<float>(er.examples_per_second)), step);
      writer->flush();
    }
    log << "epoch " << er.epoch << ": global step " << step << ", loss " << er.mean_loss
        << ", test accuracy " << er.test_accuracy << ", "
        << static_cast<std::int64_t>(er.examples_per_second) << " examples/s"
        << (er.checkpoint.empty() ? "" : ", saved " + er.checkpoint) << " ("
        << std::chrono::duration<double>(Clock::now() - epoch_start).count() << " s)\n";
    report.epochs.push_back(er);
  }
  coord.request_stop();  // the runners' cancel ops close the queues
  coord.join(runners);
  if (writer) writer->close();
  report.global_step = step;
  report.train_seconds = std::chrono::duration<double>(training).count();
  report.test_accuracy = report.epochs.empty() ? evaluate() : report.epochs.back().test_accuracy;
  return report;
}

}  // namespace af::apps
