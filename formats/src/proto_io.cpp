#include "proto_io.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actorflow/ops/errors.hpp"

namespace af::detail {

namespace fs = std::filesystem;

namespace {

/// The first parse error, as "LINE:COLUMN: message" (both counted from 1).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first.empty())
      first = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string first;
};

/// Python's text_format writes floats through str(): see python_float_text.
class PythonFloatPrinter : public google::protobuf::TextFormat::FastFieldValuePrinter {
 public:
  void PrintFloat(float v, google::protobuf::TextFormat::BaseTextGenerator* out) const override {
    out->PrintString(python_float_text(v, true));
  }
  void PrintDouble(double v, google::protobuf::TextFormat::BaseTextGenerator* out) const override {
    out->PrintString(python_float_text(v, false));
  }
};

}  // namespace

std::string python_float_text(double v, bool single) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The shortest scientific digits that read back the same: d.ddde±x.
  char sci[64];
  if (single) {
    const float f = static_cast<float>(v);
    for (int p = 0; p < 9; ++p) {
      std::snprintf(sci, sizeof sci, "%.*e", p, static_cast<double>(f));
      if (std::strtof(sci, nullptr) == f) break;
    }
  } else {
    auto r = std::to_chars(sci, sci + sizeof sci - 1, v, std::chars_format::scientific);
    *r.ptr = '\0';
  }
  std::string text = sci;
  const bool negative = text[0] == '-';
  if (negative) text.erase(0, 1);
  const auto e = text.find('e');
  int exponent = std::atoi(text.c_str() + e + 1);
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      std::string whole = digits.substr(
          0, std::min<std::size_t>(digits.size(), static_cast<std::size_t>(exponent) + 1));
      whole.append(static_cast<std::size_t>(exponent) + 1 - whole.size(), '0');
      const std::string frac = digits.size() > static_cast<std::size_t>(exponent) + 1
                                   ? digits.substr(exponent + 1)
                                   : "0";
      out = whole + "." + frac;
    } else {
      out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    }
  } else {
    out = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
  }
  return negative ? "-" + out : out;
}

std::string print_text(const google::protobuf::Message& m) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetDefaultFieldValuePrinter(new PythonFloatPrinter());
  std::string out;
  printer.PrintToString(m, &out);
  return out;
}

std::string read_whole_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NotFoundError(not_found(path + ": no such " + what + " file"));
  std::error_code ec;
  if (fs::is_directory(path, ec))  // opens, then reads as empty
    throw InvalidArgumentError(
        invalid_argument(path + ": is a directory, not a " + std::string(what) + " file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  std::error_code ec;
  if (const fs::path parent = fs::path(path).parent_path(); !parent.empty())
    fs::create_directories(parent, ec);
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

void parse_text_or_throw(std::string_view text, std::string_view source,
                         google::protobuf::Message* out) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), out))
    throw InvalidArgumentError(invalid_argument(
        std::string(source) + ":" + (errors.first.empty() ? "1:1: does not parse" : errors.first)));
}

void parse_binary_or_throw(std::string_view bytes, std::string_view source, std::string_view what,
                           google::protobuf::Message* out) {
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX) ||
      !out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InvalidArgumentError(
        invalid_argument(std::string(source) + ": not a binary " + std::string(what) + " (" +
                         std::to_string(bytes.size()) + " bytes that do not parse)"));
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
