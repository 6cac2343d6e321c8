#pragma once

// Registration of the data module's op families (each file adds its op types and CPU kernels);
// dataset_registration.cpp calls them once. Private to the data module.
#include <string>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::data::detail {

/// Adds `op` as a dataset op: any inputs, one scalar variant output (the dataset), not
/// stateful (a dataset is a value).
void add_dataset_op(OpRegistry& ops, const std::string& op);

/// The inference of ops that output one dataset element: `output_types` shaped as
/// `output_shapes` says (IteratorGetNext, DatasetToSingleElement, ReduceDataset, ...).
Status element_outputs(InferenceContext& c);

void register_source_datasets(OpRegistry& ops, KernelRegistry& kernels);     // Range, TFRecord, ...
void register_transform_datasets(OpRegistry& ops, KernelRegistry& kernels);  // Batch, Repeat, ...
void register_function_datasets(OpRegistry& ops, KernelRegistry& kernels);   // Map, Filter, ...
void register_shuffle_datasets(OpRegistry& ops, KernelRegistry& kernels);    // ShuffleDataset, ...
void register_slice_datasets(OpRegistry& ops, KernelRegistry& kernels);      // Shard, Window, ...
void register_fold_datasets(OpRegistry& ops, KernelRegistry& kernels);       // Reduce, Scan, ...
void register_csv_datasets(OpRegistry& ops, KernelRegistry& kernels);        // CSVDataset(V2)
void register_parse_example_datasets(OpRegistry& ops, KernelRegistry& kernels);  // ParseExample
void register_iterator_ops(OpRegistry& ops, KernelRegistry& kernels);            // IteratorV2, ...
void register_dataset_resources(OpRegistry& ops, KernelRegistry& kernels);  // seed generators, ...

}  // namespace af::data::detail
