// ScalarSummary, HistogramSummary, ImageSummary, TensorSummaryV2 and MergeSummary
// (tensorflow/core/kernels/summary_op.cc, summary_image_op.cc, summary_tensor_op.cc,
// tensorflow/python/summary/summary.py, tensorflow/python/ops/summary_op_util.py).
#include "actorflow/formats/summary_ops.hpp"

#include <any>
#include <cstdint>
#include <mutex>
#include <regex>

#include "actorflow/formats/summary.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/tf/summary.pb.h"
#include "summary_convert.hpp"
#include "summary_writer.hpp"

namespace af::summary {

namespace {

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
      std::string single =
          tags.num_elements() == 1 ? " (tag '" + tags.data<std::string>()[0] + "')" : "";
      return ctx.fail(
          invalid_argument("tags and values are not the same shape: " + tags.shape().to_string() +
                           " != " + values.shape().to_string() + single));
    }
    std::vector<double> v;
    if (Status s = detail::to_doubles(values, &v); !s.ok()) return ctx.fail(s);
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
    if (Status s = detail::to_doubles(ctx.input(1), &v); !s.ok()) return ctx.fail(s);
    auto bytes = histogram(tag.data<std::string>()[0], v, name());
    if (!bytes.ok()) return ctx.fail(bytes.status());
    ctx.set_output(0, Tensor(std::move(bytes).value()));
  }
};

// ImageSummary: up to max_images images of a [batch, height, width, 1|3|4] tensor as PNGs,
// tagged "<tag>/image" (max_images 1) or "<tag>/image/<i>". Float images are scaled as
// summary_image_op.cc does: by 255 / max when no value is negative, else by 127 / max|v|
// around 128, non-finite pixels painted bad_color.
class ImageSummaryOp : public OpKernel {
 public:
  ImageSummaryOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::int64_t max_images = 3;
    c.get_attr("max_images", &max_images);
    if (max_images < 0 || max_images >= (std::int64_t{1} << 31)) {
      *s = invalid_argument("max_images must be < 2^31");
      return;
    }
    max_images_ = static_cast<int>(max_images);
    Tensor bad_color;
    if (c.get_attr("bad_color", &bad_color).ok()) {
      if (bad_color.dtype() != DType::uint8) {
        *s = invalid_argument("bad_color must be uint8, got " +
                              std::string(data_type_string(bad_color.dtype())));
        return;
      }
      if (bad_color.rank() != 1) {
        *s = invalid_argument("bad_color must be a vector, got shape " +
                              bad_color.shape().to_string());
        return;
      }
      bad_color_ = bad_color.to_vector<std::uint8_t>();
    }
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& tags = ctx.input(0);
    if (tags.num_elements() != 1 || tags.rank() > 1)
      return ctx.fail(invalid_argument("Tags must be a scalar"));
    tensorflow::Summary out;
    if (Status s = detail::add_images(ctx.input(1), tags.data<std::string>()[0], max_images_,
                                      bad_color_, &out);
        !s.ok())
      return ctx.fail(s);
    ctx.set_output(0, Tensor(out.SerializeAsString()));
  }

 private:
  int max_images_ = 3;
  std::vector<std::uint8_t> bad_color_{255, 0, 0, 255};
};

// TensorSummaryV2: one value {tag, metadata, tensor}; strings in string_val, other dtypes
// as raw tensor_content (TensorFlow's AsProtoField / AsProtoTensorContent).
class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    const Tensor& tensor = ctx.input(1);
    const Tensor& metadata = ctx.input(2);
    if (tag.num_elements() != 1) return ctx.fail(invalid_argument("tag must be a scalar"));
    if (metadata.num_elements() != 1)
      return ctx.fail(invalid_argument("serialized_summary_metadata must be a scalar"));
    tensorflow::Summary out;
    auto* v = out.add_value();
    v->set_tag(tag.data<std::string>()[0]);
    if (Status s = detail::tensor_proto(tensor, v->mutable_tensor(), name()); !s.ok())
      return ctx.fail(s);
    if (!v->mutable_metadata()->ParseFromString(metadata.data<std::string>()[0]))
      return ctx.fail(invalid_argument("Could not parse serialized_summary_metadata of " + name()));
    ctx.set_output(0, Tensor(out.SerializeAsString()));
  }
};

// TensorSummary (deprecated): one value {node_name: the op's name, tensor}.
class TensorSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    tensorflow::Summary out;
    auto* v = out.add_value();
    v->set_node_name(name());
    if (Status s = detail::tensor_proto(ctx.input(0), v->mutable_tensor(), name()); !s.ok())
      return ctx.fail(s);
    ctx.set_output(0, Tensor(out.SerializeAsString()));
  }
};

// AudioSummaryV2(tag, tensor, sample_rate) and the deprecated AudioSummary(tag, tensor) with
// the rate an attr: up to max_outputs WAVs of a float [batch, frames(, channels)] tensor.
class AudioSummaryOp : public OpKernel {
 public:
  AudioSummaryOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::int64_t max_outputs = 3;
    c.get_attr("max_outputs", &max_outputs);
    if (max_outputs <= 0 || max_outputs >= (std::int64_t{1} << 31)) {
      *s = invalid_argument("max_outputs must be > 0");
      return;
    }
    max_outputs_ = static_cast<int>(max_outputs);
    has_rate_attr_ = c.get_attr("sample_rate", &rate_attr_).ok();
    if (has_rate_attr_ && !(rate_attr_ > 0.0f)) *s = invalid_argument("sample_rate must be > 0");
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& tag = ctx.input(0);
    const Tensor& tensor = ctx.input(1);
    if (!tag.shape().is_scalar()) return ctx.fail(invalid_argument("Tag must be a scalar"));
    if (tensor.rank() < 2 || tensor.rank() > 3)
      return ctx.fail(
          invalid_argument("Tensor must be 3-D or 2-D, got: " + tensor.shape().to_string()));
    float rate = rate_attr_;
    if (!has_rate_attr_) {
      const Tensor& r = ctx.input(2);
      if (r.num_elements() != 1)
        return ctx.fail(invalid_argument("sample_rate must be rank-0 or contain a single value"));
      rate = r.data<float>()[0];
    }
    tensorflow::Summary out;
    if (Status s = detail::add_audio(tensor, tag.data<std::string>()[0], max_outputs_, rate, &out);
        !s.ok())
      return ctx.fail(s);
    ctx.set_output(0, Tensor(out.SerializeAsString()));
  }

 private:
  int max_outputs_ = 3;
  bool has_rate_attr_ = false;
  float rate_attr_ = 0;
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

void collect(Graph& g, const Output& op,
             const std::optional<std::vector<std::string>>& collections) {
  for (const auto& key : collections.value_or(std::vector<std::string>{kSummariesCollection}))
    g.add_to_collection(key, std::any(op));
}

// One summary op under the uniquified scope `name`: its tag constant inside the scope, the op
// named after the scope.
// `third`, when given, is a third input: a Const of that name in the scope (TensorSummaryV2's
// serialized_summary_metadata, AudioSummaryV2's sample_rate). `typed`: the op has attr "T",
// the values' dtype.
Output summary_op(const std::string& type, const std::string& name, const std::string& tag_input,
                  const Output& values, const std::optional<std::vector<std::string>>& collections,
                  AttrMap attrs = {},
                  const std::optional<std::pair<std::string, Tensor>>& third = std::nullopt,
                  bool typed = true) {
  register_summary_ops();
  Graph& g = values.graph();
  const std::string scope = g.unique_name(clean_tag(name));
  std::vector<Output> inputs;
  {
    auto in_scope = g.name_scope(scope + "/");
    inputs = {g.constant(Tensor(scope), tag_input), values};
    if (third) inputs.push_back(g.constant(third->second, third->first));
  }
  if (typed) attrs["T"] = values.dtype();
  Output out = g.create_op(type, inputs, std::move(attrs), scope + "/").output(0);
  collect(g, out, collections);
  return out;
}

// TensorSummaryV2's third input: the serialized metadata.
std::pair<std::string, Tensor> metadata_input(const tensorflow::SummaryMetadata& m) {
  return {"serialized_summary_metadata", Tensor(m.SerializeAsString())};
}

}  // namespace

void register_summary_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& ops = OpRegistry::global();
    for (const char* op : {"ScalarSummary", "HistogramSummary", "ImageSummary", "TensorSummaryV2",
                           "TensorSummary", "AudioSummaryV2", "AudioSummary", "MergeSummary"})
      ops.add({op, string_scalar_output, false, {}});
    auto& kernels = KernelRegistry::global();
    kernels.add(make_kernel_def<ScalarSummaryOp>("ScalarSummary", "CPU"));
    kernels.add(make_kernel_def<HistogramSummaryOp>("HistogramSummary", "CPU"));
    kernels.add(make_kernel_def<ImageSummaryOp>(
        "ImageSummary", "CPU", {{"T", {DType::uint8, DType::float32, DType::float64}}}));
    kernels.add(make_kernel_def<TensorSummaryV2Op>("TensorSummaryV2", "CPU"));
    kernels.add(make_kernel_def<TensorSummaryOp>("TensorSummary", "CPU"));
    kernels.add(make_kernel_def<AudioSummaryOp>("AudioSummaryV2", "CPU"));
    kernels.add(make_kernel_def<AudioSummaryOp>("AudioSummary", "CPU"));
    kernels.add(make_kernel_def<MergeSummaryOp>("MergeSummary", "CPU"));
    detail::register_summary_writer_ops();
  });
}

Output scalar(const std::string& name, const Output& tensor,
              const std::optional<std::vector<std::string>>& collections) {
  return summary_op("ScalarSummary", name, "tags", tensor, collections);
}

Output histogram(const std::string& name, const Output& values,
                 const std::optional<std::vector<std::string>>& collections) {
  return summary_op("HistogramSummary", name, "tag", values, collections);
}

Output image(const std::string& name, const Output& tensor, int max_outputs,
             const std::optional<std::vector<std::string>>& collections) {
  Tensor bad_color = Tensor::from_vector<std::uint8_t>({255, 0, 0, 255});
  return summary_op(
      "ImageSummary", name, "tag", tensor, collections,
      {{"max_images", static_cast<std::int64_t>(max_outputs)}, {"bad_color", bad_color}});
}

Output text(const std::string& name, const Output& tensor,
            const std::optional<std::vector<std::string>>& collections) {
  if (tensor.dtype() != DType::string)
    throw InvalidArgumentError(invalid_argument("summary text " + name +
                                                ": the tensor must be of dtype string, not " +
                                                std::string(dtype_name(tensor.dtype()))));
  tensorflow::SummaryMetadata metadata;
  metadata.mutable_plugin_data()->set_plugin_name("text");
  return summary_op("TensorSummaryV2", name, "tag", tensor, collections, {},
                    metadata_input(metadata));
}

Output audio(const std::string& name, const Output& tensor, float sample_rate, int max_outputs,
             const std::optional<std::vector<std::string>>& collections) {
  return summary_op("AudioSummaryV2", name, "tag", tensor, collections,
                    {{"max_outputs", static_cast<std::int64_t>(max_outputs)}},
                    std::pair<std::string, Tensor>("sample_rate", Tensor(sample_rate)), false);
}

Output tensor_summary(const std::string& name, const Output& tensor, const std::string& description,
                      const std::string& display_name,
                      const std::optional<std::vector<std::string>>& collections) {
  tensorflow::SummaryMetadata metadata;
  metadata.set_display_name(display_name);
  metadata.set_summary_description(description);
  return summary_op("TensorSummaryV2", name, "tag", tensor, collections, {},
                    metadata_input(metadata));
}

Output merge(const std::vector<Output>& inputs, const std::string& name) {
  register_summary_ops();
  if (inputs.empty())
    throw InvalidArgumentError(invalid_argument("merge needs at least one summary"));
  Graph& g = inputs.front().graph();
  // summary.merge: name_scope(name, "Merge"), then the op's default name inside it.
  const std::string scope = g.unique_name(name.empty() ? "Merge" : name);
  auto in_scope = g.name_scope(scope + "/");
  return g
      .create_op("MergeSummary", inputs, {{"N", static_cast<std::int64_t>(inputs.size())}},
                 "MergeSummary")
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
