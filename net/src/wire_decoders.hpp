#pragma once

// The first bytes a server reads from an unauthenticated peer, decoded by pure functions
// (no sockets, no CAF, no allocation beyond the result) so that fuzz/ can drive them:
// the step port's request header, the bulk port's request, the tensor push port's hello and
// frames, the CAF port's first BASP header and the status port's request line. The servers act on
// what these return.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace af::net {

inline constexpr std::size_t kStepHeaderBytes = 32;
inline constexpr std::size_t kBulkRequestBytes = 16;
inline constexpr std::size_t kBaspHeaderBytes = 32;

/// A little-endian u64 written to / read from 8 bytes at `p` (the wire's integers).
inline void store_le64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
inline std::uint64_t load_le64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

/// The protocols' first 8 bytes, with their versions: the one place each is spelled.
inline constexpr char kStepMagic[8] = {'A', 'F', 'S', 'T', 'E', 'P', '0', '1'};
inline constexpr char kBulkMagic[8] = {'A', 'F', 'B', 'U', 'L', 'K', '0', '2'};
/// The bulk port's other request: wait for a step's transfer (bulk_channel.hpp).
inline constexpr char kBulkAwaitMagic[8] = {'A', 'F', 'B', 'U', 'L', 'K', 'A', '2'};
inline constexpr char kPushMagic[8] = {'A', 'F', 'P', 'U', 'S', 'H', '0', '2'};

/// "AFSTEP01" + u64 call id + u64 session token + u64 body length (little-endian).
struct StepHeader {
  bool magic = false;  ///< false: not the step protocol (nothing else is set)
  std::uint64_t call = 0, token = 0, length = 0;
  /// A hello: call 0, no body (it presents the token only).
  bool hello() const { return magic && call == 0 && length == 0; }
};
/// `bytes` must hold kStepHeaderBytes (fewer: not the protocol).
StepHeader decode_step_header(std::string_view bytes);

/// "AFBULK02" (fetch) or "AFBULKA2" (await) + u64 transfer id.
struct BulkRequest {
  bool magic = false;  ///< false: neither request (nothing else is set)
  bool await = false;  ///< "AFBULKA2": the id is a ticket a step has not settled yet
  std::uint64_t transfer_id = 0;
};
BulkRequest decode_bulk_request(std::string_view bytes);

inline constexpr std::size_t kPushHelloBytes = 16;
inline constexpr std::size_t kPushFrameHeaderBytes = 24;
inline constexpr std::uint32_t kPushMaxKeyBytes = 4096;
inline constexpr std::uint64_t kPushMaxDataBytes = std::uint64_t{1} << 40;

/// The tensor push port's hello (tensor_push.hpp): "AFPUSH02" + u64 token. The server's
/// answer has the same shape, its u64 the refusal code (0: accepted).
struct PushHello {
  bool magic = false;
  std::uint64_t token = 0;
};
PushHello decode_push_hello(std::string_view bytes);

/// What a push frame carries (its header's kind byte).
enum class PushKind : std::uint8_t {
  tensor = 0,   ///< a tensor for the rendezvous: a key, a meta and the tensor's bytes
  run = 1,      ///< a partition run, master's task → worker (worker_protocol.hpp)
  reply = 2,    ///< a run's reply, worker → master's task
  cancel = 3,   ///< a step's cancellation, master's task → worker
  cleanup = 4,  ///< a step's end, master's task → worker
};
/// The kind's name, for logs and errors.
const char* push_kind_name(PushKind kind);

/// A push frame's header: u64 step id, u8 kind, u8 0, u16 meta length, u32 key length, u64
/// data length. `valid` when `bytes` holds kPushFrameHeaderBytes, the kind is known, the
/// reserved byte is 0 and the lengths are within bounds: a tensor frame has a key of 1 to
/// kPushMaxKeyBytes and a meta of 2 to 2 + 8 * 32 bytes; a control frame (any other kind)
/// has neither, its payload in the data; data is at most kPushMaxDataBytes.
struct PushFrameHeader {
  bool valid = false;
  std::int64_t step_id = 0;
  PushKind kind = PushKind::tensor;
  std::uint32_t key_length = 0, meta_length = 0;
  std::uint64_t data_length = 0;
};
PushFrameHeader decode_push_frame_header(std::string_view bytes);

/// A push frame's meta (u8 dtype code, u8 rank, rank x i64 dims). `valid` when the dtype is
/// numeric, the rank at most 32, the meta exactly that long, every dim non-negative and the
/// tensor's bytes exactly `data_length`.
struct PushMeta {
  bool valid = false;
  std::uint8_t dtype = 0;
  std::vector<std::int64_t> dims;
};
PushMeta decode_push_meta(std::string_view meta, std::uint64_t data_length);

/// The sending side of the same format: what the decoders above read back.
std::string encode_push_hello(std::uint64_t token);
std::string encode_push_frame_header(std::int64_t step_id, PushKind kind, std::uint32_t key_length,
                                     std::uint32_t meta_length, std::uint64_t data_length);
std::string encode_push_meta(std::uint8_t dtype, const std::vector<std::int64_t>& dims);

/// What the CAF port's guard makes of a connection's first BASP header.
enum class BaspFirst { client_handshake, not_basp };
BaspFirst check_first_basp_header(std::string_view header);

/// The most a BASP client handshake's payload may claim. CAF 0.17.6's is the client's node
/// id (a few dozen bytes); a peer that has not shaken hands cannot make the server allocate
/// more than this for it.
inline constexpr std::size_t kBaspMaxHandshakeBytes = 4096;

/// The CAF port guard's decisions for one connection, in the order CAF's BASP broker reads
/// (basp_front_door.cpp calls it from its scribe): first a header, then its payload, and
/// so on.
class BaspConnectionCheck {
 public:
  explicit BaspConnectionCheck(std::size_t max_message_bytes) : max_(max_message_bytes) {}
  /// The largest read allowed now: kBaspMaxHandshakeBytes until the handshake went through,
  /// then the message limit.
  std::size_t limit() const { return handshaken_ ? max_ : std::min(max_, kBaspMaxHandshakeBytes); }
  /// The broker asks to read `bytes` next (a header, or the payload length a header
  /// claimed): false refuses the connection before anything is read or allocated.
  bool may_read(std::size_t bytes) const { return bytes <= limit(); }
  /// The broker got `bytes`: false refuses the connection (its first message is not a
  /// BASP client handshake).
  bool consumed(std::string_view bytes);
  /// The handshake's header and payload went through.
  bool handshaken() const { return handshaken_; }

 private:
  std::size_t max_;
  int messages_ = 0;
  bool handshaken_ = false;
};

/// The status port's request: `code` 0 with the path (no query string) for a GET, else the
/// HTTP error to answer (400 malformed, 405 not GET).
struct HttpRequest {
  int code = 400;
  std::string path;
};
/// `head` is the request up to and including the blank line.
HttpRequest parse_http_request(std::string_view head);

}  // namespace af::net
