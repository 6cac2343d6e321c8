#pragma once

// Concurrent steps against one server: `clients` sessions, each with `steps_each` steps in
// flight at once, every step feeding its own value (doubled back) and bumping the shared
// variable "load_counter". Used by the in-process and the multi-process load tests.
#include <actorflow/actorflow.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace af::test {

struct StepLoadResult {
  int finished_clients = 0;
  int failed = 0;
  int wrong = 0;
  std::string first_error;
  float counter = -1;
};

inline StepLoadResult run_step_load(const std::string& target, int clients, int steps_each,
                                    std::chrono::seconds limit) {
  auto build = [](Graph& g, Variable* counter, Output* x, Output* y, Output* bump) {
    *counter = g.variable(0.0f, {.name = "load_counter"});
    *x = g.placeholder(float32, PartialShape(Shape{}), "x");
    *y = *x * 2.0f;
    *bump = counter->assign_add(g.constant(1.0f));
  };
  {
    Graph g;
    Variable counter;
    Output x, y, bump;
    build(g, &counter, &x, &y, &bump);
    Session setup(g, target);
    setup.run(counter.initializer());
  }
  StepLoadResult result;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      Graph g;
      Variable counter;
      Output x, y, bump;
      build(g, &counter, &x, &y, &bump);
      Session sess(g, target);
      int done_here = 0;
      std::mutex local_mu;
      std::condition_variable local_cv;
      for (int s = 0; s < steps_each; ++s) {
        float value = static_cast<float>(c * 1000 + s);
        sess.start_step({y, bump}, {{x, Tensor(value)}}, {}, {}, nullptr,
                        [&, value](Status status, std::vector<Tensor> out) {
                          if (!status.ok()) {
                            ++failed;
                            std::lock_guard<std::mutex> lock(mu);
                            if (result.first_error.empty()) result.first_error = status.message();
                          } else if (out.size() != 2 || out[0].scalar<float>() != 2.0f * value) {
                            ++wrong;
                          }
                          std::lock_guard<std::mutex> lock(local_mu);
                          ++done_here;
                          local_cv.notify_all();
                        });
      }
      std::unique_lock<std::mutex> lock(local_mu);
      local_cv.wait(lock, [&] { return done_here == steps_each; });
      lock.unlock();
      std::lock_guard<std::mutex> global(mu);
      ++result.finished_clients;
      cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, limit, [&] { return result.finished_clients == clients; });
  }
  if (result.finished_clients != clients) {
    // A deadlock: report it; the threads are left to the test's watchdog.
    for (auto& t : threads) t.detach();
    return result;
  }
  for (auto& t : threads) t.join();
  result.failed = failed.load();
  result.wrong = wrong.load();
  Graph g;
  Variable counter;
  Output x, y, bump;
  build(g, &counter, &x, &y, &bump);
  Session check(g, target);
  result.counter = check.run(counter.value()).scalar<float>();
  return result;
}

}  // namespace af::test
