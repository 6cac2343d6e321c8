#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af {

/// A function-valued attribute (TensorFlow's `NameAttrList`: `MapDataset`'s `f`): the
/// function's name and, as bytes, what the node needs to run it without its graph.
struct FunctionAttr {
  std::string name;  ///< the function's name in the library
  /// A serialized TensorFlow `FunctionDefLibrary` holding the function and every function it
  /// calls or names, so the node carries its bodies wherever it goes (a partition shipped to
  /// another task); empty when the library did not define it. Opaque to this module.
  std::string library;
  /// The `NameAttrList`'s own attributes, as a serialized TensorFlow `NameAttrList` with no
  /// name (empty when it has none); kept for exporting, not interpreted.
  std::string attrs;
  /// Field-wise equality.
  friend bool operator==(const FunctionAttr&, const FunctionAttr&) = default;
};

/// An attribute of a node (TensorFlow's `AttrValue`).
using AttrValue =
    std::variant<std::monostate, std::int64_t, float, bool, std::string, DType, PartialShape,
                 Tensor, std::vector<std::int64_t>, std::vector<float>, std::vector<DType>,
                 std::vector<PartialShape>, std::vector<std::string>, FunctionAttr>;

/// True for the list kinds of AttrValue.
template <class T>
inline constexpr bool is_attr_list =
    std::is_same_v<T, std::vector<std::int64_t>> || std::is_same_v<T, std::vector<float>> ||
    std::is_same_v<T, std::vector<DType>> || std::is_same_v<T, std::vector<PartialShape>> ||
    std::is_same_v<T, std::vector<std::string>>;

/// Attributes by name, ordered (so exports are deterministic).
using AttrMap = std::map<std::string, AttrValue>;

/// The serialisable description of one node (TensorFlow's `NodeDef`).
///
/// `inputs` lists data inputs as `"node"` / `"node:1"` and control inputs as `"^node"`.
struct NodeDef {
  std::string name;                 ///< the unique node name
  std::string op;                   ///< the op type (`"MatMul"`)
  std::vector<std::string> inputs;  ///< data inputs, then `^` control inputs (see above)
  std::string device;               ///< the requested device spec (may be partial or empty)
  AttrMap attrs;                    ///< the attributes (`"T"`, `"value"`, ...)

  /// Returns the attribute `name` as `T`, or nullptr when absent or of another type. An empty
  /// list reads as an empty list of any kind: TensorFlow's AttrValue does not say the kind of
  /// an empty list (`Bucketize(boundaries=[])` read from a GraphDef).
  template <class T>
  const T* attr(const std::string& attr_name) const {
    auto it = attrs.find(attr_name);
    if (it == attrs.end()) return nullptr;
    if (const T* p = std::get_if<T>(&it->second)) return p;
    if constexpr (is_attr_list<T>) {
      const bool empty_list = std::visit(
          [](const auto& v) {
            if constexpr (is_attr_list<std::decay_t<decltype(v)>>)
              return v.empty();
            else
              return false;
          },
          it->second);
      static const T kEmpty{};
      if (empty_list) return &kEmpty;
    }
    return nullptr;
  }

  /// Field-wise equality.
  friend bool operator==(const NodeDef&, const NodeDef&) = default;
};

/// A whole graph as data (TensorFlow's `GraphDef`).
struct GraphDef {
  std::vector<NodeDef> nodes;  ///< every node, inputs before their consumers
  int version = 1;  ///< the format version (`versions.producer` of TensorFlow's GraphDef)
  /// TensorFlow's `library` (a serialized FunctionDefLibrary) kept as bytes; reading a file
  /// inlined the functions its nodes call (While, If, ...) into `nodes`. Empty when none.
  std::string function_library;
  /// Field-wise equality.
  friend bool operator==(const GraphDef&, const GraphDef&) = default;
};

}  // namespace af
