#pragma once

// The byte format of remote-session messages. Every request and reply is one std::string
// (CAF sends byte strings with one memcpy); inside it, little-endian integers,
// length-prefixed strings and tensors (dtype, rank, dims, raw bytes or strings). Readers
// check every length against what is left, so garbage decodes to an error, never a crash
// or a huge allocation.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/actors/step_stats.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::net {

/// The last dtype code a peer may send (DType's codes are fixed: new dtypes are appended).
inline constexpr auto kLastDTypeCode = static_cast<std::uint8_t>(DType::complex128);

/// True for a dtype code a tensor's value may carry on the wire: the numeric dtypes and
/// string (not invalid, resource or variant, nor a code past the last dtype).
inline bool is_value_dtype_code(std::uint8_t code) {
  const auto t = static_cast<DType>(code);
  return code <= kLastDTypeCode && (t == DType::string || dtype_size(t) > 0);
}

class WireWriter {
 public:
  WireWriter() = default;
  /// A writer whose buffer holds `reserve` bytes before it grows (one allocation for a
  /// message of known size).
  explicit WireWriter(std::size_t reserve) { out_.reserve(reserve); }
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u64(std::uint64_t v) {
    char b[8];
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(b, &v, 8);  // the wire's byte order already
    else
      for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    out_.append(b, 8);
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s.data(), s.size());
  }
  /// Bytes as they are, with no length: a string written in pieces after its length.
  void raw(std::string_view s) { out_.append(s.data(), s.size()); }
  /// A tensor: dtype, rank, dims, then its bytes (strings length-prefixed). An uninitialized
  /// or resource tensor is its dtype and 0xff; a dead one (`Tensor::dead()`) is 0 and 0xfd.
  void tensor(const Tensor& t);
  /// A numeric tensor whose bytes travel over the bulk channel (bulk_channel.hpp): dtype,
  /// the marker 0xfe, rank, dims, then the server's bulk port and the transfer id.
  void bulk_ref(const Tensor& t, std::uint16_t port, std::uint64_t transfer_id);
  /// Step stats of a traced step (count, then each node's fields).
  void stats(const std::vector<NodeExecStats>& stats);
  /// A status that is not OK: u8 code, then its message.
  void error(const Status& s) {
    u8(static_cast<std::uint8_t>(s.code()));
    str(s.message());
  }
  std::string take() { return std::move(out_); }
  std::size_t size() const noexcept { return out_.size(); }

 private:
  std::string out_;
};

/// WireWriter's encoding as pieces to write one after the other with one gathered write: the
/// fields in buffers of its own, a numeric host tensor's bytes by reference (the tensor kept
/// alive with the pieces), so that a frame leaves with no copy of its tensors.
class WireGather {
 public:
  /// Where the fields go (in order with `tensor`'s pieces).
  WireWriter& fields() { return fields_; }
  /// Appends `t` as `WireWriter::tensor` writes it: a numeric host tensor's bytes as a piece
  /// of their own, by reference.
  void tensor(const Tensor& t);
  /// The encoding's length so far.
  std::size_t size() const noexcept;
  /// The pieces, in order; valid while this object lives and is not changed.
  std::vector<std::string_view> pieces();

 private:
  void seal();
  WireWriter fields_;
  std::vector<std::string> owned_;  ///< sealed field buffers (moved strings keep their bytes)
  struct Piece {
    std::size_t owned = 0;  ///< index in owned_, or
    const char* data = nullptr;
    std::size_t size = 0;
  };
  std::vector<Piece> order_;
  std::vector<Tensor> kept_;
  std::size_t sealed_bytes_ = 0;
};

/// `t` as `WireWriter::tensor` writes it, alone (a tensor on CAF's path between tasks).
inline std::string encode_tensor(const Tensor& t) {
  WireWriter out;
  out.tensor(t);
  return out.take();
}

/// Where the bytes of a tensor read by `WireReader::tensor` must be fetched from.
struct BulkRef {
  bool present = false;
  std::uint16_t port = 0;
  std::uint64_t transfer_id = 0;
  DType dtype = DType::invalid;  ///< the tensor to allocate for the bytes
  Shape shape;
};

class WireReader {
 public:
  explicit WireReader(std::string_view in, std::string what) : in_(in), what_(std::move(what)) {}
  /// Names the message `what` followed by `of` (say "run reply from " and a task) without
  /// building the name unless a read fails: `of` must outlive the reader.
  WireReader(std::string_view in, const char* what, std::string_view of)
      : in_(in), what_(what), of_(of) {}

  bool u8(std::uint8_t* v) {
    if (!need(1)) return false;
    *v = static_cast<std::uint8_t>(in_[pos_++]);
    return true;
  }
  bool u64(std::uint64_t* v) {
    if (!need(8)) return false;
    std::uint64_t r = 0;
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(&r, in_.data() + pos_, 8);
    else
      for (int i = 0; i < 8; ++i)
        r |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
    pos_ += 8;
    *v = r;
    return true;
  }
  bool i64(std::int64_t* v) {
    std::uint64_t u = 0;
    if (!u64(&u)) return false;
    *v = static_cast<std::int64_t>(u);
    return true;
  }
  bool str(std::string* s) {
    std::uint64_t n = 0;
    if (!u64(&n) || !need(n)) return false;
    s->assign(in_.data() + pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  /// As `str`, without a copy: `*s` views the input, valid as long as it is.
  bool view(std::string_view* s) {
    std::uint64_t n = 0;
    if (!u64(&n) || !need(n)) return false;
    *s = in_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  /// A count of items each at least `min_bytes` long (bounded by what is left).
  bool count(std::uint64_t* n, std::size_t min_bytes) {
    if (!u64(n)) return false;
    if (*n > (in_.size() - pos_) / (min_bytes ? min_bytes : 1))
      return fail("count " + std::to_string(*n) + " exceeds the message");
    return true;
  }
  /// Reads a tensor. A bulk reference is accepted only when `bulk` is given: `*t` is then
  /// allocated with its dtype and shape, and `*bulk` says where its bytes are.
  bool tensor(Tensor* t, BulkRef* bulk = nullptr);
  /// Appends the step stats written by `WireWriter::stats` to `*out`.
  bool stats(std::vector<NodeExecStats>* out);
  /// What WireWriter::error wrote; a code that is OK or unknown fails the read.
  bool error(Status* out) {
    std::uint8_t code = 0;
    std::string message;
    if (!u8(&code) || !str(&message)) return false;
    if (code == 0 || code > static_cast<std::uint8_t>(Code::unauthenticated))
      return fail("status code " + std::to_string(code) + " is not an error");
    *out = Status(static_cast<Code>(code), std::move(message));
    return true;
  }
  bool at_end() const noexcept { return pos_ == in_.size(); }
  /// The first decoding error (DataLoss naming the message and offset), or OK.
  const Status& status() const noexcept { return status_; }
  bool fail(const std::string& why) {
    if (status_.ok())
      status_ = data_loss("malformed " + what_ + std::string(of_) + " at byte " +
                          std::to_string(pos_) + ": " + why);
    return false;
  }

 private:
  std::uint64_t left() const noexcept { return in_.size() - pos_; }
  bool need(std::uint64_t n) {
    if (n > in_.size() - pos_)
      return fail("truncated (needs " + std::to_string(n) + " more bytes)");
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  std::string what_;
  std::string_view of_;
  Status status_;
};

}  // namespace af::net
