// TensorFlow 2's summary API in a graph (tensorflow/python/ops/summary_ops_v2.py,
// tensorboard/plugins/{scalar,text}/summary_v2.py): the graph side of the summary writer ops.
#include "actorflow/formats/summary_v2.hpp"

#include <any>
#include <regex>

#include "actorflow/formats/summary_ops.hpp"
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/control_flow_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/image_codec_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/misc_math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/string_ops.hpp"
#include "actorflow/tf/summary.pb.h"

namespace af::summary::v2 {

namespace {

// SummaryMetadata naming `plugin` (TensorBoard's create_summary_metadata with no display
// name, description or content).
std::string plugin_metadata(const std::string& plugin) {
  tensorflow::SummaryMetadata m;
  m.mutable_plugin_data()->set_plugin_name(plugin);
  return m.SerializeAsString();
}

// The current name scope with its trailing "/" ("" at the top): a name made unique under it
// and marked as nothing, since no node's name ends in "/".
std::string current_scope(Graph& g) { return g.unique_name("", false); }

// A write op named after the scope "<name>" (default "write_summary"), then the bool Const
// that runs after it, which joins kSummaryCollection (summary_ops_v2.write's record()).
Output record(Graph& g, const std::string& scope_name,
              const std::function<Operation(const std::string& scope)>& make_write) {
  auto scope = g.name_scope(scope_name);
  const std::string full = current_scope(g);
  auto cpu = g.device("/device:CPU:0");
  Operation op = make_write(full);
  Output done;
  {
    auto deps = g.control_dependencies({op});
    done = g.constant(Tensor(true));
  }
  g.add_to_collection(kSummaryCollection, std::any(done));
  return done;
}

// summary_scope: the tag is the current name scope plus `name`, characters outside
// [-_/.A-Za-z0-9] dropped; the ops go in the uniquified scope `name`.
std::string scoped_tag(Graph& g, const std::string& name) {
  static const std::regex invalid(R"([^-_/.A-Za-z0-9])");
  return std::regex_replace(current_scope(g) + name, invalid, "");
}

// The plugin write of `data` (scalar_v2, text_v2): summary_scope(name), then `write`.
Output plugin_write(const SummaryWriter& writer, const std::string& name, const Output& data,
                    const Output& step, const std::string& plugin,
                    const std::function<Output(Graph&, const Output&)>& prepare) {
  Graph& g = data.graph();
  const std::string tag = scoped_tag(g, name);
  auto scope = g.name_scope(name);
  return write(writer, tag, prepare(g, data), step, plugin_metadata(plugin));
}

}  // namespace

Operation SummaryWriter::flush(std::string_view name) const {
  return handle.graph().create_op("FlushSummaryWriter", {handle}, {},
                                  name.empty() ? "FlushSummaryWriter" : name);
}

Operation SummaryWriter::close(std::string_view name) const {
  return handle.graph().create_op("CloseSummaryWriter", {handle}, {},
                                  name.empty() ? "CloseSummaryWriter" : name);
}

SummaryWriter create_file_writer(Graph& g, const std::string& logdir,
                                 const FileWriterOptions& options) {
  register_summary_ops();
  auto scope = g.name_scope(options.name.empty() ? "create_file_writer" : options.name);
  std::string shared_name = current_scope(g);
  shared_name.pop_back();
  auto cpu = g.device("/device:CPU:0");
  Output dir = g.constant(Tensor(logdir));
  Output max_queue = g.constant(Tensor(options.max_queue));
  Output flush_millis = g.constant(Tensor(options.flush_millis));
  Output suffix = g.constant(Tensor(options.filename_suffix));
  SummaryWriter w;
  w.handle =
      g.create_op("SummaryWriter", {}, {{"shared_name", shared_name}, {"container", std::string()}},
                  "SummaryWriter")
          .output(0);
  w.init = g.create_op("CreateSummaryFileWriter", {w.handle, dir, max_queue, flush_millis, suffix},
                       {}, "CreateSummaryFileWriter");
  g.add_to_collection(kWriterInitCollection, std::any(w.init));
  return w;
}

namespace {

// summary_ops_v2.write with a callable tensor: `make_tensor` builds it inside the write's
// scope (no Identity), as TensorBoard's lazy tensors are.
Output write_lazy(const SummaryWriter& writer, Graph& g, const std::string& tag,
                  const std::function<Output()>& make_tensor, const Output& step,
                  const std::string& metadata) {
  return record(g, "write_summary", [&](const std::string& scope) {
    Output value = make_tensor();
    Output t = g.constant(Tensor(tag), "tag");
    Output m = g.constant(Tensor(metadata), "summary_metadata");
    return g.create_op("WriteSummary", {writer.handle, step, value, t, m}, {{"T", value.dtype()}},
                       scope);
  });
}

// A TensorBoard v2 summary whose tensor `make_tensor` builds: summary_scope(name), then
// `write_lazy` with `plugin`'s metadata.
Output lazy_plugin_write(const SummaryWriter& writer, Graph& g, const std::string& name,
                         const Output& step, const std::string& plugin,
                         const std::function<Output()>& make_tensor) {
  const std::string tag = scoped_tag(g, name);
  auto scope = g.name_scope(name);
  return write_lazy(writer, g, tag, make_tensor, step, plugin_metadata(plugin));
}

// TensorBoard's histogram_v2 `_buckets` for a fixed bucket count `k` >= 1.
Output buckets_of(Graph& g, const Output& data, int k) {
  auto scope = g.name_scope("buckets");
  Output flat = cast(reshape(data, std::vector<std::int64_t>{-1}), DType::float64);
  Output size = af::size(flat);
  const auto rows = [&](const Output& left, const Output& right, const Output& counts) {
    return transpose(stack({left, right, counts}), std::vector<std::int64_t>{1, 0});
  };
  auto all_but_last = [](const Output& x) {
    return strided_slice(x, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{-1},
                         std::vector<std::int64_t>{1});
  };
  Output empty = equal(size, g.constant(Tensor(0)));
  return cond(
      empty,
      [&] {
        return zeros(g, Shape{k, 3}, DType::float64);
      },
      [&] {
        Output lo = reduce_min(flat), hi = reduce_max(flat);
        Output range = hi - lo;
        Output single = equal(range, g.constant(Tensor(0.0)));
        return cond(
            single,
            [&] {
              Output edges = fill(g.constant(Tensor::from_vector<std::int32_t>({k})), hi);
              Output counts = concat(
                  {zeros(g, Shape{k - 1}, DType::float64), stack({cast(size, DType::float64)})}, 0);
              return rows(edges, edges, counts);
            },
            [&] {
              Output width = range / g.constant(Tensor(static_cast<double>(k)));
              Output index = cast(floor((flat - lo) / width), DType::int32);
              Output clamped = minimum(index, g.constant(Tensor(k - 1)));
              Output counts = reduce_sum(one_hot(clamped, k, 1.0, 0.0, -1, DType::float64),
                                         std::vector<std::int64_t>{0});
              Output edges = lin_space(lo, hi, g.constant(Tensor(k + 1)));
              edges = concat({all_but_last(edges), stack({hi})}, 0);
              Output right =
                  strided_slice(edges, std::vector<std::int64_t>{1}, std::vector<std::int64_t>{0},
                                std::vector<std::int64_t>{1}, {.end_mask = 1});
              return rows(all_but_last(edges), right, counts);
            });
      });
}

}  // namespace

Output histogram(const SummaryWriter& writer, const std::string& name, const Output& data,
                 const Output& step, int buckets) {
  if (buckets < 0)
    throw InvalidArgumentError(invalid_argument(
        "summary histogram " + name + ": buckets must be >= 0, not " + std::to_string(buckets)));
  Graph& g = data.graph();
  return lazy_plugin_write(writer, g, name, step, "histograms", [&] {
    if (buckets == 0) return g.constant(Tensor(DType::float64, Shape{0, 3}));
    return buckets_of(g, data, buckets);
  });
}

Output image(const SummaryWriter& writer, const std::string& name, const Output& data,
             const Output& step, int max_outputs) {
  if (data.shape().rank_known() && data.shape().rank() != 4)
    throw InvalidArgumentError(invalid_argument("summary image " + name +
                                                ": the data must be of rank 4, not shape " +
                                                data.shape().to_string()));
  if (data.dtype() != DType::uint8 && !is_floating(data.dtype()))
    throw InvalidArgumentError(invalid_argument("summary image " + name +
                                                ": the data must be uint8 or float, not " +
                                                std::string(dtype_name(data.dtype()))));
  Graph& g = data.graph();
  return lazy_plugin_write(writer, g, name, step, "images", [&] {
    Output images = data;
    if (data.dtype() != DType::uint8) {  // convert_image_dtype(uint8, saturate=True)
      auto convert = g.name_scope("convert_image");
      const DType t = data.dtype();
      Output scaled = data * g.constant(t == DType::float64 ? Tensor(255.5) : Tensor(255.5f));
      Output lo = g.constant(t == DType::float64 ? Tensor(0.0) : Tensor(0.0f));
      Output hi = g.constant(t == DType::float64 ? Tensor(255.0) : Tensor(255.0f));
      images = cast(clip_by_value(scaled, lo, hi, "clamp"), DType::uint8);
    }
    Output limited =
        strided_slice(images, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{max_outputs},
                      std::vector<std::int64_t>{1});
    Output encoded = af::image::encode_png(limited);
    Output dims = shape(images);
    auto at = [&](std::int64_t i) {
      return strided_slice(dims, std::vector<std::int64_t>{i}, std::vector<std::int64_t>{i + 1},
                           std::vector<std::int64_t>{1}, {.shrink_axis_mask = 1});
    };
    Output dimensions =
        stack({as_string(at(2), {}, "width"), as_string(at(1), {}, "height")}, 0, "dimensions");
    return concat({dimensions, encoded}, 0);
  });
}

Output write(const SummaryWriter& writer, const std::string& tag, const Output& tensor,
             const Output& step, const std::string& metadata) {
  return write_lazy(
      writer, tensor.graph(), tag, [&] { return identity(tensor); }, step, metadata);
}

Output scalar(const SummaryWriter& writer, const std::string& name, const Output& data,
              const Output& step) {
  if (data.shape().rank_known() && data.shape().rank() != 0)
    throw InvalidArgumentError(invalid_argument("summary scalar " + name +
                                                ": the data must be a scalar, not shape " +
                                                data.shape().to_string()));
  if (!is_floating(data.dtype()) && data.dtype() != DType::int32 && data.dtype() != DType::int64 &&
      data.dtype() != DType::uint8)
    throw InvalidArgumentError(invalid_argument("summary scalar " + name +
                                                ": the data must be real, not " +
                                                std::string(dtype_name(data.dtype()))));
  return plugin_write(writer, name, data, step, "scalars", [](Graph&, const Output& d) {
    return d.dtype() == DType::float32 ? d : cast(d, DType::float32);
  });
}

Output text(const SummaryWriter& writer, const std::string& name, const Output& data,
            const Output& step) {
  if (data.dtype() != DType::string)
    throw InvalidArgumentError(invalid_argument("summary text " + name +
                                                ": the data must be of dtype string, not " +
                                                std::string(dtype_name(data.dtype()))));
  return plugin_write(writer, name, data, step, "text", [](Graph&, const Output& d) { return d; });
}

Output write_raw_pb(const SummaryWriter& writer, const Output& summaries, const Output& step) {
  Graph& g = summaries.graph();
  return record(g, "write_raw_pb", [&](const std::string& scope) {
    return g.create_op("WriteRawProtoSummary", {writer.handle, step, identity(summaries)}, {},
                       scope);
  });
}

Output write_graph(const SummaryWriter& writer, const Output& graph_def, const Output& step) {
  Graph& g = graph_def.graph();
  return record(g, "graph", [&](const std::string& scope) {
    return g.create_op("WriteGraphSummary", {writer.handle, step, graph_def}, {}, scope);
  });
}

Output write_histogram(const SummaryWriter& writer, const std::string& tag, const Output& values,
                       const Output& step) {
  Graph& g = values.graph();
  return record(g, "histogram", [&](const std::string& scope) {
    return g.create_op("WriteHistogramSummary",
                       {writer.handle, step, g.constant(Tensor(tag), "tag"), values},
                       {{"T", values.dtype()}}, scope);
  });
}

Output write_image(const SummaryWriter& writer, const std::string& tag, const Output& images,
                   const Output& step, int max_images) {
  Graph& g = images.graph();
  return record(g, "image", [&](const std::string& scope) {
    Output red = g.constant(Tensor::from_vector<std::uint8_t>({255, 0, 0, 255}), "bad_color");
    return g.create_op(
        "WriteImageSummary", {writer.handle, step, g.constant(Tensor(tag), "tag"), images, red},
        {{"T", images.dtype()}, {"max_images", static_cast<std::int64_t>(max_images)}}, scope);
  });
}

Output write_audio(const SummaryWriter& writer, const std::string& tag, const Output& audio,
                   float sample_rate, const Output& step, int max_outputs) {
  Graph& g = audio.graph();
  return record(g, "audio", [&](const std::string& scope) {
    return g.create_op("WriteAudioSummary",
                       {writer.handle, step, g.constant(Tensor(tag), "tag"), audio,
                        g.constant(Tensor(sample_rate), "sample_rate")},
                       {{"max_outputs", static_cast<std::int64_t>(max_outputs)}}, scope);
  });
}

std::vector<Output> all_v2_summary_ops(Graph& g) {
  std::vector<Output> out;
  for (const auto& v : g.get_collection(kSummaryCollection))
    if (const auto* o = std::any_cast<Output>(&v)) out.push_back(*o);
  return out;
}

std::vector<Operation> summary_writer_initializer_ops(Graph& g) {
  std::vector<Operation> out;
  for (const auto& v : g.get_collection(kWriterInitCollection))
    if (const auto* o = std::any_cast<Operation>(&v)) out.push_back(*o);
  return out;
}

}  // namespace af::summary::v2
