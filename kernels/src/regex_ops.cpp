// Regular expressions over strings: RegexReplace, StaticRegexReplace, RegexFullMatch and
// StaticRegexFullMatch, CPU kernels on RE2 as TensorFlow's (regex_replace_op.cc,
// regex_full_match_op.cc): RE2's syntax and UTF-8 semantics, rewrites with \0..\9 and \\.
// Their definitions are in ops/src/defs/string_ops.cpp (StaticRegexFullMatch's in
// compat_v2_ops.cpp).
#include <re2/re2.h>

#include <memory>
#include <mutex>
#include <string>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// A compiled pattern, or TensorFlow's "Invalid pattern: <pattern>, error: <RE2's error>".
// RE2::Quiet keeps RE2 from logging the error too.
Status compile(const std::string& pattern, std::shared_ptr<const RE2>* out) {
  auto re = std::make_shared<const RE2>(pattern, RE2::Quiet);
  if (!re->ok()) return invalid_argument("Invalid pattern: " + pattern + ", error: " + re->error());
  *out = std::move(re);
  return {};
}

// InternalCompute: every string with the first (or, with replace_global, every
// non-overlapping) match of `re` replaced by `rewrite` (RE2::Replace / RE2::GlobalReplace; a
// rewrite naming a group the pattern lacks leaves the string unchanged).
void replace_all(const RE2& re, const std::string& rewrite, bool global, OpKernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
  for (Index i = 0; i < input.num_elements(); ++i) {
    std::string s = input.data<std::string>()[i];
    if (global)
      RE2::GlobalReplace(&s, re, rewrite);
    else
      RE2::Replace(&s, re, rewrite);
    out.data<std::string>()[i] = std::move(s);
  }
}

// RegexReplace(input, pattern, rewrite): pattern and rewrite scalars computed in the graph.
class RegexReplaceOp : public StatusKernel {
 public:
  RegexReplaceOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("replace_global", &replace_global_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& pattern = ctx.input(1);
    if (pattern.rank() != 0)
      return invalid_argument("Pattern must be scalar, but received " +
                              pattern.shape().to_string());
    std::shared_ptr<const RE2> re;
    ACTORFLOW_RETURN_IF_ERROR(compile(pattern.data<std::string>()[0], &re));
    const Tensor& rewrite = ctx.input(2);
    if (rewrite.rank() != 0)
      return invalid_argument("Rewrite must be scalar, but received " +
                              rewrite.shape().to_string());
    replace_all(*re, rewrite.data<std::string>()[0], replace_global_, ctx);
    return {};
  }

 private:
  bool replace_global_ = true;
};

// StaticRegexReplace: pattern and rewrite attrs, the pattern compiled once with the kernel.
class StaticRegexReplaceOp : public OpKernel {
 public:
  StaticRegexReplaceOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::string pattern;
    *s = c.get_attr("pattern", &pattern);
    if (s->ok()) *s = c.get_attr("rewrite", &rewrite_);
    if (s->ok()) *s = compile(pattern, &re_);
    if (s->ok()) *s = c.get_attr("replace_global", &replace_global_);
  }
  void compute(OpKernelContext& ctx) override { replace_all(*re_, rewrite_, replace_global_, ctx); }

 private:
  std::string rewrite_;
  std::shared_ptr<const RE2> re_;
  bool replace_global_ = true;
};

// RegexFullMatch(input, pattern): whether each string matches the pattern whole. The last
// pattern's compilation is kept, as TensorFlow's CachedRE2, for steps that feed the same one.
class RegexFullMatchOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& pattern_t = ctx.input(1);
    if (pattern_t.rank() != 0)
      return invalid_argument("Pattern must be scalar, but received " +
                              pattern_t.shape().to_string());
    const std::string& pattern = pattern_t.data<std::string>()[0];
    std::shared_ptr<const RE2> re;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ && cached_->pattern() == pattern) re = cached_;
    }
    if (!re) {
      ACTORFLOW_RETURN_IF_ERROR(compile(pattern, &re));
      std::lock_guard<std::mutex> lock(mu_);
      cached_ = re;
    }
    Tensor& out = ctx.allocate_output(0, DType::boolean, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i)
      out.data<bool>()[i] = RE2::FullMatch(input.data<std::string>()[i], *re);
    return {};
  }

 private:
  std::mutex mu_;
  std::shared_ptr<const RE2> cached_;
};

// StaticRegexFullMatch(input; pattern): RegexFullMatch with the pattern an attr, compiled once
// with the kernel (the sharded Saver's test for "^s3://.*" paths).
class StaticRegexFullMatchOp : public OpKernel {
 public:
  StaticRegexFullMatchOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::string pattern;
    *s = c.get_attr("pattern", &pattern);
    if (s->ok()) *s = compile(pattern, &re_);
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::boolean, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i)
      out.data<bool>()[i] = RE2::FullMatch(input.data<std::string>()[i], *re_);
  }

 private:
  std::shared_ptr<const RE2> re_;
};

}  // namespace

namespace detail {

void register_regex_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StaticRegexFullMatchOp>("StaticRegexFullMatch", "CPU"));
  r.add(make_kernel_def<RegexReplaceOp>("RegexReplace", "CPU"));
  r.add(make_kernel_def<StaticRegexReplaceOp>("StaticRegexReplace", "CPU"));
  r.add(make_kernel_def<RegexFullMatchOp>("RegexFullMatch", "CPU"));
}

}  // namespace detail

}  // namespace af
