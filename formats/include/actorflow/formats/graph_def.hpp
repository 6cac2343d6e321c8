#pragma once

// TensorFlow's GraphDef files both ways: binary (`.pb`) and text (`.pbtxt`) GraphDefs as
// `tf.io.write_graph` writes them, and `import_graph_def` with `tf.import_graph_def`'s
// semantics (name prefixes, input_map, return_elements, colocation, default attributes).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/graph.hpp"

namespace af {

/// The GraphDef version (`versions.producer`) written for graphs actorflow built:
/// TensorFlow 2.21's TF_GRAPH_DEF_VERSION, whose op semantics actorflow follows.
inline constexpr int kGraphDefProducer = 2474;

/// Registers tf.data's op types (the data module) and lets their nodes run the functions
/// they carry from a TensorFlow function library (MapDataset's `f`); idempotent and
/// thread-safe. Reading or importing a GraphDef does it; processes that run partitions
/// shipped from elsewhere (servers) call it at start.
void register_dataset_functions();

/// Parses a binary GraphDef, lowering While/If/PartitionedCall (function libraries) into
/// control flow v1 (docs/control-flow.md). Throws InvalidArgumentError naming `source`: "not a
/// binary GraphDef", the node and attribute actorflow has no form for (a dtype without
/// kernels), or the node and function that cannot be inlined (missing, generic, recursive).
GraphDef parse_graph_def(std::string_view bytes, std::string_view source = "GraphDef");

/// Parses a text-format GraphDef (`tf.io.write_graph(..., as_text=True)`). Throws
/// InvalidArgumentError "<source>:LINE:COLUMN: <what the parser expected>" for bad text, and
/// the errors of `parse_graph_def`.
GraphDef parse_graph_def_text(std::string_view text, std::string_view source = "GraphDef");

/// The binary form, deterministic (map entries sorted by key). A `version` of 1 or less
/// (a graph actorflow built) is written as `kGraphDefProducer`. Throws InvalidArgumentError
/// for a resource or variant tensor in an attribute.
std::string serialize_graph_def(const GraphDef& def);

/// The text form as TensorFlow's `text_format.MessageToString` writes it: fields in number
/// order, attributes sorted by key, bytes octal-escaped, ending with `versions { producer: N }`.
std::string graph_def_to_text(const GraphDef& def);

/// Reads a GraphDef file: a name ending in `.pbtxt` or `.txt` as text, any other as binary
/// and, when that fails, as text (as TensorFlow's MetaGraphDef readers do). Throws
/// NotFoundError for a missing file and InvalidArgumentError naming the path otherwise.
GraphDef read_graph_def(const std::string& path);

/// `tf.io.write_graph`: writes `def` to `dir/name` (creating `dir`), as text unless
/// `as_text` is false, atomically (a temporary file renamed into place); returns the path.
/// Throws an af::Error naming the path when it cannot write.
std::string write_graph(const GraphDef& def, const std::string& dir, const std::string& name,
                        bool as_text = true);

/// `g`'s nodes as a GraphDef with version `kGraphDefProducer`. Attributes left at their
/// default are not added (every TensorFlow version fills them in on import, and one older
/// than the default would refuse it). With `add_shapes`, every node
/// carries `_output_shapes` (one shape per output), as `as_graph_def(add_shapes=True)`
/// writes into event files and `.meta` files.
GraphDef export_graph_def(const Graph& g, bool add_shapes = false);

/// TensorFlow's `strip_default_attributes_from_node_defs`: removes from every node the
/// attributes whose value is their op's default (what `import_graph_def` fills back in).
void strip_default_attrs(GraphDef& def);

/// A tensor or an operation: what `input_map` maps to and `return_elements` returns.
using GraphElement = std::variant<Output, Operation>;

/// `tf.import_graph_def`'s arguments.
struct ImportGraphDefOptions {
  /// Replaces inputs of the imported nodes: `"name:k"` (or `"name"`, output 0) by an Output
  /// of `g`, `"^name"` by an Operation of `g` (its control edges). Every key must name a
  /// node of the GraphDef, and a tensor's dtype must match.
  std::map<std::string, GraphElement> input_map;
  /// Names in the GraphDef (without the prefix) to return, in order: `"name:k"` returns an
  /// Output, `"name"` an Operation.
  std::vector<std::string> return_elements;
  /// The prefix: unset means `"import"`; a non-empty name is made unique under `g`'s current
  /// name scope (`import`, `import_1`, ...) and put in front of every node name, input and
  /// colocation entry; `""` imports the names as they are, renaming a node whose name is
  /// taken (`x` becomes `x_1`) and its users.
  std::optional<std::string> name;
};

/// `tf.import_graph_def`: adds the nodes of `def` to `g` (in any order in the file) and
/// returns `options.return_elements`. Missing attributes with a default in TensorFlow's op
/// definition are filled in, `_output_shapes` is dropped, `device` fields are kept, and a
/// node colocated (`_class: loc:@x`) takes the device of the first of its colocated nodes
/// that has one (or none), as importer.py does. Device scopes of `g` are not applied.
///
/// Nothing is added when the GraphDef is invalid: InvalidArgumentError naming every op type
/// actorflow lacks and one node of each, or naming the node for a duplicate name, an
/// unknown input, a control input before a data input, a cycle, a colocation with a node
/// not in the graph, an unused input_map key or a missing return element.
std::vector<GraphElement> import_graph_def(Graph& g, const GraphDef& def,
                                           const ImportGraphDefOptions& options = {});

}  // namespace af
