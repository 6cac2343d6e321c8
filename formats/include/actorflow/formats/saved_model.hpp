#pragma once

// TensorFlow's SavedModel file (`saved_model.pb` or `saved_model.pbtxt` in an export
// directory): the MetaGraphDefs of one model, one per tag set, read and written in
// TensorFlow's binary and text formats. `af::saved_model` (saved_model/saved_model.hpp) loads
// and builds export directories.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/formats/meta_graph.hpp"

namespace af {

/// TensorFlow's SavedModel message.
struct SavedModel {
  std::int64_t saved_model_schema_version = 1;  ///< 1, as every TensorFlow writes
  std::vector<MetaGraphDef> meta_graphs;        ///< one per tag set, in file order
};

/// Parses a binary SavedModel; throws InvalidArgumentError "<source>: not a binary
/// SavedModel" and the MetaGraphDefs' conversion errors.
SavedModel parse_saved_model(std::string_view bytes, std::string_view source = "SavedModel");
/// Parses a text SavedModel; errors name "<source>:LINE:COLUMN".
SavedModel parse_saved_model_text(std::string_view text, std::string_view source = "SavedModel");
/// The binary form (deterministic).
std::string serialize_saved_model(const SavedModel& m);
/// The text form.
std::string saved_model_to_text(const SavedModel& m);

/// Reads `export_dir`'s `saved_model.pb`, else its `saved_model.pbtxt`, as TensorFlow's
/// `parse_saved_model`. Throws NotFoundError "SavedModel file does not exist at:
/// DIR/{saved_model.pbtxt|saved_model.pb}" when neither exists, InvalidArgumentError naming
/// the file when it does not parse.
SavedModel read_saved_model(const std::string& export_dir);
/// Writes `m` to `path` atomically (binary unless `as_text`); throws naming the path.
void write_saved_model(const SavedModel& m, const std::string& path, bool as_text = false);

/// `asset` as an entry of the `saved_model_assets` collection (a google.protobuf.Any holding
/// an AssetFileDef of the tensor's name and the file name, as TensorFlow 1's builder adds it).
std::string pack_asset_file_def(const AssetFileDef& asset);
/// An entry of the `saved_model_assets` collection; InvalidArgumentError naming `where`
/// unless it is an Any holding an AssetFileDef.
AssetFileDef unpack_asset_file_def(std::string_view any_bytes,
                                   std::string_view where = "saved_model_assets");

/// A SavedModel's fingerprint (TensorFlow's `tf.saved_model.experimental.Fingerprint`, the
/// `fingerprint.pb` TensorFlow 2.11+ writes beside `saved_model.pb`): FarmHash Fingerprint64s
/// of its parts.
struct SavedModelFingerprint {
  std::uint64_t saved_model_checksum = 0;     ///< of the whole saved_model.pb
  std::uint64_t graph_def_program_hash = 0;   ///< of the regularized GraphDef
  std::uint64_t signature_def_hash = 0;       ///< of the SignatureDefs
  std::uint64_t saved_object_graph_hash = 0;  ///< of the object graph's concrete functions
  std::uint64_t checkpoint_hash = 0;          ///< of variables/variables.index
  int producer = 0;                           ///< the fingerprinting code's version
  std::string uuid;                           ///< a random 128-bit number, in decimal

  /// TensorFlow's `singleprint()`: "graph_def_program_hash/signature_def_hash/
  /// saved_object_graph_hash/checkpoint_hash" in decimal, the model's identity.
  std::string singleprint() const;
};

/// Reads `export_dir`'s `fingerprint.pb` (`tf.saved_model.experimental.read_fingerprint`).
/// Throws NotFoundError "SavedModel Fingerprint Error: DIR/fingerprint.pb not found" when the
/// model has none (TensorFlow 1's builders and actorflow's write none), DataLossError naming
/// the file when it does not parse.
SavedModelFingerprint read_fingerprint(const std::string& export_dir);

}  // namespace af
