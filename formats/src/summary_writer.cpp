// TensorFlow 2's summary writer resource (see summary_writer.hpp).
#include "summary_writer.hpp"

#include <unistd.h>

#include <atomic>
#include <exception>
#include <filesystem>

#include "actorflow/ops/errors.hpp"

namespace af::summary::detail {

namespace {

// The process's writers, numbered from 0 in the order they open (TensorFlow names its files
// with this counter so that two writers never share a file).
std::atomic<std::int64_t> next_file_id{0};

}  // namespace

// -- SummaryFileWriter ----------------------------------------------------------------------

Status SummaryFileWriter::open(const std::string& logdir, std::int32_t max_queue,
                               std::int32_t flush_millis, const std::string& filename_suffix,
                               std::shared_ptr<SummaryFileWriter>* out) {
  std::error_code ec;
  if (std::filesystem::exists(logdir, ec) && !std::filesystem::is_directory(logdir, ec))
    return failed_precondition(logdir + " is not a directory");
  const std::string sep = filename_suffix.starts_with('.') ? "" : ".";
  FileWriterOptions options;
  options.filename_suffix = "." + std::to_string(::getpid()) + "." +
                            std::to_string(next_file_id.fetch_add(1)) + sep + filename_suffix;
  options.flush_every = std::chrono::hours(24 * 365);  // this class decides when to flush
  std::shared_ptr<SummaryFileWriter> w(new SummaryFileWriter());
  try {
    w->file_ = std::make_unique<FileWriter>(logdir, options);
  } catch (...) {
    return status_from_exception(std::current_exception());
  }
  w->max_queue_ = max_queue < 0 ? 0 : static_cast<std::size_t>(max_queue);
  w->flush_every_ = std::chrono::milliseconds(flush_millis < 0 ? 0 : flush_millis);
  w->last_flush_ = std::chrono::steady_clock::now();
  *out = std::move(w);
  return {};
}

SummaryFileWriter::~SummaryFileWriter() {
  std::lock_guard lock(mu_);
  (void)flush_locked();
}

Status SummaryFileWriter::write(const tensorflow::Event& event) {
  std::lock_guard lock(mu_);
  queue_.push_back(event.SerializeAsString());
  if (queue_.size() > max_queue_ || std::chrono::steady_clock::now() - last_flush_ > flush_every_)
    return flush_locked();
  return {};
}

Status SummaryFileWriter::flush() {
  std::lock_guard lock(mu_);
  return flush_locked();
}

Status SummaryFileWriter::flush_locked() {
  try {
    for (const std::string& e : queue_) file_->add_event(e);
    queue_.clear();
    file_->flush();
  } catch (...) {
    return status_from_exception(std::current_exception())
        .with_context(" (could not flush events file " + file_->path() + ")");
  }
  last_flush_ = std::chrono::steady_clock::now();
  return {};
}

const std::string& SummaryFileWriter::path() const { return file_->path(); }

// -- SummaryWriterResource ------------------------------------------------------------------

Status SummaryWriterResource::missing() const {
  return not_found("Resource " + key_ + "/N10tensorflow22SummaryWriterInterfaceE does not exist.");
}

Status SummaryWriterResource::get(std::shared_ptr<SummaryFileWriter>* out) const {
  std::lock_guard lock(mu_);
  if (!writer_) return missing();
  *out = writer_;
  return {};
}

Status SummaryWriterResource::get_or_open(const std::string& logdir, std::int32_t max_queue,
                                          std::int32_t flush_millis,
                                          const std::string& filename_suffix) {
  std::lock_guard lock(mu_);
  if (writer_) return {};
  return SummaryFileWriter::open(logdir, max_queue, flush_millis, filename_suffix, &writer_);
}

Status SummaryWriterResource::close() {
  std::shared_ptr<SummaryFileWriter> w;
  {
    std::lock_guard lock(mu_);
    if (!writer_) return missing();
    w = std::move(writer_);
  }
  // Writes still running hold the writer; the file closes when the last of them lets go.
  return w->flush();
}

std::string SummaryWriterResource::debug_string() const {
  std::lock_guard lock(mu_);
  return "SummaryWriter " + key_ + (writer_ ? " writing " + writer_->path() : " (not open)");
}

}  // namespace af::summary::detail
