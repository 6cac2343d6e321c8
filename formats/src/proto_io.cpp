#include "proto_io.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include "actorflow/ops/errors.hpp"

namespace af::detail {

namespace fs = std::filesystem;

namespace {

/// The first parse error, as "LINE:COLUMN: message" (both counted from 1).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first.empty()) first = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string first;
};

}  // namespace

std::string read_whole_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NotFoundError(not_found(path + ": no such " + what + " file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  std::error_code ec;
  if (const fs::path parent = fs::path(path).parent_path(); !parent.empty()) fs::create_directories(parent, ec);
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw UnavailableError(unavailable("cannot write " + path));
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UnavailableError(unavailable("cannot write " + path + ": " + ec.message()));
  }
}

void parse_text_or_throw(std::string_view text, std::string_view source, google::protobuf::Message* out) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), out))
    throw InvalidArgumentError(invalid_argument(std::string(source) + ":" +
                                                (errors.first.empty() ? "1:1: does not parse" : errors.first)));
}

std::string serialize_deterministic(const google::protobuf::Message& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace af::detail
