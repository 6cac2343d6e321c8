#include "pipeline.hpp"

#include <sys/resource.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

namespace af::apps {

std::vector<std::string> write_csv_shards(const std::string& dir, int files, std::int64_t lines) {
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  for (int f = 0; f < files; ++f) {
    auto path = (std::filesystem::path(dir) / ("part-" + std::to_string(f) + ".csv")).string();
    std::string text = "x1,x2,target\n";
    char buf[64];
    for (std::int64_t i = 0; i < lines; ++i) {
      int n = std::snprintf(buf, sizeof buf, "%.3f,%.3f,%d\n", static_cast<double>(value(rng)),
                            static_cast<double>(value(rng)), static_cast<int>(rng() % 2));
      text.append(buf, static_cast<std::size_t>(n));
    }
    std::ofstream(path, std::ios::binary) << text;
    paths.push_back(path);
  }
  return paths;
}

PipelineResult run_pipeline(const PipelineOptions& o) {
  Graph g;
  FIFOQueue filename_queue(g, {.capacity = static_cast<std::int64_t>(o.files.size()) + 1,
                               .dtypes = {af::string},
                               .shapes = {{}},
                               .name = "filename_queue"});
  auto names = g.placeholder(af::string, PartialShape{-1}, "filenames");
  auto enqueue_names = filename_queue.enqueue_many({names});
  static std::atomic<int> instance{0};
  std::string shared = "csv_pipeline_instances_" + std::to_string(instance++);
  RandomShuffleQueue instance_queue(g, {.capacity = o.capacity,
                                        .min_after_dequeue = o.min_after_dequeue,
                                        .dtypes = {af::float32, af::float32, af::int32},
                                        .shapes = {{}, {}, {}},
                                        .name = "instance_q",
                                        .shared_name = shared});
  std::vector<Operation> read_and_enqueue;
  for (int r = 0; r < o.readers; ++r) {
    TextLineReader reader(g, {.skip_header_lines = 1});
    std::vector<Output> cols;
    if (o.read_up_to > 1) {
      auto [keys, values] = reader.read_up_to(filename_queue, o.read_up_to);
      cols = decode_csv(values, {Tensor(-1.0f), Tensor(-1.0f), Tensor(-1)});
      read_and_enqueue.push_back(instance_queue.enqueue_many({cols[0], cols[1], cols[2]}));
    } else {
      auto [key, value] = reader.read(filename_queue);
      cols = decode_csv(value, {Tensor(-1.0f), Tensor(-1.0f), Tensor(-1)});
      read_and_enqueue.push_back(instance_queue.enqueue({cols[0], cols[1], cols[2]}));
    }
  }
  std::vector<Operation> loops;
  for (const auto& op : read_and_enqueue)
    for (int l = 0; l < std::max(1, o.loops_per_reader); ++l) loops.push_back(op);
  QueueRunner runner(instance_queue, loops);
  auto batch = instance_queue.dequeue_up_to(static_cast<std::int32_t>(o.batch_size));
  auto fill = instance_queue.size();

  Session sess(g);
  sess.run(enqueue_names, {{names, Tensor::from_vector<std::string>(o.files)}});
  sess.run(filename_queue.close());
  Coordinator coord;
  PipelineResult result;
  auto start = std::chrono::steady_clock::now();
  auto runners = runner.create_threads(sess, coord, /*start=*/true);
  auto last_report = start;
  try {
    for (;;) {
      auto b = sess.run({batch[0], batch[1], batch[2]});
      auto n = b[0].num_elements();
      result.records += n;
      auto x1 = b[0].flat<float>();
      auto x2 = b[1].flat<float>();
      auto t = b[2].flat<std::int32_t>();
      for (std::int64_t i = 0; i < n; ++i)
        result.checksum += double(x1[static_cast<std::size_t>(i)]) +
                           double(x2[static_cast<std::size_t>(i)]) + t[static_cast<std::size_t>(i)];
      auto now = std::chrono::steady_clock::now();
      if (o.progress && now - last_report > std::chrono::milliseconds(500)) {
        last_report = now;
        o.progress(result.records, sess.run(fill).scalar<std::int32_t>());
      }
    }
  } catch (const OutOfRangeError&) {
    // end of input: the last reader loop closed the instance queue
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  coord.request_stop();
  coord.join(runners, std::chrono::seconds(10));
  return result;
}

namespace {

/// Parses the lines of `path` (header skipped) with std::from_chars, calling
/// `row(x1, x2, target)` for each.
template <class Row>
void parse_file(const std::string& path, std::vector<char>& buf, Row row) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;
  std::string carry;
  bool header = true;
  for (;;) {
    std::size_t got = std::fread(buf.data(), 1, buf.size(), f);
    if (got == 0) break;
    carry.append(buf.data(), got);
    std::size_t pos = 0;
    for (;;) {
      std::size_t nl = carry.find('\n', pos);
      if (nl == std::string::npos) break;
      const char* p = carry.data() + pos;
      const char* end = carry.data() + nl;
      pos = nl + 1;
      if (header) {
        header = false;
        continue;
      }
      float x1 = 0, x2 = 0;
      int t = 0;
      auto r1 = std::from_chars(p, end, x1);
      auto r2 = std::from_chars(r1.ptr + 1, end, x2);
      std::from_chars(r2.ptr + 1, end, t);
      row(x1, x2, t);
    }
    carry.erase(0, pos);
  }
  std::fclose(f);
}

}  // namespace

PipelineResult parse_files_directly(const std::vector<std::string>& files) {
  PipelineResult result;
  auto start = std::chrono::steady_clock::now();
  std::vector<char> buf(1 << 20);
  for (const auto& path : files)
    parse_file(path, buf, [&](float x1, float x2, int t) {
      result.checksum += double(x1) + double(x2) + t;
      ++result.records;
    });
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

PipelineResult run_threads_directly(const PipelineOptions& o) {
  struct Columns {
    std::vector<float> x1, x2;
    std::vector<std::int32_t> t;
    std::size_t size() const { return t.size(); }
  };
  std::mutex mu;
  std::condition_variable not_full, not_empty;
  Columns store;
  std::size_t next_file = 0;
  int readers_left = o.readers;
  const auto capacity = static_cast<std::size_t>(o.capacity);
  const auto min_after = static_cast<std::size_t>(o.min_after_dequeue);
  const auto batch = static_cast<std::size_t>(o.batch_size);
  const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(1, o.read_up_to));
  PipelineResult result;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> readers;
  for (int r = 0; r < o.readers; ++r)
    readers.emplace_back([&] {
      std::vector<char> buf(1 << 20);
      Columns mine;
      auto push = [&] {
        std::unique_lock<std::mutex> lock(mu);
        not_full.wait(lock, [&] { return store.size() + mine.size() <= capacity; });
        store.x1.insert(store.x1.end(), mine.x1.begin(), mine.x1.end());
        store.x2.insert(store.x2.end(), mine.x2.begin(), mine.x2.end());
        store.t.insert(store.t.end(), mine.t.begin(), mine.t.end());
        lock.unlock();
        not_empty.notify_one();
        mine.x1.clear();
        mine.x2.clear();
        mine.t.clear();
      };
      for (;;) {
        std::size_t file;
        {
          std::lock_guard<std::mutex> lock(mu);
          file = next_file++;
        }
        if (file >= o.files.size()) break;
        parse_file(o.files[file], buf, [&](float x1, float x2, int t) {
          mine.x1.push_back(x1);
          mine.x2.push_back(x2);
          mine.t.push_back(t);
          if (mine.size() == rows) push();
        });
      }
      if (mine.size() > 0) push();
      std::lock_guard<std::mutex> lock(mu);
      --readers_left;
      not_empty.notify_one();
    });
  std::mt19937 rng(7);
  std::vector<float> x1(batch), x2(batch);
  std::vector<std::int32_t> t(batch);
  for (;;) {
    std::size_t n = 0;
    {
      std::unique_lock<std::mutex> lock(mu);
      not_empty.wait(lock, [&] { return readers_left == 0 || store.size() >= min_after + batch; });
      n = readers_left == 0 ? std::min(batch, store.size()) : batch;
      if (n == 0) break;
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = rng() % static_cast<std::uint32_t>(store.size());
        x1[i] = store.x1[k];
        x2[i] = store.x2[k];
        t[i] = store.t[k];
        store.x1[k] = store.x1.back();
        store.x2[k] = store.x2.back();
        store.t[k] = store.t.back();
        store.x1.pop_back();
        store.x2.pop_back();
        store.t.pop_back();
      }
    }
    not_full.notify_all();
    for (std::size_t i = 0; i < n; ++i) result.checksum += double(x1[i]) + double(x2[i]) + t[i];
    result.records += static_cast<std::int64_t>(n);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (auto& r : readers) r.join();
  return result;
}

long peak_rss_kib() {
  // VmHWM is this address space's high-water mark. getrusage's ru_maxrss is not: Linux
  // carries it across execve, so a child started by posix_spawn (vfork) reports its
  // parent's peak.
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    std::fclose(f);
    if (kib >= 0) return kib;
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace af::apps
