// P4 (remote tensor fetch, GB/s) and P5 (remote scalar round trip, us) against a server in
// another process, each beside a raw loopback TCP baseline served by the same child process:
// a 1 MiB-write stream of the same bytes (P4) and a 64-byte ping-pong (P5).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio.hpp>

#include <actorflow/actorflow.hpp>

extern char** environ;

namespace af::bench {

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Raw TCP services of the child: 'p' = echo 64-byte pings until EOF; 's' + u64 n = stream
/// n bytes in 1 MiB writes.
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
      if (kind == 'p') {
        char buf[64];
        while (asio::read(s, asio::buffer(buf), e) == sizeof buf && !e) asio::write(s, asio::buffer(buf), e);
      } else {
        std::uint64_t n = 0;
        asio::read(s, asio::buffer(&n, 8), e);
        std::vector<char> chunk(1 << 20, 'x');
        while (n > 0 && !e) {
          auto k = std::min<std::uint64_t>(n, chunk.size());
          asio::write(s, asio::buffer(chunk.data(), k), e);
          n -= k;
        }
      }
    }).detach();
  }
}

}  // namespace

/// The child: a one-task server plus the raw TCP services; prints both ports, runs until
/// stdin closes.
int remote_child() {
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

void bench_remote(bool quick, const char* self_exe) {
  Child child;
  if (!start_child(child, self_exe)) {
    std::printf("P4/P5: cannot start the server process\n");
    return;
  }
  const std::string target = "caf://127.0.0.1:" + std::to_string(child.server_port);
  asio::io_context io;
  auto raw_connect = [&](char kind) {
    tcp::socket s(io);
    s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), child.raw_port));
    s.set_option(tcp::no_delay(true));
    asio::write(s, asio::buffer(&kind, 1));
    return s;
  };
  const int runs = 5;

  // -- P5: scalar round trip ---------------------------------------------------------------
  {
    Graph g;
    auto v = g.variable(1.0f, {.name = "p5_scalar"});
    Session sess(g, target);
    sess.run(v.initializer());
    const int iters = quick ? 300 : 2000;
    std::vector<double> ours, raw;
    auto ping = raw_connect('p');
    char buf[64] = {0};
    for (int r = 0; r < runs; ++r) {
      std::vector<double> a, b;
      for (int i = 0; i < iters; ++i) {
        auto t0 = Clock::now();
        sess.run(v.value());
        a.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      for (int i = 0; i < iters; ++i) {
        auto t0 = Clock::now();
        asio::write(ping, asio::buffer(buf));
        asio::read(ping, asio::buffer(buf));
        b.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      ours.push_back(median_of(a));
      raw.push_back(median_of(b));
    }
    double o = median_of(ours), t = median_of(raw);
    std::printf("P5 remote scalar fetch (another process, loopback): median %.1f us; raw TCP 64-byte "
                "ping-pong %.1f us; ratio %.2fx (target <= 3x)\n", o, t, o / t);
  }

  // -- P4: tensor fetch ----------------------------------------------------------------------
  for (std::int64_t mib : {4, 64, 256}) {
    if (quick && mib > 64) break;
    const std::int64_t n = mib * (1 << 20) / 4;
    Graph g;
    auto v = g.variable(fill(g.constant(Tensor::from_vector<std::int64_t>({n})), g.constant(1.5f)),
                        {.name = "p4_" + std::to_string(mib)});
    Session sess(g, target);
    sess.run(v.initializer());
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * 4;
    std::vector<double> ours, raw;
    std::vector<char> sink(1 << 20);
    for (int r = 0; r < runs; ++r) {
      auto t0 = Clock::now();
      auto value = sess.run(v.value());
      double s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (value.num_elements() != n) std::printf("P4: wrong size\n");
      ours.push_back(bytes / s / 1e9);
      auto stream = raw_connect('s');
      t0 = Clock::now();
      asio::write(stream, asio::buffer(&bytes, 8));
      std::uint64_t left = bytes;
      std::vector<char> all(bytes);  // the same landing buffer a tensor needs
      while (left > 0) left -= stream.read_some(asio::buffer(all.data() + (bytes - left), std::min<std::uint64_t>(left, 1 << 20)));
      s = std::chrono::duration<double>(Clock::now() - t0).count();
      raw.push_back(bytes / s / 1e9);
    }
    double o = median_of(ours), t = median_of(raw);
    std::printf("P4 remote fetch of a %lld MiB float tensor: median %.2f GB/s; raw TCP stream (1 MiB "
                "writes) %.2f GB/s; ratio %.2fx (target >= 0.9x)\n", static_cast<long long>(mib), o, t, o / t);
  }
}

}  // namespace af::bench
