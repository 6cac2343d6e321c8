// P2 queue handoff, P3 CSV pipeline and P8 pipeline memory.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"
#include "pipeline.hpp"

extern char** environ;

namespace af::bench {

namespace {

using Clock = std::chrono::steady_clock;

/// The baseline: a bounded queue with a mutex and two condition variables.
class MutexQueue {
 public:
  explicit MutexQueue(std::size_t capacity) : capacity_(capacity) {}
  void push_many(const std::int64_t* items, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      std::unique_lock<std::mutex> lock(mu_);
      not_full_.wait(lock, [&] { return items_.size() < capacity_; });
      while (done < n && items_.size() < capacity_) items_.push_back(items[done++]);
      not_empty_.notify_all();
    }
  }
  void pop_many(std::int64_t* out, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      std::unique_lock<std::mutex> lock(mu_);
      not_empty_.wait(lock, [&] { return !items_.empty(); });
      while (done < n && !items_.empty()) {
        out[done++] = items_.front();
        items_.pop_front();
      }
      not_full_.notify_all();
    }
  }

 private:
  std::size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<std::int64_t> items_;
};

/// The limit row: a lock-free single-producer single-consumer ring (acquire/release
/// indices, capacity a power of two), the producer and the consumer spinning with a yield
/// when it is full or empty. No queue that also serves many producers, timeouts and close
/// can beat it; it shows what the handoff itself costs on this machine.
class SpscRing {
 public:
  explicit SpscRing(std::size_t capacity) : slots_(capacity), mask_(capacity - 1) {}
  void push_many(const std::int64_t* items, std::size_t n) {
    std::size_t done = 0;
    std::size_t tail = tail_.load(std::memory_order_relaxed);
    while (done < n) {
      const std::size_t head = head_.load(std::memory_order_acquire);
      std::size_t room = slots_.size() - (tail - head);
      if (room == 0) {
        std::this_thread::yield();
        continue;
      }
      for (; room > 0 && done < n; --room) slots_[tail++ & mask_] = items[done++];
      tail_.store(tail, std::memory_order_release);
    }
  }
  void pop_many(std::int64_t* out, std::size_t n) {
    std::size_t done = 0;
    std::size_t head = head_.load(std::memory_order_relaxed);
    while (done < n) {
      const std::size_t tail = tail_.load(std::memory_order_acquire);
      if (tail == head) {
        std::this_thread::yield();
        continue;
      }
      for (; head != tail && done < n; ++head) out[done++] = slots_[head & mask_];
      head_.store(head, std::memory_order_release);
    }
  }

 private:
  std::vector<std::int64_t> slots_;
  std::size_t mask_;
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
};

template <class Q>
double handoff_rate(Q& q, std::int64_t items, std::size_t batch) {
  auto start = Clock::now();
  std::thread producer([&] {
    std::vector<std::int64_t> b(batch);
    for (std::int64_t i = 0; i < items; i += static_cast<std::int64_t>(batch)) {
      for (std::size_t k = 0; k < batch; ++k) b[k] = i + static_cast<std::int64_t>(k);
      q.push_many(b.data(), batch);
    }
  });
  std::vector<std::int64_t> out(batch);
  std::int64_t expect = 0;
  for (std::int64_t i = 0; i < items; i += static_cast<std::int64_t>(batch)) {
    q.pop_many(out.data(), batch);
    if (out[0] != expect) std::abort();  // order is part of the contract
    expect += static_cast<std::int64_t>(batch);
  }
  producer.join();
  return static_cast<double>(items) / std::chrono::duration<double>(Clock::now() - start).count();
}

double mutex_rate(std::int64_t items, std::size_t batch) {
  MutexQueue q(1024);
  return handoff_rate(q, items, batch);
}

double ring_rate(std::int64_t items, std::size_t batch) {
  SpscRing q(1024);
  return handoff_rate(q, items, batch);
}

double actor_rate(std::int64_t items, std::int64_t batch, int run) {
  auto q = QueueHandle::open({.kind = QueueKind::fifo,
                              .name = "p2_" + std::to_string(batch) + "_" + std::to_string(run),
                              .dtypes = {af::int64},
                              .shapes = {PartialShape(Shape{})},
                              .capacity = 1024});
  auto start = Clock::now();
  std::thread producer([&] {
    for (std::int64_t i = 0; i < items; i += batch) {
      if (batch == 1) {
        q.enqueue({Tensor(i)});
      } else {
        Tensor b(af::int64, Shape{batch});
        auto* d = b.data<std::int64_t>();
        for (std::int64_t k = 0; k < batch; ++k) d[k] = i + k;
        q.enqueue_many({std::move(b)});
      }
    }
  });
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < items; i += batch) {
    auto r = batch == 1 ? q.dequeue() : q.dequeue_many(batch);
    sum += r[0].flat<std::int64_t>()[0];
  }
  producer.join();
  return static_cast<double>(items) / std::chrono::duration<double>(Clock::now() - start).count();
}

/// The same handoff with pipelined host calls: a QueueProducer keeps up to 16 enqueue_many
/// requests in flight, a QueueConsumer prefetches 8 dequeue_many requests.
double pipelined_rate(std::int64_t items, std::int64_t batch, int run) {
  auto q = QueueHandle::open({.kind = QueueKind::fifo,
                              .name = "p2p_" + std::to_string(batch) + "_" + std::to_string(run),
                              .dtypes = {af::int64},
                              .shapes = {PartialShape(Shape{})},
                              .capacity = 1024});
  auto start = Clock::now();
  std::thread producer([&] {
    QueueProducer out(q, 16);
    for (std::int64_t i = 0; i < items; i += batch) {
      Tensor b(af::int64, Shape{batch});
      auto* d = b.data<std::int64_t>();
      for (std::int64_t k = 0; k < batch; ++k) d[k] = i + k;
      out.enqueue_many({std::move(b)});
    }
    out.flush();
  });
  std::int64_t expect = 0;
  {
    QueueConsumer in(q, batch, 8);
    for (std::int64_t i = 0; i < items; i += batch) {
      auto r = in.next();
      if (r[0].flat<std::int64_t>()[0] != expect) std::abort();  // order is part of the contract
      expect += batch;
    }
  }  // the requests prefetched past the end are cancelled here and take nothing
  producer.join();
  return static_cast<double>(items) / std::chrono::duration<double>(Clock::now() - start).count();
}

double session_rate(std::int64_t items) {
  Graph g;
  FIFOQueue q(g, {.capacity = 1024, .dtypes = {af::int64}, .shapes = {{}}});
  auto x = g.placeholder(af::int64, PartialShape(Shape{}));
  auto enqueue = q.enqueue({x});
  auto dequeue = q.dequeue();
  Session sess(g);
  auto start = Clock::now();
  std::thread producer([&] {
    for (std::int64_t i = 0; i < items; ++i) sess.run(enqueue, {{x, Tensor(i)}});
  });
  for (std::int64_t i = 0; i < items; ++i) sess.run(dequeue[0]);
  producer.join();
  return static_cast<double>(items) / std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

void bench_p2(bool quick) {
  const std::int64_t items = quick ? 200'000 : 2'000'000;
  const int runs = quick ? 3 : 5;
  std::vector<double> base, ring, ours, piped, single, sess;
  for (int r = 0; r < runs; ++r) {
    base.push_back(mutex_rate(items, 64));
    ring.push_back(ring_rate(items, 64));
    piped.push_back(pipelined_rate(items, 64, r));
    ours.push_back(actor_rate(items, 64, r));
  }
  // Each repetition runs every variant once, in turn: the ratios are taken per repetition.
  double b = median_of(base), l = median_of(ring), o = median_of(ours), p = median_of(piped);
  auto millions = [](std::vector<double> v) {
    for (auto& x : v) x /= 1e6;
    return spread(v);
  };
  std::printf(
      "P2 queue handoff, 64-item enqueue_many/dequeue_many, capacity 1024, 1 producer + 1 "
      "consumer thread (%d runs of %lld items, medians): mutex+condvar queue %.2f M items/s (%s); "
      "lock-free SPSC ring (the limit) %.2f M items/s (%s); "
      "queue actor, pipelined (QueueProducer window 16 / QueueConsumer window 8) %.2f M "
      "items/s (%s), ratio %s of the mutex queue, %s of the ring; queue actor, blocking "
      "QueueHandle calls %.2f M items/s (%s), ratio %s of the mutex queue\n",
      runs, static_cast<long long>(items), b / 1e6, millions(base).c_str(), l / 1e6,
      millions(ring).c_str(), p / 1e6, millions(piped).c_str(),
      ratio_text(record({"P2-pipelined", "queue handoff, pipelined, 64-item batches", "items/s",
                         piped, base, "mutex + condvar queue", ">= 0.5x"}))
          .c_str(),
      ratio_text(pair_ratio(piped, ring)).c_str(), o / 1e6, millions(ours).c_str(),
      ratio_text(record({"P2-blocking", "queue handoff, blocking QueueHandle calls", "items/s",
                         ours, base, "mutex + condvar queue", ""}))
          .c_str());
  const std::int64_t singles = quick ? 20'000 : 100'000;
  for (int r = 0; r < runs; ++r) {
    single.push_back(actor_rate(singles, 1, 100 + r));
    sess.push_back(session_rate(singles / 4));
  }
  double mb1 = 0;
  {
    std::vector<double> m;
    for (int r = 0; r < runs; ++r) m.push_back(mutex_rate(singles, 1));
    mb1 = median_of(m);
  }
  std::printf(
      "P2 single items: QueueHandle enqueue/dequeue median %.0f items/s; sess.run of "
      "enqueue/dequeue ops %.0f items/s; mutex+condvar queue %.0f items/s (ratios %.3fx, %.3fx)\n",
      median_of(single), median_of(sess), mb1, median_of(single) / mb1, median_of(sess) / mb1);
}

/// Only the pipelined P2 case, for profiling (`actorflow-bench p2-pipelined`).
void bench_p2_pipelined(bool quick) {
  const std::int64_t items = quick ? 200'000 : 2'000'000;
  std::vector<double> v;
  for (int r = 0; r < 5; ++r) v.push_back(pipelined_rate(items, 64, 1000 + r));
  std::printf("P2 pipelined only: %.2f M items/s (median of 5)\n", median_of(v) / 1e6);
}

/// One thread, no contention: the cost of one enqueue_many + dequeue_many pair.
void bench_p2_self(bool quick) {
  const std::int64_t batches = quick ? 20'000 : 500'000;
  auto q = QueueHandle::open({.kind = QueueKind::fifo,
                              .name = "p2self",
                              .dtypes = {af::int64},
                              .shapes = {PartialShape(Shape{})},
                              .capacity = 1024});
  std::vector<double> v;
  for (int r = 0; r < 5; ++r) {
    auto start = Clock::now();
    for (std::int64_t i = 0; i < batches; ++i) {
      Tensor b(af::int64, Shape{64});
      auto* d = b.data<std::int64_t>();
      for (std::int64_t k = 0; k < 64; ++k) d[k] = i + k;
      q.enqueue_many({std::move(b)});
      auto out = q.dequeue_many(64);
      if (out[0].flat<std::int64_t>()[0] != i) std::abort();
    }
    v.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                static_cast<double>(batches));
  }
  std::printf("P2 one thread: %.0f ns per enqueue_many + dequeue_many of 64 (median of 5)\n",
              median_of(v));
}

void bench_p3(bool quick) {
  auto dir = (std::filesystem::temp_directory_path() / "actorflow_bench_p3").string();
  const std::int64_t lines = quick ? 50'000 : 625'000;
  auto files = apps::write_csv_shards(dir, 4, lines);
  apps::parse_files_directly(files);  // page cache
  const int runs = quick ? 2 : 5;
  std::vector<double> base, one, two, cores_one, cores_two, floor_two, cores_floor;
  double checksum_base = 0, checksum = 0;
  bool floor_matches = true;  // the floor's checksum, each run, against the loop's
  auto cpu_seconds = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  };
  for (int r = 0; r < runs; ++r) {
    auto b = apps::parse_files_directly(files);
    checksum_base = b.checksum;
    base.push_back(b.records / b.seconds);
    for (int readers : {1, 2}) {
      apps::PipelineOptions o;
      o.files = files;
      o.readers = readers;
      const double cpu_before = cpu_seconds();
      auto p = apps::run_pipeline(o);
      const double cpu = cpu_seconds() - cpu_before;
      checksum = p.checksum;
      (readers == 1 ? one : two).push_back(p.records / p.seconds);
      (readers == 1 ? cores_one : cores_two).push_back(cpu / p.seconds);
    }
    apps::PipelineOptions o;
    o.files = files;
    o.readers = 2;
    const double cpu_before = cpu_seconds();
    auto f = apps::run_threads_directly(o);
    cores_floor.push_back((cpu_seconds() - cpu_before) / f.seconds);
    floor_matches =
        floor_matches && std::abs(f.checksum - checksum_base) < 1e-3 * std::abs(checksum_base) + 1;
    floor_two.push_back(f.records / f.seconds);
  }
  double b = median_of(base), r1 = median_of(one), r2 = median_of(two);
  std::vector<double> two_per_reader;
  for (double x : two) two_per_reader.push_back(x / 2);
  const auto ratio_one = record({"P3-1", "CSV pipeline, 1 reader", "lines/s", one, base,
                                 "std::from_chars loop on one core", ""});
  const auto ratio_two =
      record({"P3-2", "CSV pipeline, 2 readers, per reader", "lines/s", two_per_reader, base,
              "std::from_chars loop on one core", ">= 0.8x"});
  std::vector<double> floor_per_reader;
  for (double x : floor_two) floor_per_reader.push_back(x / 2);
  const auto ratio_floor =
      record({"P3-2-floor", "CSV pipeline, 2 readers, against the same work by plain threads",
              "lines/s", two, floor_two, "2 reader threads + mutex shuffle buffer + consumer", ""});
  const auto floor_of_loop = pair_ratio(floor_per_reader, base);
  std::printf(
      "P3 CSV pipeline, %lld lines of 3 fields in 4 files (page cache), read_up_to 1024, "
      "%d QueueRunner loops per reader, batches of 1024: 1 reader median %.2f M lines/s, 2 readers "
      "%.2f M lines/s; "
      "std::from_chars loop %.2f M lines/s; ratio 1 reader %s, 2 readers per core %s "
      "(checksums %s); CPU busy %.2f / %.2f cores, so per CPU-second %.2fx / %.2fx of the loop\n",
      static_cast<long long>(4 * lines), apps::PipelineOptions{}.loops_per_reader, r1 / 1e6,
      r2 / 1e6, b / 1e6, ratio_text(ratio_one).c_str(), ratio_text(ratio_two).c_str(),
      std::abs(checksum - checksum_base) < 1e-3 * std::abs(checksum_base) + 1 ? "match" : "DIFFER",
      median_of(cores_one), median_of(cores_two), r1 / median_of(cores_one) / b,
      r2 / median_of(cores_two) / b);
  std::printf(
      "P3 floor: the same pipeline as plain threads (2 readers parsing with std::from_chars "
      "into batches of 1024, a mutex-guarded shuffle buffer of 16384, the consumer drawing "
      "batches of 1024 and summing them) %.2f M lines/s on %.2f cores, per core %s of the "
      "loop; the pipeline runs at %s of it (checksums %s)\n",
      median_of(floor_two) / 1e6, median_of(cores_floor), ratio_text(floor_of_loop).c_str(),
      ratio_text(ratio_floor).c_str(), floor_matches ? "match" : "DIFFER");
  std::filesystem::remove_all(dir);
}

/// P8: peak RSS of the pipeline on 1x and 10x input, each in a fresh process.
void bench_p8(bool quick, const char* self_exe) {
  auto dir = (std::filesystem::temp_directory_path() / "actorflow_bench_p8").string();
  const std::int64_t lines = quick ? 25'000 : 100'000;
  auto measure = [&](std::int64_t per_file) -> long {
    std::string arg = std::to_string(per_file);
    std::string out = dir + "/rss_" + arg;
    char a0[] = "actorflow-bench";
    char a1[] = "p8-child";
    std::vector<char*> argv{a0, a1, arg.data(), dir.data(), out.data(), nullptr};
    pid_t pid = 0;
    if (posix_spawn(&pid, self_exe, nullptr, nullptr, argv.data(), environ) != 0) return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    long kib = -1;
    if (std::FILE* f = std::fopen(out.c_str(), "r")) {
      if (std::fscanf(f, "%ld", &kib) != 1) kib = -1;
      std::fclose(f);
    }
    return kib;
  };
  std::filesystem::create_directories(dir);
  long small = measure(lines), large = measure(lines * 10);
  std::printf(
      "P8 pipeline peak RSS: %lld lines %ld KiB, %lld lines (10x) %ld KiB; ratio %.3f "
      "(bounded queues: capacity 16384 instances)\n",
      static_cast<long long>(4 * lines), small, static_cast<long long>(40 * lines), large,
      static_cast<double>(large) / static_cast<double>(small));
  std::filesystem::remove_all(dir);
}

int p8_child(int argc, char** argv) {
  if (argc < 5) return 2;
  std::int64_t per_file = std::stoll(argv[2]);
  std::string dir = std::string(argv[3]) + "/data_" + argv[2];
  // Write the shards in a child of our own so their buffers do not count.
  {
    pid_t pid = fork();
    if (pid == 0) {
      apps::write_csv_shards(dir, 4, per_file);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
  }
  apps::PipelineOptions o;
  for (int f = 0; f < 4; ++f) o.files.push_back(dir + "/part-" + std::to_string(f) + ".csv");
  o.readers = 2;
  apps::run_pipeline(o);
  if (std::FILE* f = std::fopen(argv[4], "w")) {
    std::fprintf(f, "%ld\n", apps::peak_rss_kib());
    std::fclose(f);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace af::bench
