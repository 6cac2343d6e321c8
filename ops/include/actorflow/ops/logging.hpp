#pragma once

#include <functional>
#include <string>

namespace af {

/// Where informational lines (device placement, start-up) go.
using LogSink = std::function<void(const std::string& line)>;

/// Replaces the process-wide log sink (default: one line per message on stderr); returns
/// the previous one. Thread-safe.
LogSink set_log_sink(LogSink sink);

/// Emits `line` through the current sink. Thread-safe.
void log_info(const std::string& line);

}  // namespace af
