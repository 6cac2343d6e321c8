#include "actorflow/queues/tf_record.hpp"

#include <utility>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/status.hpp"
#include "record_io.hpp"

namespace af {

// -- TFRecordOptions --------------------------------------------------------------------

TFRecordOptions TFRecordOptions::from_string(std::string_view compression_type) {
  io::Compression compression = io::Compression::none;
  throw_if_error(io::parse_compression(compression_type, &compression));
  switch (compression) {
    case io::Compression::zlib:
      return {TFRecordCompressionType::zlib};
    case io::Compression::gzip:
      return {TFRecordCompressionType::gzip};
    case io::Compression::none:
      break;
  }
  return {TFRecordCompressionType::none};
}

std::string TFRecordOptions::compression_string() const {
  switch (compression_type) {
    case TFRecordCompressionType::zlib:
      return "ZLIB";
    case TFRecordCompressionType::gzip:
      return "GZIP";
    case TFRecordCompressionType::none:
      break;
  }
  return "";
}

// -- TFRecordWriter ---------------------------------------------------------------------

TFRecordWriter::TFRecordWriter(const std::string& path, TFRecordOptions options) {
  throw_if_error(io::RecordWriter::open(path, options.compression_string(), &writer_));
}

TFRecordWriter::~TFRecordWriter() = default;
TFRecordWriter::TFRecordWriter(TFRecordWriter&&) noexcept = default;
TFRecordWriter& TFRecordWriter::operator=(TFRecordWriter&&) noexcept = default;

void TFRecordWriter::write(std::string_view record) {
  if (!writer_) throw_if_error(failed_precondition("Writer is closed."));
  throw_if_error(writer_->write(record));
}

void TFRecordWriter::flush() {
  if (!writer_) throw_if_error(failed_precondition("Writer is closed."));
  throw_if_error(writer_->flush());
}

void TFRecordWriter::close() {
  if (writer_) throw_if_error(writer_->close());
}

// -- TFRecordIterator -------------------------------------------------------------------

TFRecordIterator::TFRecordIterator(const std::string& path, TFRecordOptions options) {
  throw_if_error(io::RecordReader::open(path, options.compression_string(), &reader_));
}

TFRecordIterator::~TFRecordIterator() = default;
TFRecordIterator::TFRecordIterator(TFRecordIterator&&) noexcept = default;
TFRecordIterator& TFRecordIterator::operator=(TFRecordIterator&&) noexcept = default;

std::optional<std::string> TFRecordIterator::next() {
  if (!reader_) return std::nullopt;
  std::string record;
  Status s = reader_->read(&record);
  if (s.code() == Code::out_of_range) return std::nullopt;
  throw_if_error(s);
  return record;
}

std::uint64_t TFRecordIterator::offset() const noexcept { return reader_ ? reader_->offset() : 0; }

void TFRecordIterator::close() noexcept { reader_.reset(); }

std::vector<std::string> tf_record_iterator_all(const std::string& path, TFRecordOptions options) {
  TFRecordIterator records(path, options);
  std::vector<std::string> all;
  while (auto record = records.next()) all.push_back(std::move(*record));
  return all;
}

}  // namespace af
