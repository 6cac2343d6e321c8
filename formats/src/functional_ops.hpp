// TensorFlow 2's functional control flow in a GraphDef (While, StatelessWhile, If,
// StatelessIf, Case, StatelessCase, PartitionedCall, StatefulPartitionedCall and calls of library
// functions by name), lowered into the control flow v1 primitives actorflow's executor runs, as
// TensorFlow's LowerFunctionalOpsPass does (lower_while_op.cc, lower_if_op.cc) with the
// function bodies inlined (inline_function_utils.cc). Private to the formats module.
#pragma once

#include "actorflow/ops/status_or.hpp"
#include "actorflow/tf/graph.pb.h"

namespace af::tfproto {

/// Whether `g` has a node that `lower_functional_ops` rewrites.
bool has_functional_ops(const tensorflow::GraphDef& g);

/// `g` with every functional node replaced by its lowered form and every function called
/// inlined, recursively (a loop in a branch in a loop), the library kept as it is.
///
/// A functional node named N becomes an `IdentityN` (a `NoOp` when it has no outputs) named
/// N over the lowered outputs, so `N:k` and `^N` still name its outputs and its completion.
/// A While is an Enter, Merge, Switch, Exit and NextIteration per loop variable in frame N,
/// its cond inlined under `N/cond` feeding a `LoopCond`, its body under `N/body`; an If is a
/// Switch per input on the predicate, the branches inlined under `N/then` and `N/else`
/// (their input-less nodes wait on the taken branch's pivot) and a Merge per output; a Case
/// is as an If per branch, on `index == i` (the last branch: no other index matched, as
/// TensorFlow runs the last branch for an index out of range), under `N/branch<i>`; a call
/// is its body under `N/`. A function's `control_ret` nodes run before the call completes
/// (before the next iteration, for a loop body). Inlined nodes without a device take the
/// functional node's.
///
/// A body node with only a control input from an argument waits on an Identity of that
/// argument (dead in a branch not taken); calls in a body wait on its control source, so
/// their functions' input-less nodes run in the caller's frame and branch.
///
/// InvalidArgument naming the node and the function for: a function missing from the
/// library, defined twice or named as an op, an argument count that does not match its
/// signature, a generic function (list or type-attribute arguments, signature attributes,
/// attribute placeholders), a body input that names nothing in the body, an output argument
/// the op does not have, functions calling themselves (inlined more than 64 levels deep), and
/// inlining that would make more than 100,000 + 16 per input node nodes (or 256 MiB + 16
/// per input byte of names): calls nested many times over.
StatusOr<tensorflow::GraphDef> lower_functional_ops(const tensorflow::GraphDef& g);

}  // namespace af::tfproto
