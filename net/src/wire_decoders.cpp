#include "wire_decoders.hpp"

#include <cstring>
#include <tuple>

namespace af::net {

namespace {

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

constexpr char kStepMagic[8] = {'A', 'F', 'S', 'T', 'E', 'P', '0', '1'};
constexpr char kBulkMagic[8] = {'A', 'F', 'B', 'U', 'L', 'K', '0', '1'};
constexpr unsigned char kClientHandshake = 0x01;  // caf::io::basp::message_type::client_handshake

}  // namespace

StepHeader decode_step_header(std::string_view bytes) {
  StepHeader h;
  if (bytes.size() < kStepHeaderBytes || std::memcmp(bytes.data(), kStepMagic, sizeof kStepMagic) != 0) return h;
  h.magic = true;
  h.call = get_u64(bytes.data() + 8);
  h.token = get_u64(bytes.data() + 16);
  h.length = get_u64(bytes.data() + 24);
  return h;
}

BulkRequest decode_bulk_request(std::string_view bytes) {
  BulkRequest r;
  if (bytes.size() < kBulkRequestBytes || std::memcmp(bytes.data(), kBulkMagic, sizeof kBulkMagic) != 0) return r;
  r.magic = true;
  r.transfer_id = get_u64(bytes.data() + 8);
  return r;
}

BaspFirst check_first_basp_header(std::string_view header) {
  if (header.size() != kBaspHeaderBytes || static_cast<unsigned char>(header[0]) != kClientHandshake)
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
  std::string_view line = head.substr(0, line_end == std::string_view::npos ? head.size() : line_end);
  std::string_view tokens[3];
  std::size_t pos = 0;
  for (auto& t : tokens) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
    t = line.substr(start, pos - start);
  }
  const auto [method, target, version] = std::tuple(tokens[0], tokens[1], tokens[2]);
  if (method.empty() || target.empty() || target[0] != '/' || version.substr(0, 5) != "HTTP/") return r;
  for (char ch : target)
    if (static_cast<unsigned char>(ch) < 0x21 || static_cast<unsigned char>(ch) == 0x7f) return r;  // controls
  if (method != "GET") {
    r.code = 405;
    return r;
  }
  r.code = 0;
  r.path = std::string(target.substr(0, target.find('?')));
  return r;
}

}  // namespace af::net
