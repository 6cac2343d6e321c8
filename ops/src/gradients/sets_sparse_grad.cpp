// The gradients of the sets_sparse family as TensorFlow registers them: SetSize and the three
// set operations are not differentiable (sets_impl.py's ops.NotDifferentiable), so gradients
// stop there. SparseSplit, SparseBincount, RaggedBincount and the *CountSparseOutput ops have
// no entry at all in TensorFlow, and none here: `gradients` through them fails with "No
// gradient defined for operation ...", as tf.gradients does.
#include "gradient_helpers.hpp"

namespace af::detail {

void register_sets_sparse_gradients(GradientRegistry& r) {
  for (const char* type : {"SetSize", "DenseToDenseSetOperation", "DenseToSparseSetOperation",
                           "SparseToSparseSetOperation"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
