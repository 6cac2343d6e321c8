#pragma once

// TensorFlow's legacy string hash (lib/hash/hash.cc): StringToHashBucket buckets by it,
// MutableDenseHashTable places string keys by it and RecordInput seeds its file shuffles by
// it, so all must reproduce it bit for bit.
#include <cstdint>
#include <string>

namespace af::detail {

/// The little-endian 64-bit word at `p`.
inline std::uint64_t load_le64(const char* p) {
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(p[k]);
  return v;
}

/// TensorFlow's Hash64(data, n, seed): MurmurHash64A of `data[0, n)` with `seed`.
inline std::uint64_t tf_hash64(const char* data, std::size_t n, std::uint64_t seed) {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  std::uint64_t h = seed ^ (n * m);
  for (; n >= 8; n -= 8, data += 8) {
    std::uint64_t k = load_le64(data);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    for (std::size_t j = n; j-- > 0;)
      h ^= static_cast<std::uint64_t>(static_cast<unsigned char>(data[j])) << (8 * j);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

/// TensorFlow's Hash64 (MurmurHash64A with its default seed 0xDECAFCAFFE) of `s`.
inline std::uint64_t tf_hash64(const std::string& s) {
  return tf_hash64(s.data(), s.size(), 0xDECAFCAFFEULL);
}

/// TensorFlow's Hash64Combine(a, b): folds `b` into the running hash `a`.
inline std::uint64_t tf_hash64_combine(std::uint64_t a, std::uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7800ULL + (a << 10) + (a >> 4));
}

}  // namespace af::detail
