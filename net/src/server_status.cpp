// A task's status port: Prometheus metrics (/metrics) and a JSON description (/status).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "actorflow/queues/queue_stats.hpp"
#include "server_impl.hpp"

namespace af {

namespace {

/// A Prometheus label value: backslash, quote and newline escaped.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

int Server::Impl::serve_status(const std::string& path, std::string* body, std::string* type) {
  // Queues live in the devices' shared resource managers (shared by name) and, for
  // session-private queues, in each device's own manager.
  std::vector<QueueStats> queues;
  nlohmann::json containers = nlohmann::json::object();
  for (auto& d : devices->devices) {
    for (ResourceMgr* mgr : {&d->resource_mgr(), d->shared_resource_mgr()}) {
      if (!mgr) continue;
      for (auto& q : queue_stats(*mgr)) queues.push_back(std::move(q));
      for (const auto& [container, name, description] : mgr->list())
        containers[container].push_back(
            {{"name", name}, {"device", d->name()}, {"resource", description}});
    }
  }
  auto traffic = routes->traffic();
  const std::string t = label(task_name());
  const std::vector<StallWatch::Stalled> stalled =
      stalls ? stalls->stalled() : std::vector<StallWatch::Stalled>{};
  if (path == "/metrics") {
    std::ostringstream m;
    m << "# HELP actorflow_steps_total Steps run by sessions whose master is this task.\n"
      << "# TYPE actorflow_steps_total counter\n"
      << "actorflow_steps_total{task=\"" << t << "\"} " << metrics->steps.load() << "\n"
      << "# HELP actorflow_step_errors_total Steps that ended with an error.\n"
      << "# TYPE actorflow_step_errors_total counter\n"
      << "actorflow_step_errors_total{task=\"" << t << "\"} " << metrics->step_errors.load() << "\n"
      << "# HELP actorflow_open_sessions Client sessions open on this task.\n"
      << "# TYPE actorflow_open_sessions gauge\n"
      << "actorflow_open_sessions{task=\"" << t << "\"} " << metrics->open_sessions.load() << "\n";
    m << "# HELP actorflow_queue_size Elements in a queue.\n# TYPE actorflow_queue_size gauge\n";
    for (auto& q : queues)
      m << "actorflow_queue_size{task=\"" << t << "\",container=\"" << label(q.container)
        << "\",queue=\"" << label(q.name) << "\"} " << q.size << "\n";
    m << "# HELP actorflow_queue_capacity Capacity of a queue (-1: unbounded).\n# TYPE "
         "actorflow_queue_capacity gauge\n";
    for (auto& q : queues)
      m << "actorflow_queue_capacity{task=\"" << t << "\",container=\"" << label(q.container)
        << "\",queue=\"" << label(q.name) << "\"} " << q.capacity << "\n";
    m << "# HELP actorflow_queue_waiters Enqueues or dequeues waiting on a queue.\n"
      << "# TYPE actorflow_queue_waiters gauge\n";
    for (auto& q : queues) {
      for (auto [side, n] : {std::pair<const char*, std::int64_t>{"enqueue", q.pending_enqueues},
                             {"dequeue", q.pending_dequeues}})
        m << "actorflow_queue_waiters{task=\"" << t << "\",container=\"" << label(q.container)
          << "\",queue=\"" << label(q.name) << "\",side=\"" << side << "\"} " << n << "\n";
    }
    m << "# HELP actorflow_peer_bytes_sent_total Bytes of partitions, feeds and tensors sent to a "
         "peer.\n"
      << "# TYPE actorflow_peer_bytes_sent_total counter\n";
    m << "actorflow_peer_bytes_sent_total{task=\"" << t << "\",peer=\"clients\"} "
      << metrics->client_bytes_sent.load() << "\n";
    for (auto& [peer, tr] : traffic)
      m << "actorflow_peer_bytes_sent_total{task=\"" << t << "\",peer=\"" << label(peer) << "\"} "
        << tr.sent << "\n";
    m << "# HELP actorflow_peer_bytes_received_total Bytes of partitions, feeds and tensors "
         "received from a peer.\n"
      << "# TYPE actorflow_peer_bytes_received_total counter\n";
    m << "actorflow_peer_bytes_received_total{task=\"" << t << "\",peer=\"clients\"} "
      << metrics->client_bytes_received.load() << "\n";
    for (auto& [peer, tr] : traffic)
      m << "actorflow_peer_bytes_received_total{task=\"" << t << "\",peer=\"" << label(peer)
        << "\"} " << tr.received << "\n";
    // Each family's lines stay together (Prometheus' text format), so these come after the
    // per-peer byte counters, not between them.
    refusals->write_metrics(m, t);
    const auto pushed = routes->pushed();
    m << "# HELP actorflow_pushed_tensors_received_total Tensors other tasks pushed to this task's "
         "push port.\n"
      << "# TYPE actorflow_pushed_tensors_received_total counter\n"
      << "actorflow_pushed_tensors_received_total{task=\"" << t << "\"} " << pushed.tensors << "\n"
      << "# HELP actorflow_pushed_control_frames_received_total Partition runs, their replies, "
         "cancellations and step cleanups that came over the push port.\n"
      << "# TYPE actorflow_pushed_control_frames_received_total counter\n"
      << "actorflow_pushed_control_frames_received_total{task=\"" << t << "\"} " << pushed.control
      << "\n";
    m << "# HELP actorflow_stalled_waits Waits in steps on this task that have lasted the stall "
         "period, by kind.\n"
      << "# TYPE actorflow_stalled_waits gauge\n";
    for (const char* kind : {"dequeue", "take", "recv"})
      m << "actorflow_stalled_waits{task=\"" << t << "\",kind=\"" << kind << "\"} "
        << std::count_if(stalled.begin(), stalled.end(),
                         [&](const StallWatch::Stalled& s) { return s.kind == kind; })
        << "\n";
    m << "# HELP actorflow_longest_stall_seconds How long the longest stalled wait on this task "
         "has lasted.\n"
      << "# TYPE actorflow_longest_stall_seconds gauge\n"
      << "actorflow_longest_stall_seconds{task=\"" << t << "\"} "
      << (stalled.empty() ? 0.0 : static_cast<double>(stalled.front().waited.count()) / 1000.0)
      << "\n";
    *body = m.str();
    *type = "text/plain; version=0.0.4";
    return 200;
  }
  if (path == "/status") {
    nlohmann::json j;
    j["task"] = task_name();
    j["target"] = "caf://" + host + ":" + std::to_string(port);
    // Every port the task listens on (for firewalls and probes): 0 where there is none.
    j["ports"] = {{"caf", port},
                  {"step", steps->port.load()},
                  {"bulk", bulk ? bulk->port() : 0},
                  {"push", push ? push->endpoint().port : 0},
                  {"status", status ? status->port() : 0}};
    j["cluster"] = nlohmann::json::parse(cluster.to_json());
    j["devices"] = nlohmann::json::array();
    for (auto& a : devices->attributes)
      j["devices"].push_back(
          {{"name", a.name}, {"type", a.device_type}, {"memory_limit", a.memory_limit}});
    j["open_sessions"] = metrics->open_sessions.load();
    j["steps"] = metrics->steps.load();
    j["step_errors"] = metrics->step_errors.load();
    j["containers"] = containers;
    j["queues"] = nlohmann::json::array();
    for (auto& q : queues)
      j["queues"].push_back({{"container", q.container},
                             {"name", q.name},
                             {"kind", q.kind},
                             {"size", q.size},
                             {"capacity", q.capacity},
                             {"pending_enqueues", q.pending_enqueues},
                             {"pending_dequeues", q.pending_dequeues},
                             {"closed", q.closed}});
    j["peers"] = nlohmann::json::object();
    for (auto& [peer, tr] : traffic)
      j["peers"][peer] = {{"bytes_sent", tr.sent}, {"bytes_received", tr.received}};
    // The stall inspector's list: what each long wait waits for, and since which step.
    j["stall_period_ms"] = options.stall_period.count();
    j["stalls"] = nlohmann::json::array();
    for (const auto& w : stalled)
      j["stalls"].push_back({{"kind", w.kind},
                             {"what", w.what},
                             {"device", w.device},
                             {"step_id", w.step_id},
                             {"global_step", w.global_step},
                             {"waiting_for", w.waiting_for},
                             {"waited_ms", w.waited.count()},
                             {"summary", net::StallInspector::describe(w)}});
    *body = j.dump(2) + "\n";
    *type = "application/json";
    return 200;
  }
  *body = "not found: try /metrics or /status\n";
  return 404;
}

}  // namespace af
