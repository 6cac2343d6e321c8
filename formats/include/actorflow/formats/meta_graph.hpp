#pragma once

// TensorFlow's MetaGraphDef as plain data: the `.meta` files of `tf.train.Saver` and
// `tf.train.export_meta_graph`, read and written in TensorFlow's binary and text formats.
// `af::train::export_meta_graph` / `import_meta_graph` (train/meta_graph.hpp) give them
// their meaning.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/tensor_slice.hpp"

namespace af {

/// TensorFlow's SaverDef: the names of a Saver's ops in its graph.
struct SaverDef {
  std::string filename_tensor_name;  ///< the prefix to feed (`"save/Const:0"`)
  std::string save_tensor_name;      ///< fetched to save (`"save/control_dependency:0"`)
  std::string restore_op_name;       ///< run to restore (`"save/restore_all"`)
  int max_to_keep = 5;               ///< recent checkpoints kept
  bool sharded = false;              ///< one shard per device, merged
  float keep_checkpoint_every_n_hours = 10000.0f;  ///< checkpoints kept beyond max_to_keep
  int version = 2;  ///< CheckpointFormatVersion: 2 (V2) is what actorflow reads
  /// Field-wise equality.
  friend bool operator==(const SaverDef&, const SaverDef&) = default;
};

/// TensorFlow's VariableDef: how a variable of a collection is found in the graph.
struct VariableDef {
  std::string variable_name;       ///< the variable's tensor (`"w:0"`)
  std::string initial_value_name;  ///< its initial value (`"w/Initializer/random_uniform:0"`)
  std::string initializer_name;    ///< its initializer op (`"w/Assign"`)
  std::string snapshot_name;       ///< its value (`"w/read:0"`)
  bool is_resource = false;        ///< a resource variable (VarHandleOp)
  bool trainable = false;          ///< in `trainable_variables`
  /// A part of a partitioned variable: where it sits in the full one (`save_slice_info_def`).
  std::optional<SaveSliceInfo> save_slice_info;
  /// Field-wise equality.
  friend bool operator==(const VariableDef&, const VariableDef&) = default;
};

/// The binary VariableDef (a `variables` collection's bytes_list entry).
std::string serialize_variable_def(const VariableDef& v);
/// Parses a binary VariableDef; throws InvalidArgumentError naming `where`.
VariableDef parse_variable_def(std::string_view bytes, std::string_view where = "VariableDef");

/// TensorFlow's CollectionDef: one of its kinds is set.
struct CollectionDef {
  /// Which list the collection holds.
  enum class Kind { node_list, bytes_list, int64_list, float_list, any_list };
  Kind kind = Kind::node_list;           ///< the list in use
  std::vector<std::string> node_list;    ///< tensor (`"loss:0"`) or op (`"Adam"`) names
  std::vector<std::string> bytes_list;   ///< serialized protos (VariableDef, SaverDef, ...)
  std::vector<std::int64_t> int64_list;  ///< integers
  std::vector<float> float_list;         ///< floats
  std::vector<std::string> any_list;     ///< google.protobuf.Any messages, serialized whole
  /// Field-wise equality.
  friend bool operator==(const CollectionDef&, const CollectionDef&) = default;
};

/// TensorFlow's TensorInfo: a tensor a signature takes or gives, by name or as the three
/// tensors of a SparseTensor.
struct TensorInfo {
  /// A SparseTensor's tensors (the `coo_sparse` encoding).
  struct CooSparse {
    std::string values_tensor_name;       ///< `"x/values:0"`
    std::string indices_tensor_name;      ///< `"x/indices:0"`
    std::string dense_shape_tensor_name;  ///< `"x/shape:0"`
    /// Field-wise equality.
    friend bool operator==(const CooSparse&, const CooSparse&) = default;
  };
  std::string name;  ///< the tensor (`"x:0"`, the `name` encoding); empty for the others
  std::optional<CooSparse> coo_sparse;  ///< set for a SparseTensor
  /// The `composite_tensor` encoding (TensorFlow 2's ragged and other composite tensors) as
  /// its serialized CompositeTensor message: kept, not interpreted.
  std::string composite_tensor;
  /// The dtype (a SparseTensor's values'); `invalid` when absent or one actorflow lacks.
  DType dtype = DType::invalid;
  PartialShape shape = PartialShape::unknown();  ///< unknown rank when absent
  /// Field-wise equality.
  friend bool operator==(const TensorInfo&, const TensorInfo&) = default;
};

/// TensorFlow's SignatureDef: a named computation of a SavedModel's graph (its inputs to
/// feed and outputs to fetch, by key).
struct SignatureDef {
  std::map<std::string, TensorInfo> inputs;   ///< by input key
  std::map<std::string, TensorInfo> outputs;  ///< by output key
  std::string method_name;                    ///< `"tensorflow/serving/predict"`, ...
  std::map<std::string, Tensor> defaults;     ///< default values of inputs, by key
};

/// TensorFlow's AssetFileDef: a SavedModel's asset file (under `assets/`) and the string
/// tensor the loader feeds its path to.
struct AssetFileDef {
  TensorInfo tensor_info;  ///< the tensor to feed (`"vocab/Const:0"`)
  std::string filename;    ///< its name in the export's `assets/` directory
  /// Field-wise equality.
  friend bool operator==(const AssetFileDef&, const AssetFileDef&) = default;
};

/// TensorFlow's MetaGraphDef, the parts actorflow reads and writes. The object graph of
/// TensorFlow 2's SavedModels is kept as bytes so that a file passes through unchanged.
struct MetaGraphDef {
  std::string meta_graph_version;       ///< MetaInfoDef.meta_graph_version
  std::vector<std::string> tags;        ///< MetaInfoDef.tags
  std::string tensorflow_version;       ///< MetaInfoDef.tensorflow_version
  std::string tensorflow_git_version;   ///< MetaInfoDef.tensorflow_git_version
  bool stripped_default_attrs = false;  ///< MetaInfoDef.stripped_default_attrs
  /// MetaInfoDef.stripped_op_list (a serialized OpList: the producer's op definitions).
  std::string stripped_op_list;
  GraphDef graph_def;                                  ///< the graph
  std::optional<SaverDef> saver_def;                   ///< the Saver, when one was exported
  std::map<std::string, CollectionDef> collections;    ///< collection_def by name
  std::map<std::string, SignatureDef> signature_defs;  ///< signature_def by key
  std::vector<AssetFileDef> asset_file_defs;           ///< asset_file_def
  /// Every other MetaGraphDef field (object_graph_def, function aliases, ...), serialized,
  /// passed through on write.
  std::string other_fields;
};

/// Parses a binary MetaGraphDef; throws InvalidArgumentError "<source>: not a binary
/// MetaGraphDef" and the GraphDef's conversion errors naming the node.
MetaGraphDef parse_meta_graph_def(std::string_view bytes, std::string_view source = "MetaGraphDef");
/// Parses a text MetaGraphDef; errors name "<source>:LINE:COLUMN".
MetaGraphDef parse_meta_graph_def_text(std::string_view text,
                                       std::string_view source = "MetaGraphDef");
/// The binary form (deterministic).
std::string serialize_meta_graph_def(const MetaGraphDef& m);
/// The text form.
std::string meta_graph_def_to_text(const MetaGraphDef& m);
/// Reads a `.meta` file: binary first, then text, as TensorFlow's `read_meta_graph_file`.
/// Throws NotFoundError for a missing file, InvalidArgumentError naming it otherwise.
MetaGraphDef read_meta_graph_def(const std::string& path);
/// Writes `m` to `path` atomically (binary unless `as_text`); throws naming the path.
void write_meta_graph_def(const MetaGraphDef& m, const std::string& path, bool as_text = false);

}  // namespace af
