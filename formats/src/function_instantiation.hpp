// The bodies of the functions dataset nodes name (MapDataset's `f`), made from the TensorFlow
// FunctionDefLibrary their FunctionAttr carries. Private to the formats module.
#pragma once

#include "actorflow/data/dataset.hpp"

namespace af::tfproto {

/// The body of `f`: its library's FunctionDef called by name from one Placeholder per
/// argument and lowered (`lower_functional_ops`), nodes in dependency order; the results
/// are the outputs of node `_f`. InvalidArgument naming the function when the library does
/// not define it, a signature type is not fixed, or the body does not lower.
StatusOr<data::FunctionBody> instantiate_function(const FunctionAttr& f);

/// Registers the data module's ops and installs `instantiate_function` as its instantiator
/// (every reader of TensorFlow graphs calls it); idempotent.
void install_function_instantiator();

}  // namespace af::tfproto
