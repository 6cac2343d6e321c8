// Between-graph replication of an ensemble (the chapter's Figure 12-13): each predictor
// client reads its own input queue and writes its own prediction queue; a feeder copies every
// input to all input queues; an aggregator dequeues one prediction per predictor with a
// timeout and answers with the mean of those that arrived. Midway one predictor is killed;
// the aggregator keeps answering without it.
//
// The queues live on the aggregator's task (/job:ensemble/task:0); predictor i runs its model
// on its own task (/job:predictor/task:i). By default every task is a Server in this process
// (a predictor is "killed" by stopping its server); with --processes each predictor is a
// child process of this binary, killed with SIGKILL.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"

namespace {

constexpr int kFeatures = 4;

struct Options {
  int predictors = 3;
  int queries = 12;
  int kill_after = 4;  ///< kill a predictor after this many answered queries (-1: never)
  int kill_index = 1;  ///< which predictor
  std::int64_t timeout_ms = 300;
  int drop_after = 3;  ///< consecutive timeouts before a predictor is dropped
  bool processes = false;
  // Child mode.
  std::string role;
  std::string cluster_json;
  int task = 0;
};

std::string address() { return "127.0.0.1:" + std::to_string(af::pick_unused_port()); }

std::string predictor_task(int i) { return "/job:predictor/task:" + std::to_string(i); }

struct Queues {
  af::FIFOQueue input;
  af::FIFOQueue prediction;
};

/// Predictor i's two queues, on the aggregator's task, shared by name across clients.
Queues queues_of(af::Graph& g, int i) {
  auto pin = g.device("/job:ensemble/task:0");
  af::QueueOptions in{.capacity = 1000,
                      .dtypes = {af::int64, af::float32},
                      .shapes = {{}, {kFeatures}},
                      .name = "input_" + std::to_string(i),
                      .shared_name = "input_" + std::to_string(i)};
  af::QueueOptions out{.capacity = 1000,
                       .dtypes = {af::int64, af::float32},
                       .shapes = {{}, {}},
                       .name = "prediction_" + std::to_string(i),
                       .shared_name = "prediction_" + std::to_string(i)};
  return {af::FIFOQueue(g, in), af::FIFOQueue(g, out)};
}

/// A predictor client: a tiny logistic model of its own, dequeue -> predict -> enqueue, until
/// its input queue closes or its task goes away.
void run_predictor(const std::string& target, int i) {
  af::Graph g;
  auto q = queues_of(g, i);
  auto element = q.input.dequeue();
  af::Output prediction;
  {
    auto pin = g.device(predictor_task(i));
    std::vector<float> w(kFeatures);
    for (int k = 0; k < kFeatures; ++k)
      w[static_cast<std::size_t>(k)] = 0.1f * static_cast<float>((i + 1) * (k + 1));
    auto logit = af::reduce_sum(element[1] * g.constant(af::Tensor::from_vector<float>(w))) +
                 g.constant(-0.5f * static_cast<float>(i));
    prediction = af::sigmoid(logit);
  }
  auto enqueue = q.prediction.enqueue({element[0], prediction});
  af::SessionConfig config;
  config.device_filters = {"/job:ensemble", predictor_task(i)};
  try {
    af::Session sess(g, target, config);
    for (;;) sess.run(enqueue);
  } catch (const af::OutOfRangeError&) {
    // The input queue was closed: the ensemble is done.
  } catch (const af::Error& e) {
    std::fprintf(stderr, "predictor %d stops: %s\n", i, e.what());
  }
}

int child_main(const Options& o) {
  auto cluster = af::ClusterSpec::from_json(o.cluster_json);
  af::Server server(cluster, "predictor", o.task);
  run_predictor(server.target(), o.task);
  std::fflush(nullptr);
  std::_Exit(0);  // nothing left to clean up that the OS does not (see apps/server on CAF's exit)
}

void add_flags(CLI::App& cli, Options& o) {
  using af::apps::integer_in;
  cli.add_option("--predictors", o.predictors, "predictor clients")->check(integer_in(1, 64));
  cli.add_option("--queries", o.queries, "queries answered by the aggregator")
      ->check(integer_in(1));
  cli.add_option("--kill-after", o.kill_after, "kill a predictor after N queries (-1: never)")
      ->check(integer_in(-1));
  cli.add_option("--kill-index", o.kill_index, "the predictor to kill")->check(integer_in(0));
  cli.add_option("--timeout-ms", o.timeout_ms, "the aggregator's dequeue timeout per prediction")
      ->check(integer_in(1));
  cli.add_option("--drop-after", o.drop_after, "drop a predictor after N consecutive timeouts")
      ->check(integer_in(1));
  cli.add_flag("--processes", o.processes,
               "run every predictor as a process of its own (default: one process)");
  // A predictor process is this binary again, started by the ensemble itself.
  cli.add_option("--role", o.role, "internal: 'predictor' in a predictor process")
      ->check(CLI::IsMember({"", "predictor"}))
      ->group("");
  cli.add_option("--cluster", o.cluster_json, "internal: the cluster, inline JSON")->group("");
  cli.add_option("--task", o.task, "internal: the predictor's task")
      ->check(integer_in(0))
      ->group("");
}

/// The input of query `q`: deterministic, so runs can be compared.
std::vector<float> input_of(int q) {
  std::vector<float> x(kFeatures);
  for (int k = 0; k < kFeatures; ++k)
    x[static_cast<std::size_t>(k)] = std::sin(static_cast<float>(q * kFeatures + k));
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  af::apps::App app("actorflow-ensemble",
                    "Runs an ensemble by between-graph replication (Figure 12-13) and kills one "
                    "predictor midway.");
  add_flags(app.cli, o);
  if (auto code = app.parse(argc, argv)) return *code;
  if (o.kill_index >= o.predictors) {
    std::fprintf(stderr,
                 "actorflow-ensemble: --kill-index must name a predictor (0..%d) (see --help)\n",
                 o.predictors - 1);
    return 2;
  }
  if (o.role == "predictor") return child_main(o);

  std::vector<std::string> predictor_addresses;
  for (int i = 0; i < o.predictors; ++i) predictor_addresses.push_back(address());
  af::ClusterSpec cluster(std::map<std::string, std::vector<std::string>>{
      {"ensemble", {address()}}, {"predictor", predictor_addresses}});
  af::Server aggregator_server(cluster, "ensemble", 0);

  // Predictors: servers and client threads here, or child processes.
  std::vector<std::unique_ptr<af::Server>> servers;
  std::vector<std::thread> clients;
  std::vector<pid_t> children;
  for (int i = 0; i < o.predictors; ++i) {
    if (o.processes) {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the aggregator
        std::string json = cluster.to_json(), task = std::to_string(i);
        ::execl("/proc/self/exe", argv[0], "--role", "predictor", "--cluster", json.c_str(),
                "--task", task.c_str(), static_cast<char*>(nullptr));
        std::_Exit(127);
      }
      children.push_back(pid);
    } else {
      servers.push_back(std::make_unique<af::Server>(cluster, "predictor", i));
      clients.emplace_back(run_predictor, servers.back()->target(), i);
    }
  }
  std::printf(
      "ensemble: %d predictors (%s), queues on /job:ensemble/task:0, dequeue timeout %lld ms\n",
      o.predictors, o.processes ? "one process each" : "in this process",
      static_cast<long long>(o.timeout_ms));

  // Feeder and aggregator: one client on the aggregator's task.
  af::Graph g;
  std::vector<Queues> queues;
  for (int i = 0; i < o.predictors; ++i) queues.push_back(queues_of(g, i));
  auto id = g.placeholder(af::int64, af::PartialShape(af::Shape{}), "query_id");
  auto x = g.placeholder(af::float32, af::PartialShape{kFeatures}, "x");
  std::vector<af::Operation> enqueues, closes;
  std::vector<std::vector<af::Output>> dequeues;
  for (auto& q : queues) {
    enqueues.push_back(q.input.enqueue({id, x}));
    closes.push_back(q.input.close(true));
    dequeues.push_back(q.prediction.dequeue());
  }
  auto feed_all = g.group(enqueues, "feed_all");
  auto close_all = g.group(closes, "close_inputs");
  af::SessionConfig config;
  config.device_filters = {"/job:ensemble"};  // the aggregator needs only its own task
  af::Session sess(g, aggregator_server.target(), config);

  std::vector<int> misses(static_cast<std::size_t>(o.predictors), 0);
  std::vector<bool> dropped(static_cast<std::size_t>(o.predictors), false);
  int answered_with_all = 0, answered_without_some = 0;
  for (int q = 0; q < o.queries; ++q) {
    if (q == o.kill_after) {
      std::printf("-- killing predictor %d (%s)\n", o.kill_index,
                  o.processes ? "SIGKILL" : "its server stops");
      std::fflush(stdout);
      if (o.processes) {
        ::kill(children[static_cast<std::size_t>(o.kill_index)], SIGKILL);
      } else {
        servers[static_cast<std::size_t>(o.kill_index)]->stop();
      }
    }
    sess.run(feed_all, {{id, af::Tensor(static_cast<std::int64_t>(q))},
                        {x, af::Tensor::from_vector<float>(input_of(q))}});
    double sum = 0;
    int got = 0;
    std::string missing;
    for (int i = 0; i < o.predictors; ++i) {
      if (dropped[static_cast<std::size_t>(i)]) continue;
      af::RunOptions options;
      options.timeout_in_ms = o.timeout_ms;
      for (;;) {
        try {
          auto out = sess.run(dequeues[static_cast<std::size_t>(i)], {}, {}, options);
          if (out[0].scalar<std::int64_t>() < q) continue;  // a late answer to an earlier query
          sum += out[1].scalar<float>();
          ++got;
          misses[static_cast<std::size_t>(i)] = 0;
        } catch (const af::DeadlineExceededError&) {
          missing += " " + std::to_string(i);
          if (++misses[static_cast<std::size_t>(i)] >= o.drop_after) {
            dropped[static_cast<std::size_t>(i)] = true;
            std::printf("-- predictor %d dropped after %d timeouts in a row\n", i, o.drop_after);
          }
        }
        break;
      }
    }
    if (got == 0) {
      std::printf("query %d: no predictor answered within %lld ms\n", q,
                  static_cast<long long>(o.timeout_ms));
      continue;
    }
    (got == o.predictors ? answered_with_all : answered_without_some)++;
    std::printf("query %d: ensemble prediction %.4f from %d of %d predictors%s%s\n", q, sum / got,
                got, o.predictors,
                missing.empty() ? "" : "; timed out (DeadlineExceededError):", missing.c_str());
    std::fflush(stdout);
  }
  std::printf("ensemble: %d queries answered by all predictors, %d without the missing ones\n",
              answered_with_all, answered_without_some);

  // Closing the input queues ends the predictor clients (OutOfRange).
  sess.run(close_all);
  for (auto& t : clients) t.join();
  int status = 0;
  for (std::size_t i = 0; i < children.size(); ++i) {
    int ws = 0;
    for (int tries = 0; tries < 100 && ::waitpid(children[i], &ws, WNOHANG) == 0; ++tries)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (::waitpid(children[i], &ws, WNOHANG) == 0) {  // still running: do not leave it behind
      ::kill(children[i], SIGKILL);
      ::waitpid(children[i], &ws, 0);
      status = 1;
      std::fprintf(stderr, "predictor %zu did not exit after its queue closed\n", i);
    }
  }
  std::fflush(nullptr);
  std::_Exit(answered_with_all + answered_without_some == o.queries ? status : 1);
}
