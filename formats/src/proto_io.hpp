// File and text-format plumbing shared by the GraphDef and MetaGraphDef readers and writers.
// Private to the formats module.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

namespace af::detail {

/// The whole file at `path`; NotFoundError "<path>: no such <what> file", InvalidArgumentError
/// "<path>: is a directory, not a <what> file".
std::string read_whole_file(const std::string& path, const char* what);

/// Writes `content` to `path` through a temporary file renamed into place (creating the
/// parent directory); UnavailableError "cannot write <path>" otherwise.
void write_file_atomically(const std::string& path, const std::string& content);

/// Parses text format into `out`; InvalidArgumentError "<source>:LINE:COLUMN: <message>".
void parse_text_or_throw(std::string_view text, std::string_view source,
                         google::protobuf::Message* out);

/// Parses the binary form of `out`'s message; throws InvalidArgumentError "<source>: not a
/// binary <what> (<n> bytes that do not parse)" when it does not parse.
void parse_binary_or_throw(std::string_view bytes, std::string_view source, std::string_view what,
                           google::protobuf::Message* out);

/// The text form as TensorFlow's Python writers print it (`text_format.MessageToString`):
/// protobuf's C++ printer, with floats and doubles written as Python writes them (the
/// shortest digits that read back the same, `1.0`, `0.70710677`, `1e-08`).
std::string print_text(const google::protobuf::Message& m);

/// `v` as Python's `repr` writes a float; for a float32 value (`single`), the digits are the
/// fewest that read back as the same float32.
std::string python_float_text(double v, bool single);

/// The deterministic binary form (map entries sorted by key).
std::string serialize_deterministic(const google::protobuf::Message& m);

}  // namespace af::detail
