#pragma once

// Iterators whose elements are made ahead on threads of their own (TensorFlow's
// PrefetchDatasetOp and ParallelMapDatasetOp iterators): worker threads read the input in
// order, apply a function to each element (none for prefetch), and keep up to `capacity`
// results, which the consumer takes in the input's order. Private to the data module.
#include <functional>
#include <memory>
#include <vector>

#include "dataset_base.hpp"

namespace af::data::detail {

/// What a worker does to one input element: `*out` from `in`, or `*end` to end the sequence
/// there (a map function's OutOfRange), or an error returned in the element's place.
using ElementFn = std::function<Status(const IteratorEnv& env, std::vector<Tensor> in,
                                       std::vector<Tensor>* out, bool* end)>;

/// An iterator over `input`'s elements passed through `fn` (null: unchanged) by `threads`
/// worker threads, at most `capacity` elements ahead of the consumer, in order (a worker
/// takes up to 16 elements at a time when `fn` is cheap, so a parallel map wants a capacity
/// of 16 per thread). The threads
/// start at the first get_next, with that call's environment (which must stay valid while
/// the iterator lives: the session's resources and device), and are stopped and joined when
/// the iterator is destroyed. An error of the input or of `fn` takes its element's place and
/// the sequence goes on, as in TensorFlow.
std::unique_ptr<IteratorBase> make_background_iterator(std::unique_ptr<IteratorBase> input,
                                                       ElementFn fn, int threads,
                                                       std::size_t capacity);

}  // namespace af::data::detail
