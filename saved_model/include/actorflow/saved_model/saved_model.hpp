#pragma once

// TensorFlow's SavedModel export directories (`tf.compat.v1.saved_model`): load one into a
// session (`loader.load`, and TensorFlow C++'s `LoadSavedModel` as SavedModelBundle), build
// one (`builder.SavedModelBuilder`, `simple_save`) and describe its signatures
// (`signature_def_utils`). The directory holds `saved_model.pb` (formats/saved_model.hpp),
// the variables as a V2 checkpoint `variables/variables.{index,data-*}` and the asset files
// under `assets/`; TensorFlow loads what is written here and the other way round.

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/formats/saved_model.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"
#include "actorflow/train/saver.hpp"

namespace af::saved_model {

// -- TensorFlow's constants (tag_constants, signature_constants, constants) -------------------

inline constexpr const char* kServing = "serve";   ///< tag of serving graphs
inline constexpr const char* kTraining = "train";  ///< tag of training graphs
inline constexpr const char* kEval = "eval";       ///< tag of evaluation graphs
inline constexpr const char* kGpu = "gpu";         ///< tag of GPU graphs
inline constexpr const char* kTpu = "tpu";         ///< tag of TPU graphs

/// The signature key `simple_save` writes and servers look up by default.
inline constexpr const char* kDefaultServingSignatureDefKey = "serving_default";
inline constexpr const char* kPredictMethodName = "tensorflow/serving/predict";    ///< Predict
inline constexpr const char* kClassifyMethodName = "tensorflow/serving/classify";  ///< Classify
inline constexpr const char* kRegressMethodName = "tensorflow/serving/regress";    ///< Regress
inline constexpr const char* kClassifyInputs = "inputs";          ///< classification input key
inline constexpr const char* kClassifyOutputClasses = "classes";  ///< classification output key
inline constexpr const char* kClassifyOutputScores = "scores";    ///< classification output key
inline constexpr const char* kRegressInputs = "inputs";           ///< regression input key
inline constexpr const char* kRegressOutputs = "outputs";         ///< regression output key

/// The collection holding the op the loader runs after restoring (`MAIN_OP_KEY`).
inline constexpr const char* kMainOpKey = "saved_model_main_op";
/// The collection older SavedModels hold it in (`LEGACY_INIT_OP_KEY`).
inline constexpr const char* kLegacyInitOpKey = "legacy_init_op";
/// The collection of AssetFileDefs (as Any) TensorFlow 1's builder writes (`ASSETS_KEY`).
inline constexpr const char* kAssetsKey = "saved_model_assets";
/// The graph collection of asset path constants `simple_save` exports
/// (`GraphKeys.ASSET_FILEPATHS`).
inline constexpr const char* kAssetFilepathsKey = "asset_filepaths";
/// The signature naming TensorFlow 2's init op (`INIT_OP_SIGNATURE_KEY`), reserved.
inline constexpr const char* kInitOpSignatureKey = "__saved_model_init_op";
/// The signature naming a train op (`TRAIN_OP_SIGNATURE_KEY`), reserved.
inline constexpr const char* kTrainOpSignatureKey = "__saved_model_train_op";

// -- signature_def_utils ---------------------------------------------------------------------

/// `build_tensor_info`: `t`'s name, dtype and static shape.
TensorInfo build_tensor_info(const Output& t);
/// `build_tensor_info` of a SparseTensor: its three tensors' names (`coo_sparse`), the values'
/// dtype and the static shape of the dense tensor when known.
TensorInfo build_tensor_info(const SparseTensor& t);
/// `build_signature_def`.
SignatureDef build_signature_def(std::map<std::string, TensorInfo> inputs,
                                 std::map<std::string, TensorInfo> outputs,
                                 std::string method_name);
/// `predict_signature_def`: the method `kPredictMethodName`. Throws InvalidArgumentError
/// "Prediction `inputs` cannot be None or empty." (and for `outputs`).
SignatureDef predict_signature_def(const std::map<std::string, Output>& inputs,
                                   const std::map<std::string, Output>& outputs);
/// `classification_signature_def`: string `examples` under "inputs", string `classes` and
/// float `scores` (either may be invalid, not both). Throws InvalidArgumentError with
/// TensorFlow's messages for a missing tensor or a wrong dtype.
SignatureDef classification_signature_def(const Output& examples, const Output& classes,
                                          const Output& scores);
/// `regression_signature_def`: string `examples` under "inputs", float `predictions` under
/// "outputs"; TensorFlow's errors otherwise.
SignatureDef regression_signature_def(const Output& examples, const Output& predictions);

// -- loading ---------------------------------------------------------------------------------

/// True when `export_dir` holds `saved_model.pb` or `saved_model.pbtxt`
/// (`maybe_saved_model_directory`).
bool contains_saved_model(const std::string& export_dir);

/// The MetaGraphDef of `model` tagged with exactly the set `tags`. Throws NotFoundError
/// "MetaGraphDef associated with tags 'a', 'b' could not be found in SavedModel, with available
/// tags '[{'serve'}]'. ..." otherwise.
const MetaGraphDef& meta_graph_def_from_tags(const SavedModel& model,
                                             const std::vector<std::string>& tags);

/// `loader.load`'s keyword arguments.
struct LoadOptions {
  /// Prefix of every imported name (`scope/`); the returned MetaGraphDef keeps the names it
  /// has in the file.
  std::string import_scope;
  /// Imported nodes keep no `device`.
  bool clear_devices = false;
};

/// `tf.compat.v1.saved_model.loader.load`: imports the MetaGraphDef tagged `tags` into `g`
/// (the graph of `sess`), restores its variables from `variables/variables` through its
/// Saver, then runs its init op (the `__saved_model_init_op` signature's, else the
/// `saved_model_main_op` or `legacy_init_op` collection's) feeding each asset tensor the path
/// of its file under `assets/`. Returns the MetaGraphDef. Throws read_saved_model's errors,
/// meta_graph_def_from_tags', import_meta_graph's, the restore's (NotFoundError for a missing
/// variable) and the init op's, and InvalidArgumentError "Expected exactly one SavedModel init
/// op. Found N: [...]." for a collection of several.
MetaGraphDef load(Session& sess, Graph& g, const std::vector<std::string>& tags,
                  const std::string& export_dir, const LoadOptions& options = {});

/// A SparseTensor's value (`tf.compat.v1.SparseTensorValue`): int64 `indices` [N, rank],
/// `values` [N] and int64 `dense_shape` [rank].
struct SparseTensorValue {
  Tensor indices;      ///< where each value is
  Tensor values;       ///< the values
  Tensor dense_shape;  ///< the dense tensor's shape
};

/// One input or output of a signature by value: a tensor, or a SparseTensor's three (a
/// `coo_sparse` TensorInfo).
using SignatureValue = std::variant<Tensor, SparseTensorValue>;

/// A loaded SavedModel with its own graph and session (TensorFlow C++'s SavedModelBundle
/// and `LoadSavedModel`); runs its signatures by key.
class SavedModelBundle {
 public:
  /// Loads `export_dir`'s MetaGraphDef tagged `tags` into a new graph and a new in-process
  /// session with `config`; throws as `load`.
  SavedModelBundle(const std::string& export_dir, const std::vector<std::string>& tags,
                   SessionConfig config = {});
  ~SavedModelBundle();
  SavedModelBundle(const SavedModelBundle&) = delete;
  SavedModelBundle& operator=(const SavedModelBundle&) = delete;

  /// The graph holding the model.
  Graph& graph() noexcept { return *graph_; }
  /// The session holding its variables.
  Session& session() noexcept { return *session_; }
  /// The MetaGraphDef loaded (its signatures, collections, asset files).
  const MetaGraphDef& meta_graph_def() const noexcept { return meta_; }
  /// The signature `key`; NotFoundError "No signature 'key' in the SavedModel; it has: a, b"
  /// otherwise.
  const SignatureDef& signature(const std::string& key) const;

  /// Runs signature `key`: feeds `inputs` (by input key; a missing input takes the
  /// signature's default when it has one) and returns the outputs named by `output_keys`
  /// (every output when empty), by key. Throws InvalidArgumentError naming the signature and
  /// the key for an unknown or missing input or output key, or for a SparseTensor (use
  /// `run_values`) or composite tensor (feed and fetch its tensors by name instead); the
  /// step's errors otherwise.
  std::map<std::string, Tensor> run(const std::string& key,
                                    const std::map<std::string, Tensor>& inputs,
                                    const std::vector<std::string>& output_keys = {});
  /// `run` for signatures with SparseTensor inputs or outputs (`coo_sparse`): a sparse key
  /// takes and gives a SparseTensorValue, fed and fetched through its three tensors. A
  /// SparseTensorValue for a dense key, or a Tensor for a sparse one, throws
  /// InvalidArgumentError naming the signature and the key; composite tensors (TensorFlow 2's
  /// `composite_tensor` encoding) are refused as `run` refuses them.
  std::map<std::string, SignatureValue> run_values(
      const std::string& key, const std::map<std::string, SignatureValue>& inputs,
      const std::vector<std::string>& output_keys = {});

 private:
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<Session> session_;
  MetaGraphDef meta_;
};

// -- building --------------------------------------------------------------------------------

/// What a MetaGraphDef of a SavedModel carries besides its graph (the keyword arguments of
/// `add_meta_graph_and_variables` and `add_meta_graph`).
struct MetaGraphOptions {
  /// Its signatures by key (the reserved `__saved_model_init_op` and
  /// `__saved_model_train_op` refused).
  std::map<std::string, SignatureDef> signature_def_map;
  /// Scalar string Const tensors holding paths of files to copy into `assets/`
  /// (`assets_collection`); the loader feeds each the copy's path.
  std::vector<Output> assets_collection;
  /// The op the loader runs after restoring the variables (`main_op`, or the deprecated
  /// `legacy_init_op`); added to the graph's `saved_model_main_op` collection.
  Operation main_op;
  /// Nodes are written without `device`.
  bool clear_devices = false;
  /// Attributes at their op's default are left out (TensorFlow's loaders fill them in).
  bool strip_default_attrs = false;
  /// The Saver whose SaverDef is written; null: a new sharded Saver of every global variable
  /// and saveable table, allowed to be empty, as TensorFlow makes.
  train::Saver* saver = nullptr;
};

/// `tf.compat.v1.saved_model.Builder`: writes an export directory holding one or more
/// MetaGraphDefs of a model, which share one set of variables and assets.
class Builder {
 public:
  /// Will write into `export_dir`, created when absent. Throws AlreadyExistsError "Export
  /// directory DIR already exists, and isn't empty. Please choose a different export
  /// directory, or delete all the contents of the specified directory." when it holds files.
  explicit Builder(std::string export_dir);

  /// Saves the variables of `sess` (with the options' saver, else a new one) to
  /// `variables/variables`, copies the asset files, and adds `g` as a MetaGraphDef tagged
  /// `tags`. Throws FailedPreconditionError "Graph state including variables and assets has
  /// already been saved. Please invoke `add_meta_graph()` instead." on a second call,
  /// InvalidArgumentError for a bad signature (a TensorInfo without a name or dtype, a reserved
  /// key) or asset tensor, and the save's errors.
  void add_meta_graph_and_variables(Session& sess, Graph& g, const std::vector<std::string>& tags,
                                    const MetaGraphOptions& options = {});
  /// Adds `g` as another MetaGraphDef tagged `tags`, using the variables saved before.
  /// Throws FailedPreconditionError "Graph state including variables and assets has not been
  /// saved yet. Please invoke `add_meta_graph_and_variables()` first." before them.
  void add_meta_graph(Graph& g, const std::vector<std::string>& tags,
                      const MetaGraphOptions& options = {});
  /// Writes `saved_model.pb` (`saved_model.pbtxt` when `as_text`) and returns its path.
  std::string save(bool as_text = false);

  /// The SavedModel built so far.
  const SavedModel& saved_model() const noexcept { return model_; }

 private:
  // TensorFlow's _add_collections: copies the assets, adds the main op to the graph.
  std::vector<AssetFileDef> add_collections(Graph& g, const MetaGraphOptions& options);
  MetaGraphDef export_graph(Graph& g, const std::vector<std::string>& tags,
                            const MetaGraphOptions& options, train::Saver& saver,
                            const std::vector<AssetFileDef>& assets);

  std::string export_dir_;
  SavedModel model_;
  bool has_saved_variables_ = false;
  std::map<std::string, std::string> asset_sources_;   // file name in assets/ -> source path
  std::vector<std::unique_ptr<train::Saver>> savers_;  // the Savers it made
};

/// `tf.compat.v1.saved_model.simple_save`: a SavedModel tagged "serve" whose
/// "serving_default" signature predicts `outputs` from `inputs`, the graph's
/// `asset_filepaths` collection as assets, `legacy_init_op` as main op and devices cleared.
void simple_save(Session& sess, Graph& g, const std::string& export_dir,
                 const std::map<std::string, Output>& inputs,
                 const std::map<std::string, Output>& outputs, Operation legacy_init_op = {});

}  // namespace af::saved_model
