#pragma once

// Server's private state, shared by its lifecycle (server.cpp) and its status page
// (server_status.cpp).
#include <caf/all.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "actorflow/net/server.hpp"
#include "basp_front_door.hpp"
#include "bulk_channel.hpp"
#include "cluster.hpp"
#include "master_service.hpp"
#include "refusals.hpp"
#include "stall_inspector.hpp"
#include "status_http.hpp"
#include "step_channel.hpp"
#include "tensor_push.hpp"

namespace af {

struct Server::Impl {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  ServerOptions options;
  Runtime* runtime = nullptr;
  std::string host;
  std::uint16_t port = 0;  ///< the spec's port (the TLS tunnel's with TLS)
  std::shared_ptr<DeviceSet> devices;
  caf::actor master;
  net::worker_service_handle worker;
  caf::actor agent;
  std::shared_ptr<net::BulkServer> bulk;
  std::unique_ptr<net::TensorPushServer> push;  ///< null with TLS (tensors stay in the tunnel)
  std::unique_ptr<net::StepServer> step;
  std::shared_ptr<StepRegistry> steps = std::make_shared<StepRegistry>();
  std::unique_ptr<net::StatusHttpServer> status;
  std::shared_ptr<ServerMetrics> metrics = std::make_shared<ServerMetrics>();
  std::shared_ptr<net::Routes> routes = std::make_shared<net::Routes>();
  std::shared_ptr<net::Refusals> refusals;
  std::unique_ptr<net::BaspFrontDoor> door;     ///< the CAF port (plain mode)
  std::shared_ptr<net::BaspGuard> tls_guard;    ///< the guard of the TLS tunnel's connections
  std::unique_ptr<net::StallInspector> stalls;  ///< null: ServerOptions::stall_period is 0
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  bool stopped = false;

  std::string task_name() const {
    return "/job:" + job + "/replica:0/task:" + std::to_string(task);
  }
  int serve_status(const std::string& path, std::string* body, std::string* type);
};

}  // namespace af
