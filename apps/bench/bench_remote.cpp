// P4 (remote tensor fetch, GB/s) and P5 (remote scalar round trip, us) against a server in
// another process, each beside a raw loopback TCP baseline served by the same child process:
// a blocking stream of the same bytes between page-aligned buffers (P4) and a 64-byte ping-pong
// (P5). P5 also times the same ping-pong echoed through an Asio reactor (epoll), as a server
// that serves many connections on one thread answers: the floor of such a server.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"

extern char** environ;

namespace af::bench {

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

/// A buffer of `n` bytes for the raw stream, filled once and kept per size.
const char* source_bytes(std::uint64_t n) {
  static std::mutex mu;
  static std::map<std::uint64_t, AlignedBytes> buffers;
  std::lock_guard<std::mutex> lock(mu);
  auto it = buffers.find(n);
  if (it == buffers.end()) it = buffers.emplace(n, AlignedBytes(n, 'x')).first;
  return it->second.data();
}

/// The raw stream's send and receive pieces: the limit of a plain blocking TCP stream on
/// loopback here (16 MiB pieces both ways measured best; 1 MiB reads with a poll each, the
/// first baseline, reached less than half of it). `scripts/tcp_limit.sh` checks it against
/// iperf3.
constexpr std::uint64_t kRawPiece = 16u << 20;

/// Writes `n` bytes of `data` on blocking socket `fd` with send(2) calls of kRawPiece; false
/// when the connection broke.
bool send_raw(int fd, const char* data, std::uint64_t n) {
  for (std::uint64_t off = 0; off < n;) {
    ssize_t k = ::send(fd, data + off, std::min<std::uint64_t>(n - off, kRawPiece), MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    off += static_cast<std::uint64_t>(k);
  }
  return true;
}

/// Reads `n` bytes into `into` from blocking socket `fd`: recv(2) with MSG_WAITALL takes a
/// whole piece of kRawPiece per system call. The bytes read (fewer when the peer closed).
std::uint64_t recv_raw(int fd, char* into, std::uint64_t n) {
  std::uint64_t got = 0;
  while (got < n) {
    ssize_t k = ::recv(fd, into + got, std::min<std::uint64_t>(n - got, kRawPiece), MSG_WAITALL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += static_cast<std::uint64_t>(k);
  }
  return got;
}

/// Echoes 64-byte pings on `s` until EOF through an Asio reactor of its own: each ping waits
/// in epoll_wait(2) and is read then, as the step port's requests are.
void echo_through_reactor(tcp::socket blocking) {
  asio::io_context io;
  asio::error_code ec;
  tcp::socket s(io, tcp::v4(), blocking.release(ec));
  if (ec) return;
  char buf[64];
  std::function<void()> next = [&] {
    asio::async_read(s, asio::buffer(buf), [&](std::error_code e, std::size_t) {
      if (e) return;
      if (::send(s.native_handle(), buf, sizeof buf, MSG_NOSIGNAL) != sizeof buf) return;
      next();
    });
  };
  next();
  io.run();
}

/// Raw TCP services of the child: 'p' = echo 64-byte pings until EOF with blocking reads;
/// 'r' = the same through a reactor (echo_through_reactor); 's', then any number of u64 n =
/// stream n bytes each with blocking send(2) calls of kRawPiece.
void serve_raw(tcp::acceptor& acceptor) {
  for (;;) {
    asio::error_code ec;
    tcp::socket sock(acceptor.get_executor());
    acceptor.accept(sock, ec);
    if (ec) return;
    sock.set_option(tcp::no_delay(true));
    std::thread([s = std::move(sock)]() mutable {
      asio::error_code e;
      char kind = 0;
      asio::read(s, asio::buffer(&kind, 1), e);
      if (e) return;
      if (kind == 'r') return echo_through_reactor(std::move(s));
      if (kind == 'p') {
        char buf[64];
        while (asio::read(s, asio::buffer(buf), e) == sizeof buf && !e)
          asio::write(s, asio::buffer(buf), e);
      } else {
        // One connection for every run, as the bulk port keeps its client's: each u64 n
        // asks for n bytes, which come from a buffer as large as the tensor (kept for the
        // next run of that size, as the tensor is), not from one cache-hot chunk, with
        // blocking send(2) calls of kRawPiece.
        s.native_non_blocking(false, e);
        std::uint64_t n = 0;
        while (asio::read(s, asio::buffer(&n, 8), e) == 8 && !e && n <= (std::uint64_t{1} << 32))
          if (!send_raw(s.native_handle(), source_bytes(n), n)) return;
      }
    }).detach();
  }
}

}  // namespace

/// The child: a one-task server plus the raw TCP services, on the last CPU (every thread
/// it starts inherits it); prints both ports, runs until stdin closes.
int remote_child() {
  static PinnedProcess pin(1, /*last=*/true);
  auto server = Server::create_local_server();
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::printf("%u %u\n", server->port(), acceptor.local_endpoint().port());
  std::fflush(stdout);
  std::thread raw([&] { serve_raw(acceptor); });
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  std::_Exit(0);
}

namespace {

struct Child {
  pid_t pid = -1;
  int to_child = -1;
  std::uint16_t server_port = 0, raw_port = 0;
  ~Child() {
    if (pid > 0) {
      ::close(to_child);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

bool start_child(Child& child, const char* self_exe) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  char arg0[] = "actorflow-bench", arg1[] = "remote-child";
  char* argv[] = {arg0, arg1, nullptr};
  int rc = posix_spawn(&child.pid, self_exe, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  child.to_child = in[1];
  if (rc != 0) return false;
  char line[64] = {0};
  std::size_t used = 0;
  while (used + 1 < sizeof line) {
    auto n = ::read(out[0], line + used, 1);
    if (n <= 0 || line[used] == '\n') break;
    ++used;
  }
  ::close(out[0]);
  unsigned a = 0, b = 0;
  if (std::sscanf(line, "%u %u", &a, &b) != 2) return false;
  child.server_port = static_cast<std::uint16_t>(a);
  child.raw_port = static_cast<std::uint16_t>(b);
  return true;
}

}  // namespace

/// P5 when `p5`, P4 when `p4`, against one server process.
void bench_remote(bool quick, const char* self_exe, bool p4, bool p5) {
  Child child;
  if (!start_child(child, self_exe)) {
    std::printf("P4/P5: cannot start the server process\n");
    return;
  }
  // Client and server on CPUs of their own, as on two machines: on loopback, a ping-pong
  // whose two threads the scheduler happens to put on one CPU skips the cross-CPU wake-up
  // (18 us against 26-28 us here), and which way each run went decided its ratio.
  PinnedProcess pin(1);
  const std::string target = "caf://127.0.0.1:" + std::to_string(child.server_port);
  asio::io_context io;
  auto raw_connect = [&](char kind) {
    tcp::socket s(io);
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), child.raw_port));
    s.set_option(tcp::no_delay(true));
    asio::write(s, asio::buffer(&kind, 1));
    return s;
  };

  // -- P5: scalar round trip ---------------------------------------------------------------
  if (p5) {
    Graph g;
    auto v = g.variable(1.0f, {.name = "p5_scalar"});
    Session sess(g, target);
    sess.run(v.initializer());
    // Many short pairs rather than a few long ones: on a VM a round trip drifts by a third
    // over seconds, and a pair whose halves straddle a drift skews the ratio. 15 pairs of
    // 700 round trips each (5 of 300 with --quick).
    const int iters = quick ? 300 : 700, runs = quick ? 5 : 15;
    std::vector<double> ours, raw, reactor;
    auto ping = raw_connect('p');
    auto reactor_ping = raw_connect('r');
    char buf[64] = {0};
    const auto ping_pong = [&](tcp::socket& s) {
      std::vector<double> t;
      for (int i = 0; i < iters; ++i) {
        auto t0 = Clock::now();
        asio::write(s, asio::buffer(buf));
        asio::read(s, asio::buffer(buf));
        t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      return median_of(t);
    };
    for (int r = 0; r < runs; ++r) {
      std::vector<double> a;
      for (int i = 0; i < iters; ++i) {
        auto t0 = Clock::now();
        sess.run(v.value());
        a.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      ours.push_back(median_of(a));
      raw.push_back(ping_pong(ping));
      reactor.push_back(ping_pong(reactor_ping));
    }
    const auto ratio = record({"P5", "remote scalar fetch (another process, loopback)", "us", ours,
                               raw, "raw TCP 64-byte ping-pong", "<= 1.5x"});
    std::printf(
        "P5 remote scalar fetch (another process, loopback; client on CPU %s): median %.1f us; "
        "raw TCP 64-byte ping-pong %.1f us (%s); ratio %s (target <= 1.5x)\n",
        pin.cpus().c_str(), median_of(ours), median_of(raw), spread(raw).c_str(),
        ratio_text(ratio).c_str());
    std::vector<double> floor_ratios;
    for (int r = 0; r < runs; ++r) floor_ratios.push_back(reactor[r] / raw[r]);
    std::printf(
        "  floor: the ping-pong echoed through an Asio reactor (epoll) %.1f us, %.2fx the "
        "blocking one (pairs %.2f-%.2f)\n",
        median_of(reactor), median_of(floor_ratios),
        *std::min_element(floor_ratios.begin(), floor_ratios.end()),
        *std::max_element(floor_ratios.begin(), floor_ratios.end()));
  }

  // -- P4: tensor fetch ----------------------------------------------------------------------
  for (std::int64_t mib : {4, 64, 256}) {
    if (!p4 || (quick && mib > 64)) break;
    const std::int64_t n = mib * (1 << 20) / 4;
    Graph g;
    auto v = g.variable(fill(g.constant(Tensor::from_vector<std::int64_t>({n})), g.constant(1.5f)),
                        {.name = "p4_" + std::to_string(mib)});
    Session sess(g, target);
    sess.run(v.initializer());
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * 4;
    std::vector<double> ours, raw;
    // The raw stream lands in one buffer reused by every run (its pages mapped after the
    // first), over one connection (its buffers grown after the first): the best a plain TCP
    // read can do. Fetched tensors land in the session's landing pool (bulk_channel.hpp),
    // reused once the previous value is dropped.
    // Run -1 warms both up and is not counted. A 4 MiB transfer takes about 1.5 ms, and
    // one wake-up late by 0.5 ms moved a pair of single transfers by a third: each half of
    // a pair at that size is the median of a block of 8 transfers (41 pairs), at 64 MiB
    // one transfer (15 pairs), at 256 MiB one (9 pairs).
    AlignedBytes landing(bytes, 0);
    auto stream = raw_connect('s');
    stream.native_non_blocking(false);
    const int pairs = quick ? 5 : mib == 4 ? 41 : mib == 64 ? 15 : 9;
    const int block = mib == 4 ? (quick ? 3 : 8) : 1;
    const auto timed = [&](const auto& transfer) {
      std::vector<double> rates;
      for (int i = 0; i < block; ++i) {
        const auto t0 = Clock::now();
        transfer();
        rates.push_back(bytes / std::chrono::duration<double>(Clock::now() - t0).count() / 1e9);
      }
      return median_of(rates);
    };
    for (int r = -1; r < pairs; ++r) {
      const double fetched = timed([&] {
        auto value = sess.run(v.value());
        if (value.num_elements() != n) std::printf("P4: wrong size\n");
      });
      const double streamed = timed([&] {
        asio::write(stream, asio::buffer(&bytes, 8));
        recv_raw(stream.native_handle(), landing.data(), bytes);
      });
      if (r >= 0) {
        ours.push_back(fetched);
        raw.push_back(streamed);
      }
    }
    const auto ratio =
        record({"P4-" + std::to_string(mib) + "MiB",
                "remote fetch of a " + std::to_string(mib) + " MiB float tensor", "GB/s", ours, raw,
                "raw TCP stream into a warm aligned buffer", ">= 0.9x"});
    std::printf(
        "P4 remote fetch of a %lld MiB float tensor (client on CPU %s): median %.2f GB/s (%s); "
        "raw TCP stream (blocking 16 MiB send/recv into a warm aligned buffer) %.2f GB/s (%s); "
        "ratio %s (target >= 0.9x)\n",
        static_cast<long long>(mib), pin.cpus().c_str(), median_of(ours), spread(ours).c_str(),
        median_of(raw), spread(raw).c_str(), ratio_text(ratio).c_str());
  }
}

}  // namespace af::bench

// -- null distributed step: 1 ps + N workers, each a process ---------------------------------

namespace af::bench {

/// A cluster task for the null-step benchmark: `cluster-child JSON JOB TASK`; prints "ready"
/// once serving, runs until stdin closes.
int cluster_child(int argc, char** argv) {
  if (argc < 5) return 2;
  Server server(ClusterSpec::from_json(argv[2]), argv[3], std::atoi(argv[4]));
  std::printf("ready\n");
  std::fflush(stdout);
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  std::_Exit(0);
}

namespace {

struct TaskProcess {
  pid_t pid = -1;
  int to_child = -1;
  ~TaskProcess() {
    if (pid > 0) {
      ::close(to_child);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

bool start_task(TaskProcess& child, const char* self_exe, const std::string& json,
                const std::string& job, int task) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string task_text = std::to_string(task);
  std::vector<std::string> args{"actorflow-bench", "cluster-child", json, job, task_text};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = posix_spawn(&child.pid, self_exe, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  child.to_child = in[1];
  if (rc != 0) return false;
  char line[16] = {0};
  auto n = ::read(out[0], line, 6);
  ::close(out[0]);
  return n == 6 && std::strncmp(line, "ready\n", 6) == 0;
}

std::string free_address() { return "127.0.0.1:" + std::to_string(pick_unused_port()); }

/// CPU seconds (user + system) that process `pid` (0: this one) has used so far.
double cpu_seconds_of(pid_t pid) {
  std::ifstream in(pid == 0 ? std::string("/proc/self/stat")
                            : "/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces), from field 3 on.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string f;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i)
    if (i == 14 || i == 15) ticks += std::stod(f);  // utime, stime
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

/// What the null step's pairs measured, beside the latencies: CPU time per step (all the
/// cluster's processes and the client's together), alone and 4 at once.
struct NullStepCpu {
  std::vector<double> alone_us, together_us;
};

/// The null step's latencies (us), from one cluster of 1 ps and `workers` workers, client i
/// on worker i, each step reading and assign_adding a scalar variable on the ps task. In
/// interleaved pairs: the median of `iters` steps of client 0 alone (`one`), then the median
/// of `iters` steps of every client at once (`all`), `runs` times. False when the cluster
/// cannot start.
bool null_step_pairs(const char* self_exe, int workers, int iters, int runs,
                     std::vector<double>* one, std::vector<double>* all, NullStepCpu* cpu) {
  std::vector<std::string> worker_addresses;
  for (int i = 0; i < workers; ++i) worker_addresses.push_back(free_address());
  ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"ps", {free_address()}}, {"worker", worker_addresses}});
  const std::string json = cluster.to_json();
  std::vector<TaskProcess> tasks(static_cast<std::size_t>(workers) + 1);
  if (!start_task(tasks[0], self_exe, json, "ps", 0)) return false;
  for (int i = 0; i < workers; ++i)
    if (!start_task(tasks[static_cast<std::size_t>(i) + 1], self_exe, json, "worker", i))
      return false;
  Graph g;
  Variable x;
  {
    auto pin = g.device("/job:ps/task:0");
    x = g.variable(0.0f, {.name = "null_step_x"});
  }
  auto step = x.assign_add(g.constant(1.0f));
  std::vector<std::unique_ptr<Session>> sessions;
  for (int w = 0; w < workers; ++w)
    sessions.push_back(std::make_unique<Session>(g, "caf://" + cluster.task_address("worker", w)));
  sessions[0]->run(x.initializer());
  for (auto& sess : sessions)
    for (int i = 0; i < 50; ++i) sess->run(step);  // warm: plans, connections
  auto block = [&](Session& sess) {
    std::vector<double> lat;
    for (int i = 0; i < iters; ++i) {
      auto t0 = Clock::now();
      sess.run(step);
      lat.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    return lat;
  };
  auto cluster_cpu = [&] {
    double total = cpu_seconds_of(0);
    for (auto& t : tasks) total += cpu_seconds_of(t.pid);
    return total;
  };
  for (int r = 0; r < runs; ++r) {
    double before = cluster_cpu();
    one->push_back(median_of(block(*sessions[0])));
    cpu->alone_us.push_back((cluster_cpu() - before) * 1e6 / iters);
    before = cluster_cpu();
    std::vector<std::vector<double>> lat(sessions.size());
    std::vector<std::thread> clients;
    for (std::size_t w = 0; w < sessions.size(); ++w)
      clients.emplace_back([&, w] { lat[w] = block(*sessions[w]); });
    for (auto& t : clients) t.join();
    std::vector<double> together;
    for (auto& l : lat) together.insert(together.end(), l.begin(), l.end());
    all->push_back(median_of(together));
    cpu->together_us.push_back((cluster_cpu() - before) * 1e6 /
                               (iters * static_cast<double>(sessions.size())));
  }
  return true;
}

}  // namespace

void bench_null_step(bool quick, const char* self_exe) {
  const int iters = quick ? 200 : 1000, runs = quick ? 3 : 7;
  std::vector<double> one, four;
  NullStepCpu cpu;
  if (!null_step_pairs(self_exe, 4, iters, runs, &one, &four, &cpu)) {
    std::printf("null distributed step: cannot start the cluster processes\n");
    return;
  }
  const auto growth =
      record({"null-step-4", "null distributed step, 4 clients at once on 1 ps + 4 workers", "us",
              four, one, "the same step, 1 client alone", "<= 1.2x"});
  std::printf(
      "null distributed step (read + assign_add of a scalar on ps, client on a worker; processes; "
      "1 ps + 4 workers): 1 client alone median %.1f us; 4 clients at once median %.1f us; "
      "growth %s (target <= 1.2x)\n",
      median_of(one), median_of(four), ratio_text(growth).c_str());
  // The floor: 4 steps at once need 4x the CPU time of one step, spread over the cores; a
  // step alone cannot be faster than it is. Growth near floor / alone is the machine's.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double floor_us = std::max(median_of(one), 4 * median_of(cpu.together_us) / cores);
  record({"null-step-cpu", "CPU time per null step (every process of the cluster), 4 at once", "us",
          cpu.together_us, cpu.alone_us, "the same, 1 client alone", ""});
  std::printf(
      "null distributed step, CPU time per step (all processes): alone %.1f us, 4 at once %.1f "
      "us; so 4 at once on %u cores cannot take less than %.1f us, %.2fx of the step alone\n",
      median_of(cpu.alone_us), median_of(cpu.together_us), cores, floor_us,
      floor_us / median_of(one));
}

namespace {

/// Seconds to move `bytes` over a fresh loopback TCP connection from a thread of this
/// process into `landing` (warm): blocking send(2) of kRawPiece pieces, recv(2) with
/// MSG_WAITALL. What a feed of that size must cost at least between two processes.
double loopback_stream_seconds(const AlignedBytes& source, AlignedBytes& landing) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto port = acceptor.local_endpoint().port();
  std::thread writer([&] {
    tcp::socket s(io);
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    s.set_option(tcp::no_delay(true));
    send_raw(s.native_handle(), source.data(), source.size());
  });
  tcp::socket in = acceptor.accept();
  const auto t0 = Clock::now();
  recv_raw(in.native_handle(), landing.data(), landing.size());
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  writer.join();
  return s;
}

}  // namespace

void bench_remote_feed(bool quick, const char* self_exe) {
  ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"ps", {free_address()}}, {"worker", {free_address()}}});
  const std::string json = cluster.to_json();
  TaskProcess ps, worker;
  if (!start_task(ps, self_exe, json, "ps", 0) ||
      !start_task(worker, self_exe, json, "worker", 0)) {
    std::printf("P12 remote feed: cannot start the cluster processes\n");
    return;
  }
  for (std::int64_t mib : {4, 64}) {
    if (quick && mib > 4) break;
    const std::int64_t n = mib * (1 << 20) / 4;
    // The feed's consumer is on the ps task: the client's master (on the worker) ships the
    // fed tensor with the partition's run.
    Graph g;
    Output x, sum;
    {
      auto pin = g.device("/job:ps/task:0");
      x = g.placeholder(float32, PartialShape{n}, "p12_x");
      sum = reduce_sum(x);
    }
    Session sess(g, "caf://" + cluster.task_address("worker", 0));
    std::vector<float> values(static_cast<std::size_t>(n), 0.5f);
    const Tensor feed = Tensor::from_vector<float>(values);
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * 4;
    AlignedBytes source(bytes, 1), landing(bytes, 0);
    std::vector<double> ours, raw;
    for (int r = -1; r < (quick ? 3 : 9); ++r) {  // run -1 warms both up
      auto t0 = Clock::now();
      const float total = sess.run(sum, {{x, feed}}).scalar<float>();
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (total != 0.5f * static_cast<float>(n)) std::printf("P12: wrong sum %f\n", total);
      if (r >= 0) ours.push_back(bytes / s / 1e9);
      const double raw_s = loopback_stream_seconds(source, landing);
      if (r >= 0) raw.push_back(bytes / raw_s / 1e9);
    }
    const auto ratio =
        record({"P12-" + std::to_string(mib) + "MiB",
                "remote feed of a " + std::to_string(mib) +
                    " MiB float tensor into a partition on another task",
                "GB/s", ours, raw, "loopback TCP stream into a warm aligned buffer", ""});
    std::printf(
        "P12 remote feed of a %lld MiB float tensor into a partition on the ps task (client on "
        "the worker; processes): median %.2f GB/s (%s); loopback TCP stream (blocking 16 MiB "
        "send/recv into a warm aligned buffer) %.2f GB/s (%s); ratio %s\n",
        static_cast<long long>(mib), median_of(ours), spread(ours).c_str(), median_of(raw),
        spread(raw).c_str(), ratio_text(ratio).c_str());
  }
}

}  // namespace af::bench

// -- soak: steady load on a server process, its memory sampled ---------------------------------

namespace af::bench {

namespace {

long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

}  // namespace

/// `actorflow-bench soak [MINUTES]`: 50 clients, each with its own session, run steps
/// (feed, fetch, assign_add on a shared variable) against a one-task server process for
/// MINUTES (default 10); prints the server's RSS every minute and the totals.
void bench_soak(double minutes, const char* self_exe) {
  ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{{"local", {free_address()}}});
  TaskProcess server;
  if (!start_task(server, self_exe, cluster.to_json(), "local", 0)) {
    std::printf("soak: cannot start the server process\n");
    return;
  }
  const std::string target = "caf://" + cluster.task_address("local", 0);
  auto build = [](Graph& g, Variable* counter, Output* x, Output* y, Output* bump) {
    *counter = g.variable(0.0f, {.name = "soak_counter"});
    *x = g.placeholder(float32, PartialShape(Shape{}), "x");
    *y = *x * 2.0f;
    *bump = counter->assign_add(g.constant(1.0f));
  };
  {
    Graph g;
    Variable counter;
    Output x, y, bump;
    build(g, &counter, &x, &y, &bump);
    Session(g, target).run(counter.initializer());
  }
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> steps{0}, errors{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 50; ++c) {
    clients.emplace_back([&, c] {
      Graph g;
      Variable counter;
      Output x, y, bump;
      build(g, &counter, &x, &y, &bump);
      Session sess(g, target);
      for (std::int64_t i = 0; !stop; ++i) {
        float value = static_cast<float>((c * 7919 + i) % 100000);
        try {
          auto out = sess.run({y, bump}, {{x, Tensor(value)}});
          if (out[0].scalar<float>() != 2.0f * value) ++errors;
        } catch (const Error&) {
          ++errors;
        }
        ++steps;
      }
    });
  }
  const long start_rss = rss_kib(server.pid);
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double, std::ratio<60>>(minutes));
  std::vector<long> samples{start_rss};
  std::printf("soak: 50 clients on one server process for %.1f min; server RSS at start %ld KiB\n",
              minutes, start_rss);
  std::fflush(stdout);
  auto next = t0 + std::chrono::minutes(1);
  while (Clock::now() < end) {
    std::this_thread::sleep_until(std::min(next, end));
    if (Clock::now() >= next) {
      samples.push_back(rss_kib(server.pid));
      std::printf("soak: %.0f min: %lld steps, %lld errors, server RSS %ld KiB\n",
                  std::chrono::duration<double, std::ratio<60>>(Clock::now() - t0).count(),
                  static_cast<long long>(steps.load()), static_cast<long long>(errors.load()),
                  samples.back());
      std::fflush(stdout);
      next += std::chrono::minutes(1);
    }
  }
  stop = true;
  for (auto& t : clients) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  long end_rss = rss_kib(server.pid);
  long after_warmup = samples.size() > 1 ? samples[1] : start_rss;
  std::printf(
      "soak: %lld steps in %.0f s (%.0f steps/s), %lld errors; server RSS start %ld KiB, after 1 "
      "min %ld KiB, "
      "end %ld KiB (end / 1 min = %.3f)\n",
      static_cast<long long>(steps.load()), secs, steps.load() / secs,
      static_cast<long long>(errors.load()), start_rss, after_warmup, end_rss,
      after_warmup > 0 ? static_cast<double>(end_rss) / after_warmup : 0.0);
}

}  // namespace af::bench
