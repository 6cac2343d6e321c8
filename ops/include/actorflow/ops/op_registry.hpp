#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/status.hpp"

namespace af {

/// What shape inference sees of a node being created: input types, shapes and (for inputs
/// produced by `Const` nodes) their values; it fills in the outputs.
struct InferenceContext {
  const NodeDef& node;                     ///< the node being created
  std::vector<DType> input_types;          ///< the inputs' dtypes
  std::vector<PartialShape> input_shapes;  ///< the inputs' static shapes
  std::vector<bool> input_is_ref;          ///< which inputs are references
  /// Values of constant inputs (null where the input is not a `Const`).
  std::vector<const Tensor*> input_values;

  std::vector<DType> output_types;          ///< filled by the shape function (`add_output`)
  std::vector<PartialShape> output_shapes;  ///< filled by the shape function
  std::vector<bool> output_is_ref;          ///< filled by the shape function
  /// The shapes of the variables behind resource inputs (TensorFlow's handle data; unknown
  /// where the producer gave none).
  std::vector<PartialShape> input_handle_shapes;
  /// Filled by the shape functions of ops that output resource handles (VarHandleOp,
  /// Identity): the variable's shape per output; empty or unknown where there is none.
  std::vector<PartialShape> output_handle_shapes;

  /// The number of inputs.
  int num_inputs() const { return static_cast<int>(input_types.size()); }

  /// Adds an output.
  void add_output(DType t, PartialShape s, bool is_ref = false) {
    output_types.push_back(t);
    output_shapes.push_back(std::move(s));
    output_is_ref.push_back(is_ref);
  }

  /// Returns attribute `name` or InvalidArgument "NodeDef missing attr 'name' ...".
  template <class T>
  Status get_attr(const std::string& name, T* out) const {
    if (auto p = node.attr<T>(name)) {
      *out = *p;
      return {};
    }
    return invalid_argument("NodeDef missing attr '" + name + "' from Op<name=" + node.op +
                            "> for node '" + node.name + "'");
  }

  /// InvalidArgument unless the node has exactly `n` inputs.
  Status expect_inputs(int n) const;
  /// InvalidArgument unless input `i` has dtype `t`.
  Status expect_input_type(int i, DType t) const;
  /// InvalidArgument unless all inputs share one dtype; stores it in `*t`.
  Status same_input_types(DType* t) const;
};

/// Infers a node's outputs; InvalidArgument (without the node's name: the graph adds it)
/// when it rejects the inputs or attributes.
using ShapeFn = std::function<Status(InferenceContext&)>;

/// An op type: its name, whether it is stateful, which inputs are references, and its
/// shape/type inference.
struct OpDef {
  std::string name;       ///< the op type (`"MatMul"`)
  ShapeFn infer;          ///< shape and type inference
  bool stateful = false;  ///< kernels keep state across steps (one kernel per node and session)
  /// Input indices that take references (Assign's first input).
  std::vector<int> ref_inputs;
  /// For ops with variable input counts the ref list applies to these indices only.
};

/// All op types (TensorFlow's `OpRegistry`). The standard ops register on first use.
class OpRegistry {
 public:
  /// The process-wide registry, created (with the standard ops) on first use; thread-safe.
  static OpRegistry& global();
  /// Registers `def`, replacing an op of the same name (pointers `find` gave to it dangle).
  void add(OpDef def);
  /// The op named `type`, or null.
  const OpDef* find(const std::string& type) const;
  /// Every registered op type, sorted.
  std::vector<std::string> names() const;

 private:
  OpRegistry() = default;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

/// Registration hooks for each op family (called once by `OpRegistry::global()`).
void register_standard_ops(OpRegistry& r);

}  // namespace af
