#pragma once

// The attrs of the forward op that the gradient functions of several families read
// (array_more_grad.cpp, image_more_grad.cpp, image_grad.cpp, image_proc_grad.cpp), with the
// value the op's OpDef defaults to where the node does not set them. Private to the ops
// module.
#include <string>
#include <utility>

#include "actorflow/ops/graph.hpp"

namespace af::detail {

/// The bool attr `name` of `op`, or `fallback` where the node does not set it.
inline bool bool_attr(const Operation& op, const char* name, bool fallback = false) {
  auto v = op.node_def().attr<bool>(name);
  return v ? *v : fallback;
}

/// The string attr `name` of `op`, or `fallback` where the node does not set it.
inline std::string string_attr(const Operation& op, const char* name, std::string fallback) {
  auto v = op.node_def().attr<std::string>(name);
  return v ? *v : std::move(fallback);
}

}  // namespace af::detail
