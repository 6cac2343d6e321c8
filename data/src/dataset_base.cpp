// The shared pieces of the dataset kernels (TensorFlow's dataset.cc and dataset_utils.cc).
#include "dataset_base.hpp"

#include <cstring>

#include "actorflow/ops/errors.hpp"

namespace af::data::detail {

std::shared_ptr<const VariantValue> DatasetBase::zeros_like() const {
  throw InvalidArgumentError(invalid_argument("a dataset (" + op_ + ") has no zeros"));
}

std::shared_ptr<const VariantValue> DatasetBase::add(const VariantValue&) const {
  throw InvalidArgumentError(invalid_argument("datasets (" + op_ + ") cannot be added"));
}

Status input_dataset(const OpKernelContext& ctx, int index,
                     std::shared_ptr<const DatasetBase>* out) {
  const Tensor& t = ctx.input(index);
  if (t.dtype() != DType::variant || t.num_elements() != 1 || t.shape().rank() != 0)
    return invalid_argument("Dataset tensor must be a scalar of dtype DT_VARIANT.");
  const auto& value = t.data<Variant>()[0].value();
  auto dataset = std::dynamic_pointer_cast<const DatasetBase>(value);
  if (!dataset) return invalid_argument("Tensor must be a Dataset object.");
  *out = std::move(dataset);
  return {};
}

Tensor dataset_tensor(std::shared_ptr<const DatasetBase> dataset) {
  return variant_scalar(std::move(dataset));
}

DatasetOpKernel::DatasetOpKernel(OpKernelConstruction& c, Status* s) : StatusOpKernel(c) {
  // TensorDataset and TensorSliceDataset name the types Toutput_types.
  if (c.def.attr<std::vector<DType>>("Toutput_types"))
    *s = c.get_attr("Toutput_types", &dtypes_);
  else
    *s = c.get_attr("output_types", &dtypes_);
  if (s->ok()) *s = c.get_attr("output_shapes", &shapes_);
  if (s->ok() && shapes_.size() != dtypes_.size())
    *s = invalid_argument("node '" + c.def.name + "': " + std::to_string(dtypes_.size()) +
                          " output types but " + std::to_string(shapes_.size()) + " output shapes");
}

Status DatasetOpKernel::run(OpKernelContext& ctx) {
  std::shared_ptr<const DatasetBase> dataset;
  ACTORFLOW_RETURN_IF_ERROR(make(ctx, &dataset));
  ctx.set_output(0, dataset_tensor(std::move(dataset)));
  return {};
}

Status read_signature(OpKernelConstruction& c, std::vector<DType>* dtypes,
                      std::vector<PartialShape>* shapes) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_types", dtypes));
  return c.get_attr("output_shapes", shapes);
}

Status scalar_int64(const OpKernelContext& ctx, int index, std::string_view name,
                    std::int64_t* out) {
  const Tensor& t = ctx.input(index);
  if (t.shape().rank() != 0 || t.num_elements() != 1)
    return invalid_argument(std::string(name) + " must be a scalar");
  switch (t.dtype()) {
    case DType::int64:
      *out = t.data<std::int64_t>()[0];
      return {};
    case DType::int32:
      *out = t.data<std::int32_t>()[0];
      return {};
    default:
      return invalid_argument(std::string(name) + " must be an int64 scalar, got " +
                              std::string(data_type_string(t.dtype())));
  }
}

Status verify_element(const std::vector<DType>& dtypes, const std::vector<PartialShape>& shapes,
                      const std::vector<Tensor>& element) {
  if (element.size() != dtypes.size())
    return invalid_argument("Number of components does not match: expected " +
                            std::to_string(dtypes.size()) + " types but got " +
                            std::to_string(element.size()) + ".");
  for (std::size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != dtypes[i])
      return invalid_argument("Data type mismatch at component " + std::to_string(i) +
                              ": expected " + std::string(data_type_string(dtypes[i])) +
                              " but got " + std::string(data_type_string(element[i].dtype())) +
                              ".");
    if (i < shapes.size() && !shapes[i].is_compatible_with(PartialShape(element[i].shape())))
      return invalid_argument("Incompatible shapes at component " + std::to_string(i) +
                              ": expected " + shapes[i].to_string() + " but got " +
                              element[i].shape().to_string() + ".");
  }
  return {};
}

Status scalar_bool(const OpKernelContext& ctx, int index, std::string_view name, bool* out) {
  const Tensor& t = ctx.input(index);
  if (t.dtype() != DType::boolean || t.shape().rank() != 0 || t.num_elements() != 1)
    return invalid_argument(std::string(name) + " must be a scalar bool");
  *out = t.data<bool>()[0];
  return {};
}

Status scalar_string(const OpKernelContext& ctx, int index, std::string_view name,
                     std::string* out) {
  const Tensor& t = ctx.input(index);
  if (t.dtype() != DType::string || t.num_elements() != 1 || t.shape().rank() != 0)
    return invalid_argument(std::string(name) + " must be a scalar");
  *out = t.data<std::string>()[0];
  return {};
}

void set_outputs(OpKernelContext& ctx, std::vector<Tensor> element) {
  for (std::size_t i = 0; i < element.size(); ++i)
    ctx.set_output(static_cast<int>(i), std::move(element[i]));
}

Tensor row_of(const Tensor& t, std::int64_t i) {
  std::vector<std::int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  Tensor out(t.dtype(), Shape(dims));
  const std::int64_t n = out.num_elements();
  if (t.dtype() == DType::string) {
    const auto* src = t.data<std::string>() + i * n;
    std::copy(src, src + n, out.data<std::string>());
  } else if (t.dtype() == DType::variant) {
    const auto* src = t.data<Variant>() + i * n;
    std::copy(src, src + n, out.data<Variant>());
  } else {
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(t.dtype());
    if (bytes > 0)
      std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + i * bytes, bytes);
  }
  return out;
}

namespace {

class ElementsDataset final : public DatasetBase {
 public:
  ElementsDataset(std::vector<std::vector<Tensor>> elements, std::vector<DType> dtypes,
                  std::vector<PartialShape> shapes)
      : DatasetBase("Window", std::move(dtypes), std::move(shapes)),
        elements_(std::move(elements)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<ElementsDataset> {
      using DatasetIterator::DatasetIterator;
      std::size_t next = 0;
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        *end = next >= ds->elements_.size();
        if (!*end) *out = ds->elements_[next++];
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override { return static_cast<std::int64_t>(elements_.size()); }

 private:
  std::vector<std::vector<Tensor>> elements_;
};

}  // namespace

std::shared_ptr<const DatasetBase> elements_dataset(std::vector<std::vector<Tensor>> elements,
                                                    std::vector<DType> dtypes,
                                                    std::vector<PartialShape> shapes) {
  return std::make_shared<ElementsDataset>(std::move(elements), std::move(dtypes),
                                           std::move(shapes));
}

}  // namespace af::data::detail
