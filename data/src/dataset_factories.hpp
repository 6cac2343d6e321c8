#pragma once

// Datasets one family makes and another reuses (MapAndBatchDataset is a map, then a batch;
// CacheDataset keeps its elements in memory or in a file).
// Private to the data module.
#include <memory>
#include <string>
#include <vector>

#include "dataset_base.hpp"

namespace af::data::detail {

class CapturedFunction;

/// A MapDataset of kind `op` over `input` calling `f` per element; `preserve_cardinality`
/// turns the function's OutOfRange into InvalidArgument instead of the end; a
/// `parallel_calls` other than 0 runs the calls on that many threads (-1: one per core).
std::shared_ptr<const DatasetBase> make_map_dataset(
    std::string op, std::shared_ptr<const DatasetBase> input,
    std::shared_ptr<const CapturedFunction> f, bool preserve_cardinality,
    std::int64_t parallel_calls, std::vector<DType> dtypes, std::vector<PartialShape> shapes);

/// A BatchDataset of kind `op` over `input`: `batch_size` elements stacked (a smaller last
/// batch unless `drop_remainder`).
std::shared_ptr<const DatasetBase> make_batch_dataset(std::string op,
                                                      std::shared_ptr<const DatasetBase> input,
                                                      std::int64_t batch_size, bool drop_remainder,
                                                      std::vector<DType> dtypes,
                                                      std::vector<PartialShape> shapes);

/// `cache(filename)`: a CacheDataset of kind `op` over `input` kept in the tensor bundle at
/// `filename` (file_cache_dataset.cpp).
std::shared_ptr<const DatasetBase> make_file_cache_dataset(std::string op,
                                                           std::shared_ptr<const DatasetBase> input,
                                                           std::string filename,
                                                           std::vector<DType> dtypes,
                                                           std::vector<PartialShape> shapes);

}  // namespace af::data::detail
