// actorflow-graph's SavedModel subcommands: info, run and export-saved-model.
#include <actorflow/ops/op_registry.hpp>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "commands.hpp"

namespace af::apps {

namespace {

/// `DT_FLOAT`, as saved_model_cli prints a dtype.
std::string dt_name(DType t) {
  if (t == DType::invalid) return "DT_INVALID";
  std::string s(data_type_string(t));
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return "DT_" + s;
}

/// `(-1, 3)` or `unknown_rank`, as saved_model_cli prints a shape.
std::string shape_text(const PartialShape& s) {
  if (!s.rank_known()) return "unknown_rank";
  std::string out = "(";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s.dim(i));
  return out + (s.rank() == 1 ? ",)" : ")");
}

void print_tensor_info(const std::string& kind, const std::string& key, const TensorInfo& t) {
  std::cout << "    " << kind << "['" << key << "'] tensor_info:\n"
            << "        dtype: " << dt_name(t.dtype) << "\n"
            << "        shape: " << shape_text(t.shape) << "\n";
  if (t.coo_sparse)
    std::cout << "        SparseTensor: values " << t.coo_sparse->values_tensor_name << ", indices "
              << t.coo_sparse->indices_tensor_name << ", dense_shape "
              << t.coo_sparse->dense_shape_tensor_name << "\n";
  else if (!t.composite_tensor.empty())
    std::cout << "        a composite tensor\n";
  else
    std::cout << "        name: " << t.name << "\n";
}

std::string tag_set(const std::vector<std::string>& tags) {
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? "'" : ", '") + t + "'";
  return out;
}

/// `KEY=TENSOR` pairs into a map.
std::map<std::string, Output> named_tensors(Graph& g, const std::vector<std::string>& specs,
                                            const char* option) {
  std::map<std::string, Output> out;
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos)
      throw InvalidArgumentError(
          invalid_argument(std::string(option) + " " + spec + ": expected KEY=TENSOR"));
    out.emplace(spec.substr(0, eq), g.output(spec.substr(eq + 1)));
  }
  return out;
}

}  // namespace

int saved_model_info(const std::string& dir) {
  register_queue_ops();
  summary::register_summary_ops();
  register_dataset_functions();
  const SavedModel model = read_saved_model(dir);
  std::cout << dir << ": SavedModel, " << model.meta_graphs.size() << " MetaGraphDef"
            << (model.meta_graphs.size() == 1 ? "" : "s") << "\n";
  int code = 0;
  for (const auto& meta : model.meta_graphs) {
    std::cout << "\nMetaGraphDef with tag-set: " << tag_set(meta.tags)
              << " contains the following SignatureDefs:\n";
    for (const auto& [key, sig] : meta.signature_defs) {
      std::cout << "\nsignature_def['" << key << "']:\n"
                << "  The given SavedModel SignatureDef contains the following input(s):\n";
      for (const auto& [k, t] : sig.inputs) print_tensor_info("inputs", k, t);
      std::cout << "  The given SavedModel SignatureDef contains the following output(s):\n";
      for (const auto& [k, t] : sig.outputs) print_tensor_info("outputs", k, t);
      std::cout << "  Method name is: " << sig.method_name << "\n";
    }
    std::set<std::string> lacking;
    for (const auto& n : meta.graph_def.nodes)
      if (!OpRegistry::global().find(n.op)) lacking.insert(n.op);
    std::cout << "\n" << meta.graph_def.nodes.size() << " nodes";
    if (meta.saver_def) std::cout << ", saver restoring with " << meta.saver_def->restore_op_name;
    std::cout << "\n";
    if (lacking.empty()) {
      std::cout << "actorflow has every op type of this MetaGraphDef\n";
    } else {
      std::cout << "actorflow cannot run:";
      for (const auto& t : lacking) std::cout << " " << t;
      std::cout << "\n";
      code = 3;
    }
  }
  const std::filesystem::path assets = std::filesystem::path(dir) / "assets";
  if (std::filesystem::is_directory(assets))
    for (const auto& e : std::filesystem::directory_iterator(assets))
      std::cout << "asset: " << e.path().filename().string() << "\n";
  if (train::checkpoint_exists(dir + "/variables/variables"))
    std::cout << "variables: " << train::list_variables(dir + "/variables/variables").size()
              << " tensors in variables/variables\n";
  if (std::filesystem::exists(std::filesystem::path(dir) / "fingerprint.pb"))
    std::cout << "fingerprint: " << read_fingerprint(dir).singleprint() << "\n";
  return code;
}

int saved_model_run(const std::string& dir, const std::vector<std::string>& tags,
                    const std::string& signature, const std::vector<std::string>& feeds,
                    const std::vector<std::string>& fetches) {
  saved_model::SavedModelBundle bundle(dir, tags);
  const SignatureDef& sig = bundle.signature(signature);
  std::map<std::string, Tensor> inputs;
  for (const auto& spec : feeds) {
    const std::string key = spec.substr(0, spec.find('='));
    auto it = sig.inputs.find(key);
    if (it == sig.inputs.end())
      throw InvalidArgumentError(
          invalid_argument("signature '" + signature + "' has no input '" + key + "'"));
    std::string name;
    inputs.emplace(key, parse_feed(spec, bundle.graph().output(it->second.name), &name));
  }
  for (const auto& [key, value] : bundle.run(signature, inputs, fetches))
    std::cout << key << " = " << value.debug_string() << "\n";
  return 0;
}

int export_saved_model(const std::string& meta, const std::string& checkpoint,
                       const std::string& dir, const std::vector<std::string>& tags,
                       const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs, bool strip_default_attrs) {
  Graph g;
  Session sess(g);
  std::unique_ptr<train::Saver> saver = train::import_meta_graph(g, meta);
  if (saver) saver->restore(sess, checkpoint);
  saved_model::MetaGraphOptions options;
  options.signature_def_map.emplace(
      saved_model::kDefaultServingSignatureDefKey,
      saved_model::predict_signature_def(named_tensors(g, inputs, "--input"),
                                         named_tensors(g, outputs, "--output")));
  for (const auto& v : g.get_collection(saved_model::kAssetFilepathsKey))
    if (const Output* t = std::any_cast<Output>(&v)) options.assets_collection.push_back(*t);
  if (!g.get_collection(lookup::kTableInitializers).empty())
    options.main_op = lookup::tables_initializer(g, "saved_model_tables_init");
  options.saver = saver.get();
  options.strip_default_attrs = strip_default_attrs;
  saved_model::Builder builder(dir);
  builder.add_meta_graph_and_variables(sess, g, tags, options);
  std::cout << meta << " + " << checkpoint << " -> " << builder.save() << "\n";
  return 0;
}

}  // namespace af::apps
