// TensorFlow's V1 checkpoint format (tensor_slice_writer.cc, tensor_slice_reader.cc,
// tensor_slice_set.cc, saved_tensor_slice_util.h): TensorSliceWriter and TensorSliceReader.
// The table is LevelDB's (the same options as the V2 index, tensor_bundle_format.cpp); the
// records are the generated code of formats/proto's saved_tensor_slice.proto.
#include "actorflow/ops/tensor_slice_checkpoint.hpp"

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <sys/stat.h>

#include <bit>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <unordered_map>
#include <utility>

#include "actorflow/ops/detail/file_system.hpp"
#include "actorflow/tf/saved_tensor_slice.pb.h"
#include "tensor_bundle_format.hpp"

namespace af {

using namespace bundle_format;  // the table, shapes, slices and versions

namespace {

// TensorSliceWriter's bound on one record (kMaxMessageBytes) and its slack for the
// TensorProto's own header bytes (kTensorProtoHeaderBytes).
constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 31;
constexpr std::size_t kTensorProtoHeaderBytes = 1 << 10;

// TensorFlow's DataTypeString of a dtype, "resource" and "variant" included.
std::string type_string(DType t) {
  const int tf = tf_data_type(t);
  return tf != 0 ? tf_data_type_string(tf) : std::string(dtype_name(t));
}

// MaxBytesPerElementOrZero: the bound on one element's encoded size; 0 for the dtypes the
// format does not store (uint32 and uint64 among them).
std::size_t max_bytes_per_element(DType t) {
  switch (t) {
    case DType::float32:
      return 4;
    case DType::float64:
    case DType::complex64:
      return 8;
    case DType::int32:
    case DType::int16:
    case DType::int8:
    case DType::int64:
      return 10;
    case DType::uint8:
      return 2;
    case DType::boolean:
      return 1;
    case DType::uint16:
    case DType::float16:
      return 3;
    case DType::complex128:
      return 16;
    default:
      return 0;
  }
}

template <typename T, typename Field>
void fill(const Tensor& value, Field* field) {
  const T* p = value.data<T>();
  field->Reserve(static_cast<int>(value.num_elements()));
  for (std::int64_t i = 0; i < value.num_elements(); ++i) field->Add(p[i]);
}

template <typename T, typename Field>
void fill_complex(const Tensor& value, Field* field) {
  const T* p = value.data<T>();
  field->Reserve(static_cast<int>(2 * value.num_elements()));
  for (std::int64_t i = 0; i < value.num_elements(); ++i) {
    field->Add(p[i].real());
    field->Add(p[i].imag());
  }
}

// Fill: the slice's values in the TensorProto field saved_tensor_slice_util.h puts them in.
void fill_proto(const Tensor& value, tensorflow::TensorProto* t) {
  switch (value.dtype()) {
    case DType::float32:
      return fill<float>(value, t->mutable_float_val());
    case DType::float64:
      return fill<double>(value, t->mutable_double_val());
    case DType::int32:
      return fill<std::int32_t>(value, t->mutable_int_val());
    case DType::int16:
      return fill<std::int16_t>(value, t->mutable_int_val());
    case DType::int8:
      return fill<std::int8_t>(value, t->mutable_int_val());
    case DType::uint8:
      return fill<std::uint8_t>(value, t->mutable_int_val());
    case DType::uint16:
      return fill<std::uint16_t>(value, t->mutable_int_val());
    case DType::int64:
      return fill<std::int64_t>(value, t->mutable_int64_val());
    case DType::boolean:
      return fill<bool>(value, t->mutable_bool_val());
    case DType::float16: {
      const half_t* p = value.data<half_t>();
      for (std::int64_t i = 0; i < value.num_elements(); ++i) t->add_half_val(p[i].bits);
      return;
    }
    case DType::complex64:
      return fill_complex<std::complex<float>>(value, t->mutable_scomplex_val());
    case DType::complex128:
      return fill_complex<std::complex<double>>(value, t->mutable_dcomplex_val());
    case DType::string:
      for (const std::string& s : value.flat<std::string>()) t->add_string_val(s);
      return;
    default:
      return;
  }
}

template <typename T, typename Field>
bool copy_field(const Field& field, Tensor* out) {
  if (field.size() != out->num_elements()) return false;
  T* p = out->data<T>();
  for (int i = 0; i < field.size(); ++i) p[i] = static_cast<T>(field.Get(i));
  return true;
}

template <typename T, typename Field>
bool copy_complex(const Field& field, Tensor* out) {
  if (field.size() != 2 * out->num_elements()) return false;
  T* p = out->data<T>();
  for (std::int64_t i = 0; i < out->num_elements(); ++i)
    p[i] = T(field.Get(static_cast<int>(2 * i)), field.Get(static_cast<int>(2 * i + 1)));
  return true;
}

// TensorProtoData: the values of `t` into `out` (of the slice's dtype and shape); false when
// the field holds another number of values.
bool values_from_proto(const tensorflow::TensorProto& t, Tensor* out) {
  switch (out->dtype()) {
    case DType::float32:
      return copy_field<float>(t.float_val(), out);
    case DType::float64:
      return copy_field<double>(t.double_val(), out);
    case DType::int32:
      return copy_field<std::int32_t>(t.int_val(), out);
    case DType::int16:
      return copy_field<std::int16_t>(t.int_val(), out);
    case DType::int8:
      return copy_field<std::int8_t>(t.int_val(), out);
    case DType::uint8:
      return copy_field<std::uint8_t>(t.int_val(), out);
    case DType::uint16:
      return copy_field<std::uint16_t>(t.int_val(), out);
    case DType::uint32:
      return copy_field<std::uint32_t>(t.uint32_val(), out);
    case DType::int64:
      return copy_field<std::int64_t>(t.int64_val(), out);
    case DType::uint64:
      return copy_field<std::uint64_t>(t.uint64_val(), out);
    case DType::boolean:
      return copy_field<bool>(t.bool_val(), out);
    case DType::float16: {
      if (t.half_val_size() != out->num_elements()) return false;
      half_t* p = out->data<half_t>();
      for (int i = 0; i < t.half_val_size(); ++i)
        p[i].bits = static_cast<std::uint16_t>(t.half_val(i));
      return true;
    }
    case DType::complex64:
      return copy_complex<std::complex<float>>(t.scomplex_val(), out);
    case DType::complex128:
      return copy_complex<std::complex<double>>(t.dcomplex_val(), out);
    case DType::string: {
      if (t.string_val_size() != out->num_elements()) return false;
      std::string* p = out->data<std::string>();
      for (int i = 0; i < t.string_val_size(); ++i) p[i] = t.string_val(i);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

// -- TensorSliceWriter ---------------------------------------------------------------------

struct TensorSliceWriter::Meta {
  tensorflow::SavedTensorSlices sts;
  std::unordered_map<std::string, int> index;  // name -> position in sts.meta().tensor()
};

TensorSliceWriter::TensorSliceWriter(std::string filename)
    : filename_(std::move(filename)), meta_(std::make_shared<Meta>()) {
  // TF_CHECKPOINT_VERSION and TF_CHECKPOINT_VERSION_MIN_CONSUMER.
  tensorflow::VersionDef* v = meta_->sts.mutable_meta()->mutable_versions();
  v->set_producer(kTensorBundleVersion);
  v->set_min_consumer(kTensorBundleMinProducer);
}

Status TensorSliceWriter::add(std::string_view name_view, const Shape& full_shape,
                              const TensorSlice& slice, const Tensor& value) {
  if (finished_) return internal("TensorSliceWriter for " + filename_ + " is finished");
  const std::string name(name_view);
  const DType dtype = value.dtype();
  if (full_shape.rank() != slice.rank())
    return internal("Incompatible tensor shape and slice: shape = " + full_shape.to_string() +
                    ", slice = " + slice.to_string());
  auto existing = meta_->index.find(name);
  if (existing != meta_->index.end()) {
    const tensorflow::SavedSliceMeta& ssm = meta_->sts.meta().tensor(existing->second);
    Shape saved;
    decode_shape(ssm.shape(), &saved);
    if (saved != full_shape)
      return internal("Mismatching shapes: existing tensor = " + saved.to_string() +
                      ", trying to add name " + name + ", shape = " + full_shape.to_string());
    if (ssm.type() != tf_data_type(dtype))
      return internal("Mismatching types: existing type = " + tf_data_type_string(ssm.type()) +
                      ", trying to add name " + name + ", type = " + type_string(dtype));
  }
  StatusOr<Shape> slice_shape = slice.slice_shape(full_shape);
  if (!slice_shape.ok()) return slice_shape.status();
  if (dtype == DType::uint32 || dtype == DType::uint64)
    return invalid_argument("Tensor slice serialization not implemented for dtype " +
                            std::to_string(tf_data_type(dtype)));
  if (max_bytes_per_element(dtype) == 0 && dtype != DType::string)
    return unimplemented("Saving data type " + type_string(dtype) + " not yet supported");
  if (value.shape() != *slice_shape)
    return invalid_argument("Tensor " + name + " has shape " + value.shape().to_string() +
                            ", not its slice's " + slice_shape->to_string() + " (slice " +
                            slice.to_string() + " of " + full_shape.to_string() + ")");

  tensorflow::SavedTensorSlices record;
  tensorflow::SavedSlice* ss = record.mutable_data();
  ss->set_name(name);
  encode_slice(slice, ss->mutable_slice());
  std::size_t bound = ss->ByteSizeLong() + kTensorProtoHeaderBytes;
  if (dtype == DType::string) {
    for (const std::string& s : value.flat<std::string>()) bound += 10 + s.size();
  } else {
    bound += max_bytes_per_element(dtype) * static_cast<std::size_t>(value.num_elements());
  }
  if (bound > kMaxMessageBytes)
    return invalid_argument("Tensor slice is too large to serialize (conservative estimate: " +
                            std::to_string(bound) + " bytes)");
  fill_proto(value, ss->mutable_data());

  if (existing == meta_->index.end()) {
    existing = meta_->index.emplace(name, meta_->sts.meta().tensor_size()).first;
    tensorflow::SavedSliceMeta* ssm = meta_->sts.mutable_meta()->add_tensor();
    ssm->set_name(name);
    encode_shape(full_shape, ssm->mutable_shape());
    ssm->set_type(static_cast<tensorflow::DataType>(tf_data_type(dtype)));
  }
  encode_slice(slice, meta_->sts.mutable_meta()->mutable_tensor(existing->second)->add_slice());
  // A repeated slice keeps its first data, as TensorFlow's map insert does.
  data_.emplace(bundle_slice_key(name, slice), record.SerializeAsString());
  return {};
}

Status TensorSliceWriter::finish() {
  if (finished_) return internal("TensorSliceWriter for " + filename_ + " is finished");
  finished_ = true;
  const std::string temp = temporary_name(filename_);
  Status s = write_index(temp, meta_->sts.SerializeAsString(), data_);
  if (s.ok()) s = rename_file(temp, filename_);
  if (!s.ok()) std::remove(temp.c_str());
  data_.clear();
  return s;
}

// -- TensorSliceReader -----------------------------------------------------------------------

// One open file of the checkpoint: its table, searched by key.
struct TensorSliceReader::File {
  std::string name;
  std::unique_ptr<leveldb::RandomAccessFile> file;
  std::unique_ptr<leveldb::Table> table;

  // The record under `key`; false when there is none.
  StatusOr<bool> get(const std::string& key, std::string* value) const {
    leveldb::ReadOptions options;
    options.verify_checksums = true;
    options.fill_cache = false;
    std::unique_ptr<leveldb::Iterator> it(table->NewIterator(options));
    it->Seek(key);
    if (!it->Valid()) {
      if (!it->status().ok()) return from_leveldb(it->status(), name);
      return false;
    }
    if (it->key().ToString() != key) return false;
    value->assign(it->value().data(), it->value().size());
    return true;
  }
};

// What the files hold of one tensor (TensorSliceSet): its shape, dtype and slices.
struct TensorSliceReader::Stored {
  std::string name;
  int tf_dtype = 0;
  Shape shape;
  std::vector<std::pair<TensorSlice, const File*>> slices;
};

namespace {

// OpenTableTensorSliceReader: the file's table, or TensorFlow's DataLoss naming it.
Status open_table(const std::string& fname, std::unique_ptr<leveldb::RandomAccessFile>* file,
                  std::unique_ptr<leveldb::Table>* table) {
  auto unable = [&](const Status& s) {
    return data_loss("Unable to open table file " + fname + ": " + s.to_string() +
                     ": perhaps your file is in a different file format and you need to use a "
                     "different restore operator?");
  };
  struct stat st {};
  if (::stat(fname.c_str(), &st) != 0) return unable(io_error(fname, errno));
  if (st.st_size < 48) return unable(data_loss("file is too short to be an sstable"));
  leveldb::RandomAccessFile* raw_file = nullptr;
  leveldb::Status s = leveldb::Env::Default()->NewRandomAccessFile(fname, &raw_file);
  if (!s.ok()) return unable(from_leveldb(s, fname));
  file->reset(raw_file);
  leveldb::Options options;
  options.paranoid_checks = true;
  leveldb::Table* raw_table = nullptr;
  s = leveldb::Table::Open(options, file->get(), static_cast<std::uint64_t>(st.st_size),
                           &raw_table);
  if (!s.ok()) {
    std::string message = s.ToString();
    if (message.rfind("Corruption: ", 0) == 0) message.erase(0, 12);
    return unable(s.IsCorruption() ? data_loss(message) : from_leveldb(s, fname));
  }
  table->reset(raw_table);
  return {};
}

}  // namespace

TensorSliceReader::TensorSliceReader(std::string file_pattern) : pattern_(std::move(file_pattern)) {
  std::vector<std::string> names;
  detail::matching_paths(pattern_, &names);
  if (names.empty()) {
    status_ = not_found(
        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for " +
        pattern_);
    return;
  }
  for (const std::string& fname : names) {
    auto f = std::make_unique<File>();
    f->name = fname;
    status_ = open_table(fname, &f->file, &f->table);
    if (!status_.ok()) return;
    std::string value;
    StatusOr<bool> found = f->get("", &value);
    if (!found.ok()) {
      status_ = found.status();
      return;
    }
    tensorflow::SavedTensorSlices sts;
    if (!*found || !sts.ParseFromString(value)) {
      status_ = internal(
          "Failed to find the saved tensor slices at the beginning of the checkpoint file: " +
          fname);
      return;
    }
    status_ = check_versions(sts.meta().versions());
    if (!status_.ok()) return;
    const File* file = f.get();
    files_.push_back(std::move(f));
    // RegisterTensorSlice: each slice fits its tensor, agrees with the others' shape and
    // dtype, and overlaps none of them.
    for (const tensorflow::SavedSliceMeta& ssm : sts.meta().tensor()) {
      Shape shape;
      if (!decode_shape(ssm.shape(), &shape)) {
        status_ = data_loss("Tensor " + ssm.name() + " in " + fname +
                            " has an invalid shape: " + shape_debug_string(ssm.shape()));
        return;
      }
      auto& stored = tensors_[ssm.name()];
      if (!stored) {
        stored = std::make_shared<Stored>();
        stored->name = ssm.name();
        stored->tf_dtype = ssm.type();
        stored->shape = shape;
      } else if (stored->shape != shape) {
        status_ =
            internal("Incompatible tensor shapes detected for tensor " + ssm.name() +
                     ": existing = " + stored->shape.to_string() + ", new = " + shape.to_string());
        return;
      } else if (stored->tf_dtype != ssm.type()) {
        status_ = internal("Incompatible tensor types detected for tensor " + ssm.name() +
                           ": existing = " + tf_data_type_string(stored->tf_dtype) +
                           ", new = " + tf_data_type_string(ssm.type()));
        return;
      }
      for (const tensorflow::TensorSliceProto& proto : ssm.slice()) {
        TensorSlice slice = from_proto(proto);
        StatusOr<Shape> fits = slice.slice_shape(shape);
        if (!fits.ok()) {
          status_ = fits.status();
          return;
        }
        for (const auto& [other, other_file] : stored->slices)
          if (slice.intersect(other, nullptr)) {
            status_ = internal("Overlapping slices: existing slice = " + other.to_string() +
                               ", new slice = " + slice.to_string());
            return;
          }
        stored->slices.emplace_back(std::move(slice), file);
      }
    }
  }
}

TensorSliceReader::~TensorSliceReader() = default;

std::vector<std::string> TensorSliceReader::files() const {
  std::vector<std::string> out;
  for (const auto& f : files_) out.push_back(f->name);
  return out;
}

const TensorSliceReader::Stored* TensorSliceReader::find(std::string_view name) const {
  if (!status_.ok()) return nullptr;
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : it->second.get();
}

bool TensorSliceReader::contains(std::string_view name) const { return find(name) != nullptr; }

StatusOr<BundleEntryInfo> TensorSliceReader::lookup_dtype_and_shape(std::string_view name) const {
  if (!status_.ok()) return status_;
  const Stored* s = find(name);
  if (!s)
    return not_found("Tensor name \"" + std::string(name) + "\" not found in checkpoint files " +
                     pattern_);
  BundleEntryInfo info{
      s->name,
      dtype_from_tf_data_type(s->tf_dtype),
      s->tf_dtype,
      s->shape,
      s->slices.size() > 1 || (s->slices.size() == 1 && !s->slices[0].first.is_full()),
      {}};
  for (const auto& [slice, file] : s->slices) info.slices.push_back(slice);
  return info;
}

StatusOr<Tensor> TensorSliceReader::lookup(std::string_view name) const {
  const Stored* s = find(name);
  return lookup_slice(name, TensorSlice(s ? s->shape.rank() : 0));
}

StatusOr<Tensor> TensorSliceReader::lookup_slice(std::string_view name,
                                                 const TensorSlice& slice) const {
  StatusOr<BundleEntryInfo> info = lookup_dtype_and_shape(name);
  if (!info.ok()) return info.status();
  const Stored& s = *find(name);
  const DType dtype = info->dtype;
  if (dtype == DType::invalid || dtype == DType::bfloat16)
    return unimplemented("Restoring data type " + tf_data_type_string(s.tf_dtype) +
                         " not yet supported (tensor " + s.name + " in " + pattern_ + ")");
  StatusOr<Shape> target = slice.slice_shape(s.shape);
  if (!target.ok()) return target.status();
  Tensor out(dtype, *target);
  if (out.num_elements() == 0) return out;
  auto error = [&](const std::string& why) {
    return invalid_argument("Error copying slice data: " + why + " (tensor " + s.name + ", slice " +
                            slice.to_string() + ", checkpoint " + pattern_ + ")");
  };
  // QueryMeta: the stored slices overlapping the one asked for must cover it.
  std::vector<const std::pair<TensorSlice, const File*>*> needed;
  std::int64_t covered = 0;
  for (const auto& stored : s.slices) {
    TensorSlice overlap;
    if (!slice.intersect(stored.first, &overlap)) continue;
    covered += overlap.slice_shape(s.shape)->num_elements();
    needed.push_back(&stored);
  }
  if (covered != out.num_elements()) return error("the stored slices do not cover it");
  for (const auto* stored : needed) {
    const auto& [stored_slice, file] = *stored;
    std::string value;
    StatusOr<bool> found = file->get(bundle_slice_key(s.name, stored_slice), &value);
    if (!found.ok()) return found.status();
    if (!*found)
      return error("no record for stored slice " + stored_slice.to_string() + " in " + file->name);
    tensorflow::SavedTensorSlices sts;
    if (!sts.ParseFromString(value))
      return error("the record of stored slice " + stored_slice.to_string() + " in " + file->name +
                   " does not parse");
    Tensor part(dtype, stored_slice.slice_shape(s.shape).value());
    if (!values_from_proto(sts.data().data(), &part))
      return error("the record of stored slice " + stored_slice.to_string() + " in " + file->name +
                   " does not hold " + std::to_string(part.num_elements()) + " values of " +
                   std::string(dtype_name(dtype)));
    if (stored_slice == slice || (stored_slice.is_full() && slice.is_full())) return part;
    copy_slice_data(s.shape, stored_slice, part, slice, out);
  }
  return out;
}

std::vector<BundleEntryInfo> TensorSliceReader::entries() const {
  std::vector<BundleEntryInfo> out;
  if (!status_.ok()) return out;
  for (const auto& [name, stored] : tensors_) out.push_back(lookup_dtype_and_shape(name).value());
  return out;
}

bool is_v1_checkpoint(const std::string& file_pattern) {
  std::error_code ec;
  if (std::filesystem::exists(bundle_index_filename(file_pattern), ec)) return false;
  std::vector<std::string> names;
  detail::matching_paths(file_pattern, &names);
  return !names.empty();
}

}  // namespace af
