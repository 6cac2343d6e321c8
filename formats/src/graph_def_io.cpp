// GraphDef files: binary and text format through the generated code of formats/proto,
// written as TensorFlow's `tf.io.write_graph` writes them.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include "actorflow/formats/graph_def.hpp"
#include "tf_proto.hpp"

namespace af {

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

GraphDef from_message(const tensorflow::GraphDef& message, std::string_view source) {
  auto def = tfproto::from_proto(message);
  if (!def.ok()) throw_if_error(Status(def.status().code(), std::string(source) + ": " + def.status().message()));
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
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX) ||
      !message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InvalidArgumentError(invalid_argument(std::string(source) + ": not a binary GraphDef (" +
                                                std::to_string(bytes.size()) + " bytes that do not parse)"));
  return from_message(message, source);
}

GraphDef parse_graph_def_text(std::string_view text, std::string_view source) {
  tensorflow::GraphDef message;
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &message))
    throw InvalidArgumentError(invalid_argument(std::string(source) + ":" +
                                                (errors.first.empty() ? "1:1: not a text GraphDef" : errors.first)));
  return from_message(message, source);
}

std::string serialize_graph_def(const GraphDef& def) {
  const tensorflow::GraphDef message = to_message(def);
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string graph_def_to_text(const GraphDef& def) {
  const tensorflow::GraphDef message = to_message(def);
  std::string out;
  google::protobuf::TextFormat::PrintToString(message, &out);
  return out;
}

GraphDef read_graph_def(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NotFoundError(not_found(path + ": no such GraphDef file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  if (text_name(path)) return parse_graph_def_text(bytes, path);
  tensorflow::GraphDef message;
  if (message.ParseFromString(bytes)) return from_message(message, path);
  try {
    return parse_graph_def_text(bytes, path);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(invalid_argument(path + ": neither a binary nor a text GraphDef (as text: " +
                                                std::string(e.what()) + ")"));
  }
}

std::string write_graph(const GraphDef& def, const std::string& dir, const std::string& name, bool as_text) {
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  const std::string path = dir.empty() ? name : (fs::path(dir) / name).string();
  const std::string content = as_text ? graph_def_to_text(def) : serialize_graph_def(def);
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
  return path;
}

GraphDef export_graph_def(const Graph& g, bool add_shapes) {
  GraphDef def;
  def.version = kGraphDefProducer;
  for (const Node* n : g.nodes()) {
    NodeDef node = n->def();
    if (add_shapes) node.attrs["_output_shapes"] = n->output_shapes();
    def.nodes.push_back(std::move(node));
  }
  return def;
}

}  // namespace af
