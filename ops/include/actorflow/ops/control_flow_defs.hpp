#pragma once

// TensorFlow's to_proto and from_proto of control-flow v1 contexts (control_flow_ops.py):
// a MetaGraphDef's "while_context" and "cond_context" collections hold the serialized
// WhileContextDef or CondContextDef of every loop and cond branch built outside any other
// context, each with the contexts nested in it. Writing them lets TensorFlow's Python
// differentiate a loop exported from here; reading them gives the ops of an imported loop
// or branch their context back, so that `af::gradients` builds gradient loops through a
// loop read from a MetaGraphDef, as `tf.gradients` does after `import_meta_graph`.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/ops/control_flow_ops.hpp"
#include "actorflow/ops/graph.hpp"

namespace af {

/// The name TensorFlow gives `branch`'s CondContext: "<scope>/cond_text" for the true
/// branch and "<scope>/cond_text_1" for the false one, `<scope>` being its pivot's
/// ("cond/switch_t" -> "cond/cond_text").
std::string cond_context_name(const CondBranch& branch);

/// TensorFlow's `to_proto` of the loops and cond branches of one graph: which contexts nest
/// in which is found once, when it is made, for every context then written (a Saver writes
/// its graph's contexts at every save). The graph must not gain contexts meanwhile.
class ControlFlowContextWriter {
 public:
  /// Reads the contexts of `g` and their nesting.
  explicit ControlFlowContextWriter(const Graph& g);
  /// `WhileContext.to_proto`: the serialized WhileContextDef of `loop`, a loop of the graph,
  /// with the contexts nested in it (those whose outer context it is, in the order their
  /// first ops were made). Values are sorted, as TensorFlow writes them.
  std::string while_context(const WhileContext& loop) const;
  /// `CondContext.to_proto`: the serialized CondContextDef of `branch`, as `while_context`.
  std::string cond_context(const CondBranch& branch) const;

 private:
  /// The contexts nested in each context, in order.
  std::unordered_map<const ControlFlowContext*, std::vector<std::shared_ptr<ControlFlowContext>>>
      nested_;
};

/// `WhileContext.from_proto` after an import into `g` with `import_scope` ("" or "scope",
/// prefixed to every name as "scope/name"): rebuilds the loop the serialized
/// WhileContextDef `bytes` describes and the contexts nested in it, and gives every op of
/// its values that is not an external value that context (nested contexts after their
/// outer one). With a scope, the loop's Enters take the scoped frame name. Throws
/// InvalidArgumentError "<where>: not a binary WhileContextDef" and NotFoundError
/// "<where>: no tensor 'x:0' in the graph" for a name the graph lacks.
std::shared_ptr<const WhileContext> import_while_context(Graph& g, const std::string& bytes,
                                                         const std::string& import_scope,
                                                         const std::string& where);

/// `CondContext.from_proto`: as `import_while_context`, for a serialized CondContextDef.
std::shared_ptr<const CondBranch> import_cond_context(Graph& g, const std::string& bytes,
                                                      const std::string& import_scope,
                                                      const std::string& where);

}  // namespace af
