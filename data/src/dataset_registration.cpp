// Registers the data module's op types and kernels once.
#include "dataset_registration.hpp"

#include <mutex>

#include "actorflow/data/dataset.hpp"

namespace af::data {

namespace detail {

void add_dataset_op(OpRegistry& ops, const std::string& op) {
  ops.add({op,
           [](InferenceContext& c) {
             c.add_output(DType::variant, PartialShape(std::vector<std::int64_t>{}));
             return Status{};
           },
           false,
           {}});
}

}  // namespace detail

void register_dataset_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& ops = OpRegistry::global();
    auto& kernels = KernelRegistry::global();
    detail::register_source_datasets(ops, kernels);
    detail::register_transform_datasets(ops, kernels);
    detail::register_function_datasets(ops, kernels);
    detail::register_shuffle_datasets(ops, kernels);
    detail::register_slice_datasets(ops, kernels);
    detail::register_fold_datasets(ops, kernels);
    detail::register_csv_datasets(ops, kernels);
    detail::register_parse_example_datasets(ops, kernels);
    detail::register_iterator_ops(ops, kernels);
    detail::register_dataset_resources(ops, kernels);
  });
}

}  // namespace af::data
