// crc32c (Castagnoli), as TensorFlow's checkpoints and LevelDB tables use it: SSE4.2 when the
// CPU has it (three interleaved chains joined with zlib's combine for large buffers), a
// table otherwise. Declared in tensor_bundle.hpp.
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "actorflow/ops/tensor_bundle.hpp"

namespace af {

namespace {

// Table for the Castagnoli polynomial, reflected (0x82F63B78), one byte at a time.
constexpr std::array<std::uint32_t, 256> make_crc32c_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<std::uint32_t, 256> kCrc32cTable = make_crc32c_table();

std::uint32_t crc32c_extend_portable(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < n; ++i) c = kCrc32cTable[(c ^ p[i]) & 0xffu] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32c_extend_sse42(std::uint32_t crc,
                                                                    const unsigned char* p,
                                                                    std::size_t n) {
  std::uint64_t c = ~crc & 0xffffffffu;
  while (n >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<std::uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}

// Three independent crc32 chains over three thirds of a large buffer, joined with
// crc32c_combine: the instruction's 3-cycle latency, not its throughput, bounds one chain.
__attribute__((target("sse4.2"))) void crc32c_three_lanes(const unsigned char* p, std::size_t lane,
                                                          std::uint32_t crc, std::uint32_t out[3]) {
  std::uint64_t c0 = ~crc & 0xffffffffu, c1 = 0xffffffffu, c2 = 0xffffffffu;
  const unsigned char* a = p;
  const unsigned char* b = p + lane;
  const unsigned char* c = p + 2 * lane;
  for (std::size_t i = 0; i < lane; i += 8) {
    std::uint64_t wa, wb, wc;
    std::memcpy(&wa, a + i, 8);
    std::memcpy(&wb, b + i, 8);
    std::memcpy(&wc, c + i, 8);
    c0 = _mm_crc32_u64(c0, wa);
    c1 = _mm_crc32_u64(c1, wb);
    c2 = _mm_crc32_u64(c2, wc);
  }
  out[0] = ~static_cast<std::uint32_t>(c0);
  out[1] = ~static_cast<std::uint32_t>(c1);
  out[2] = ~static_cast<std::uint32_t>(c2);
}

bool cpu_has_sse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

namespace {

// zlib's crc32_combine over the Castagnoli polynomial: the crc of A||B from crc(A), crc(B)
// and |B|, by applying |B| zero bytes to crc(A) with GF(2) matrices.
std::uint32_t gf2_times(const std::uint32_t* mat, std::uint32_t vec) {
  std::uint32_t sum = 0;
  for (; vec; vec >>= 1, ++mat)
    if (vec & 1) sum ^= *mat;
  return sum;
}

void gf2_square(std::uint32_t* square, const std::uint32_t* mat) {
  for (int n = 0; n < 32; ++n) square[n] = gf2_times(mat, mat[n]);
}

std::uint32_t crc32c_combine(std::uint32_t crc1, std::uint32_t crc2, std::uint64_t len2) {
  if (len2 == 0) return crc1;
  std::uint32_t even[32], odd[32];
  odd[0] = 0x82F63B78u;
  for (int n = 1; n < 32; ++n) odd[n] = 1u << (n - 1);
  gf2_square(even, odd);  // two zero bits
  gf2_square(odd, even);  // four zero bits
  for (;;) {
    gf2_square(even, odd);
    if (len2 & 1) crc1 = gf2_times(even, crc1);
    if ((len2 >>= 1) == 0) break;
    gf2_square(odd, even);
    if (len2 & 1) crc1 = gf2_times(odd, crc1);
    if ((len2 >>= 1) == 0) break;
  }
  return crc1 ^ crc2;
}

// Large buffers go in blocks of three lanes of kLane bytes: a block stays in the L2 cache
// (a reader checksums each block right after reading it), and joining its lanes is two
// products with one precomputed matrix: the operator that appends kLane zero bytes.
constexpr std::size_t kLane = 128 * 1024;

std::uint32_t shift_by_lane(std::uint32_t crc) {
  static const std::array<std::uint32_t, 32> op = [] {
    std::array<std::uint32_t, 32> m{};
    for (int n = 0; n < 32; ++n)
      m[static_cast<std::size_t>(n)] = crc32c_combine(1u << n, 0, kLane);  // linear in crc1
    return m;
  }();
  return gf2_times(op.data(), crc);
}

}  // namespace

std::size_t crc32c_block_size() noexcept { return 3 * kLane; }

std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (cpu_has_sse42()) {
    while (size >= 3 * kLane) {
      std::uint32_t c[3];
      crc32c_three_lanes(p, kLane, crc, c);
      crc = shift_by_lane(shift_by_lane(c[0]) ^ c[1]) ^ c[2];
      p += 3 * kLane;
      size -= 3 * kLane;
    }
    return crc32c_extend_sse42(crc, p, size);
  }
#endif
  return crc32c_extend_portable(crc, p, size);
}

}  // namespace af
