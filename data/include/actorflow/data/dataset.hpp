#pragma once

// tf.data in actorflow: the dataset and iterator op types of TensorFlow 1.x graphs
// (TensorSliceDataset, MapDataset, TFRecordDataset, ..., OneShotIterator, IteratorV2,
// MakeIterator, IteratorGetNext) with CPU kernels. A dataset is a scalar variant tensor
// holding an immutable description of a pipeline; an iterator is a resource walking one.
// The functions a dataset runs per element (map, filter, flat_map, interleave, a one-shot
// iterator's factory) come from the function library of the TensorFlow graph they were read
// with: each such node carries its functions in its FunctionAttr.
#include <string>
#include <vector>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/status_or.hpp"

namespace af::data {

/// Registers the dataset and iterator op types and their CPU kernels, once; thread-safe.
/// `af::import_graph_def` and servers call it; call it before building such nodes by hand.
void register_dataset_ops();

/// A function of a FunctionAttr made runnable: a graph whose `Placeholder` nodes `args`
/// take the arguments and whose tensors `outputs` are the results.
struct FunctionBody {
  GraphDef graph;                    ///< the body, its calls and control flow lowered
  std::vector<std::string> args;     ///< the argument nodes, in signature order
  std::vector<DType> arg_types;      ///< their dtypes
  std::vector<std::string> outputs;  ///< the result tensors ("node:k"), in signature order
  std::vector<DType> output_types;   ///< their dtypes
};

/// Makes a FunctionAttr's body from the library it carries; InvalidArgument naming the
/// function when it is missing or cannot be lowered.
using FunctionInstantiator = StatusOr<FunctionBody> (*)(const FunctionAttr&);

/// Installs the instantiator (the formats module's, which reads TensorFlow's FunctionDef;
/// `af::import_graph_def` installs it). Until one is installed, running a dataset function
/// fails with FailedPrecondition.
void set_function_instantiator(FunctionInstantiator instantiate);

}  // namespace af::data
