// Iterators (TensorFlow's iterator_ops.cc): the iterator resource, the ops that make one
// (IteratorV2, Iterator, OneShotIterator), point it at a dataset (MakeIterator), take its
// elements (IteratorGetNext, IteratorGetNextSync) and name it by a string handle
// (IteratorToStringHandle, IteratorFromStringHandle, IteratorFromStringHandleV2); plus
// DatasetToSingleElement, DatasetCardinality and DatasetToTFRecord.
#include <atomic>
#include <mutex>

#include "actorflow/queues/tf_record.hpp"
#include "actorflow/tf/resource_handle.pb.h"
#include "dataset_base.hpp"
#include "dataset_registration.hpp"
#include "dataset_resources.hpp"
#include "function_runner.hpp"
#include "variant_values.hpp"

namespace af::data::detail {

namespace {

constexpr const char* kIteratorType = "tensorflow::data::IteratorResource";

/// TensorFlow's VerifyTypesMatch and VerifyShapesCompatible.
Status verify_signature(const std::vector<DType>& dtypes, const std::vector<PartialShape>& shapes,
                        const std::vector<DType>& got_types,
                        const std::vector<PartialShape>* got_shapes) {
  if (dtypes.size() != got_types.size())
    return invalid_argument("Number of components does not match: expected " +
                            std::to_string(dtypes.size()) + " types but got " +
                            std::to_string(got_types.size()) + ".");
  for (std::size_t i = 0; i < dtypes.size(); ++i)
    if (dtypes[i] != got_types[i])
      return invalid_argument("Data type mismatch at component " + std::to_string(i) +
                              ": expected " + std::string(data_type_string(dtypes[i])) +
                              " but got " + std::string(data_type_string(got_types[i])) + ".");
  if (!got_shapes) return {};
  for (std::size_t i = 0; i < shapes.size() && i < got_shapes->size(); ++i)
    if (!shapes[i].is_compatible_with((*got_shapes)[i]))
      return invalid_argument("Incompatible shapes at component " + std::to_string(i) +
                              ": expected " + shapes[i].to_string() + " but got " +
                              (*got_shapes)[i].to_string() + ".");
  return {};
}

/// The iterator resource: an element signature and, once MakeIterator ran, an iterator.
class IteratorResource final : public ResourceBase {
 public:
  IteratorResource(std::string container, std::string name, std::vector<DType> dtypes,
                   std::vector<PartialShape> shapes)
      : container_(std::move(container)),
        name_(std::move(name)),
        dtypes_(std::move(dtypes)),
        shapes_(std::move(shapes)) {}

  std::string debug_string() const override { return "Iterator resource " + name_; }

  /// MakeIterator: a fresh iterator over `dataset` (whose signature must match).
  Status set_dataset(std::shared_ptr<const DatasetBase> dataset) {
    std::vector<PartialShape> got = dataset->shapes();
    ACTORFLOW_RETURN_IF_ERROR(verify_signature(dtypes_, shapes_, dataset->dtypes(), &got));
    auto it = dataset->make_iterator();
    std::lock_guard<std::mutex> lock(mu_);
    dataset_ = std::move(dataset);
    iterator_ = std::move(it);
    return {};
  }

  /// The next element; FailedPrecondition before MakeIterator, NotFound after DeleteIterator.
  Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) {
    std::lock_guard<std::mutex> lock(mu_);
    if (deleted_) return not_found("Resource " + container_ + "/" + name_ + " does not exist.");
    if (!iterator_)
      return failed_precondition(
          "GetNext() failed because the iterator has not been initialized. Ensure that you "
          "have run the initializer operation for this iterator before getting the next "
          "element.");
    return iterator_->get_next(env, out, end);
  }

  /// DeleteIterator: drops the iterator and its dataset; later uses fail.
  void release() {
    std::unique_ptr<IteratorBase> it;
    std::shared_ptr<const DatasetBase> ds;
    {
      std::lock_guard<std::mutex> lock(mu_);
      deleted_ = true;
      it = std::move(iterator_);
      ds = std::move(dataset_);
    }  // destroyed outside the lock (a prefetch thread may be joined)
  }

  const std::vector<DType>& dtypes() const noexcept { return dtypes_; }
  const std::vector<PartialShape>& shapes() const noexcept { return shapes_; }
  const std::string& container() const noexcept { return container_; }
  const std::string& name() const noexcept { return name_; }

  /// OneShotIterator's first run: the factory's dataset, once.
  std::once_flag one_shot;
  Status one_shot_status;

 private:
  std::mutex mu_;
  std::string container_, name_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
  std::shared_ptr<const DatasetBase> dataset_;
  std::unique_ptr<IteratorBase> iterator_;
  bool deleted_ = false;
};

Status input_iterator(const OpKernelContext& ctx, int index,
                      std::shared_ptr<IteratorResource>* out) {
  const Tensor& t = ctx.input(index);
  *out = std::dynamic_pointer_cast<IteratorResource>(t.resource());
  if (!*out)
    return invalid_argument("node '" + ctx.node_name() + "': input " + std::to_string(index) +
                            " is not an iterator resource");
  return {};
}

std::atomic<std::int64_t> g_iterator_ids{0};

// IteratorV2, Iterator and OneShotIterator: the handle of this kernel's iterator resource.
class IteratorHandleOp final : public StatusOpKernel {
 public:
  IteratorHandleOp(OpKernelConstruction& c, Status* s) : StatusOpKernel(c), op_(c.def.op) {
    *s = read_signature(c, &dtypes_, &shapes_);
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    if (op_ == "OneShotIterator" && s->ok()) {
      FunctionAttr factory;
      *s = c.get_attr("dataset_factory", &factory);
      factory_ = std::make_shared<InstantiatedFunction>(std::move(factory), c.def.name);
    }
    // As ContainerInfo::Init without node-name sharing: a name private to this kernel.
    if (shared_name_.empty())
      shared_name_ = "_" + std::to_string(g_iterator_ids.fetch_add(1)) + "_" + c.def.name;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!resource_) {
      if (!ctx.resource_mgr) return internal("no resource manager for " + name());
      std::shared_ptr<IteratorResource> r;
      ACTORFLOW_RETURN_IF_ERROR(ctx.resource_mgr->lookup_or_create<IteratorResource>(
          container_, shared_name_, &r, [&](std::shared_ptr<IteratorResource>* out) {
            *out = std::make_shared<IteratorResource>(container_, shared_name_, dtypes_, shapes_);
            return Status{};
          }));
      ACTORFLOW_RETURN_IF_ERROR(verify_signature(dtypes_, shapes_, r->dtypes(), &r->shapes()));
      resource_ = std::move(r);
    }
    if (op_ == "OneShotIterator") {
      // The factory runs once per iterator, on the first run (TensorFlow: in the background,
      // the first IteratorGetNext waiting for it).
      std::call_once(resource_->one_shot, [&] { resource_->one_shot_status = make_one_shot(ctx); });
      ACTORFLOW_RETURN_IF_ERROR(resource_->one_shot_status);
    }
    ctx.set_output(0, Tensor::from_resource(resource_));
    return {};
  }

 private:
  Status make_one_shot(OpKernelContext& ctx) {
    std::vector<Tensor> result;
    ACTORFLOW_RETURN_IF_ERROR(factory_->run(IteratorEnv::of(ctx), {}, &result));
    std::shared_ptr<const DatasetBase> dataset;
    if (result.size() == 1 && result[0].dtype() == DType::variant && result[0].num_elements() == 1)
      dataset = std::dynamic_pointer_cast<const DatasetBase>(result[0].data<Variant>()[0].value());
    if (!dataset)
      return invalid_argument("The `dataset_factory` function of " + name() +
                              " must return a single scalar of dtype DT_VARIANT.");
    return resource_->set_dataset(std::move(dataset));
  }

  std::string op_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
  std::string container_, shared_name_;
  std::shared_ptr<const InstantiatedFunction> factory_;
  std::mutex mu_;
  std::shared_ptr<IteratorResource> resource_;
};

// AnonymousIterator, AnonymousIteratorV3 (handle) and AnonymousIteratorV2 (handle, deleter):
// a new iterator resource each run, held by its handle alone (not in the resource manager).
class AnonymousIteratorOp final : public StatusOpKernel {
 public:
  AnonymousIteratorOp(OpKernelConstruction& c, Status* s)
      : StatusOpKernel(c), with_deleter_(c.def.op == "AnonymousIteratorV2") {
    *s = read_signature(c, &dtypes_, &shapes_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const std::string name = "AnonymousIterator" + std::to_string(g_iterator_ids.fetch_add(1));
    ctx.set_output(
        0, Tensor::from_resource(std::make_shared<IteratorResource>("", name, dtypes_, shapes_)));
    if (with_deleter_) ctx.set_output(1, deleter_tensor());
    return {};
  }

 private:
  bool with_deleter_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

// DeleteIterator (handle, deleter): ends the iterator.
class DeleteIteratorOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<IteratorResource> it;
    ACTORFLOW_RETURN_IF_ERROR(input_iterator(ctx, 0, &it));
    it->release();
    return {};
  }
};

class MakeIteratorOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<const DatasetBase> dataset;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &dataset));
    std::shared_ptr<IteratorResource> it;
    ACTORFLOW_RETURN_IF_ERROR(input_iterator(ctx, 1, &it));
    return it->set_dataset(std::move(dataset));
  }
};

// A kernel of an op with an element signature (`output_types`, `output_shapes`).
class SignatureKernel : public StatusOpKernel {
 public:
  SignatureKernel(OpKernelConstruction& c, Status* s) : StatusOpKernel(c) {
    *s = read_signature(c, &dtypes_, &shapes_);
  }

 protected:
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

class IteratorGetNextOp final : public SignatureKernel {
 public:
  using SignatureKernel::SignatureKernel;
  // Reading files and running functions: a pool thread's work.
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<IteratorResource> it;
    ACTORFLOW_RETURN_IF_ERROR(input_iterator(ctx, 0, &it));
    std::vector<Tensor> element;
    bool end = false;
    ACTORFLOW_RETURN_IF_ERROR(it->get_next(IteratorEnv::of(ctx), &element, &end));
    if (end) return out_of_range("End of sequence");
    ACTORFLOW_RETURN_IF_ERROR(verify_element(dtypes_, shapes_, element));
    set_outputs(ctx, std::move(element));
    return {};
  }
};

// IteratorGetNextAsOptional: the next element in an optional, or an optional without a value
// at the end (tf.data.Iterator.get_next_as_optional).
class IteratorGetNextAsOptionalOp final : public SignatureKernel {
 public:
  using SignatureKernel::SignatureKernel;
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<IteratorResource> it;
    ACTORFLOW_RETURN_IF_ERROR(input_iterator(ctx, 0, &it));
    auto optional = std::make_shared<af::detail::OptionalValue>();
    bool end = false;
    ACTORFLOW_RETURN_IF_ERROR(it->get_next(IteratorEnv::of(ctx), &optional->components, &end));
    if (!end) {
      ACTORFLOW_RETURN_IF_ERROR(verify_element(dtypes_, shapes_, optional->components));
      optional->has_value = true;
    } else {
      optional->components.clear();
    }
    ctx.set_output(0, variant_scalar(std::move(optional)));
    return {};
  }
};

class IteratorToStringHandleOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<IteratorResource> it;
    ACTORFLOW_RETURN_IF_ERROR(input_iterator(ctx, 0, &it));
    tensorflow::ResourceHandleProto handle;
    handle.set_device(std::string(ctx.device_name));
    handle.set_container(it->container());
    handle.set_name(it->name());
    handle.set_maybe_type_name(kIteratorType);
    ctx.set_output(0, Tensor(handle.SerializeAsString()));
    return {};
  }
};

class IteratorFromStringHandleOp final : public SignatureKernel {
 public:
  using SignatureKernel::SignatureKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    if (t.dtype() != DType::string || t.num_elements() != 1 || t.shape().rank() != 0)
      return invalid_argument("string_handle must be a scalar, but got rank " +
                              std::to_string(t.shape().rank()));
    tensorflow::ResourceHandleProto handle;
    if (!handle.ParseFromString(t.data<std::string>()[0]))
      return invalid_argument("Could not parse string_handle as a valid ResourceHandle");
    if (handle.maybe_type_name() != kIteratorType)
      return invalid_argument("string_handle names a " + handle.maybe_type_name() +
                              ", not an iterator");
    if (!ctx.resource_mgr) return internal("no resource manager for " + name());
    std::shared_ptr<IteratorResource> it;
    ACTORFLOW_RETURN_IF_ERROR(ctx.resource_mgr->lookup(handle.container(), handle.name(), &it));
    if (!dtypes_.empty())
      ACTORFLOW_RETURN_IF_ERROR(verify_signature(dtypes_, shapes_, it->dtypes(),
                                                 shapes_.empty() ? nullptr : &it->shapes()));
    ctx.set_output(0, Tensor::from_resource(it));
    return {};
  }
};

// DatasetToSingleElement: the dataset's only element.
class DatasetToSingleElementOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<const DatasetBase> dataset;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &dataset));
    auto it = dataset->make_iterator();
    const IteratorEnv env = IteratorEnv::of(ctx);
    std::vector<Tensor> element, extra;
    bool end = false;
    ACTORFLOW_RETURN_IF_ERROR(it->get_next(env, &element, &end));
    if (end) return invalid_argument("Dataset was empty.");
    ACTORFLOW_RETURN_IF_ERROR(it->get_next(env, &extra, &end));
    if (!end) return invalid_argument("Dataset had more than one element.");
    set_outputs(ctx, std::move(element));
    return {};
  }
};

// DatasetToTFRecord(input_dataset, filename, compression_type): writes each element, one
// scalar string, as a record of a TFRecord file (tf.data.experimental.TFRecordWriter). An
// unknown compression writes none, as TensorFlow's RecordWriterOptions.
class DatasetToTFRecordOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<const DatasetBase> dataset;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &dataset));
    for (int i : {1, 2})
      if (ctx.input(i).dtype() != DType::string || ctx.input(i).rank() != 0)
        return invalid_argument(std::string(i == 1 ? "filename" : "compression_type") +
                                " must be a scalar");
    const std::string filename = ctx.input(1).scalar<std::string>();
    const std::string compression = ctx.input(2).scalar<std::string>();
    if (dataset->dtypes() != std::vector<DType>{DType::string})
      return invalid_argument(
          "DatasetToTFRecord takes a dataset of scalar strings; its elements are " +
          std::to_string(dataset->dtypes().size()) + " component(s)" +
          (dataset->dtypes().empty() ? ""
                                     : " of " + std::string(dtype_name(dataset->dtypes()[0]))));
    TFRecordOptions options;
    if (compression == "ZLIB") options.compression_type = TFRecordCompressionType::zlib;
    if (compression == "GZIP") options.compression_type = TFRecordCompressionType::gzip;
    try {
      TFRecordWriter writer(filename, options);
      auto it = dataset->make_iterator();
      const IteratorEnv env = IteratorEnv::of(ctx);
      std::vector<Tensor> element;
      for (bool end = false;;) {
        ACTORFLOW_RETURN_IF_ERROR(it->get_next(env, &element, &end));
        if (end) break;
        if (element.size() != 1 || element[0].rank() != 0)
          return invalid_argument(
              "DatasetToTFRecord takes scalar strings; an element has shape " +
              (element.empty() ? std::string("[]") : element[0].shape().to_string()));
        writer.write(element[0].scalar<std::string>());
      }
      writer.close();
    } catch (const Error& e) {
      return e.status();
    }
    return {};
  }
};

class DatasetCardinalityOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<const DatasetBase> dataset;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &dataset));
    ctx.set_output(0, Tensor(dataset->cardinality()));
    return {};
  }
};

Status scalar_output(InferenceContext& c, DType t) {
  c.add_output(t, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

}  // namespace

Status element_outputs(InferenceContext& c) {
  std::vector<DType> types;
  std::vector<PartialShape> shapes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_types", &types));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_shapes", &shapes));
  if (types.size() != shapes.size())
    return invalid_argument(std::to_string(types.size()) + " output types but " +
                            std::to_string(shapes.size()) + " output shapes");
  for (std::size_t i = 0; i < types.size(); ++i) c.add_output(types[i], shapes[i]);
  return {};
}

void register_iterator_ops(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op : {"IteratorV2", "Iterator", "OneShotIterator", "IteratorFromStringHandle",
                         "IteratorFromStringHandleV2"})
    ops.add({op, [](InferenceContext& c) { return scalar_output(c, DType::resource); }, true, {}});
  for (const char* op : {"AnonymousIterator", "AnonymousIteratorV3"})
    ops.add({op, [](InferenceContext& c) { return scalar_output(c, DType::resource); }, true, {}});
  ops.add({"AnonymousIteratorV2",
           [](InferenceContext& c) {
             ACTORFLOW_RETURN_IF_ERROR(scalar_output(c, DType::resource));
             return scalar_output(c, DType::variant);
           },
           true,
           {}});
  for (const char* op : {"MakeIterator", "DeleteIterator"})
    ops.add({op, [](InferenceContext&) { return Status{}; }, true, {}});
  ops.add({"IteratorToStringHandle",
           [](InferenceContext& c) { return scalar_output(c, DType::string); },
           true,
           {}});
  ops.add({"IteratorGetNext", element_outputs, true, {}});
  ops.add({"IteratorGetNextAsOptional",
           [](InferenceContext& c) { return scalar_output(c, DType::variant); },
           true,
           {}});
  ops.add({"IteratorGetNextSync", element_outputs, true, {}});
  ops.add({"DatasetToSingleElement", element_outputs, false, {}});
  ops.add({"DatasetToTFRecord", [](InferenceContext&) { return Status{}; }, true, {}});
  ops.add({"DatasetCardinality",
           [](InferenceContext& c) { return scalar_output(c, DType::int64); },
           false,
           {}});
  for (const char* op : {"IteratorV2", "Iterator", "OneShotIterator"})
    kernels.add(make_kernel_def<IteratorHandleOp>(op, "CPU"));
  for (const char* op : {"AnonymousIterator", "AnonymousIteratorV2", "AnonymousIteratorV3"})
    kernels.add(make_kernel_def<AnonymousIteratorOp>(op, "CPU"));
  kernels.add(make_kernel_def<DeleteIteratorOp>("DeleteIterator", "CPU"));
  kernels.add(make_kernel_def<MakeIteratorOp>("MakeIterator", "CPU"));
  kernels.add(make_kernel_def<IteratorGetNextOp>("IteratorGetNext", "CPU"));
  kernels.add(make_kernel_def<IteratorGetNextOp>("IteratorGetNextSync", "CPU"));
  kernels.add(make_kernel_def<IteratorGetNextAsOptionalOp>("IteratorGetNextAsOptional", "CPU"));
  kernels.add(make_kernel_def<IteratorToStringHandleOp>("IteratorToStringHandle", "CPU"));
  kernels.add(make_kernel_def<IteratorFromStringHandleOp>("IteratorFromStringHandle", "CPU"));
  kernels.add(make_kernel_def<IteratorFromStringHandleOp>("IteratorFromStringHandleV2", "CPU"));
  kernels.add(make_kernel_def<DatasetToSingleElementOp>("DatasetToSingleElement", "CPU"));
  kernels.add(make_kernel_def<DatasetCardinalityOp>("DatasetCardinality", "CPU"));
  kernels.add(make_kernel_def<DatasetToTFRecordOp>("DatasetToTFRecord", "CPU"));
}

}  // namespace af::data::detail
