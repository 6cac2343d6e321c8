// ScalarSummary, HistogramSummary and MergeSummary (tensorflow/core/kernels/summary_op.cc,
// tensorflow/python/summary/summary.py, tensorflow/python/ops/summary_op_util.py).
#include "actorflow/formats/summary_ops.hpp"

#include <any>
#include <mutex>
#include <regex>
#include <type_traits>

#include "actorflow/formats/summary.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/tf/summary.pb.h"

namespace af::summary {

namespace {

// The values of a real-valued tensor as doubles; InvalidArgument for other dtypes (bool
// included: TensorFlow's summary ops take RealNumberTypes).
Status to_doubles(const Tensor& t, std::vector<double>* out) {
  out->resize(static_cast<std::size_t>(t.num_elements()));
  const bool real = t.dtype() != DType::boolean && visit_numeric_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (std::size_t i = 0; i < out->size(); ++i) {
      if constexpr (std::is_same_v<T, bfloat16_t>)
        (*out)[i] = static_cast<double>(static_cast<float>(p[i]));
      else
        (*out)[i] = static_cast<double>(p[i]);
    }
  });
  if (!real) return invalid_argument("summary values must be real numbers, not " + std::string(dtype_name(t.dtype())));
  return {};
}

Status string_scalar_output(InferenceContext& c) {
  c.add_output(DType::string, PartialShape(Shape{}));
  return {};
}

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& tags = ctx.input(0);
    const Tensor& values = ctx.input(1);
    if (tags.shape() != values.shape()) {
      std::string single = tags.num_elements() == 1 ? " (tag '" + tags.data<std::string>()[0] + "')" : "";
      return ctx.fail(invalid_argument("tags and values are not the same shape: " + tags.shape().to_string() +
                                       " != " + values.shape().to_string() + single));
    }
    std::vector<double> v;
    if (Status s = to_doubles(values, &v); !s.ok()) return ctx.fail(s);
    tensorflow::Summary out;
    const std::string* t = tags.data<std::string>();
    for (std::size_t i = 0; i < v.size(); ++i) {
      auto* value = out.add_value();
      value->set_tag(t[i]);
      value->set_simple_value(static_cast<float>(v[i]));
    }
    ctx.set_output(0, Tensor(out.SerializeAsString()));
  }
};

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    if (!tag.shape().is_scalar()) return ctx.fail(invalid_argument("tags must be scalar"));
    std::vector<double> v;
    if (Status s = to_doubles(ctx.input(1), &v); !s.ok()) return ctx.fail(s);
    auto bytes = histogram(tag.data<std::string>()[0], v, name());
    if (!bytes.ok()) return ctx.fail(bytes.status());
    ctx.set_output(0, Tensor(std::move(bytes).value()));
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    std::vector<std::string> parts;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      const std::string* p = in.data<std::string>();
      parts.insert(parts.end(), p, p + in.num_elements());
    }
    auto merged = af::summary::merge(parts);
    if (!merged.ok()) return ctx.fail(merged.status());
    ctx.set_output(0, Tensor(std::move(merged).value()));
  }
};

// summary_op_util.clean_tag: characters outside [-/\w.] become '_', leading '/' go.
std::string clean_tag(const std::string& name) {
  static const std::regex invalid(R"([^-/\w\.])");
  std::string out = std::regex_replace(name, invalid, "_");
  const auto first = out.find_first_not_of('/');
  return first == std::string::npos ? std::string() : out.substr(first);
}

void collect(Graph& g, const Output& op, const std::optional<std::vector<std::string>>& collections) {
  for (const auto& key : collections.value_or(std::vector<std::string>{kSummariesCollection}))
    g.add_to_collection(key, std::any(op));
}

// One summary op under the uniquified scope `name`: its tag constant inside the scope, the op
// named after the scope.
Output summary_op(const std::string& type, const std::string& name, const std::string& tag_input,
                  const Output& values, const std::optional<std::vector<std::string>>& collections) {
  register_summary_ops();
  Graph& g = values.graph();
  const std::string scope = g.unique_name(clean_tag(name));
  Output tag;
  {
    auto in_scope = g.name_scope(scope + "/");
    tag = g.constant(Tensor(scope), tag_input);
  }
  Output out = g.create_op(type, {tag, values}, {{"T", values.dtype()}}, scope + "/").output(0);
  collect(g, out, collections);
  return out;
}

}  // namespace

void register_summary_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& ops = OpRegistry::global();
    for (const char* op : {"ScalarSummary", "HistogramSummary", "MergeSummary"})
      ops.add({op, string_scalar_output, false, {}});
    auto& kernels = KernelRegistry::global();
    kernels.add(make_kernel_def<ScalarSummaryOp>("ScalarSummary", "CPU"));
    kernels.add(make_kernel_def<HistogramSummaryOp>("HistogramSummary", "CPU"));
    kernels.add(make_kernel_def<MergeSummaryOp>("MergeSummary", "CPU"));
  });
}

Output scalar(const std::string& name, const Output& tensor, const std::optional<std::vector<std::string>>& collections) {
  return summary_op("ScalarSummary", name, "tags", tensor, collections);
}

Output histogram(const std::string& name, const Output& values,
                 const std::optional<std::vector<std::string>>& collections) {
  return summary_op("HistogramSummary", name, "tag", values, collections);
}

Output merge(const std::vector<Output>& inputs, const std::string& name) {
  register_summary_ops();
  if (inputs.empty()) throw InvalidArgumentError(invalid_argument("merge needs at least one summary"));
  Graph& g = inputs.front().graph();
  // summary.merge: name_scope(name, "Merge"), then the op's default name inside it.
  const std::string scope = g.unique_name(name.empty() ? "Merge" : name);
  auto in_scope = g.name_scope(scope + "/");
  return g.create_op("MergeSummary", inputs, {{"N", static_cast<std::int64_t>(inputs.size())}}, "MergeSummary")
      .output(0);
}

std::optional<Output> merge_all(Graph& g, const std::string& key) {
  std::vector<Output> ops;
  for (const auto& v : g.get_collection(key))
    if (const auto* o = std::any_cast<Output>(&v)) ops.push_back(*o);
  if (ops.empty()) return std::nullopt;
  return merge(ops);
}

}  // namespace af::summary
