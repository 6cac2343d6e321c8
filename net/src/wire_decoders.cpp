#include "wire_decoders.hpp"

#include <cstring>
#include <tuple>

#include "actorflow/ops/dtype.hpp"
#include "wire.hpp"

namespace af::net {

namespace {

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}
constexpr unsigned char kClientHandshake = 0x01;  // caf::io::basp::message_type::client_handshake

}  // namespace

StepHeader decode_step_header(std::string_view bytes) {
  StepHeader h;
  if (bytes.size() < kStepHeaderBytes ||
      std::memcmp(bytes.data(), kStepMagic, sizeof kStepMagic) != 0)
    return h;
  h.magic = true;
  h.call = get_u64(bytes.data() + 8);
  h.token = get_u64(bytes.data() + 16);
  h.length = get_u64(bytes.data() + 24);
  return h;
}

BulkRequest decode_bulk_request(std::string_view bytes) {
  BulkRequest r;
  if (bytes.size() < kBulkRequestBytes) return r;
  r.await = std::memcmp(bytes.data(), kBulkAwaitMagic, sizeof kBulkAwaitMagic) == 0;
  if (!r.await && std::memcmp(bytes.data(), kBulkMagic, sizeof kBulkMagic) != 0) return r;
  r.magic = true;
  r.transfer_id = get_u64(bytes.data() + 8);
  return r;
}

PushHello decode_push_hello(std::string_view bytes) {
  PushHello h;
  if (bytes.size() < kPushHelloBytes ||
      std::memcmp(bytes.data(), kPushMagic, sizeof kPushMagic) != 0)
    return h;
  h.magic = true;
  h.token = get_u64(bytes.data() + 8);
  return h;
}

const char* push_kind_name(PushKind kind) {
  switch (kind) {
    case PushKind::tensor:
      return "tensor";
    case PushKind::run:
      return "run";
    case PushKind::reply:
      return "reply";
    case PushKind::cancel:
      return "cancel";
    case PushKind::cleanup:
      return "cleanup";
  }
  return "unknown";
}

PushFrameHeader decode_push_frame_header(std::string_view bytes) {
  PushFrameHeader h;
  if (bytes.size() < kPushFrameHeaderBytes) return h;
  const auto* p = bytes.data();
  h.step_id = static_cast<std::int64_t>(get_u64(p));
  const auto kind = static_cast<std::uint8_t>(p[8]);
  const auto reserved = static_cast<std::uint8_t>(p[9]);
  h.meta_length = static_cast<std::uint32_t>(static_cast<unsigned char>(p[10])) |
                  (static_cast<std::uint32_t>(static_cast<unsigned char>(p[11])) << 8);
  h.key_length = get_u32(p + 12);
  h.data_length = get_u64(p + 16);
  if (kind > static_cast<std::uint8_t>(PushKind::cleanup) || reserved != 0 ||
      h.data_length > kPushMaxDataBytes)
    return h;
  h.kind = static_cast<PushKind>(kind);
  if (h.kind == PushKind::tensor)
    h.valid = h.key_length >= 1 && h.key_length <= kPushMaxKeyBytes && h.meta_length >= 2 &&
              h.meta_length <= 2 + 8 * 32;
  else
    h.valid = h.key_length == 0 && h.meta_length == 0;
  return h;
}

PushMeta decode_push_meta(std::string_view meta, std::uint64_t data_length) {
  PushMeta m;
  if (meta.size() < 2) return m;
  const auto code = static_cast<std::uint8_t>(meta[0]);
  const auto rank = static_cast<std::uint8_t>(meta[1]);
  const auto dtype = static_cast<DType>(code);
  if (!is_value_dtype_code(code) || dtype == DType::string || rank > 32 ||
      meta.size() != 2u + 8u * rank)
    return m;
  std::uint64_t bytes = dtype_size(dtype);
  m.dims.resize(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const auto d = static_cast<std::int64_t>(get_u64(meta.data() + 2 + 8 * i));
    if (d < 0 || (d > 0 && bytes > kPushMaxDataBytes / static_cast<std::uint64_t>(d))) return m;
    bytes *= static_cast<std::uint64_t>(d);
    m.dims[i] = d;
  }
  if (bytes != data_length) return m;
  m.dtype = code;
  m.valid = true;
  return m;
}

namespace {

void append_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void append_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::string encode_push_hello(std::uint64_t token) {
  std::string out(kPushMagic, sizeof kPushMagic);
  append_u64(out, token);
  return out;
}

std::string encode_push_frame_header(std::int64_t step_id, PushKind kind, std::uint32_t key_length,
                                     std::uint32_t meta_length, std::uint64_t data_length) {
  std::string out;
  out.reserve(kPushFrameHeaderBytes);
  append_u64(out, static_cast<std::uint64_t>(step_id));
  out.push_back(static_cast<char>(kind));
  out.push_back('\0');
  out.push_back(static_cast<char>(meta_length & 0xff));
  out.push_back(static_cast<char>((meta_length >> 8) & 0xff));
  append_u32(out, key_length);
  append_u64(out, data_length);
  return out;
}

std::string encode_push_meta(std::uint8_t dtype, const std::vector<std::int64_t>& dims) {
  std::string out;
  out.reserve(2 + 8 * dims.size());
  out.push_back(static_cast<char>(dtype));
  out.push_back(static_cast<char>(dims.size()));
  for (auto d : dims) append_u64(out, static_cast<std::uint64_t>(d));
  return out;
}

BaspFirst check_first_basp_header(std::string_view header) {
  if (header.size() != kBaspHeaderBytes ||
      static_cast<unsigned char>(header[0]) != kClientHandshake)
    return BaspFirst::not_basp;
  return BaspFirst::client_handshake;
}

bool BaspConnectionCheck::consumed(std::string_view bytes) {
  if (handshaken_) return true;
  if (messages_ == 0 && check_first_basp_header(bytes) != BaspFirst::client_handshake) return false;
  if (messages_ > 0) handshaken_ = true;  // the handshake's payload (or the next header)
  ++messages_;
  return true;
}

HttpRequest parse_http_request(std::string_view head) {
  HttpRequest r;
  // The request line: METHOD SP TARGET SP VERSION, tokens separated by blanks.
  auto line_end = head.find("\r\n");
  std::string_view line =
      head.substr(0, line_end == std::string_view::npos ? head.size() : line_end);
  std::string_view tokens[3];
  std::size_t pos = 0;
  for (auto& t : tokens) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
    t = line.substr(start, pos - start);
  }
  const auto [method, target, version] = std::tuple(tokens[0], tokens[1], tokens[2]);
  if (method.empty() || target.empty() || target[0] != '/' || version.substr(0, 5) != "HTTP/")
    return r;
  for (char ch : target)
    if (static_cast<unsigned char>(ch) < 0x21 || static_cast<unsigned char>(ch) == 0x7f)
      return r;  // controls
  if (method != "GET") {
    r.code = 405;
    return r;
  }
  r.code = 0;
  r.path = std::string(target.substr(0, target.find('?')));
  return r;
}

}  // namespace af::net
