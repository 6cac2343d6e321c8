#include "actorflow/ops/logging.hpp"

#include <cstdio>
#include <mutex>
#include <utility>

namespace af {

namespace {

std::mutex& sink_mutex() {
  static std::mutex mu;
  return mu;
}

LogSink& sink() {
  static LogSink s;
  return s;
}

}  // namespace

LogSink set_log_sink(LogSink s) {
  std::lock_guard<std::mutex> guard(sink_mutex());
  return std::exchange(sink(), std::move(s));
}

void log_info(const std::string& line) {
  std::lock_guard<std::mutex> guard(sink_mutex());
  if (sink()) {
    sink()(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace af
