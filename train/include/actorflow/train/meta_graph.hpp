#pragma once

// tf.train.export_meta_graph and tf.train.import_meta_graph: a graph with its Saver and
// collections to and from TensorFlow's MetaGraphDef (`.meta` files).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/meta_graph.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/train/saver.hpp"

namespace af::train {

/// `export_meta_graph`'s keyword arguments.
struct ExportMetaGraphOptions {
  /// Its SaverDef is written (`saver_def=saver.saver_def`); none when null.
  const Saver* saver = nullptr;
  /// The collections to write; empty: every collection of the graph.
  std::vector<std::string> collection_list;
  /// Writes the text format instead of the binary one.
  bool as_text = false;
  /// Every node's `device` is written empty.
  bool clear_devices = false;
  /// Attributes at their op's default are left out (`strip_default_attrs`), and the
  /// MetaGraphDef says so (`stripped_default_attrs`).
  bool strip_default_attrs = false;
};

/// `tf.train.export_meta_graph`: `g` (nodes with `_output_shapes`), the saver's SaverDef and
/// the collections as TensorFlow writes them: variables (`variables`,
/// `trainable_variables`, `local_variables`, `global_step`) as VariableDefs, Operations and
/// Outputs (`train_op`, `summaries`, `losses`) as node names, strings as bytes, integers and
/// floats as lists. Values of other types are left out, as TensorFlow leaves them out. Writes
/// `filename` unless it is empty; returns the MetaGraphDef. Throws naming the file when it
/// cannot write.
MetaGraphDef export_meta_graph(const Graph& g, const std::string& filename = {},
                               const ExportMetaGraphOptions& options = {});

/// `import_meta_graph`'s keyword arguments.
struct ImportMetaGraphOptions {
  /// Prefix of every imported name (`scope/`); empty: the names as they are.
  std::string import_scope;
  /// Imported nodes keep no `device`.
  bool clear_devices = false;
  /// As `import_graph_def`'s input_map.
  std::map<std::string, GraphElement> input_map;
};

/// `tf.train.import_meta_graph`: imports the graph into `g` (see `import_graph_def`), adds
/// its collections back (VariableDefs become `Variable`s, node names Operations or Outputs)
/// and returns the Saver its SaverDef describes, restoring through the imported save ops.
/// Without a SaverDef it returns a new Saver of every global variable, or null when there is
/// none, as TensorFlow does. Throws the errors of `read_meta_graph_def` and
/// `import_graph_def`, and NotFoundError naming a collection entry not in the graph.
std::unique_ptr<Saver> import_meta_graph(Graph& g, const MetaGraphDef& meta,
                                         const ImportMetaGraphOptions& options = {});
/// Reads `path` (binary or text) and imports it.
std::unique_ptr<Saver> import_meta_graph(Graph& g, const std::string& path,
                                         const ImportMetaGraphOptions& options = {});

}  // namespace af::train
