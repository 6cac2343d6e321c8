// DecodePaddedRaw, SerializeTensor and ParseTensor carry no gradient: parsing_ops.py declares
// them NotDifferentiable, so a gradient walk stops there instead of failing. (TensorFlow
// registers nothing for the file, fingerprint and SparseTensor serialization ops: their
// inputs are strings and integers, which gradients never reach.)
#include "gradient_helpers.hpp"

namespace af::detail {

void register_serialize_io_gradients(GradientRegistry& r) {
  for (const char* type : {"DecodePaddedRaw", "SerializeTensor", "ParseTensor"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
