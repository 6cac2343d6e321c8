#pragma once

// A fresh directory under the system's temp directory, removed with everything in it when
// the object goes.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace af::test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "actorflow_test") {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);  // left by a run that had this pid and died
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// `name` inside the directory.
  std::filesystem::path file(const std::string& name) const { return path / name; }
  /// Writes `contents` (bytes as they are) to `name`; returns its path.
  std::string write(const std::string& name, const std::string& contents) const {
    auto p = path / name;
    std::ofstream(p, std::ios::binary) << contents;
    return p.string();
  }

  std::filesystem::path path;
};

}  // namespace af::test
