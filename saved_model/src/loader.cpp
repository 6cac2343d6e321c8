// tf.compat.v1.saved_model.loader.load (TensorFlow's loader_impl.py) and SavedModelBundle:
// pick the MetaGraphDef by its tag set, import it, restore the variables through its Saver,
// run the init op with the asset files' paths fed.
#include <algorithm>
#include <filesystem>
#include <set>

#include "actorflow/saved_model/saved_model.hpp"
#include "actorflow/train/meta_graph.hpp"

namespace af::saved_model {

namespace {

std::string scoped(const std::string& scope, const std::string& name) {
  return scope.empty() ? name : scope + "/" + name;
}

/// Python's repr of a list of strings less its brackets, as the loader's message prints the
/// tags it was given: `'a', 'b'`.
std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "'" : ", '") + s + "'";
  return out;
}

/// The asset tensors to feed: tensor name (with the scope) -> the file's path under assets/.
std::vector<std::pair<std::string, std::string>> asset_feeds(const std::string& export_dir,
                                                             const MetaGraphDef& meta,
                                                             const std::string& scope) {
  std::vector<AssetFileDef> assets = meta.asset_file_defs;
  if (assets.empty()) {
    if (auto it = meta.collections.find(kAssetsKey); it != meta.collections.end())
      for (const auto& any : it->second.any_list)
        assets.push_back(unpack_asset_file_def(any, std::string("collection ") + kAssetsKey));
  }
  std::vector<std::pair<std::string, std::string>> feeds;
  for (const auto& a : assets)
    feeds.emplace_back(scoped(scope, a.tensor_info.name), export_dir + "/assets/" + a.filename);
  return feeds;
}

/// The op of collection `key` (exactly one), or "" when the MetaGraphDef has no such
/// collection.
std::string collection_op(const MetaGraphDef& meta, const char* key) {
  auto it = meta.collections.find(key);
  if (it == meta.collections.end()) return {};
  const auto& ops = it->second.node_list;
  if (ops.size() != 1) {
    std::string listed;
    for (const auto& o : ops) listed += (listed.empty() ? "'" : ", '") + o + "'";
    throw InvalidArgumentError(invalid_argument("Expected exactly one SavedModel init op. Found " +
                                                std::to_string(ops.size()) + ": [" + listed +
                                                "]."));
  }
  return ops.front();
}

/// TensorFlow's get_init_op: the init signature's output, else the main op, else the
/// legacy init op; "" when there is none.
std::string init_op_name(const MetaGraphDef& meta) {
  if (auto it = meta.signature_defs.find(kInitOpSignatureKey); it != meta.signature_defs.end()) {
    auto out = it->second.outputs.find(kInitOpSignatureKey);
    if (out != it->second.outputs.end()) return out->second.name;
  }
  std::string op = collection_op(meta, kMainOpKey);
  if (op.empty()) op = collection_op(meta, kLegacyInitOpKey);
  return op;
}

}  // namespace

bool contains_saved_model(const std::string& export_dir) {
  return std::filesystem::exists(export_dir + "/saved_model.pb") ||
         std::filesystem::exists(export_dir + "/saved_model.pbtxt");
}

const MetaGraphDef& meta_graph_def_from_tags(const SavedModel& model,
                                             const std::vector<std::string>& tags) {
  const std::set<std::string> wanted(tags.begin(), tags.end());
  std::string available;
  for (const auto& meta : model.meta_graphs) {
    if (std::set<std::string>(meta.tags.begin(), meta.tags.end()) == wanted) return meta;
    available += std::string(available.empty() ? "" : ", ") + "{" + quoted_list(meta.tags) + "}";
  }
  throw NotFoundError(not_found(
      "MetaGraphDef associated with tags " + quoted_list(tags) +
      " could not be found in SavedModel, with available tags '[" + available +
      "]'. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: "
      "`saved_model_cli`."));
}

MetaGraphDef load(Session& sess, Graph& g, const std::vector<std::string>& tags,
                  const std::string& export_dir, const LoadOptions& options) {
  const SavedModel model = read_saved_model(export_dir);
  const MetaGraphDef& meta = meta_graph_def_from_tags(model, tags);
  train::ImportMetaGraphOptions import;
  import.import_scope = options.import_scope;
  import.clear_devices = options.clear_devices;
  std::unique_ptr<train::Saver> saver = train::import_meta_graph(g, meta, import);
  // restore_variables: a graph without a Saver has no variables (import_meta_graph makes one
  // for any global variable).
  if (saver) saver->restore(sess, export_dir + "/variables/variables");
  const std::string init = init_op_name(meta);
  if (!init.empty()) {
    FeedDict feeds;
    for (const auto& [tensor, path] : asset_feeds(export_dir, meta, options.import_scope))
      feeds.emplace_back(g.output(tensor), Tensor(path));
    const std::string name = scoped(options.import_scope, init);
    if (name.find(':') != std::string::npos)
      sess.run(std::vector<Output>{g.output(name)}, feeds);
    else
      sess.run(g.operation(name), feeds);
  }
  return meta;
}

SavedModelBundle::SavedModelBundle(const std::string& export_dir,
                                   const std::vector<std::string>& tags, SessionConfig config)
    : graph_(std::make_unique<Graph>()),
      session_(std::make_unique<Session>(*graph_, std::move(config))) {
  meta_ = load(*session_, *graph_, tags, export_dir);
}

SavedModelBundle::~SavedModelBundle() { session_.reset(); }

const SignatureDef& SavedModelBundle::signature(const std::string& key) const {
  auto it = meta_.signature_defs.find(key);
  if (it != meta_.signature_defs.end()) return it->second;
  std::string keys;
  for (const auto& [k, s] : meta_.signature_defs) keys += (keys.empty() ? "" : ", ") + k;
  throw NotFoundError(not_found("No signature '" + key + "' in the SavedModel; it has: " + keys));
}

namespace {

// The tensors a signature's TensorInfo names: one (a dense tensor) or three (a SparseTensor:
// indices, values, dense_shape). InvalidArgument for a composite tensor.
std::vector<Output> tensors_of(Graph& g, const std::string& key, const TensorInfo& info,
                               const std::string& what) {
  if (!info.name.empty()) return {g.output(info.name)};
  if (info.coo_sparse)
    return {g.output(info.coo_sparse->indices_tensor_name),
            g.output(info.coo_sparse->values_tensor_name),
            g.output(info.coo_sparse->dense_shape_tensor_name)};
  throw InvalidArgumentError(invalid_argument("signature '" + key + "': " + what +
                                              " is a composite tensor: feed and fetch its "
                                              "tensors by name"));
}

// Feeds `value` to the tensors of `info`; InvalidArgument when a dense value meets a sparse
// key or the reverse.
void feed(Graph& g, const std::string& key, const std::string& k, const TensorInfo& info,
          const SignatureValue& value, FeedDict* feeds) {
  const auto tensors = tensors_of(g, key, info, "input '" + k + "'");
  const auto* sparse = std::get_if<SparseTensorValue>(&value);
  if ((tensors.size() == 3) != (sparse != nullptr))
    throw InvalidArgumentError(invalid_argument(
        "signature '" + key + "': input '" + k + "' is " +
        (tensors.size() == 3 ? "a SparseTensor: give a SparseTensorValue"
                             : "a dense tensor: give a Tensor, not a SparseTensorValue")));
  if (!sparse) {
    feeds->emplace_back(tensors[0], std::get<Tensor>(value));
    return;
  }
  feeds->emplace_back(tensors[0], sparse->indices);
  feeds->emplace_back(tensors[1], sparse->values);
  feeds->emplace_back(tensors[2], sparse->dense_shape);
}

}  // namespace

std::map<std::string, SignatureValue> SavedModelBundle::run_values(
    const std::string& key, const std::map<std::string, SignatureValue>& inputs,
    const std::vector<std::string>& output_keys) {
  const SignatureDef& sig = signature(key);
  FeedDict feeds;
  for (const auto& [k, value] : inputs) {
    auto it = sig.inputs.find(k);
    if (it == sig.inputs.end())
      throw InvalidArgumentError(
          invalid_argument("signature '" + key + "' has no input '" + k + "'"));
    feed(*graph_, key, k, it->second, value, &feeds);
  }
  for (const auto& [k, info] : sig.inputs) {
    if (inputs.count(k)) continue;
    auto d = sig.defaults.find(k);
    if (d == sig.defaults.end())
      throw InvalidArgumentError(
          invalid_argument("signature '" + key + "' needs input '" + k + "'"));
    feed(*graph_, key, k, info, d->second, &feeds);
  }
  std::vector<std::string> keys = output_keys;
  if (keys.empty())
    for (const auto& [k, info] : sig.outputs) keys.push_back(k);
  std::vector<Output> fetches;
  std::vector<bool> sparse;
  for (const auto& k : keys) {
    auto it = sig.outputs.find(k);
    if (it == sig.outputs.end())
      throw InvalidArgumentError(
          invalid_argument("signature '" + key + "' has no output '" + k + "'"));
    const auto tensors = tensors_of(*graph_, key, it->second, "output '" + k + "'");
    sparse.push_back(tensors.size() == 3);
    fetches.insert(fetches.end(), tensors.begin(), tensors.end());
  }
  std::vector<Tensor> values = session_->run(fetches, feeds);
  std::map<std::string, SignatureValue> out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (sparse[i]) {
      out.emplace(keys[i], SparseTensorValue{std::move(values[at]), std::move(values[at + 1]),
                                             std::move(values[at + 2])});
      at += 3;
    } else {
      out.emplace(keys[i], std::move(values[at++]));
    }
  }
  return out;
}

std::map<std::string, Tensor> SavedModelBundle::run(const std::string& key,
                                                    const std::map<std::string, Tensor>& inputs,
                                                    const std::vector<std::string>& output_keys) {
  const SignatureDef& sig = signature(key);
  auto refuse_sparse = [&](const std::map<std::string, TensorInfo>& infos, const std::string& k,
                           const char* what) {
    auto it = infos.find(k);
    if (it != infos.end() && it->second.coo_sparse)
      throw InvalidArgumentError(invalid_argument("signature '" + key + "': " + what + " '" + k +
                                                  "' is a SparseTensor: use run_values"));
  };
  std::map<std::string, SignatureValue> values;
  for (const auto& [k, v] : inputs) {
    refuse_sparse(sig.inputs, k, "input");
    values.emplace(k, v);
  }
  for (const auto& [k, info] : sig.inputs)
    if (!inputs.count(k)) refuse_sparse(sig.inputs, k, "input");
  std::vector<std::string> keys = output_keys;
  if (keys.empty())
    for (const auto& [k, info] : sig.outputs) keys.push_back(k);
  for (const auto& k : keys) refuse_sparse(sig.outputs, k, "output");
  std::map<std::string, Tensor> out;
  for (auto& [k, v] : run_values(key, values, keys)) out.emplace(k, std::get<Tensor>(std::move(v)));
  return out;
}

}  // namespace af::saved_model
