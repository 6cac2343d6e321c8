// GraphDef files: binary and text format through the generated code of formats/proto,
// written as TensorFlow's `tf.io.write_graph` writes them.
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "actorflow/formats/graph_def.hpp"
#include "proto_io.hpp"
#include "tf_proto.hpp"

namespace af {

namespace fs = std::filesystem;

namespace {

GraphDef from_message(const tensorflow::GraphDef& message, std::string_view source) {
  auto def = tfproto::from_proto(message);
  if (!def.ok())
    throw_if_error(
        Status(def.status().code(), std::string(source) + ": " + def.status().message()));
  return *def;
}

tensorflow::GraphDef to_message(const GraphDef& def) {
  tensorflow::GraphDef message;
  throw_if_error(tfproto::to_proto(def, &message));
  if (def.version <= 1) message.mutable_versions()->set_producer(kGraphDefProducer);
  return message;
}

bool text_name(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".pbtxt" || ext == ".txt";
}

}  // namespace

GraphDef parse_graph_def(std::string_view bytes, std::string_view source) {
  tensorflow::GraphDef message;
  detail::parse_binary_or_throw(bytes, source, "GraphDef", &message);
  return from_message(message, source);
}

GraphDef parse_graph_def_text(std::string_view text, std::string_view source) {
  tensorflow::GraphDef message;
  detail::parse_text_or_throw(text, source, &message);
  return from_message(message, source);
}

std::string serialize_graph_def(const GraphDef& def) {
  return detail::serialize_deterministic(to_message(def));
}

std::string graph_def_to_text(const GraphDef& def) { return detail::print_text(to_message(def)); }

GraphDef read_graph_def(const std::string& path) {
  const std::string bytes = detail::read_whole_file(path, "GraphDef");
  if (text_name(path)) return parse_graph_def_text(bytes, path);
  tensorflow::GraphDef message;
  if (message.ParseFromString(bytes)) return from_message(message, path);
  try {
    return parse_graph_def_text(bytes, path);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(invalid_argument(
        path + ": neither a binary nor a text GraphDef (as text: " + std::string(e.what()) + ")"));
  }
}

std::string write_graph(const GraphDef& def, const std::string& dir, const std::string& name,
                        bool as_text) {
  const std::string path = dir.empty() ? name : (fs::path(dir) / name).string();
  detail::write_file_atomically(path, as_text ? graph_def_to_text(def) : serialize_graph_def(def));
  return path;
}

}  // namespace af
