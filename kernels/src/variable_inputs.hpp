#pragma once

// The variables an update kernel takes by reference (Apply*, SparseApply*, Scatter* and their
// Resource* twins); private to the kernels module.
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"

namespace af::detail {

/// The variables behind the kernel's first `refs` inputs, in order, into `*out`.
/// InvalidArgument "Input i of NODE is not a variable" for an input that is not one, and for
/// a resource variable (`resource`) of another dtype than `dtype` "Trying to access resource
/// NAME as float but it holds double".
inline Status variable_inputs(OpKernelContext& ctx, int refs, DType dtype, bool resource,
                              std::vector<Var*>* out) {
  for (int i = 0; i < refs; ++i) {
    auto* v = dynamic_cast<Var*>(ctx.input_ref(i).get());
    if (!v)
      return invalid_argument("Input " + std::to_string(i) + " of " + ctx.node_name() +
                              " is not a variable");
    if (resource && v->dtype() != dtype)
      return invalid_argument("Trying to access resource " + v->name() + " as " +
                              std::string(data_type_string(dtype)) + " but it holds " +
                              std::string(data_type_string(v->dtype())) +
                              node_suffix(ctx.node_name()));
    out->push_back(v);
  }
  return {};
}

}  // namespace af::detail
