// What the benchmarks share: the median of repeated measurements and fixed-point text.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace af::bench {

/// The median of `v` (the upper one of an even count; 0 when empty).
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// `v` with `digits` digits after the point.
inline std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace af::bench
