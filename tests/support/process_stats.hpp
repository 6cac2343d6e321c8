#pragma once

// This process's resident memory and open descriptors, for tests that bound what a server in
// the process holds.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

namespace af::test {

/// VmRSS of this process in KiB (-1 when /proc cannot tell).
inline long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 20, '\n');
  }
  return -1;
}

/// The descriptors this process has open (the directory listing's own included).
inline std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

}  // namespace af::test
