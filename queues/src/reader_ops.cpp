// Reader ops (TensorFlow's V2 resource ops: TextLineReaderV2, ReaderReadV2,
// ReaderReadUpToV2, ...), their kernels and the graph API of reader.hpp.
#include <atomic>
#include <mutex>

#include "actorflow/actors/runtime.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/queues/reader.hpp"
#include "queue_kernel_util.hpp"
#include "queues_registration.hpp"
#include "reader_resource.hpp"

namespace af {

namespace detail {

namespace {

std::atomic<std::int64_t> g_unique_reader_ids{0};

/// TextLineReaderV2 / FixedLengthRecordReaderV2 / TFRecordReaderV2 / WholeFileReaderV2 /
/// IdentityReaderV2, their first forms, and LMDBReader (a first form only, as TensorFlow's).
class ReaderOp : public OpKernel {
 public:
  ReaderOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    const std::string op = base_op(c.def.op);
    kind_ = op;  // "TextLineReader"
    if (op == "TextLineReader") {
      TextLineOptions o;
      c.get_attr("skip_header_lines", &o.skip_header_lines);
      if (o.skip_header_lines < 0) {  // as TensorFlow's TextLineReaderOp (text_line_reader_op.cc)
        *s = invalid_argument("skip_header_lines must be >= 0 not " +
                              std::to_string(o.skip_header_lines));
        return;
      }
      make_ = [o] { return make_text_line_source(o); };
    } else if (op == "FixedLengthRecordReader") {
      FixedLengthOptions o;
      c.get_attr("header_bytes", &o.header_bytes);
      c.get_attr("record_bytes", &o.record_bytes);
      c.get_attr("footer_bytes", &o.footer_bytes);
      c.get_attr("hop_bytes", &o.hop_bytes);
      c.get_attr("encoding", &o.encoding);
      // TensorFlow's FixedLengthRecordReaderOp messages; a record_bytes of 0, which TensorFlow
      // takes and then reads empty records forever, is refused too.
      for (auto [attr, value] :
           {std::pair{"header_bytes", o.header_bytes}, std::pair{"record_bytes", o.record_bytes},
            std::pair{"footer_bytes", o.footer_bytes}, std::pair{"hop_bytes", o.hop_bytes}}) {
        if (value < 0) {
          *s = invalid_argument(std::string(attr) + " must be >= 0 not " + std::to_string(value));
          return;
        }
      }
      if (o.record_bytes == 0) {
        *s = invalid_argument("record_bytes must be > 0 not 0 (FixedLengthRecordReader " +
                              c.def.name + ")");
        return;
      }
      make_ = [o] { return make_fixed_length_source(o); };
    } else if (op == "TFRecordReader") {
      std::string compression;
      c.get_attr("compression_type", &compression);
      if (compression != "" && compression != "ZLIB" && compression != "GZIP") {
        *s = invalid_argument("TFRecordReader " + c.def.name + ": unknown compression_type '" +
                              compression + "' (expected \"\", \"ZLIB\" or \"GZIP\")");
        return;
      }
      make_ = [compression] { return make_tf_record_source(compression); };
    } else if (op == "IdentityReader") {
      make_ = [] { return make_identity_source(); };
    } else if (op == "LMDBReader") {
      make_ = [] { return make_lmdb_source(); };
    } else {
      make_ = [] { return make_whole_file_source(); };
    }
  }

  void compute(OpKernelContext& ctx) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (!reader_) {
      if (!ctx.runtime) return ctx.fail(internal(name() + ": no runtime to spawn the reader in"));
      ResourceMgr* mgr = shared_name_.empty() || !ctx.shared_resource_mgr ? ctx.resource_mgr
                                                                          : ctx.shared_resource_mgr;
      if (!mgr) return ctx.fail(internal("no resource manager for " + name()));
      std::string rname =
          shared_name_.empty()
              ? "_" + std::to_string(g_unique_reader_ids.fetch_add(1)) + "_" + name()
              : shared_name_;
      auto& sys = ctx.runtime->system();
      // Messages name the reader as TensorFlow does: "IdentityReader 'node name'".
      const std::string shown = shared_name_.empty() ? name() : shared_name_;
      Status s = mgr->lookup_or_create<ReaderResource>(
          container_, rname, &reader_, [&](std::shared_ptr<ReaderResource>* out) -> Status {
            *out = std::make_shared<ReaderResource>(sys, shown, kind_, make_);
            return {};
          });
      if (!s.ok()) return ctx.fail(s);
    }
    ctx.set_output(0, Tensor::from_resource(reader_));
  }

 private:
  std::string kind_;
  std::string container_;
  std::string shared_name_;
  std::function<std::unique_ptr<RecordSource>()> make_;
  std::mutex mu_;
  std::shared_ptr<ReaderResource> reader_;
};

Async<ReaderReply> call_reader(StepServices* step, std::shared_ptr<ReaderResource> reader,
                               ReaderCall call) {
  return {[step, reader = std::move(reader),
           call = std::move(call)](Completion<ReaderReply> c) mutable {
    auto post = step->poster();
    auto token = std::make_shared<std::uint64_t>(0);
    const auto id = call.id = next_queue_call_id();
    call.deadline = step->deadline();
    call.reply = std::make_shared<ReaderReplyOnce>([post, c, step, token](ReaderReply r) {
      post([c, step, token, r = std::move(r)]() mutable {
        if (*token) step->remove_cancel_hook(*token);
        c(std::move(r));
      });
    });
    reader->call(std::move(call));
    *token = step->add_cancel_hook([reader, id](const Status& why) { reader->cancel(id, why); });
  }};
}

/// ReaderReadV2, ReaderReadUpToV2, ReaderNumRecordsProducedV2,
/// ReaderNumWorkUnitsCompletedV2, ReaderResetV2, ReaderSerializeStateV2 and
/// ReaderRestoreStateV2.
class ReaderCallOp : public OpKernel {
 public:
  explicit ReaderCallOp(OpKernelConstruction& c) : OpKernel(c) {
    const std::string op = base_op(c.def.op);
    if (op == "ReaderRead")
      kind_ = ReaderCall::Kind::read;
    else if (op == "ReaderReadUpTo")
      kind_ = ReaderCall::Kind::read_up_to;
    else if (op == "ReaderNumRecordsProduced")
      kind_ = ReaderCall::Kind::num_records_produced;
    else if (op == "ReaderNumWorkUnitsCompleted")
      kind_ = ReaderCall::Kind::num_work_units_completed;
    else if (op == "ReaderSerializeState")
      kind_ = ReaderCall::Kind::serialize_state;
    else if (op == "ReaderRestoreState")
      kind_ = ReaderCall::Kind::restore_state;
    else
      kind_ = ReaderCall::Kind::reset;
  }
  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }

  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    auto reader = std::dynamic_pointer_cast<ReaderResource>(ctx.input(0).resource());
    if (!reader) {
      ctx.fail(invalid_argument("Input 0 of " + name() + " is not a reader handle"));
      co_return;
    }
    ReaderCall call;
    call.kind = kind_;
    if (kind_ == ReaderCall::Kind::read || kind_ == ReaderCall::Kind::read_up_to) {
      call.work_queue = queue_input(ctx, 1);
      if (!call.work_queue) co_return;
    }
    if (kind_ == ReaderCall::Kind::restore_state) {
      const Tensor& state = ctx.input(1);
      if (state.dtype() != DType::string || state.num_elements() != 1 || state.rank() != 0) {
        ctx.fail(invalid_argument(name() + ": state must be a string scalar, got " +
                                  std::string(data_type_string(state.dtype())) + " of shape " +
                                  state.shape().to_string()));
        co_return;
      }
      call.state = state.scalar<std::string>();
    }
    // num_records as TensorFlow's ReaderBase::ReadUpTo takes it: 0 reads nothing, a negative
    // count the rest of the current work unit.
    if (kind_ == ReaderCall::Kind::read_up_to)
      call.num_records = ctx.input(2).scalar<std::int64_t>();
    ReaderReply r = co_await call_reader(ctx.step, reader, std::move(call));
    if (!r.status.ok()) {
      ctx.fail(r.status);
      co_return;
    }
    switch (kind_) {
      case ReaderCall::Kind::read:
        ctx.set_output(0, Tensor(std::move(r.keys.at(0))));
        ctx.set_output(1, Tensor(std::move(r.values.at(0))));
        break;
      case ReaderCall::Kind::read_up_to: {
        auto n = static_cast<std::int64_t>(r.keys.size());
        Tensor keys(DType::string, Shape{n}), values(DType::string, Shape{n});
        std::move(r.keys.begin(), r.keys.end(), keys.data<std::string>());
        std::move(r.values.begin(), r.values.end(), values.data<std::string>());
        ctx.set_output(0, std::move(keys));
        ctx.set_output(1, std::move(values));
        break;
      }
      case ReaderCall::Kind::num_records_produced:
      case ReaderCall::Kind::num_work_units_completed:
        ctx.set_output(0, Tensor(r.count));
        break;
      case ReaderCall::Kind::serialize_state:
        ctx.set_output(0, Tensor(std::move(r.state)));
        break;
      case ReaderCall::Kind::reset:
      case ReaderCall::Kind::restore_state:
        break;
    }
  }

 private:
  ReaderCall::Kind kind_;
};

/// `_ReaderReadDecodeCSV`: a ReaderReadV2 / ReaderReadUpToV2 whose records feed only a
/// DecodeCSV, fused into one node by the execution plan (fuse_reader_decode_csv): the
/// reader actor decodes each line straight from its file buffer, so no string per record
/// (nor per key) is made. Inputs: the reader's (handle, queue[, num_records]), then the
/// DecodeCSV defaults; outputs: the DecodeCSV's. The node carries the DecodeCSV's name and
/// attributes; errors of the read name the reader node, decode errors the DecodeCSV node.
class ReaderReadDecodeCSVOp : public OpKernel {
 public:
  ReaderReadDecodeCSVOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    c.get_attr("reader_op", &reader_op_);
    c.get_attr("reader_node", &reader_node_);
    up_to_ = base_op(reader_op_) == "ReaderReadUpTo";
    *s = CsvDecoder::create(c.def, &decoder_);
  }
  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }

  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    const std::string reader_suffix = "\n\t [[{{node " + reader_node_ + "}}]]";
    auto fail_read = [&](const Status& st) {
      ctx.fail(st.message().find("[[") == std::string::npos ? st.with_context(reader_suffix) : st);
    };
    auto reader = std::dynamic_pointer_cast<ReaderResource>(ctx.input(0).resource());
    if (!reader) {
      fail_read(invalid_argument("Input 0 of " + reader_node_ + " is not a reader handle"));
      co_return;
    }
    ReaderCall call;
    call.kind = up_to_ ? ReaderCall::Kind::read_up_to : ReaderCall::Kind::read;
    call.work_queue = std::dynamic_pointer_cast<QueueResource>(ctx.input(1).resource());
    if (!call.work_queue) {
      fail_read(invalid_argument("Input 1 of " + reader_node_ + " is not a queue handle"));
      co_return;
    }
    if (up_to_)
      call.num_records = ctx.input(2).scalar<std::int64_t>();  // as the plain ReaderReadUpToV2
    const int first_default = up_to_ ? 3 : 2;
    const int columns = static_cast<int>(decoder_->out_types().size());
    if (ctx.num_inputs() != first_default + columns) {
      ctx.fail(internal(name() + ": expects " + std::to_string(first_default + columns) +
                        " inputs, got " + std::to_string(ctx.num_inputs())));
      co_return;
    }
    call.decoder = decoder_;
    call.defaults.reserve(static_cast<std::size_t>(columns));
    for (int i = 0; i < columns; ++i) call.defaults.push_back(ctx.input(first_default + i));
    ReaderReply r = co_await call_reader(ctx.step, reader, std::move(call));
    if (!r.status.ok()) {
      fail_read(r.status);
      co_return;
    }
    for (int i = 0; i < columns; ++i)
      ctx.set_output(i, std::move(r.columns[static_cast<std::size_t>(i)]));
  }

 private:
  std::string reader_op_, reader_node_;
  bool up_to_ = false;
  std::shared_ptr<const CsvDecoder> decoder_;
};

Status infer_reader(InferenceContext& c) {
  c.add_output(DType::resource, PartialShape(Shape{}), /*is_ref=*/true);
  return {};
}

}  // namespace

void register_reader_ops_and_kernels() {
  auto& ops = OpRegistry::global();
  auto& kernels = KernelRegistry::global();
  // Each op twice: TensorFlow's V2 (resource handles) and its first form (Ref(string)).
  for (const std::string v : {"V2", ""}) {
    for (const char* op : {"TextLineReader", "FixedLengthRecordReader", "TFRecordReader",
                           "WholeFileReader", "IdentityReader"}) {
      ops.add({op + v, infer_reader, true, {}});
      kernels.add(make_kernel_def<ReaderOp>(op + v, "CPU"));
    }
    if (v.empty()) {
      ops.add({"LMDBReader", infer_reader, true, {}});
      kernels.add(make_kernel_def<ReaderOp>("LMDBReader", "CPU"));
    }
    ops.add({"ReaderRead" + v,
             [](InferenceContext& c) {
               c.add_output(DType::string, PartialShape(Shape{}));
               c.add_output(DType::string, PartialShape(Shape{}));
               return Status();
             },
             true,
             {0}});
    ops.add({"ReaderReadUpTo" + v,
             [](InferenceContext& c) {
               c.add_output(DType::string, PartialShape{-1});
               c.add_output(DType::string, PartialShape{-1});
               return Status();
             },
             true,
             {0}});
    auto scalar_int64 = [](InferenceContext& c) {
      c.add_output(DType::int64, PartialShape(Shape{}));
      return Status();
    };
    ops.add({"ReaderNumRecordsProduced" + v, scalar_int64, true, {0}});
    ops.add({"ReaderNumWorkUnitsCompleted" + v, scalar_int64, true, {0}});
    ops.add({"ReaderReset" + v, [](InferenceContext&) { return Status(); }, true, {0}});
    ops.add({"ReaderSerializeState" + v,
             [](InferenceContext& c) {
               c.add_output(DType::string, PartialShape(Shape{}));
               return Status();
             },
             true,
             {0}});
    ops.add({"ReaderRestoreState" + v,
             [v](InferenceContext& c) {
               // As TensorFlow's shape function: the state is a scalar.
               ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
               ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::string));
               const auto& state = c.input_shapes[1];
               if (state.rank_known() && state.rank() != 0)
                 return invalid_argument("Shape must be rank 0 but is rank " +
                                         std::to_string(state.rank()) + " for '" + c.node.name +
                                         "' (op: 'ReaderRestoreState" + v + "')");
               return Status();
             },
             true,
             {0}});
    for (const char* op :
         {"ReaderRead", "ReaderReadUpTo", "ReaderNumRecordsProduced", "ReaderNumWorkUnitsCompleted",
          "ReaderReset", "ReaderSerializeState", "ReaderRestoreState"})
      kernels.add(make_kernel_def<ReaderCallOp>(op + v, "CPU"));
  }
  // Made only by the execution plan, never by graph building: no shape function needed
  // beyond the DecodeCSV outputs the plan copies.
  ops.add({"_ReaderReadDecodeCSV", [](InferenceContext&) { return Status(); }, true, {0}});
  kernels.add(make_kernel_def<ReaderReadDecodeCSVOp>("_ReaderReadDecodeCSV", "CPU"));
}

}  // namespace detail

// -- graph API -------------------------------------------------------------------------------

ReaderBase::ReaderBase(Graph& g, const std::string& op, AttrMap attrs, std::string_view name,
                       std::string_view shared_name)
    : graph_(&g) {
  register_queue_ops();
  attrs["container"] = std::string();
  attrs["shared_name"] = std::string(shared_name);
  handle_ =
      g.create_op(op, {}, std::move(attrs), name.empty() ? std::string_view(op) : name).output(0);
}

std::pair<Output, Output> ReaderBase::read(const QueueBase& queue, std::string_view name) const {
  return read(queue.queue_ref(), name);
}

std::pair<Output, Output> ReaderBase::read(const Output& queue_ref, std::string_view name) const {
  Operation op = graph_->create_op("ReaderReadV2", {handle_, queue_ref}, {},
                                   name.empty() ? std::string_view("ReaderReadV2") : name);
  return {op.output(0), op.output(1)};
}

std::pair<Output, Output> ReaderBase::read_up_to(const QueueBase& queue, std::int64_t num_records,
                                                 std::string_view name) const {
  Output n = graph_->constant(
      Tensor(num_records), std::string(name.empty() ? "ReaderReadUpToV2" : name) + "/num_records");
  return read_up_to(queue.queue_ref(), n, name);
}

std::pair<Output, Output> ReaderBase::read_up_to(const Output& queue_ref, const Output& num_records,
                                                 std::string_view name) const {
  Operation op = graph_->create_op("ReaderReadUpToV2", {handle_, queue_ref, num_records}, {},
                                   name.empty() ? std::string_view("ReaderReadUpToV2") : name);
  return {op.output(0), op.output(1)};
}

Output ReaderBase::num_records_produced(std::string_view name) const {
  return graph_
      ->create_op("ReaderNumRecordsProducedV2", {handle_}, {},
                  name.empty() ? std::string_view("ReaderNumRecordsProducedV2") : name)
      .output(0);
}

Output ReaderBase::num_work_units_completed(std::string_view name) const {
  return graph_
      ->create_op("ReaderNumWorkUnitsCompletedV2", {handle_}, {},
                  name.empty() ? std::string_view("ReaderNumWorkUnitsCompletedV2") : name)
      .output(0);
}

Operation ReaderBase::reset(std::string_view name) const {
  return graph_->create_op("ReaderResetV2", {handle_}, {},
                           name.empty() ? std::string_view("ReaderResetV2") : name);
}

Output ReaderBase::serialize_state(std::string_view name) const {
  return graph_
      ->create_op("ReaderSerializeStateV2", {handle_}, {},
                  name.empty() ? std::string_view("ReaderSerializeStateV2") : name)
      .output(0);
}

Operation ReaderBase::restore_state(const Output& state, std::string_view name) const {
  return graph_->create_op("ReaderRestoreStateV2", {handle_, state}, {},
                           name.empty() ? std::string_view("ReaderRestoreStateV2") : name);
}

Operation ReaderBase::restore_state(const std::string& state, std::string_view name) const {
  std::string op_name(name.empty() ? std::string_view("ReaderRestoreStateV2") : name);
  return restore_state(graph_->constant(Tensor(state), op_name + "/state"), op_name);
}

TextLineReader::TextLineReader(Graph& g, const TextLineReaderOptions& o)
    : ReaderBase(g, "TextLineReaderV2", {{"skip_header_lines", o.skip_header_lines}}, o.name,
                 o.shared_name) {}

FixedLengthRecordReader::FixedLengthRecordReader(Graph& g, const FixedLengthRecordReaderOptions& o)
    : ReaderBase(g, "FixedLengthRecordReaderV2",
                 {{"record_bytes", o.record_bytes},
                  {"header_bytes", o.header_bytes},
                  {"footer_bytes", o.footer_bytes},
                  {"hop_bytes", o.hop_bytes},
                  {"encoding", o.encoding}},
                 o.name, o.shared_name) {
  if (o.record_bytes <= 0)
    throw InvalidArgumentError(
        invalid_argument("FixedLengthRecordReader: record_bytes must be > 0"));
}

TFRecordReader::TFRecordReader(Graph& g, const TFRecordReaderOptions& o)
    : ReaderBase(g, "TFRecordReaderV2", {{"compression_type", o.compression_type}}, o.name,
                 o.shared_name) {}

WholeFileReader::WholeFileReader(Graph& g, const WholeFileReaderOptions& o)
    : ReaderBase(g, "WholeFileReaderV2", {}, o.name, o.shared_name) {}

IdentityReader::IdentityReader(Graph& g, const IdentityReaderOptions& o)
    : ReaderBase(g, "IdentityReaderV2", {}, o.name, o.shared_name) {}

LMDBReader::LMDBReader(Graph& g, const LMDBReaderOptions& o)
    : ReaderBase(g, "LMDBReader", {}, o.name, o.shared_name) {}

}  // namespace af
