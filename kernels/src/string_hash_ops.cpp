// StringToHashBucketFast: the CPU kernel (TensorFlow's string_to_hash_bucket_op.h), with
// FarmHash's Fingerprint64 (farmhashna's Hash64, frozen across platforms and releases) from
// Debian's libfarmhash. Its definition is in ops/src/defs/string_hash_ops.cpp.
#include <farmhash.h>

#include <cstdint>
#include <string>

#include "actorflow/ops/kernel.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

class StringToHashBucketFastOp : public OpKernel {
 public:
  StringToHashBucketFastOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("num_buckets", &num_buckets_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 4096;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor out(DType::int64, input.shape(), Tensor::for_overwrite);
    const std::string* in = input.data<std::string>();
    std::int64_t* o = out.data<std::int64_t>();
    const auto buckets = static_cast<std::uint64_t>(num_buckets_);
    for (std::int64_t i = 0; i < input.num_elements(); ++i)
      o[i] = static_cast<std::int64_t>(util::Fingerprint64(in[i].data(), in[i].size()) % buckets);
    ctx.set_output(0, std::move(out));
  }

 private:
  std::int64_t num_buckets_ = 1;
};

}  // namespace

namespace detail {

void register_string_hash_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StringToHashBucketFastOp>("StringToHashBucketFast", "CPU"));
}

}  // namespace detail

}  // namespace af
