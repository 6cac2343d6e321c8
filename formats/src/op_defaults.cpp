// The table is op_defaults.inc, read off TensorFlow's op registrations (tensorflow/core/ops).
#include "op_defaults.hpp"

#include <unordered_map>

namespace af::detail {

const AttrMap& op_attr_defaults(const std::string& type) {
  static const std::unordered_map<std::string, AttrMap> table = {
#include "op_defaults.inc"
  };
  static const AttrMap none;
  auto it = table.find(type);
  return it == table.end() ? none : it->second;
}

}  // namespace af::detail
