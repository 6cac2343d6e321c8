// actorflow-graph: TensorFlow graph files from the command line.
//
//   actorflow-graph info FILE                  node and op-type counts, devices, collections,
//                                              the saver, and the op types actorflow lacks
//   actorflow-graph convert FILE OUT           between .pb, .pbtxt, .meta and .json (by extension)
//   actorflow-graph run FILE --feed x=1,2,3,4@2x2 --fetch y:0
//                                              runs a (frozen) graph once and prints the fetches
//   actorflow-graph ops                        the op types actorflow knows, one a line
//   actorflow-graph info DIR                   a SavedModel: tag sets, signatures, assets
//   actorflow-graph run DIR --signature serving_default --feed x=1,2@1x2
//                                              runs a SavedModel's signature, prints its outputs
//   actorflow-graph export-saved-model M.meta CKPT DIR --input x=x:0 --output y=y:0
//                                              a Saver's .meta and checkpoint as a SavedModel
//
// FILE is a binary or text GraphDef, a MetaGraphDef (.meta) or actorflow's JSON graph (.json);
// DIR a SavedModel export directory (saved_model_commands.cpp).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/graph_json.hpp>
#include <actorflow/ops/op_registry.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"

namespace {

namespace fs = std::filesystem;

std::string extension(const std::string& path) { return fs::path(path).extension().string(); }

/// What a file holds: always a GraphDef, and the MetaGraphDef around it for `.meta` files.
struct Loaded {
  af::GraphDef graph;
  std::optional<af::MetaGraphDef> meta;
  std::string kind;
};

Loaded load(const std::string& path) {
  const std::string ext = extension(path);
  if (ext == ".meta") {
    af::MetaGraphDef meta = af::read_meta_graph_def(path);
    af::GraphDef graph = meta.graph_def;
    return {std::move(graph), std::move(meta), "MetaGraphDef"};
  }
  if (ext == ".json") {
    std::ifstream in(path);
    if (!in) throw af::NotFoundError(af::not_found(path + ": no such file"));
    std::stringstream text;
    text << in.rdbuf();
    return {af::graph_def_from_json(text.str()), std::nullopt, "JSON graph"};
  }
  return {af::read_graph_def(path), std::nullopt,
          ext == ".pbtxt" || ext == ".txt" ? "GraphDef (text)" : "GraphDef"};
}

int info(const std::string& path) {
  const Loaded file = load(path);
  af::register_queue_ops();
  af::summary::register_summary_ops();
  af::register_dataset_functions();
  std::map<std::string, int> types, devices;
  std::map<std::string, std::pair<int, std::string>> unknown;
  for (const auto& n : file.graph.nodes) {
    ++types[n.op];
    ++devices[n.device.empty() ? "(none)" : n.device];
    if (!af::OpRegistry::global().find(n.op)) {
      auto& u = unknown[n.op];
      if (u.first++ == 0) u.second = n.name;
    }
  }
  std::cout << path << ": " << file.kind << ", producer " << file.graph.version << ", "
            << file.graph.nodes.size() << " nodes, " << types.size() << " op types\n";
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [t, c] : types) by_count.emplace_back(-c, t);
  std::sort(by_count.begin(), by_count.end());
  std::cout << "op types:\n";
  for (const auto& [c, t] : by_count) std::cout << "  " << t << " " << -c << "\n";
  std::cout << "devices:\n";
  for (const auto& [d, c] : devices) std::cout << "  " << d << " " << c << "\n";
  if (!file.graph.function_library.empty())
    std::cout << "function library: present (the functions its nodes call are inlined above)\n";
  if (file.meta) {
    if (file.meta->saver_def)
      std::cout << "saver: prefix " << file.meta->saver_def->filename_tensor_name << ", save "
                << file.meta->saver_def->save_tensor_name << ", restore "
                << file.meta->saver_def->restore_op_name
                << (file.meta->saver_def->sharded ? ", sharded" : "") << "\n";
    std::cout << "collections:\n";
    for (const auto& [name, c] : file.meta->collections) {
      const std::size_t n = c.node_list.size() + c.bytes_list.size() + c.int64_list.size() +
                            c.float_list.size() + c.any_list.size();
      std::cout << "  " << name << " " << n << "\n";
    }
  }
  if (unknown.empty()) {
    std::cout << "actorflow has every op type of this graph\n";
    return 0;
  }
  std::cout << "actorflow cannot run:\n";
  for (const auto& [t, u] : unknown)
    std::cout << "  " << t << " (" << u.first << " nodes, e.g. '" << u.second << "')\n";
  return 3;
}

int convert(const std::string& in, const std::string& out) {
  Loaded file = load(in);
  const std::string ext = extension(out);
  if (ext == ".meta") {
    af::MetaGraphDef meta = file.meta ? *file.meta : af::MetaGraphDef{};
    meta.graph_def = file.graph;
    af::write_meta_graph_def(meta, out);
  } else if (ext == ".json") {
    std::ofstream o(out);
    o << af::graph_def_to_json(file.graph);
    if (!o) throw af::UnavailableError(af::unavailable("cannot write " + out));
  } else if (ext == ".pbtxt" || ext == ".txt") {
    af::write_graph(file.graph, "", out, true);
  } else if (ext == ".pb") {
    af::write_graph(file.graph, "", out, false);
  } else {
    std::cerr << "actorflow-graph: convert: " << out
              << ": the extension must be .pb, .pbtxt, .meta or .json\n";
    return 2;
  }
  std::cout << in << " -> " << out << " (" << file.graph.nodes.size() << " nodes)\n";
  return 0;
}

int run(const std::string& path, const std::vector<std::string>& feeds,
        const std::vector<std::string>& fetches) {
  if (fetches.empty())
    throw af::InvalidArgumentError(af::invalid_argument("run " + path + ": no --fetch given"));
  const Loaded file = load(path);
  af::Graph g;
  af::import_graph_def(g, file.graph, {.name = ""});
  af::FeedDict feed_dict;
  for (const auto& spec : feeds) {
    std::string name = spec.substr(0, spec.find('='));
    const af::Output target = g.output(name);
    feed_dict.emplace_back(target, af::apps::parse_feed(spec, target, &name));
  }
  std::vector<af::Output> outs;
  for (const auto& f : fetches) outs.push_back(g.output(f));
  af::Session sess(g);
  auto values = sess.run(outs, feed_dict);
  for (std::size_t i = 0; i < outs.size(); ++i)
    std::cout << fetches[i] << " = " << values[i].debug_string() << "\n";
  return 0;
}

/// Prints every registered op type (queues, summaries and datasets included), one a line.
// The op types, one a line; with `kernels`, each op's CPU kernels instead, a line each:
// "OP<TAB>attr=dtype,dtype;attr=..." (the dtypes its constraints allow; "OP<TAB>" alone for
// a kernel of no constraint, "OP<TAB>-" for an op with no CPU kernel).
int list_ops(bool kernels) {
  af::register_queue_ops();
  af::summary::register_summary_ops();
  af::register_dataset_functions();
  const af::KernelRegistry& registry = af::KernelRegistry::global();
  for (const auto& name : af::OpRegistry::global().names()) {
    if (!kernels) {
      std::cout << name << "\n";
      continue;
    }
    const std::vector<af::KernelDef> defs = registry.kernels_for(name, "CPU");
    if (defs.empty()) std::cout << name << "\t-\n";
    for (const af::KernelDef& d : defs) {
      std::cout << name << "\t";
      for (std::size_t i = 0; i < d.constraints.size(); ++i) {
        std::cout << (i ? ";" : "") << d.constraints[i].first << "=";
        for (std::size_t k = 0; k < d.constraints[i].second.size(); ++k)
          std::cout << (k ? "," : "") << af::dtype_name(d.constraints[i].second[k]);
      }
      std::cout << "\n";
    }
  }
  return 0;
}

}  // namespace

namespace af::apps {

Tensor parse_feed(const std::string& spec, const Output& target, std::string* name) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos)
    throw af::InvalidArgumentError(
        af::invalid_argument("--feed " + spec + ": expected NAME=VALUES"));
  *name = spec.substr(0, eq);
  std::string values = spec.substr(eq + 1);
  std::optional<af::Shape> shape;
  if (auto at = values.rfind('@'); at != std::string::npos) {
    std::vector<std::int64_t> dims;
    std::stringstream ds(values.substr(at + 1));
    for (std::string d; std::getline(ds, d, 'x');)
      if (!d.empty()) dims.push_back(std::stoll(d));
    shape = af::Shape(dims);
    values = values.substr(0, at);
  }
  std::vector<std::string> items;
  std::stringstream vs(values);
  for (std::string v; std::getline(vs, v, ',');) items.push_back(v);
  const af::Shape s = shape ? *shape : af::Shape{static_cast<std::int64_t>(items.size())};
  if (s.num_elements() != static_cast<std::int64_t>(items.size()))
    throw af::InvalidArgumentError(af::invalid_argument("--feed " + *name + ": " +
                                                        std::to_string(items.size()) +
                                                        " values for shape " + s.to_string()));
  af::Tensor t(target.dtype(), s);
  for (std::size_t i = 0; i < items.size(); ++i) {
    switch (target.dtype()) {
      case af::DType::float32:
        t.data<float>()[i] = std::stof(items[i]);
        break;
      case af::DType::float64:
        t.data<double>()[i] = std::stod(items[i]);
        break;
      case af::DType::int32:
        t.data<std::int32_t>()[i] = std::stoi(items[i]);
        break;
      case af::DType::int64:
        t.data<std::int64_t>()[i] = std::stoll(items[i]);
        break;
      case af::DType::boolean:
        t.data<bool>()[i] = items[i] == "true" || items[i] == "1";
        break;
      case af::DType::string:
        t.data<std::string>()[i] = items[i];
        break;
      default:
        throw af::InvalidArgumentError(
            af::invalid_argument("--feed " + *name + ": cannot feed a " +
                                 std::string(af::dtype_name(target.dtype())) + " from text"));
    }
  }
  return t;
}

}  // namespace af::apps

int main(int argc, char** argv) {
  af::apps::App app(
      "actorflow-graph",
      "TensorFlow graph files: inspect, convert and run GraphDefs and MetaGraphDefs.");
  auto& cli = app.cli;
  cli.require_subcommand(1);
  std::string file, out;
  std::vector<std::string> feeds, fetches;
  auto* info_cmd = cli.add_subcommand(
      "info", "node and op-type counts, devices, collections, what actorflow cannot run");
  info_cmd->add_option("FILE", file, "a .pb, .pbtxt, .meta or .json graph, or a SavedModel")
      ->required();
  auto* convert_cmd =
      cli.add_subcommand("convert", "convert between .pb, .pbtxt, .meta and .json (by extension)");
  convert_cmd->add_option("FILE", file, "the graph to read")->required();
  convert_cmd->add_option("OUT", out, "the file to write")->required();
  auto* run_cmd =
      cli.add_subcommand("run", "run a graph once (a frozen graph) and print the fetches");
  run_cmd->add_option("FILE", file, "the graph to run, or a SavedModel directory")->required();
  run_cmd->add_option("--feed", feeds,
                      "NAME=V1,V2,...[@D1xD2]: a value for a placeholder (a vector unless shaped)");
  run_cmd->add_option("--fetch", fetches,
                      "a tensor to print (NAME or NAME:K); of a SavedModel, an output key "
                      "(default: all)");
  std::vector<std::string> tags{"serve"};
  std::string signature = "serving_default", checkpoint;
  std::vector<std::string> inputs, outputs;
  run_cmd->add_option("--tag", tags, "a SavedModel's tag set to load (default: serve)");
  run_cmd->add_option("--signature", signature,
                      "the SavedModel signature to run (default: serving_default)");
  auto* ops_cmd = cli.add_subcommand("ops", "list the op types actorflow knows, one a line");
  bool kernels = false;
  ops_cmd->add_flag("--kernels", kernels,
                    "list each op's CPU kernels and the dtypes they take (OP<TAB>attr=t,t;...)");
  auto* export_cmd = cli.add_subcommand(
      "export-saved-model", "write a .meta and its checkpoint as a SavedModel for serving");
  export_cmd->add_option("META", file, "the .meta file")->required();
  export_cmd->add_option("CHECKPOINT", checkpoint, "the checkpoint's prefix")->required();
  export_cmd->add_option("DIR", out, "the export directory (absent or empty)")->required();
  export_cmd->add_option("--input", inputs, "KEY=TENSOR: a signature input")->required();
  export_cmd->add_option("--output", outputs, "KEY=TENSOR: a signature output")->required();
  export_cmd->add_option("--tag", tags, "the tag set (default: serve)");
  bool strip = false;
  export_cmd->add_flag("--strip-default-attrs", strip,
                       "leave out attributes at their op's default");
  if (auto code = app.parse(argc, argv)) return *code;
  try {
    if (ops_cmd->parsed()) return list_ops(kernels);
    const bool dir = fs::is_directory(file);
    if (info_cmd->parsed()) return dir ? af::apps::saved_model_info(file) : info(file);
    if (convert_cmd->parsed()) return convert(file, out);
    if (export_cmd->parsed())
      return af::apps::export_saved_model(file, checkpoint, out, tags, inputs, outputs, strip);
    if (dir) return af::apps::saved_model_run(file, tags, signature, feeds, fetches);
    return run(file, feeds, fetches);
  } catch (const std::exception& e) {
    std::cerr << "actorflow-graph: " << e.what() << "\n";
    return 1;
  }
}
