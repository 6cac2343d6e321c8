// TensorFlow's attribute defaults (the `= value` of each REGISTER_OP attr), for the op types
// actorflow runs: what `import_graph_def` fills into a NodeDef written without them
// (`export_meta_graph(strip_default_attrs=True)`, hand-written GraphDefs).
#pragma once

#include <map>
#include <string>

#include "actorflow/ops/attr_value.hpp"

namespace af::detail {

/// The defaulted attributes of op `type` (empty when it has none or is not listed).
const AttrMap& op_attr_defaults(const std::string& type);

}  // namespace af::detail
