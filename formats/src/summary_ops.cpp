// ScalarSummary, HistogramSummary, ImageSummary, TensorSummaryV2 and MergeSummary
// (tensorflow/core/kernels/summary_op.cc, summary_image_op.cc, summary_tensor_op.cc,
// tensorflow/python/summary/summary.py, tensorflow/python/ops/summary_op_util.py).
#include "actorflow/formats/summary_ops.hpp"

#include <any>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <regex>
#include <type_traits>

#include "actorflow/formats/summary.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/tf/summary.pb.h"
#include "tf_proto.hpp"

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
  if (!real)
    return invalid_argument("summary values must be real numbers, not " +
                            std::string(dtype_name(t.dtype())));
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
      std::string single =
          tags.num_elements() == 1 ? " (tag '" + tags.data<std::string>()[0] + "')" : "";
      return ctx.fail(
          invalid_argument("tags and values are not the same shape: " + tags.shape().to_string() +
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
    const Tensor& tensor = ctx.input(1);
    if (tags.num_elements() != 1 || tags.rank() > 1)
      return ctx.fail(invalid_argument("Tags must be a scalar"));
    const auto& d = tensor.shape().dims();
    if (d.size() != 4 || (d[3] != 1 && d[3] != 3 && d[3] != 4))
      return ctx.fail(invalid_argument("Tensor must be 4-D with last dim 1, 3, or 4, not " +
                                       tensor.shape().to_string()));
    if (d[0] >= (std::int64_t{1} << 31) || d[1] >= (std::int64_t{1} << 31) ||
        d[2] >= (std::int64_t{1} << 31) || d[1] * d[2] >= (std::int64_t{1} << 29))
      return ctx.fail(
          invalid_argument("Tensor too large for summary " + tensor.shape().to_string()));
    const int batch = static_cast<int>(d[0]), h = static_cast<int>(d[1]),
              w = static_cast<int>(d[2]);
    const int depth = static_cast<int>(d[3]);
    const std::size_t pixels = static_cast<std::size_t>(h) * static_cast<std::size_t>(w);
    if (tensor.dtype() != DType::uint8 && bad_color_.size() < static_cast<std::size_t>(depth))
      return ctx.fail(invalid_argument(
          "expected depth <= bad_color.size, got depth = " + std::to_string(depth) +
          ", bad_color.size = " + std::to_string(bad_color_.size())));
    const std::string& base = tags.data<std::string>()[0];
    tensorflow::Summary out;
    std::vector<std::uint8_t> image(pixels * static_cast<std::size_t>(depth));
    for (int i = 0; i < std::min(max_images_, batch); ++i) {
      const std::size_t offset = static_cast<std::size_t>(i) * image.size();
      if (tensor.dtype() == DType::uint8) {
        const std::uint8_t* p = tensor.data<std::uint8_t>() + offset;
        std::copy(p, p + image.size(), image.begin());
      } else if (tensor.dtype() == DType::float32) {
        normalize(tensor.data<float>() + offset, pixels, depth, image.data());
      } else {
        normalize(tensor.data<double>() + offset, pixels, depth, image.data());
      }
      auto png = encode_png(image.data(), h, w, depth);
      if (!png.ok()) return ctx.fail(png.status());
      auto* v = out.add_value();
      v->set_tag(max_images_ > 1 ? base + "/image/" + std::to_string(i) : base + "/image");
      auto* im = v->mutable_image();
      im->set_height(h);
      im->set_width(w);
      im->set_colorspace(depth);
      im->set_encoded_image_string(std::move(png).value());
    }
    ctx.set_output(0, Tensor(out.SerializeAsString()));
  }

 private:
  template <class T>
  void normalize(const T* values, std::size_t pixels, int depth, std::uint8_t* image) const {
    const auto c = static_cast<std::size_t>(depth);
    auto finite = [&](std::size_t i) {
      for (std::size_t j = 0; j < c; ++j)
        if (!std::isfinite(values[i * c + j])) return false;
      return true;
    };
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < pixels; ++i)
      if (finite(i))
        for (std::size_t j = 0; j < c; ++j) {
          lo = std::min(lo, static_cast<float>(values[i * c + j]));
          hi = std::max(hi, static_cast<float>(values[i * c + j]));
        }
    constexpr float kZeroThreshold = 1e-6f;
    T scale, offset;
    if (lo < 0) {
      const float max_val = std::max(std::abs(lo), std::abs(hi));
      scale = T(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
      offset = T(128.0f);
    } else {
      scale = T(hi < kZeroThreshold ? 0.0f : 255.0f / hi);
      offset = T(0.0f);
    }
    for (std::size_t i = 0; i < pixels; ++i)
      for (std::size_t j = 0; j < c; ++j)
        image[i * c + j] = finite(i) ? static_cast<std::uint8_t>(values[i * c + j] * scale + offset)
                                     : bad_color_[j];
  }

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
    if (Status s = tfproto::to_proto(tensor, v->mutable_tensor(), name()); !s.ok())
      return ctx.fail(s);
    if (tensor.dtype() != DType::string && tensor.num_elements() > 0) {
      auto* t = v->mutable_tensor();
      const auto shape = t->tensor_shape();
      t->Clear();
      t->set_dtype(tfproto::to_proto(tensor.dtype()));
      *t->mutable_tensor_shape() = shape;
      t->set_tensor_content(
          std::string(static_cast<const char*>(tensor.raw_data()), tensor.total_bytes()));
    }
    if (!v->mutable_metadata()->ParseFromString(metadata.data<std::string>()[0]))
      return ctx.fail(invalid_argument("Could not parse serialized_summary_metadata of " + name()));
    ctx.set_output(0, Tensor(out.SerializeAsString()));
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

void collect(Graph& g, const Output& op,
             const std::optional<std::vector<std::string>>& collections) {
  for (const auto& key : collections.value_or(std::vector<std::string>{kSummariesCollection}))
    g.add_to_collection(key, std::any(op));
}

// One summary op under the uniquified scope `name`: its tag constant inside the scope, the op
// named after the scope.
// `metadata`, when given, is the third input (TensorSummaryV2's serialized_summary_metadata).
Output summary_op(const std::string& type, const std::string& name, const std::string& tag_input,
                  const Output& values, const std::optional<std::vector<std::string>>& collections,
                  AttrMap attrs = {}, const std::optional<std::string>& metadata = std::nullopt) {
  register_summary_ops();
  Graph& g = values.graph();
  const std::string scope = g.unique_name(clean_tag(name));
  std::vector<Output> inputs;
  {
    auto in_scope = g.name_scope(scope + "/");
    inputs = {g.constant(Tensor(scope), tag_input), values};
    if (metadata) inputs.push_back(g.constant(Tensor(*metadata), "serialized_summary_metadata"));
  }
  attrs["T"] = values.dtype();
  Output out = g.create_op(type, inputs, std::move(attrs), scope + "/").output(0);
  collect(g, out, collections);
  return out;
}

}  // namespace

void register_summary_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& ops = OpRegistry::global();
    for (const char* op :
         {"ScalarSummary", "HistogramSummary", "ImageSummary", "TensorSummaryV2", "MergeSummary"})
      ops.add({op, string_scalar_output, false, {}});
    auto& kernels = KernelRegistry::global();
    kernels.add(make_kernel_def<ScalarSummaryOp>("ScalarSummary", "CPU"));
    kernels.add(make_kernel_def<HistogramSummaryOp>("HistogramSummary", "CPU"));
    kernels.add(make_kernel_def<ImageSummaryOp>(
        "ImageSummary", "CPU", {{"T", {DType::uint8, DType::float32, DType::float64}}}));
    kernels.add(make_kernel_def<TensorSummaryV2Op>("TensorSummaryV2", "CPU"));
    kernels.add(make_kernel_def<MergeSummaryOp>("MergeSummary", "CPU"));
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
                    metadata.SerializeAsString());
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
