// Seed generators and memory caches as TensorFlow 2 graphs hand them to datasets
// (TensorFlow's random_seed_ops.cc and cache_ops.cc): AnonymousSeedGenerator,
// AnonymousRandomSeedGenerator and DummySeedGenerator, AnonymousMemoryCache and
// DummyMemoryCache, and the Delete* ops that end them.
//
// A Dummy* op's handle names no resource: the dataset op that takes it makes one of its own,
// as TensorFlow's does when the lookup of the handle fails. The Anonymous* ops make a resource
// per run; the handle tensors hold it, so the Delete* ops only check their inputs.
#include "dataset_resources.hpp"

#include <random>

#include "dataset_base.hpp"
#include "dataset_registration.hpp"

namespace af::data::detail {

std::uint64_t new64() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) | rd();
}

namespace {

/// A seed generator behind a resource handle (TensorFlow's SeedGeneratorManager).
class SeedGeneratorResource final : public ResourceBase {
 public:
  explicit SeedGeneratorResource(std::shared_ptr<SeedGenerator> g) : generator(std::move(g)) {}
  std::string debug_string() const override { return "SeedGenerator"; }
  const std::shared_ptr<SeedGenerator> generator;  ///< shared with the datasets using it
};

/// A memory cache behind a resource handle (TensorFlow's MemoryCacheManager).
class MemoryCacheResource final : public ResourceBase {
 public:
  std::string debug_string() const override { return "MemoryCache"; }
  const std::shared_ptr<MemoryCache> cache = std::make_shared<MemoryCache>();  ///< shared
};

/// What a Dummy* op's handle holds: no resource a dataset looks for.
class DummyResource final : public ResourceBase {
 public:
  std::string debug_string() const override { return "dummy resource"; }
};

/// The resource of resource input `index`, or InvalidArgument naming the node.
Status resource_input(const OpKernelContext& ctx, int index, const char* what,
                      std::shared_ptr<ResourceBase>* out) {
  const Tensor& t = ctx.input(index);
  if (t.dtype() != DType::resource || t.num_elements() != 1)
    return invalid_argument("node '" + ctx.node_name() + "': " + what +
                            " must be a scalar resource handle");
  *out = t.resource();
  return {};
}

// AnonymousSeedGenerator (seed, seed2, reshuffle) and AnonymousRandomSeedGenerator (seed,
// seed2; always reshuffling): a new seed generator's handle and its deleter.
class AnonymousSeedGeneratorOp final : public StatusOpKernel {
 public:
  AnonymousSeedGeneratorOp(OpKernelConstruction& c, Status*)
      : StatusOpKernel(c), with_reshuffle_(c.def.op == "AnonymousSeedGenerator") {}

 protected:
  Status run(OpKernelContext& ctx) override {
    std::int64_t seed = 0, seed2 = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 0, "seed", &seed));
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "seed2", &seed2));
    bool reshuffle = true;
    if (with_reshuffle_) ACTORFLOW_RETURN_IF_ERROR(scalar_bool(ctx, 2, "reshuffle", &reshuffle));
    auto generator = std::make_shared<SeedGenerator>(RandomSeeds::from(seed, seed2), reshuffle);
    ctx.set_output(
        0, Tensor::from_resource(std::make_shared<SeedGeneratorResource>(std::move(generator))));
    ctx.set_output(1, deleter_tensor());
    return {};
  }

 private:
  bool with_reshuffle_;
};

// AnonymousMemoryCache: a new memory cache's handle and its deleter.
class AnonymousMemoryCacheOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ctx.set_output(0, Tensor::from_resource(std::make_shared<MemoryCacheResource>()));
    ctx.set_output(1, deleter_tensor());
    return {};
  }
};

// DummySeedGenerator and DummyMemoryCache: a handle naming no resource.
class DummyResourceOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ctx.set_output(0, Tensor::from_resource(std::make_shared<DummyResource>()));
    return {};
  }
};

// DeleteSeedGenerator, DeleteRandomSeedGenerator, DeleteMemoryCache (handle, deleter).
class DeleteResourceOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<ResourceBase> r;
    ACTORFLOW_RETURN_IF_ERROR(resource_input(ctx, 0, "handle", &r));
    const Tensor& d = ctx.input(1);
    if (d.dtype() != DType::variant || d.num_elements() != 1 ||
        !d.data<Variant>()[0].get<ResourceDeleterValue>())
      return invalid_argument("node '" + ctx.node_name() +
                              "': deleter must be a scalar variant holding a ResourceDeleter");
    return {};
  }
};

Status resource_and_deleter(InferenceContext& c) {
  c.add_output(DType::resource, PartialShape(std::vector<std::int64_t>{}));
  c.add_output(DType::variant, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

}  // namespace

Status seed_generator_input(const OpKernelContext& ctx, int index, RandomSeeds seeds,
                            bool reshuffle, std::shared_ptr<SeedGenerator>* out) {
  std::shared_ptr<ResourceBase> r;
  ACTORFLOW_RETURN_IF_ERROR(resource_input(ctx, index, "seed_generator", &r));
  if (auto g = std::dynamic_pointer_cast<SeedGeneratorResource>(r)) {
    *out = g->generator;
    return {};
  }
  *out = std::make_shared<SeedGenerator>(seeds, reshuffle);
  return {};
}

Status memory_cache_input(const OpKernelContext& ctx, int index,
                          std::shared_ptr<MemoryCache>* out) {
  std::shared_ptr<ResourceBase> r;
  ACTORFLOW_RETURN_IF_ERROR(resource_input(ctx, index, "cache", &r));
  if (auto c = std::dynamic_pointer_cast<MemoryCacheResource>(r)) {
    *out = c->cache;
    return {};
  }
  *out = std::make_shared<MemoryCache>();
  return {};
}

std::shared_ptr<const VariantValue> ResourceDeleterValue::zeros_like() const {
  throw InvalidArgumentError(invalid_argument("ZerosLike of a ResourceDeleter"));
}

std::shared_ptr<const VariantValue> ResourceDeleterValue::add(const VariantValue&) const {
  throw InvalidArgumentError(invalid_argument("ResourceDeleters do not add"));
}

Tensor deleter_tensor() { return variant_scalar(std::make_shared<ResourceDeleterValue>()); }

void register_dataset_resources(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op :
       {"AnonymousSeedGenerator", "AnonymousRandomSeedGenerator", "AnonymousMemoryCache"})
    ops.add({op, resource_and_deleter, true, {}});
  for (const char* op : {"DummySeedGenerator", "DummyMemoryCache"})
    ops.add({op,
             [](InferenceContext& c) {
               c.add_output(DType::resource, PartialShape(std::vector<std::int64_t>{}));
               return Status{};
             },
             true,
             {}});
  for (const char* op : {"DeleteSeedGenerator", "DeleteRandomSeedGenerator", "DeleteMemoryCache"})
    ops.add({op, [](InferenceContext&) { return Status{}; }, true, {}});
  for (const char* op : {"AnonymousSeedGenerator", "AnonymousRandomSeedGenerator"})
    kernels.add(make_kernel_def<AnonymousSeedGeneratorOp>(op, "CPU"));
  kernels.add(make_kernel_def<AnonymousMemoryCacheOp>("AnonymousMemoryCache", "CPU"));
  for (const char* op : {"DummySeedGenerator", "DummyMemoryCache"})
    kernels.add(make_kernel_def<DummyResourceOp>(op, "CPU"));
  for (const char* op : {"DeleteSeedGenerator", "DeleteRandomSeedGenerator", "DeleteMemoryCache"})
    kernels.add(make_kernel_def<DeleteResourceOp>(op, "CPU"));
}

}  // namespace af::data::detail
