#pragma once

// What the builders of the FIFO and the keyed staging areas (stage_ops.cpp,
// map_stage_ops.cpp) share: data_flow_ops.BaseStagingArea's checks of shapes and put values,
// and its _create_device_transfers. Private to the ops module.
#include <string>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"

namespace af::detail {

/// Python's ValueError for a staging area, as InvalidArgumentError.
[[noreturn]] inline void refuse_staging(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

/// The components' shapes: all unknown when none are given; refused unless one per dtype.
inline std::vector<PartialShape> staging_shapes(std::vector<PartialShape> shapes,
                                                std::size_t dtypes) {
  if (shapes.empty()) return std::vector<PartialShape>(dtypes, PartialShape::unknown());
  if (shapes.size() != dtypes)
    refuse_staging("StagingArea shapes must be the same length as dtypes");
  return shapes;
}

/// _check_put_dtypes: no more values than dtypes, each of its component's dtype and shape.
inline void check_staged_values(const std::vector<Output>& values,
                                const std::vector<std::size_t>& components,
                                const std::vector<DType>& dtypes,
                                const std::vector<PartialShape>& shapes) {
  if (values.size() > dtypes.size())
    refuse_staging("Unexpected number of inputs " + std::to_string(values.size()) + " vs " +
                   std::to_string(dtypes.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::size_t at = components[i];
    if (values[i].dtype() != dtypes[at])
      refuse_staging("Datatypes do not match. Received val.dtype " +
                     std::string(dtype_name(values[i].dtype())) + " and dtype " +
                     std::string(dtype_name(dtypes[at])));
    if (!values[i].shape().is_compatible_with(shapes[at]))
      refuse_staging("Shapes " + values[i].shape().to_string() + " and " + shapes[at].to_string() +
                     " are incompatible");
  }
}

/// _create_device_transfers: a NoOp probes the device scope; away from the device of the
/// area's colocation op `coloc` each output passes an Identity.
inline std::vector<Output> staging_transfers(Graph& g, const Operation& coloc,
                                             std::vector<Output> outputs) {
  const Operation probe = g.no_op();
  if (probe.device() != coloc.device())
    for (Output& o : outputs) o = identity(o);
  return outputs;
}

}  // namespace af::detail
