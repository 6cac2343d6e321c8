// The summary writer ops of TensorFlow 2's `tf.summary` (and 1.x's `tf.contrib.summary`), as
// tensorflow/core/ops/summary_ops.cc declares them and kernels/summary_kernels.cc runs them:
// SummaryWriter, CreateSummaryFileWriter, CreateSummaryDbWriter (refused), FlushSummaryWriter,
// CloseSummaryWriter, WriteSummary, WriteRawProtoSummary, ImportEvent, WriteScalarSummary,
// WriteHistogramSummary, WriteImageSummary, WriteAudioSummary and WriteGraphSummary.
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/tf/graph.pb.h"
#include "kernel_helpers.hpp"
#include "summary_convert.hpp"
#include "summary_writer.hpp"

namespace af::summary::detail {

namespace {

// -- definitions ----------------------------------------------------------------------------

// One input of a writer op: its name and dtype (invalid: the dtype of attr "T").
struct Arg {
  const char* name;
  DType dtype;
};

// A shape function checking the inputs against `args` (no outputs).
ShapeFn no_outputs(std::vector<Arg> args) {
  return [args = std::move(args)](InferenceContext& c) -> Status {
    ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(static_cast<int>(args.size())));
    for (std::size_t i = 0; i < args.size(); ++i) {
      DType want = args[i].dtype;
      if (want == DType::invalid) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &want));
      if (c.input_types[i] != want)
        return invalid_argument("Input '" + std::string(args[i].name) + "' of '" + c.node.op +
                                "' Op has type " + std::string(data_type_string(c.input_types[i])) +
                                " that does not match expected type of " +
                                std::string(data_type_string(want)) + ".");
    }
    return {};
  };
}

void register_definitions(OpRegistry& r) {
  constexpr DType res = DType::resource, str = DType::string, i64 = DType::int64,
                  i32 = DType::int32, f32 = DType::float32, t = DType::invalid;
  r.add({"SummaryWriter",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
           c.add_output(DType::resource, PartialShape(Shape{}));
           return {};
         },
         true,
         {}});
  const std::vector<std::pair<const char*, std::vector<Arg>>> defs = {
      {"CreateSummaryFileWriter",
       {{"writer", res},
        {"logdir", str},
        {"max_queue", i32},
        {"flush_millis", i32},
        {"filename_suffix", str}}},
      {"CreateSummaryDbWriter",
       {{"writer", res},
        {"db_uri", str},
        {"experiment_name", str},
        {"run_name", str},
        {"user_name", str}}},
      {"FlushSummaryWriter", {{"writer", res}}},
      {"CloseSummaryWriter", {{"writer", res}}},
      {"WriteSummary",
       {{"writer", res}, {"step", i64}, {"tensor", t}, {"tag", str}, {"summary_metadata", str}}},
      {"WriteRawProtoSummary", {{"writer", res}, {"step", i64}, {"tensor", str}}},
      {"ImportEvent", {{"writer", res}, {"event", str}}},
      {"WriteScalarSummary", {{"writer", res}, {"step", i64}, {"tag", str}, {"value", t}}},
      {"WriteHistogramSummary", {{"writer", res}, {"step", i64}, {"tag", str}, {"values", t}}},
      {"WriteImageSummary",
       {{"writer", res}, {"step", i64}, {"tag", str}, {"tensor", t}, {"bad_color", DType::uint8}}},
      {"WriteAudioSummary",
       {{"writer", res}, {"step", i64}, {"tag", str}, {"tensor", f32}, {"sample_rate", f32}}},
      {"WriteGraphSummary", {{"writer", res}, {"step", i64}, {"tensor", str}}},
  };
  for (const auto& [name, args] : defs) r.add({name, no_outputs(args), true, {}});
}

// -- kernels --------------------------------------------------------------------------------

// A writer op's kernel: `run` returns the error, which names the node (the kernels module's
// StatusKernel), with the helpers every writer op uses.
class WriterKernel : public af::detail::StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  // The slot behind input 0.
  static Status slot_of(OpKernelContext& ctx, SummaryWriterResource** out) {
    *out = ctx.input(0).dtype() == DType::resource
               ? dynamic_cast<SummaryWriterResource*>(ctx.input(0).resource().get())
               : nullptr;
    if (*out == nullptr)
      return invalid_argument("Input 0 of " + ctx.node_name() + " is not a summary writer");
    return {};
  }

  // The open writer behind input 0 (NotFound when none is open, as TensorFlow's lookup).
  static Status writer_of(OpKernelContext& ctx, std::shared_ptr<SummaryFileWriter>* out) {
    SummaryWriterResource* slot = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(slot_of(ctx, &slot));
    return slot->get(out);
  }

  // Input `i`, which must be a scalar of `dtype` called `what`.
  static Status scalar(OpKernelContext& ctx, int i, DType dtype, const char* what,
                       const Tensor** out) {
    const Tensor& t = ctx.input(i);
    if (!t.shape().is_scalar())
      return invalid_argument(std::string(what) + " must be a scalar, got shape " +
                              t.shape().to_string());
    if (t.dtype() != dtype)
      return invalid_argument(std::string(what) + " must be " +
                              std::string(data_type_string(dtype)) + ", not " +
                              std::string(data_type_string(t.dtype())));
    *out = &t;
    return {};
  }

  // An event at the step of input `i` (a scalar int64), stamped now.
  static Status event_at(OpKernelContext& ctx, int i, tensorflow::Event* e) {
    const Tensor* step = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(scalar(ctx, i, DType::int64, "step", &step));
    e->set_step(step->data<std::int64_t>()[0]);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    e->set_wall_time(static_cast<double>(micros.count()) / 1.0e6);
    return {};
  }

  // What every write starts with: the open writer behind input 0, and an event at the step of
  // input 1.
  static Status begin_write(OpKernelContext& ctx, std::shared_ptr<SummaryFileWriter>* w,
                            tensorflow::Event* e) {
    ACTORFLOW_RETURN_IF_ERROR(writer_of(ctx, w));
    return event_at(ctx, 1, e);
  }

  // The string scalar of input `i`.
  static Status string_scalar(OpKernelContext& ctx, int i, const char* what, std::string* out) {
    const Tensor* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(scalar(ctx, i, DType::string, what, &t));
    *out = t->data<std::string>()[0];
    return {};
  }
};

// A write: the event at the step of input 1 that `fill` completes goes to the open writer
// behind input 0.
class EventWriteKernel : public WriterKernel {
 public:
  using WriterKernel::WriterKernel;

 protected:
  Status run(OpKernelContext& ctx) final {
    std::shared_ptr<SummaryFileWriter> w;
    tensorflow::Event e;
    ACTORFLOW_RETURN_IF_ERROR(begin_write(ctx, &w, &e));
    ACTORFLOW_RETURN_IF_ERROR(fill(ctx, &e));
    return w->write(e);
  }
  virtual Status fill(OpKernelContext& ctx, tensorflow::Event* e) = 0;
};

class SummaryWriterOp : public WriterKernel {
 public:
  SummaryWriterOp(OpKernelConstruction& c) : WriterKernel(c) {
    c.get_attr("shared_name", &shared_name_);
    c.get_attr("container", &container_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    if (!ctx.resource_mgr) return internal("no resource manager for " + name());
    const std::string key =
        (container_.empty() ? ctx.resource_mgr->default_container() : container_) + "/" +
        shared_name_;
    std::shared_ptr<SummaryWriterResource> slot;
    ACTORFLOW_RETURN_IF_ERROR(ctx.resource_mgr->lookup_or_create<SummaryWriterResource>(
        container_, shared_name_, &slot, [&](std::shared_ptr<SummaryWriterResource>* out) {
          *out = std::make_shared<SummaryWriterResource>(key);
          return Status{};
        }));
    ctx.set_output(0, Tensor::from_resource(std::move(slot)));
    return {};
  }

 private:
  std::string shared_name_, container_;
};

class CreateSummaryFileWriterOp : public WriterKernel {
 public:
  using WriterKernel::WriterKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::string logdir, suffix;
    const Tensor *max_queue = nullptr, *flush_millis = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 1, "logdir", &logdir));
    ACTORFLOW_RETURN_IF_ERROR(scalar(ctx, 2, DType::int32, "max_queue", &max_queue));
    ACTORFLOW_RETURN_IF_ERROR(scalar(ctx, 3, DType::int32, "flush_millis", &flush_millis));
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 4, "filename_suffix", &suffix));
    SummaryWriterResource* slot = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(slot_of(ctx, &slot));
    return slot->get_or_open(logdir, max_queue->data<std::int32_t>()[0],
                             flush_millis->data<std::int32_t>()[0], suffix);
  }
};

class CreateSummaryDbWriterOp : public WriterKernel {
 public:
  using WriterKernel::WriterKernel;

 protected:
  Status run(OpKernelContext&) override {
    return unimplemented(
        "CreateSummaryDbWriter: actorflow writes summaries to events files "
        "(CreateSummaryFileWriter), not to TensorFlow's SQLite summary database");
  }
};

class FlushSummaryWriterOp : public WriterKernel {
 public:
  using WriterKernel::WriterKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<SummaryFileWriter> w;
    ACTORFLOW_RETURN_IF_ERROR(writer_of(ctx, &w));
    return w->flush();
  }
};

class CloseSummaryWriterOp : public WriterKernel {
 public:
  using WriterKernel::WriterKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    SummaryWriterResource* slot = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(slot_of(ctx, &slot));
    return slot->close();
  }
};

// WriteSummary(writer, step, tensor, tag, summary_metadata): one tensor value; metadata
// that does not parse is kept as far as it parses (TensorFlow ignores the failure).
class WriteSummaryOp : public EventWriteKernel {
 public:
  using EventWriteKernel::EventWriteKernel;

 protected:
  Status fill(OpKernelContext& ctx, tensorflow::Event* e) override {
    std::string tag, metadata;
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 3, "tag", &tag));
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 4, "summary_metadata", &metadata));
    auto* v = e->mutable_summary()->add_value();
    ACTORFLOW_RETURN_IF_ERROR(tensor_proto(ctx.input(2), v->mutable_tensor(), name()));
    v->set_tag(tag);
    if (!metadata.empty()) (void)v->mutable_metadata()->ParseFromString(metadata);
    return {};
  }
};

// WriteRawProtoSummary(writer, step, tensor): the values of every serialized Summary in
// `tensor`, in one event.
class WriteRawProtoSummaryOp : public EventWriteKernel {
 public:
  using EventWriteKernel::EventWriteKernel;

 protected:
  Status fill(OpKernelContext& ctx, tensorflow::Event* e) override {
    const Tensor& t = ctx.input(2);
    const std::string* pbs = t.data<std::string>();
    for (std::int64_t i = 0; i < t.num_elements(); ++i)
      if (!e->mutable_summary()->MergeFromString(pbs[i]))
        return data_loss("Bad tf.compat.v1.Summary binary proto tensor string at index " +
                         std::to_string(i));
    return {};
  }
};

class ImportEventOp : public WriterKernel {
 public:
  using WriterKernel::WriterKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<SummaryFileWriter> w;
    ACTORFLOW_RETURN_IF_ERROR(writer_of(ctx, &w));
    std::string bytes;
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 1, "event", &bytes));
    tensorflow::Event e;
    if (!e.ParseFromString(bytes)) return data_loss("Bad tf.Event binary proto tensor string");
    return w->write(e);
  }
};

// WriteScalarSummary, WriteHistogramSummary, WriteImageSummary and WriteAudioSummary:
// (writer, step, tag, tensor, ...) converted as TensorFlow's summary_converter.cc does.
class WriteConvertedOp : public EventWriteKernel {
 public:
  WriteConvertedOp(OpKernelConstruction& c, Status* s) : EventWriteKernel(c) {
    kind_ = c.def.op == "WriteScalarSummary"      ? Kind::scalar
            : c.def.op == "WriteHistogramSummary" ? Kind::histogram
            : c.def.op == "WriteImageSummary"     ? Kind::image
                                                  : Kind::audio;
    std::int64_t max = 3;
    if (kind_ == Kind::image) c.get_attr("max_images", &max);
    if (kind_ == Kind::audio) c.get_attr("max_outputs", &max);
    if (max <= 0 || max >= (std::int64_t{1} << 31))
      *s = invalid_argument(kind_ == Kind::image ? "max_images must be < 2^31"
                                                 : "max_outputs must be > 0");
    max_ = static_cast<int>(max);
  }

 protected:
  Status fill(OpKernelContext& ctx, tensorflow::Event* e) override {
    std::string tag;
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 2, "tag", &tag));
    const Tensor& t = ctx.input(3);
    auto* s = e->mutable_summary();
    if (kind_ == Kind::scalar) {
      ACTORFLOW_RETURN_IF_ERROR(add_scalar(t, tag, s));
    } else if (kind_ == Kind::histogram) {
      ACTORFLOW_RETURN_IF_ERROR(add_histogram(t, tag, s));
    } else if (kind_ == Kind::image) {
      const Tensor& bad_color = ctx.input(4);
      if (bad_color.rank() != 1)
        return invalid_argument("bad_color must be a vector, got shape " +
                                bad_color.shape().to_string());
      const std::vector<std::uint8_t> color = bad_color.to_vector<std::uint8_t>();
      ACTORFLOW_RETURN_IF_ERROR(add_images(t, tag, max_, color, s));
    } else {
      const Tensor* rate = nullptr;
      ACTORFLOW_RETURN_IF_ERROR(scalar(ctx, 4, DType::float32, "sample_rate", &rate));
      ACTORFLOW_RETURN_IF_ERROR(add_audio(t, tag, max_, rate->data<float>()[0], s));
    }
    return {};
  }

 private:
  enum class Kind { scalar, histogram, image, audio };
  Kind kind_ = Kind::scalar;
  int max_ = 3;
};

class WriteGraphSummaryOp : public EventWriteKernel {
 public:
  using EventWriteKernel::EventWriteKernel;

 protected:
  Status fill(OpKernelContext& ctx, tensorflow::Event* e) override {
    std::string bytes;
    ACTORFLOW_RETURN_IF_ERROR(string_scalar(ctx, 2, "tensor", &bytes));
    tensorflow::GraphDef graph;
    if (!graph.ParseFromString(bytes))
      return data_loss("Bad tf.GraphDef binary proto tensor string");
    e->set_graph_def(graph.SerializeAsString());
    return {};
  }
};

}  // namespace

void register_summary_writer_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_definitions(OpRegistry::global());
    auto& k = KernelRegistry::global();
    k.add(make_kernel_def<SummaryWriterOp>("SummaryWriter", "CPU"));
    k.add(make_kernel_def<CreateSummaryFileWriterOp>("CreateSummaryFileWriter", "CPU"));
    k.add(make_kernel_def<CreateSummaryDbWriterOp>("CreateSummaryDbWriter", "CPU"));
    k.add(make_kernel_def<FlushSummaryWriterOp>("FlushSummaryWriter", "CPU"));
    k.add(make_kernel_def<CloseSummaryWriterOp>("CloseSummaryWriter", "CPU"));
    k.add(make_kernel_def<WriteSummaryOp>("WriteSummary", "CPU"));
    k.add(make_kernel_def<WriteRawProtoSummaryOp>("WriteRawProtoSummary", "CPU"));
    k.add(make_kernel_def<ImportEventOp>("ImportEvent", "CPU"));
    for (const char* op :
         {"WriteScalarSummary", "WriteHistogramSummary", "WriteImageSummary", "WriteAudioSummary"})
      k.add(make_kernel_def<WriteConvertedOp>(op, "CPU"));
    k.add(make_kernel_def<WriteGraphSummaryOp>("WriteGraphSummary", "CPU"));
  });
}

}  // namespace af::summary::detail
