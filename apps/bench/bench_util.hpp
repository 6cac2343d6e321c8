// What the benchmarks share: the median and spread of repeated measurements, the ratio of
// interleaved pairs (a benchmark and its baseline run A B A B ...), fixed-point text, and the
// run's machine-readable record (bench_results.cpp).
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace af::bench {

/// The median of `v` (the upper one of an even count; 0 when empty).
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// The spread of repeated measurements: "min-max over N runs" with the digits that suit
/// their size.
inline std::string spread(const std::vector<double>& v) {
  if (v.empty()) return "no runs";
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const int digits = *hi >= 100 ? 0 : *hi >= 10 ? 1 : 2;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*f-%.*f over %zu runs", digits, *lo, digits, *hi, v.size());
  return buf;
}

/// `v` with `digits` digits after the point.
inline std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// The ratios of interleaved pairs: `ours[i] / baseline[i]` for each pair i (a machine that
/// drifts moves both sides of a pair alike), their median and range.
struct PairRatio {
  double median = 0;
  double min = 0;
  double max = 0;
  std::size_t pairs = 0;
};

/// The pair ratios of `ours` against `baseline`, measured in turn (pairs beyond the shorter
/// list and pairs with a zero baseline are left out).
inline PairRatio pair_ratio(const std::vector<double>& ours, const std::vector<double>& baseline) {
  std::vector<double> r;
  for (std::size_t i = 0; i < std::min(ours.size(), baseline.size()); ++i)
    if (baseline[i] != 0) r.push_back(ours[i] / baseline[i]);
  if (r.empty()) return {};
  auto [lo, hi] = std::minmax_element(r.begin(), r.end());
  return {median_of(r), *lo, *hi, r.size()};
}

/// "1.23x (pairs 1.10-1.31, n = 9)".
inline std::string ratio_text(const PairRatio& r) {
  if (r.pairs == 0) return "no pairs";
  return fixed(r.median, 2) + "x (pairs " + fixed(r.min, 2) + "-" + fixed(r.max, 2) +
         ", n = " + std::to_string(r.pairs) + ")";
}

/// One row of the run's record: a benchmark's values (`unit`) and, when it has one, its
/// baseline's, measured in interleaved pairs; `target` as the table states it ("<= 1.5x").
struct BenchRow {
  std::string id;
  std::string what;
  std::string unit;
  std::vector<double> ours;
  std::vector<double> baseline;
  std::string baseline_what;
  std::string target;
};

/// Adds `row` to the run's record and returns its pair ratio (empty without a baseline).
PairRatio record(BenchRow row);

/// Pins every thread of this process to the first `cpus` CPUs it may run on (the last
/// ones when `last`), for a benchmark that claims that many cores or keeps two processes
/// on CPUs of their own; the destructor gives each thread that was there its own set back
/// (threads started meanwhile keep the pinned set).
class PinnedProcess {
 public:
  explicit PinnedProcess(int cpus, bool last = false);
  ~PinnedProcess();
  PinnedProcess(const PinnedProcess&) = delete;
  PinnedProcess& operator=(const PinnedProcess&) = delete;
  /// The CPUs pinned to, as "0" or "0,1" (empty when pinning failed).
  const std::string& cpus() const { return text_; }

 private:
  std::vector<std::pair<pid_t, cpu_set_t>> saved_;
  std::string text_;
};

/// A page-aligned buffer of a baseline, every byte `fill`. The kernel's copies out of a
/// socket or the page cache into a user buffer that is not 64-byte aligned run at a half to
/// a third of their speed (AMD EPYC VM), and where malloc puts a large vector (a fresh
/// mapping, 16 bytes in, or a reused heap block) depends on what ran before: a baseline's
/// bytes sit where the best plain program would put them, every time.
class AlignedBytes {
 public:
  AlignedBytes(std::uint64_t n, char fill)
      : n_(n), p_(static_cast<char*>(std::aligned_alloc(4096, (n + 4095) / 4096 * 4096))) {
    if (!p_) throw std::bad_alloc();
    std::memset(p_.get(), fill, n);
  }
  char* data() { return p_.get(); }
  const char* data() const { return p_.get(); }
  std::uint64_t size() const { return n_; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::uint64_t n_;
  std::unique_ptr<char, Free> p_;
};

/// The CPU model (/proc/cpuinfo) and the number of hardware threads, in words.
std::string machine_description();

/// Writes the run's record as JSON to `path`: the machine, `commit`, the date, and each row
/// with its median, range and pair ratio. False (with a line on stderr) when it cannot.
bool write_results_json(const std::string& path, const std::string& commit);

/// Adds the rows of a record written by write_results_json (by a child `actorflow-bench`)
/// to this run's record, their values included; false, with a message, when it cannot.
bool merge_results_json(const std::string& path);

}  // namespace af::bench
