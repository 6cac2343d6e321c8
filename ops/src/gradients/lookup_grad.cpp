// Lookup table ops carry no gradient: lookup_ops.py marks them not differentiable, so a
// gradient walk stops there instead of failing on a missing gradient.
#include "gradient_helpers.hpp"

namespace af::detail {

void register_lookup_gradients(GradientRegistry& r) {
  for (const char* type :
       {"HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
        "MutableDenseHashTableV2", "InitializeTableV2", "InitializeTableFromTextFileV2",
        "LookupTableFindV2", "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableSizeV2",
        "LookupTableExportV2", "LookupTableImportV2"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
