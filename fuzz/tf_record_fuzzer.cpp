// libFuzzer target for the TFRecord reader (queues/src/record_io.cpp): every input is read
// from memory as an uncompressed, a ZLIB and a GZIP file. Checked besides the sanitizers:
// reading ends in OutOfRange or DataLoss only, a DataLoss repeats, offsets advance by each
// record's framing, and the uncompressed bytes accepted are exactly what our writer's
// encoding of the records read would produce.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "record_io.hpp"

namespace {

[[noreturn]] void fail(const char* what, const af::Status& s) {
  std::fprintf(stderr, "tf_record_fuzzer: %s (%s)\n", what, s.to_string().c_str());
  std::abort();
}

void append_le(std::string* out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

// The TFRecord framing of `record`, as RecordWriter::write produces it.
void encode(std::string* out, std::string_view record) {
  const std::size_t start = out->size();
  append_le(out, record.size(), 8);
  append_le(out, af::io::mask_crc(af::io::crc32c(out->data() + start, 8)), 4);
  out->append(record);
  append_le(out, af::io::mask_crc(af::io::crc32c(record.data(), record.size())), 4);
}

// Reads `input` to the end; returns the canonical encoding of the records read.
std::string read_all(std::string_view input, af::io::Compression compression,
                     std::size_t buffer_size) {
  af::io::RecordReader reader(std::make_unique<af::io::MemoryInputStream>(input), compression,
                              "<fuzz>", buffer_size);
  std::string encoded;
  std::string record;
  af::Status s;
  for (;;) {
    const std::uint64_t before = reader.offset();
    s = reader.read(&record);
    if (!s.ok()) break;
    if (reader.offset() !=
        before + af::io::record_header_size + record.size() + af::io::record_footer_size) {
      fail("offset did not advance by the record's framing", s);
    }
    encode(&encoded, record);
  }
  if (s.code() != af::Code::out_of_range && s.code() != af::Code::data_loss) {
    fail("unexpected status", s);
  }
  if (reader.offset() != encoded.size()) fail("offset differs from the bytes read", s);
  af::Status again = reader.read(&record);
  if (s.code() == af::Code::data_loss && !(again == s)) fail("data loss not sticky", again);
  if (s.code() == af::Code::out_of_range && again.code() != af::Code::out_of_range) {
    fail("end of file not repeatable", again);
  }
  return encoded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string accepted = read_all(input, af::io::Compression::none, 4096);
  if (input.substr(0, accepted.size()) != accepted) {
    fail("accepted bytes are not the canonical encoding", af::ok_status());
  }
  // A small buffer takes the refill and bypass paths on small inputs too.
  if (read_all(input, af::io::Compression::none, 16 + size % 61) != accepted) {
    fail("buffer size changed the records read", af::ok_status());
  }
  read_all(input, af::io::Compression::zlib, 4096);
  read_all(input, af::io::Compression::gzip, 16 + size % 61);
  return 0;
}
