#pragma once

// What tf.data's kernels share (TensorFlow's DatasetBase, IteratorBase and DatasetOpKernel):
// a dataset is an immutable variant value describing a pipeline, an iterator walks one. Private
// to the data module.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/variant.hpp"

namespace af::data::detail {

/// The unknown cardinality (TensorFlow's kUnknownCardinality).
inline constexpr std::int64_t kUnknownCardinality = -2;
/// The infinite cardinality (TensorFlow's kInfiniteCardinality).
inline constexpr std::int64_t kInfiniteCardinality = -1;

/// What an iterator may use while it produces an element: the services of the kernel that
/// asked (IteratorGetNext's), for the functions it runs.
struct IteratorEnv {
  ResourceMgr* resource_mgr = nullptr;              ///< the session's resources on the device
  ResourceMgr* shared_resource_mgr = nullptr;       ///< the process's resources on the device
  Runtime* runtime = nullptr;                       ///< the runtime the step runs in
  Eigen::ThreadPoolDevice* eigen_device = nullptr;  ///< the intra-op pool
  int intra_op_threads = 1;                         ///< its threads
  std::string_view device_name;                     ///< the device's full name

  /// The environment of the kernel running in `ctx`.
  static IteratorEnv of(const OpKernelContext& ctx) {
    return {ctx.resource_mgr, ctx.shared_resource_mgr, ctx.runtime,
            ctx.eigen_device, ctx.intra_op_threads,    ctx.device_name};
  }
  /// Gives `ctx` (a kernel run inside a dataset) these services.
  void apply_to(OpKernelContext& ctx) const {
    ctx.resource_mgr = resource_mgr;
    ctx.shared_resource_mgr = shared_resource_mgr;
    ctx.runtime = runtime;
    ctx.eigen_device = eigen_device;
    ctx.intra_op_threads = intra_op_threads;
    ctx.device_name = device_name;
  }
};

/// A cursor over a dataset's elements (TensorFlow's IteratorBase). Not thread-safe: the
/// iterator resource serialises its callers.
class IteratorBase {
 public:
  virtual ~IteratorBase() = default;
  /// The next element into `*out` (one tensor per component), or `*end` set and `*out`
  /// untouched at the end. An error leaves the iterator where the failed element was.
  virtual Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) = 0;
};

/// A dataset (TensorFlow's DatasetBase inside a DatasetVariantWrapper): immutable, shared
/// by every tensor and iterator that holds it.
class DatasetBase : public VariantValue, public std::enable_shared_from_this<DatasetBase> {
 public:
  /// `op` names the dataset's kind in messages ("RangeDataset").
  DatasetBase(std::string op, std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : op_(std::move(op)), dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}

  /// A fresh iterator at the first element.
  virtual std::unique_ptr<IteratorBase> make_iterator() const = 0;
  /// The number of elements, kInfiniteCardinality or kUnknownCardinality.
  virtual std::int64_t cardinality() const { return kUnknownCardinality; }

  /// The element's component dtypes.
  const std::vector<DType>& dtypes() const noexcept { return dtypes_; }
  /// The element's component shapes (as the op's `output_shapes` says).
  const std::vector<PartialShape>& shapes() const noexcept { return shapes_; }
  /// The dataset's op type.
  const std::string& op() const noexcept { return op_; }
  /// This dataset, shared (iterators keep their dataset alive).
  std::shared_ptr<const DatasetBase> self() const { return shared_from_this(); }

  /// `"tensorflow::DatasetVariantWrapper"`, TensorFlow's name of a dataset variant.
  std::string_view type_name() const override { return "tensorflow::DatasetVariantWrapper"; }
  /// `"<op>Dataset::Dataset"`-like: the op type.
  std::string debug_string() const override { return op_ + "::Dataset"; }
  /// Datasets have no zeros: InvalidArgument.
  std::shared_ptr<const VariantValue> zeros_like() const override;
  /// Datasets do not add: InvalidArgument.
  std::shared_ptr<const VariantValue> add(const VariantValue& other) const override;

 private:
  std::string op_;
  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

/// The dataset in input `index` of `ctx`: InvalidArgument unless it is a scalar variant
/// holding one (TensorFlow's GetDatasetFromVariantTensor).
Status input_dataset(const OpKernelContext& ctx, int index,
                     std::shared_ptr<const DatasetBase>* out);

/// A scalar variant tensor holding `dataset`.
Tensor dataset_tensor(std::shared_ptr<const DatasetBase> dataset);

/// A kernel whose body returns a Status (the error goes to `ctx.fail`).
class StatusOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  /// Runs `run` and records its error.
  void compute(OpKernelContext& ctx) final {
    Status s = run(ctx);
    if (!s.ok()) ctx.fail(std::move(s));
  }

 protected:
  /// The kernel's body.
  virtual Status run(OpKernelContext& ctx) = 0;
};

/// A dataset op's kernel (TensorFlow's DatasetOpKernel): reads `output_types` and
/// `output_shapes` and makes the dataset with `make`, output 0 holding it.
class DatasetOpKernel : public StatusOpKernel {
 public:
  /// Reads the element signature; InvalidArgument when an attribute is missing.
  DatasetOpKernel(OpKernelConstruction& c, Status* s);

 protected:
  /// Makes the dataset from the inputs.
  virtual Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) = 0;
  /// Calls `make` and outputs its dataset.
  Status run(OpKernelContext& ctx) final;

  std::vector<DType> dtypes_;         ///< the `output_types` attribute
  std::vector<PartialShape> shapes_;  ///< the `output_shapes` attribute
};

/// TensorFlow's "scalar" checks of a dataset op's argument: the scalar input `index` of
/// `ctx` as int64 (InvalidArgument "<name> must be a scalar" otherwise).
Status scalar_int64(const OpKernelContext& ctx, int index, std::string_view name,
                    std::int64_t* out);

/// TensorFlow's VerifyTypesMatch and VerifyShapesCompatible of an element against a
/// signature: InvalidArgument "Number of components does not match: ...", "Data type
/// mismatch at component i: ...", "Incompatible shapes at component i: ...".
Status verify_element(const std::vector<DType>& dtypes, const std::vector<PartialShape>& shapes,
                      const std::vector<Tensor>& element);

/// A dataset over one input dataset.
class UnaryDataset : public DatasetBase {
 public:
  /// A dataset of kind `op` over `input`, with the element signature given.
  UnaryDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::vector<DType> dtypes,
               std::vector<PartialShape> shapes)
      : DatasetBase(std::move(op), std::move(dtypes), std::move(shapes)),
        input_(std::move(input)) {}
  /// The input.
  const DatasetBase& input() const noexcept { return *input_; }

 private:
  std::shared_ptr<const DatasetBase> input_;
};

/// The iterator of a dataset of type D (keeps it alive).
template <class D>
struct DatasetIterator : IteratorBase {
  std::shared_ptr<const D> ds;  ///< the dataset walked
  /// An iterator of `d` (which must be held by a shared_ptr).
  explicit DatasetIterator(const D& d) : ds(std::static_pointer_cast<const D>(d.self())) {}
};

/// A unary dataset's kernel: input 0 is the input dataset; `Make::make` makes the dataset.
template <class Make>
class UnaryDatasetOp final : public DatasetOpKernel {
 public:
  /// Reads the signature.
  UnaryDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {}

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    return Make::make(ctx, op_, std::move(input), dtypes_, shapes_, out);
  }

 private:
  std::string op_;
};

/// Row `i` of `t` (a tensor of rank >= 1), copied into a tensor of its own.
Tensor row_of(const Tensor& t, std::int64_t i);

/// A dataset over `elements`, in order (TensorFlow's internal window dataset: what
/// WindowDataset yields per component and GroupByWindowDataset hands its reduce function).
std::shared_ptr<const DatasetBase> elements_dataset(std::vector<std::vector<Tensor>> elements,
                                                    std::vector<DType> dtypes,
                                                    std::vector<PartialShape> shapes);

/// The scalar bool input `index` of `ctx` (InvalidArgument "<name> must be a scalar bool").
Status scalar_bool(const OpKernelContext& ctx, int index, std::string_view name, bool* out);

/// The scalar string input `index` of `ctx` (InvalidArgument "<name> must be a scalar").
Status scalar_string(const OpKernelContext& ctx, int index, std::string_view name,
                     std::string* out);

/// Sets outputs 0, 1, ... of `ctx` to the components of `element`.
void set_outputs(OpKernelContext& ctx, std::vector<Tensor> element);

/// `Make` of a UnaryDatasetOp whose dataset D takes nothing but the input and signature.
template <class D>
struct MakeUnary {
  /// A D over `input`.
  static Status make(OpKernelContext&, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    *out = std::make_shared<D>(op, std::move(input), dtypes, shapes);
    return {};
  }
};

/// Reads an op's `output_types` and `output_shapes` attributes.
Status read_signature(OpKernelConstruction& c, std::vector<DType>* dtypes,
                      std::vector<PartialShape>* shapes);

}  // namespace af::data::detail
