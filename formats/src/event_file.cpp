// Events files as TensorFlow writes them (tensorflow/core/util/events_writer.cc,
// tensorflow/python/summary/writer/): TFRecord framing of Event protos.
#include "actorflow/formats/event_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

#include "actorflow/ops/errors.hpp"
#include "actorflow/tf/event.pb.h"
#include "actorflow/tf/run_metadata.pb.h"
#include "record_io.hpp"
#include "tf_proto.hpp"

namespace af::summary {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// An Event stamped now, at `step` (what every add_* but the first record writes).
tensorflow::Event stamped(std::int64_t step) {
  tensorflow::Event e;
  e.set_wall_time(now_seconds());
  e.set_step(step);
  return e;
}

SummaryValue to_value(const tensorflow::Summary::Value& v) {
  SummaryValue out;
  out.tag = v.tag();
  if (v.has_metadata()) out.plugin_name = v.metadata().plugin_data().plugin_name();
  switch (v.value_case()) {
    case tensorflow::Summary::Value::kSimpleValue:
      out.kind = SummaryValue::Kind::simple_value;
      out.simple_value = v.simple_value();
      break;
    case tensorflow::Summary::Value::kHisto: {
      const auto& h = v.histo();
      out.kind = SummaryValue::Kind::histogram;
      out.histo_min = h.min();
      out.histo_max = h.max();
      out.histo_num = h.num();
      out.histo_sum = h.sum();
      out.histo_sum_squares = h.sum_squares();
      out.bucket_limit.assign(h.bucket_limit().begin(), h.bucket_limit().end());
      out.bucket.assign(h.bucket().begin(), h.bucket().end());
      break;
    }
    case tensorflow::Summary::Value::kImage:
      out.kind = SummaryValue::Kind::image;
      out.image_height = v.image().height();
      out.image_width = v.image().width();
      out.image_colorspace = v.image().colorspace();
      out.encoded = v.image().encoded_image_string();
      break;
    case tensorflow::Summary::Value::kTensor:
      out.kind = SummaryValue::Kind::tensor;
      out.encoded = v.tensor().SerializeAsString();
      if (auto t = tfproto::from_proto(v.tensor(), v.tag()); t.ok())
        out.tensor = std::move(t).value();
      break;
    case tensorflow::Summary::Value::kAudio:
      out.kind = SummaryValue::Kind::audio;
      out.encoded = v.audio().encoded_audio_string();
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

// -- FileWriter ---------------------------------------------------------------------------

struct FileWriter::Impl {
  std::unique_ptr<io::RecordWriter> writer;
};

FileWriter::FileWriter(const std::string& logdir, FileWriterOptions options)
    : options_(std::move(options)) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) throw_if_error(io::io_error(logdir, ec.value()));
  const auto seconds = static_cast<long long>(now_seconds());
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%010lld", seconds);
  path_ = (std::filesystem::path(logdir) / ("events.out.tfevents." + std::string(stamp) + "." +
                                            host_name() + options_.filename_suffix))
              .string();
  impl_ = std::make_unique<Impl>();
  throw_if_error(io::RecordWriter::open(path_, "", &impl_->writer));
  tensorflow::Event first;
  first.set_wall_time(static_cast<double>(seconds));
  first.set_file_version("brain.Event:2");
  first.mutable_source_metadata()->set_writer("tensorflow.core.util.events_writer");
  std::lock_guard lock(mutex_);
  last_flush_ = std::chrono::steady_clock::now();
  write_locked(first.SerializeAsString());
  throw_if_error(impl_->writer->flush());
  last_flush_ = std::chrono::steady_clock::now();
}

FileWriter::~FileWriter() {
  try {
    close();
  } catch (...) {
  }
}

void FileWriter::write_locked(const std::string& event) {
  if (!impl_->writer) throw_if_error(failed_precondition(path_ + ": the FileWriter is closed"));
  throw_if_error(impl_->writer->write(event));
  const auto now = std::chrono::steady_clock::now();
  if (now - last_flush_ >= options_.flush_every) {
    throw_if_error(impl_->writer->flush());
    last_flush_ = now;
  }
}

void FileWriter::add_event(const std::string& event) {
  std::lock_guard lock(mutex_);
  write_locked(event);
}

void FileWriter::add_summary(const std::string& summary, std::int64_t step) {
  tensorflow::Event e = stamped(step);
  if (!e.mutable_summary()->ParseFromString(summary))
    throw_if_error(invalid_argument(
        path_ + ": add_summary was given bytes that are not a tensorflow.Summary"));
  add_event(e.SerializeAsString());
}

void FileWriter::add_graph(const std::string& graph_def, std::int64_t step) {
  tensorflow::Event e = stamped(step);
  e.set_graph_def(graph_def);
  add_event(e.SerializeAsString());
}

void FileWriter::add_meta_graph(const std::string& meta_graph_def, std::int64_t step) {
  tensorflow::Event e = stamped(step);
  e.set_meta_graph_def(meta_graph_def);
  add_event(e.SerializeAsString());
}

void FileWriter::add_run_metadata(const RunMetadata& metadata, const std::string& tag,
                                  std::int64_t step) {
  {
    std::lock_guard lock(mutex_);
    if (!run_metadata_tags_.insert(tag).second)
      throw_if_error(invalid_argument(path_ +
                                      ": The provided tag was already used for this "
                                      "event type (run metadata '" +
                                      tag + "')"));
  }
  tensorflow::Event e = stamped(step);
  auto* tagged = e.mutable_tagged_run_metadata();
  tagged->set_tag(tag);
  tagged->set_run_metadata(run_metadata_proto(metadata));
  add_event(e.SerializeAsString());
}

std::string run_metadata_proto(const RunMetadata& metadata) {
  tensorflow::RunMetadata out;
  std::map<std::string, tensorflow::DeviceStepStats*> devices;
  for (const auto& n : metadata.step_stats) {
    auto& dev = devices[n.device];
    if (!dev) {
      dev = out.mutable_step_stats()->add_dev_stats();
      dev->set_device(n.device);
    }
    auto* s = dev->add_node_stats();
    const std::int64_t duration = std::max<std::int64_t>(0, n.end_us - n.start_us);
    s->set_node_name(n.node_name);
    s->set_all_start_micros(n.start_us);
    s->set_op_start_rel_micros(0);
    s->set_op_end_rel_micros(duration);
    s->set_all_end_rel_micros(duration);
    s->set_all_start_nanos(n.start_us * 1000);
    s->set_op_end_rel_nanos(duration * 1000);
    s->set_all_end_rel_nanos(duration * 1000);
    s->set_timeline_label(n.node_name + " = " + n.op + "()");
    s->set_thread_id(static_cast<std::uint32_t>(n.thread_id));
  }
  return out.SerializeAsString();
}

void FileWriter::add_session_log(SessionStatus status, std::int64_t step,
                                 const std::string& checkpoint_path, const std::string& msg) {
  tensorflow::Event e = stamped(step);
  auto* log = e.mutable_session_log();
  log->set_status(static_cast<tensorflow::SessionLog::SessionStatus>(status));
  log->set_checkpoint_path(checkpoint_path);
  log->set_msg(msg);
  add_event(e.SerializeAsString());
}

void FileWriter::flush() {
  std::lock_guard lock(mutex_);
  if (!impl_->writer) return;
  throw_if_error(impl_->writer->flush());
  last_flush_ = std::chrono::steady_clock::now();
}

void FileWriter::close() {
  std::lock_guard lock(mutex_);
  if (!impl_ || !impl_->writer) return;
  auto writer = std::move(impl_->writer);
  throw_if_error(writer->close());
}

// -- EventFileReader ----------------------------------------------------------------------

struct EventFileReader::Impl {
  std::unique_ptr<io::RecordReader> reader;
};

EventFileReader::EventFileReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  throw_if_error(io::RecordReader::open(path, "", &impl_->reader));
}

EventFileReader::~EventFileReader() = default;

std::optional<std::string> EventFileReader::next_record() {
  std::string record;
  const Status s = impl_->reader->read(&record);
  if (s.code() == Code::out_of_range) return std::nullopt;
  throw_if_error(s);
  return record;
}

std::optional<Event> EventFileReader::next() {
  const std::uint64_t at = impl_->reader->offset();
  auto record = next_record();
  if (!record) return std::nullopt;
  tensorflow::Event e;
  if (!e.ParseFromString(*record))
    throw_if_error(data_loss(impl_->reader->name() + ": the record at " + std::to_string(at) +
                             " is not an Event"));
  Event out;
  out.wall_time = e.wall_time();
  out.step = e.step();
  out.source_writer = e.source_metadata().writer();
  switch (e.what_case()) {
    case tensorflow::Event::kFileVersion:
      out.file_version = e.file_version();
      break;
    case tensorflow::Event::kGraphDef:
      out.graph_def = e.graph_def();
      break;
    case tensorflow::Event::kMetaGraphDef:
      out.meta_graph_def = e.meta_graph_def();
      break;
    case tensorflow::Event::kSummary:
      out.has_summary = true;
      for (const auto& v : e.summary().value()) out.summary.push_back(to_value(v));
      break;
    case tensorflow::Event::kTaggedRunMetadata:
      out.run_metadata_tag = e.tagged_run_metadata().tag();
      out.run_metadata = e.tagged_run_metadata().run_metadata();
      break;
    case tensorflow::Event::kSessionLog:
      out.session_log_status = static_cast<int>(e.session_log().status());
      out.checkpoint_path = e.session_log().checkpoint_path();
      break;
    default:
      break;
  }
  return out;
}

std::vector<Event> read_events(const std::string& path) {
  EventFileReader reader(path);
  std::vector<Event> events;
  while (auto e = reader.next()) events.push_back(std::move(*e));
  return events;
}

std::vector<std::string> event_files(const std::string& logdir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(logdir, ec))
    if (entry.path().filename().string().find("tfevents") != std::string::npos)
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace af::summary
