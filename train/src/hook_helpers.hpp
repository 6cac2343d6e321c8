// What the session run hooks share (monitored_session.cpp, basic_hooks.cpp,
// summary_hooks.cpp): the global step they read and its value. Private to the train module.
#pragma once

#include <cstdint>
#include <string>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/train/training_util.hpp"

namespace af::train::detail {

/// The graph's global step as a fresh read; FailedPreconditionError "Global step should be
/// created to use <hook>." when it has none (TensorFlow's hooks raise it in `begin`).
inline Output require_global_step(Graph& g, const char* hook) {
  auto gs = get_global_step(g);
  if (!gs)
    throw FailedPreconditionError(
        failed_precondition(std::string("Global step should be created to use ") + hook + "."));
  return gs->value();
}

/// A fetched global step's value (int32 or int64).
inline std::int64_t scalar_step(const Tensor& t) {
  return t.dtype() == DType::int32 ? t.scalar<std::int32_t>() : t.scalar<std::int64_t>();
}

}  // namespace af::train::detail
