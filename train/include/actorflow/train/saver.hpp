#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/formats/meta_graph.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/lookup_ops.hpp"

namespace af::train {

/// The `checkpoint` state file of a directory (TensorFlow's `CheckpointState`).
struct CheckpointState {
  /// The latest checkpoint's prefix.
  std::string model_checkpoint_path;
  /// The checkpoints still kept, oldest first; the last one is the model path.
  std::vector<std::string> all_model_checkpoint_paths;
};

/// Reads `<checkpoint_dir>/<latest_filename>` (`tf.train.get_checkpoint_state`): nullopt when
/// the file does not exist; relative paths in it are joined to `checkpoint_dir`. Throws
/// DataLossError naming the file when it cannot be parsed.
std::optional<CheckpointState> get_checkpoint_state(
    const std::string& checkpoint_dir, const std::string& latest_filename = "checkpoint");

/// Writes the state file atomically (a temporary file renamed over it), as
/// `update_checkpoint_state`: paths relative to a relative `save_dir` are stored relative to
/// it; the model path is appended to `all_model_checkpoint_paths` when it is not last.
void update_checkpoint_state(const std::string& save_dir, const std::string& model_checkpoint_path,
                             std::vector<std::string> all_model_checkpoint_paths = {},
                             const std::string& latest_filename = "checkpoint");

/// The prefix of the latest checkpoint in `checkpoint_dir` (`tf.train.latest_checkpoint`),
/// or nullopt when there is no state file or its model path is no checkpoint (neither a
/// `.index` file nor V1 files, see `checkpoint_exists`).
std::optional<std::string> latest_checkpoint(const std::string& checkpoint_dir,
                                             const std::string& latest_filename = "checkpoint");

/// True when `prefix.index` exists (a V2 checkpoint) or some file matches `prefix` as a glob
/// (a V1 checkpoint: its file, or its shards through `P-?????-of-0000N`), as
/// `tf.train.checkpoint_exists`.
bool checkpoint_exists(const std::string& prefix);

/// The names and shapes stored in a checkpoint, V2 or V1 (`tf.train.list_variables`), sorted
/// by name. Throws NotFoundError / DataLossError naming the file.
std::vector<std::pair<std::string, Shape>> list_variables(const std::string& prefix);

/// Options of a Saver (the keyword arguments of `tf.train.Saver`).
struct SaverOptions {
  /// How many recent checkpoints to keep; older ones are deleted after each save. 0 keeps
  /// every checkpoint and lists only the latest in the state file.
  int max_to_keep = 5;
  /// A checkpoint leaving the recent list is kept anyway when this many hours passed since
  /// the last one kept so.
  double keep_checkpoint_every_n_hours = 10000.0;
  /// Each device holding variables saves its own shard (on the task that hosts it) and the
  /// shards' indexes are merged, as TensorFlow's sharded saver does; nothing travels to the
  /// client. Otherwise one SaveV2 writes every variable.
  bool sharded = false;
  /// Allows a Saver with no variables (its save and restore do nothing).
  bool allow_empty = false;
  /// `<prefix>-%08d` instead of `<prefix>-%d` for the global step.
  bool pad_step_number = false;
  /// The name scope of the save and restore ops.
  std::string name = "save";
  /// The checkpoint format written (`write_version`): 2 (V2, tensor bundles) or 1 (V1, one
  /// table file per shard, as `SaverDef.V1`; a sharded save returns the pattern
  /// `<prefix>-?????-of-0000N`). Restores read either format whatever this says.
  int write_version = 2;
};

/// Saves and restores variables and mutable lookup tables in TensorFlow's V2 checkpoint format,
/// or its V1 format with `write_version = 1` (`tf.train.Saver`).
///
/// The constructor builds the graph: a string placeholder `<name>/Const` for the prefix, a
/// SaveV2 of the variables and tables sorted by name (a variable keyed by its op name, a table
/// as `<table>-keys` and `<table>-values`; a SaveSlices `<name>/save` for V1),
/// `<name>/control_dependency` returning the prefix, and `<name>/restore_all` (RestoreV2,
/// which reads either format, then one Assign per variable and one
/// `<table>_table_restore/LookupTableImportV2` per table). A sharded V1 Saver writes one
/// file per device (`ShardedFilename`) and returns `<name>/ShardedFilespec`, the pattern of
/// its files.
/// Save and restore kernels run beside the variables. Checkpoints written here load in
/// TensorFlow and the other way round. A save is atomic: a crash mid-save leaves the previous
/// checkpoint readable.
class Saver {
 public:
  /// Saves every global variable of `g` and every table of its `lookup::kSaveableObjects`
  /// (`Saver(var_list=None)`), as the list constructor does. Throws InvalidArgumentError "No
  /// variables to save" when there are none (unless `allow_empty`).
  explicit Saver(Graph& g, SaverOptions options = {});
  /// Saves `var_list` as the constructor below and the mutable tables `tables` (what
  /// `Saver(var_list=[v, table])` saves); InvalidArgumentError "At least two variables have the
  /// same name: N" when a table's name is another's or a variable's.
  Saver(const std::vector<Variable>& var_list, const std::vector<lookup::SaveableTable>& tables,
        SaverOptions options = {});
  /// Saves `var_list`, each under its op name; the parts of a partitioned variable (those
  /// with a `save_slice_info`) under the full variable's name, as its slices, so that one
  /// key holds the whole variable as TensorFlow saves it, and a model cut into other parts
  /// restores from it. Throws InvalidArgumentError "At least two variables have the same
  /// name: N" and "Mixing slices and non-slices with the same name: N".
  Saver(const std::vector<Variable>& var_list, SaverOptions options = {});
  /// Saves each variable under the given name (`Saver({"name": var})`), whole: a part of a
  /// partitioned variable is saved as a tensor of its own, as TensorFlow does for a dict.
  Saver(const std::map<std::string, Variable>& var_map, SaverOptions options = {});

  /// Saves the variables to `save_path` (`-<global_step>` appended when given), records it in
  /// the state file of its directory (unless `write_state` is false), writes the graph with
  /// this Saver and its collections to `<prefix>.meta` (unless `write_meta_graph` is false,
  /// as TensorFlow's `write_meta_graph=True`), deletes checkpoints beyond `max_to_keep` and
  /// returns the checkpoint's prefix. Blocks until written. Throws InvalidArgumentError
  /// "Parent directory of <path> doesn't exist, can't save." and the step's errors
  /// (FailedPrecondition for an uninitialized variable).
  std::string save(Session& sess, const std::string& save_path,
                   std::optional<std::int64_t> global_step = {},
                   const std::string& latest_filename = "checkpoint", bool write_state = true,
                   bool write_meta_graph = true);
  /// As above, reading the step from the variable `global_step`.
  std::string save(Session& sess, const std::string& save_path, const Variable& global_step,
                   const std::string& latest_filename = "checkpoint", bool write_state = true,
                   bool write_meta_graph = true);

  /// Restores every variable from `save_path`, a V2 prefix or a V1 file or pattern
  /// (initialising them; no init op needed). Throws InvalidArgumentError "The passed
  /// save_path is not a valid checkpoint: <path>" when it is neither (`checkpoint_exists`);
  /// NotFoundError "Restoring from checkpoint failed. ... Key <name> not found in checkpoint" for a
  /// missing variable; InvalidArgumentError for a dtype or shape mismatch; DataLossError naming the
  /// file for a corrupt checkpoint.
  void restore(Session& sess, const std::string& save_path);

  /// A Saver over save and restore ops already in `g` (`Saver(saver_def=...)`, what
  /// `import_meta_graph` returns). Throws NotFoundError naming an op the SaverDef names that
  /// `g` lacks, and InvalidArgumentError for a checkpoint format other than V1 and V2.
  static std::unique_ptr<Saver> from_saver_def(Graph& g, const SaverDef& def);
  /// This Saver as a SaverDef (`saver.as_saver_def()`): the names of its prefix tensor, save
  /// tensor and restore op, and its options.
  SaverDef saver_def() const;
  /// The graph whose variables it saves (null for an empty Saver).
  Graph* graph() const noexcept { return graph_; }

  /// The checkpoints this Saver keeps, oldest first.
  std::vector<std::string> last_checkpoints() const;
  /// Adopts checkpoints written earlier (e.g. after a restart), as `recover_last_checkpoints`:
  /// the ones that still exist join the list, oldest first.
  void recover_last_checkpoints(const std::vector<std::string>& paths);

  /// The op names of the graph it built: the prefix placeholder's tensor name (`<name>/Const:0`).
  const std::string& filename_tensor_name() const noexcept { return filename_name_; }
  /// The op that writes a checkpoint to the prefix fed to `filename_tensor_name()` and returns it
  /// (`<name>/control_dependency`; `<name>/Identity` when sharded); invalid for an empty Saver.
  const Operation& save_op() const noexcept { return save_op_; }
  /// `<name>/restore_all`: restores every variable from the fed prefix; invalid for an empty Saver.
  const Operation& restore_op() const noexcept { return restore_op_; }

 private:
  Saver() = default;
  using Clock = std::chrono::system_clock;
  // One tensor of the checkpoint: its key, the variable, and the variable's slice spec of
  // the key's full tensor ("" for a whole variable); or a table, its two tensors.
  struct Saveable {
    std::string name;
    Variable var;
    std::string spec;
    std::optional<lookup::SaveableTable> table;
  };
  static void add_tables(std::vector<Saveable>& out,
                         const std::vector<lookup::SaveableTable>& tables);
  static std::vector<Saveable> saveables_of(const std::vector<Variable>& vars);
  void build(Graph& g, std::vector<Saveable> named);
  void adopt(const SaverDef& def);
  void record_and_prune(const std::string& path);

  SaverOptions options_;
  Graph* graph_ = nullptr;
  bool empty_ = false;
  Output filename_;
  std::string filename_name_;
  std::vector<Output> shard_prefix_inputs_;  // an older sharded .meta's placeholders, fed at save
  Output save_tensor_;
  Operation save_op_;
  Operation restore_op_;
  int num_shards_ = 1;
  std::vector<std::pair<std::string, Clock::time_point>> last_checkpoints_;
  Clock::time_point next_keep_time_;
};

}  // namespace af::train
