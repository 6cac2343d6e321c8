// tf.compat.v1.saved_model.Builder and simple_save (TensorFlow's builder_impl.py and
// simple_save.py): the variables saved once by a sharded Saver into variables/variables, the
// asset files copied into assets/ (named by their base names, made unique when two differ),
// each graph exported as a MetaGraphDef with its tags and signatures.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "actorflow/saved_model/saved_model.hpp"
#include "actorflow/train/meta_graph.hpp"

namespace af::saved_model {

namespace fs = std::filesystem;

namespace {

void invalid(const std::string& message) { throw InvalidArgumentError(invalid_argument(message)); }

/// TensorFlow's _validate_signature_def_map.
void validate_signatures(const std::map<std::string, SignatureDef>& signatures) {
  auto check = [](const std::string& where, const TensorInfo& t) {
    if (t.name.empty() && !t.coo_sparse && t.composite_tensor.empty())
      invalid(where +
              ": Invalid `tensor_info`. All TensorInfo protos used in the SignatureDefs must "
              "have one of the 'encoding' fields (e.g., name or coo_sparse) set.");
    if (t.composite_tensor.empty() && t.dtype == DType::invalid)
      invalid(where +
              ": Invalid `tensor_info`. All TensorInfo protos used in the SignatureDefs must "
              "have the dtype field set.");
  };
  for (const auto& [key, sig] : signatures) {
    for (const auto& [k, t] : sig.inputs) check("signature '" + key + "' input '" + k + "'", t);
    for (const auto& [k, t] : sig.outputs) check("signature '" + key + "' output '" + k + "'", t);
  }
  if (signatures.count(kInitOpSignatureKey))
    invalid(std::string("SignatureDef map key \"") + kInitOpSignatureKey +
            "\" is reserved for initialization. Please use a different key.");
  if (signatures.count(kTrainOpSignatureKey))
    invalid(std::string("SignatureDef map key \"") + kTrainOpSignatureKey +
            "\" is reserved for the train op. Please use a different key.");
}

/// TensorFlow's _asset_path_from_tensor: the path a scalar string Const holds.
std::string asset_path(const Output& t) {
  if (!t.valid()) invalid("Asset path tensor must be a Tensor.");
  const std::string name = "'" + t.name() + "'";
  const Operation op = t.op();
  if (op.type() != "Const")
    invalid("Asset path tensor " + name + " must be of type constant.Has type " + op.type() +
            " instead.");
  if (t.dtype() != DType::string)
    invalid("Asset path tensor " + name + "` must be of dtype string.Has type " +
            std::string(dtype_name(t.dtype())) + " instead.");
  const Tensor* value = op.node_def().attr<Tensor>("value");
  if (!value || value->num_elements() != 1)
    invalid("Asset path tensor " + name + " must be a scalar.");
  const std::string path = value->data<std::string>()[0];
  if (path.empty()) invalid("Asset filepath tensor " + name + " in is invalid.");
  return path;
}

/// The options' Saver, else a new one as TensorFlow's _maybe_create_saver makes it (sharded,
/// every global variable and saveable table, allowed to be empty), kept in `made`.
train::Saver* saver_for(Graph& g, const MetaGraphOptions& options,
                        std::vector<std::unique_ptr<train::Saver>>& made) {
  if (options.saver) return options.saver;
  made.push_back(
      std::make_unique<train::Saver>(g, train::SaverOptions{.sharded = true, .allow_empty = true}));
  return made.back().get();
}

bool same_contents(const std::string& a, const std::string& b) {
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa || !fb) return false;
  return std::equal(std::istreambuf_iterator<char>(fa), std::istreambuf_iterator<char>(),
                    std::istreambuf_iterator<char>(fb), std::istreambuf_iterator<char>());
}

}  // namespace

Builder::Builder(std::string export_dir) : export_dir_(std::move(export_dir)) {
  std::error_code ec;
  if (fs::exists(export_dir_, ec)) {
    if (!fs::is_directory(export_dir_) || !fs::is_empty(export_dir_))
      throw AlreadyExistsError(already_exists(
          "Export directory " + export_dir_ +
          " already exists, and isn't empty. Please choose a different export directory, or "
          "delete all the contents of the specified directory."));
  } else if (!fs::create_directories(export_dir_, ec) && ec) {
    throw PermissionDeniedError(
        Status{Code::permission_denied,
               "Export directory " + export_dir_ + " cannot be created: " + ec.message()});
  }
}

std::vector<AssetFileDef> Builder::add_collections(Graph& g, const MetaGraphOptions& options) {
  // The assets: each tensor's file under a base name of its own in assets/.
  std::vector<AssetFileDef> assets;
  for (const Output& t : options.assets_collection) {
    const std::string source = asset_path(t);
    std::string filename = fs::path(source).filename().string();
    for (int i = 1;; ++i) {
      auto it = asset_sources_.find(filename);
      if (it == asset_sources_.end() || it->second == source || same_contents(it->second, source))
        break;
      filename = fs::path(source).filename().string() + "_" + std::to_string(i);
    }
    const bool copied = asset_sources_.count(filename) != 0;
    asset_sources_.emplace(filename, source);
    if (!copied && fs::exists(source)) {
      fs::create_directories(export_dir_ + "/assets");
      fs::copy_file(source, export_dir_ + "/assets/" + filename,
                    fs::copy_options::overwrite_existing);
    }
    AssetFileDef a;
    a.tensor_info.name = t.name();
    a.filename = filename;
    assets.push_back(std::move(a));
  }
  // The main op joins the graph's collection, once.
  if (options.main_op.valid()) {
    for (const char* key : {kMainOpKey, kLegacyInitOpKey})
      if (!g.get_collection(key).empty())
        invalid(std::string("Graph already contains one or more main ops under the collection ") +
                key + ".");
    g.add_to_collection(kMainOpKey, options.main_op);
  }
  return assets;
}

MetaGraphDef Builder::export_graph(Graph& g, const std::vector<std::string>& tags,
                                   const MetaGraphOptions& options, train::Saver& saver,
                                   const std::vector<AssetFileDef>& assets) {
  train::ExportMetaGraphOptions e;
  e.saver = &saver;
  e.clear_devices = options.clear_devices;
  e.strip_default_attrs = options.strip_default_attrs;
  MetaGraphDef meta = train::export_meta_graph(g, "", e);
  if (meta.saver_def && meta.saver_def->restore_op_name.empty()) meta.saver_def.reset();
  for (const auto& tag : tags) meta.tags.push_back(tag);
  for (const auto& [key, sig] : options.signature_def_map) meta.signature_defs[key] = sig;
  if (!assets.empty()) {
    CollectionDef& c = meta.collections[kAssetsKey];
    c.kind = CollectionDef::Kind::any_list;
    for (const auto& a : assets) c.any_list.push_back(pack_asset_file_def(a));
  }
  return meta;
}

void Builder::add_meta_graph_and_variables(Session& sess, Graph& g,
                                           const std::vector<std::string>& tags,
                                           const MetaGraphOptions& options) {
  if (has_saved_variables_)
    throw FailedPreconditionError(failed_precondition(
        "Graph state including variables and assets has already been saved. Please invoke "
        "`add_meta_graph()` instead."));
  validate_signatures(options.signature_def_map);
  const std::vector<AssetFileDef> assets = add_collections(g, options);
  train::Saver* saver = saver_for(g, options, savers_);
  fs::create_directories(export_dir_ + "/variables");
  // No state file and no .meta: a SavedModel is moved and copied whole.
  saver->save(sess, export_dir_ + "/variables/variables", std::nullopt, "checkpoint", false, false);
  model_.meta_graphs.push_back(export_graph(g, tags, options, *saver, assets));
  has_saved_variables_ = true;
}

void Builder::add_meta_graph(Graph& g, const std::vector<std::string>& tags,
                             const MetaGraphOptions& options) {
  if (!has_saved_variables_)
    throw FailedPreconditionError(failed_precondition(
        "Graph state including variables and assets has not been saved yet. Please invoke "
        "`add_meta_graph_and_variables()` first."));
  validate_signatures(options.signature_def_map);
  const std::vector<AssetFileDef> assets = add_collections(g, options);
  train::Saver* saver = saver_for(g, options, savers_);
  model_.meta_graphs.push_back(export_graph(g, tags, options, *saver, assets));
}

std::string Builder::save(bool as_text) {
  fs::create_directories(export_dir_);
  const std::string path = export_dir_ + (as_text ? "/saved_model.pbtxt" : "/saved_model.pb");
  write_saved_model(model_, path, as_text);
  return path;
}

void simple_save(Session& sess, Graph& g, const std::string& export_dir,
                 const std::map<std::string, Output>& inputs,
                 const std::map<std::string, Output>& outputs, Operation legacy_init_op) {
  MetaGraphOptions options;
  options.signature_def_map.emplace(kDefaultServingSignatureDefKey,
                                    predict_signature_def(inputs, outputs));
  for (const auto& v : g.get_collection(kAssetFilepathsKey))
    if (const Output* t = std::any_cast<Output>(&v)) options.assets_collection.push_back(*t);
  options.main_op = legacy_init_op;
  options.clear_devices = true;
  Builder b(export_dir);
  b.add_meta_graph_and_variables(sess, g, {kServing}, options);
  b.save();
}

}  // namespace af::saved_model
