// Tensors saved in slices (partitioned variables) in a V2 checkpoint: TensorFlow's
// BundleWriter::AddSlice, BundleReader::LookupSlice and GetSliceValue
// (core/util/tensor_bundle/tensor_bundle.cc), the slice keys of
// checkpoint::EncodeTensorNameSlice (core/util/saved_tensor_slice_util.cc) and the OrderedCode
// they are written in (core/lib/strings/ordered_code.cc). The layout is in
// docs/training.md ("Checkpoints of partitioned variables").
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/tensor_bundle.hpp"
#include "tensor_bundle_format.hpp"

namespace af {

namespace bundle_format {

void encode_slice(const TensorSlice& slice, tensorflow::TensorSliceProto* out) {
  for (int d = 0; d < slice.rank(); ++d) {
    auto* extent = out->add_extent();
    if (slice.is_full_at(d)) continue;
    extent->set_start(slice.start(d));
    extent->set_length(slice.length(d));
  }
}

TensorSlice from_proto(const tensorflow::TensorSliceProto& proto) {
  std::vector<std::int64_t> starts, lengths;
  for (const auto& extent : proto.extent()) {
    const bool whole = extent.has_length_case() != tensorflow::TensorSliceProto::Extent::kLength;
    starts.push_back(whole ? 0 : extent.start());
    lengths.push_back(whole ? TensorSlice::kFullExtent : extent.length());
  }
  return TensorSlice(std::move(starts), std::move(lengths));
}

}  // namespace bundle_format

using namespace bundle_format;

// -- OrderedCode --------------------------------------------------------------------------------

namespace {

// WriteNumIncreasing: the number of significant bytes, then those bytes big-endian.
void write_num_increasing(std::string* out, std::uint64_t v) {
  unsigned char bytes[8];
  int n = 0;
  for (; v != 0; v >>= 8) bytes[7 - n++] = static_cast<unsigned char>(v & 0xff);
  out->push_back(static_cast<char>(n));
  out->append(reinterpret_cast<const char*>(bytes + 8 - n), static_cast<std::size_t>(n));
}

// WriteString: 0x00 escaped as 00 FF, 0xFF as FF 00, ended by 00 01.
void write_string(std::string* out, std::string_view s) {
  for (const char c : s) {
    if (c == '\x00') {
      out->append("\x00\xff", 2);
    } else if (c == '\xff') {
      out->append("\xff\x00", 2);
    } else {
      out->push_back(c);
    }
  }
  out->append("\x00\x01", 2);
}

// WriteSignedNumIncreasing: n bytes hold numbers in [-2^(7n-1), 2^(7n-1)); the leading bits
// give the length (kLengthToHeaderBits), the value follows big-endian, sign-extended.
void write_signed_num_increasing(std::string* out, std::int64_t value) {
  static constexpr unsigned char kHeader[11][2] = {{0, 0},    {0x80, 0},    {0xc0, 0},   {0xe0, 0},
                                                   {0xf0, 0}, {0xf8, 0},    {0xfc, 0},   {0xfe, 0},
                                                   {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  const auto bits = static_cast<std::uint64_t>(value);
  const std::uint64_t magnitude = value < 0 ? ~bits : bits;
  if (magnitude < 64) {
    out->push_back(static_cast<char>(kHeader[1][0] ^ static_cast<unsigned char>(bits & 0xff)));
    return;
  }
  const int significant = 64 - std::countl_zero(magnitude);  // Log2Floor64 + 1
  const int length = (significant + 7) / 7;                  // kBitsToLength
  unsigned char buf[10];
  buf[0] = buf[1] = value < 0 ? 0xff : 0x00;
  for (int i = 0; i < 8; ++i) buf[2 + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  unsigned char* begin = buf + sizeof buf - length;
  begin[0] ^= kHeader[length][0];
  begin[1] ^= kHeader[length][1];
  out->append(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(length));
}

}  // namespace

std::string bundle_slice_key(std::string_view name, const TensorSlice& slice) {
  std::string key;
  write_num_increasing(&key, 0);
  write_string(&key, name);
  write_num_increasing(&key, static_cast<std::uint64_t>(slice.rank()));
  for (int d = 0; d < slice.rank(); ++d) {
    write_signed_num_increasing(&key, slice.start(d));
    write_signed_num_increasing(&key, slice.length(d));
  }
  return key;
}

// -- BundleWriter -------------------------------------------------------------------------------

Status BundleWriter::add_slice(std::string_view name, const Shape& full_shape,
                               const TensorSlice& slice, const Tensor& value) {
  if (!status_.ok()) return status_;
  if (finished_) return internal("BundleWriter is closed");
  const std::string key(name);
  StatusOr<Shape> slice_shape = slice.slice_shape(full_shape);
  if (!slice_shape.ok())
    return invalid_argument("Slice " + slice.to_string() + " of tensor " + key + ": " +
                            slice_shape.status().message());
  if (*slice_shape != value.shape())
    return invalid_argument("Slice " + slice.to_string() + " of tensor " + key + " of shape " +
                            full_shape.to_string() + " has shape " + slice_shape->to_string() +
                            " but the tensor to save has shape " + value.shape().to_string());
  // A slice that is the whole tensor is a plain entry (IsFullSlice).
  if (*slice_shape == full_shape) return add(name, value);
  if (entries_.count(key)) {
    status_ = invalid_argument("Adding duplicate key: " + key);
    return status_;
  }
  auto it = sliced_.find(key);
  if (it != sliced_.end()) {
    const SlicedEntry& e = it->second;
    if (e.dtype != value.dtype())
      return invalid_argument("Slice " + slice.to_string() + " of tensor " + key + " has dtype " +
                              std::string(dtype_name(value.dtype())) +
                              " but the slices added before have " +
                              std::string(dtype_name(e.dtype)));
    if (e.shape != full_shape)
      return invalid_argument("Slice " + slice.to_string() + " of tensor " + key +
                              " names the full shape " + full_shape.to_string() +
                              " but the slices added before name " + e.shape.to_string());
    for (const TensorSlice& s : e.slices)
      if (s == slice) {
        status_ = invalid_argument("Adding duplicate slice " + slice.to_string() + " of " + key);
        return status_;
      }
  }
  ACTORFLOW_RETURN_IF_ERROR(add(bundle_slice_key(key, slice), value));
  SlicedEntry& e = sliced_[key];
  e.dtype = value.dtype();
  e.shape = full_shape;
  e.slices.push_back(slice);
  return {};
}

void BundleWriter::add_sliced_entries() {
  // The full tensor's entry: dtype, shape and slices; no shard, offset, size or crc.
  for (const auto& [name, sliced] : sliced_) {
    EntryProto entry;
    entry.set_dtype(static_cast<tensorflow::DataType>(tf_data_type(sliced.dtype)));
    encode_shape(sliced.shape, entry.mutable_shape());
    for (const TensorSlice& s : sliced.slices) encode_slice(s, entry.add_slices());
    entries_[name] = encode_entry(entry);
  }
}

// -- BundleReader -------------------------------------------------------------------------------

StatusOr<Tensor> BundleReader::lookup_slice(std::string_view name, const TensorSlice& slice) const {
  if (!status_.ok()) return status_;
  const Entry* e = find(name);
  if (!e) return not_found("Key " + std::string(name) + " not found in checkpoint");
  return read_slices(std::string(name), *e, slice);
}

StatusOr<Tensor> BundleReader::read_slices(const std::string& key, const Entry& e,
                                           const TensorSlice& slice) const {
  const Shape& full = e.shape;
  // The stored slices (a tensor saved whole is its one full slice), registered as
  // TensorSliceSet does: each fits the shape, no two overlap.
  std::vector<TensorSlice> stored;
  if (e.proto.slices_size() == 0) stored.emplace_back(full.rank());
  for (const auto& proto : e.proto.slices()) {
    TensorSlice s = from_proto(proto);
    StatusOr<Shape> fits = s.slice_shape(full);
    if (!fits.ok())
      return data_loss("Tensor " + key + " in " + bundle_index_filename(prefix_) +
                       " lists a slice that does not fit it: " + fits.status().message());
    for (const TensorSlice& other : stored)
      if (s.intersect(other, nullptr))
        return invalid_argument("Overlapping slices: existing slice = " + other.to_string() +
                                ", new slice = " + s.to_string() + " (tensor " + key + " in " +
                                bundle_index_filename(prefix_) + ")");
    stored.push_back(std::move(s));
  }
  // QueryMeta: the slices overlapping the one asked for must cover it.
  const Status insufficient =
      invalid_argument("Does not have sufficient slices for partitioned tensor " + key +
                       " to restore in slice_spec: " + slice.to_string());
  StatusOr<Shape> target = slice.slice_shape(full);
  if (!target.ok()) return insufficient;
  std::vector<const TensorSlice*> needed;
  std::int64_t covered = 0;
  for (const TensorSlice& s : stored) {
    TensorSlice overlap;
    if (!slice.intersect(s, &overlap)) continue;
    covered += overlap.slice_shape(full)->num_elements();
    needed.push_back(&s);
  }
  if (covered != target->num_elements()) return insufficient;

  const DType dtype = dtype_from_tf_data_type(e.proto.dtype());
  if (dtype == DType::invalid)
    return unimplemented("Restoring data type " + tf_data_type_string(e.proto.dtype()) +
                         " not yet supported (tensor " + key + ")");
  Tensor out(dtype, *target);
  for (const TensorSlice* s : needed) {
    const Entry* part = &e;
    std::string part_key = key;
    if (!s->is_full() && e.proto.slices_size() > 0) {
      part = find(bundle_slice_key(key, *s));
      part_key = key + " (slice " + s->to_string() + ")";
      if (!part)
        return not_found("Key " + part_key + " not found in checkpoint " + prefix_ +
                         ": the index lists the slice but not its data");
    }
    StatusOr<Tensor> value = read_value(part_key, *part);
    if (!value.ok()) return value.status();
    const Shape part_shape = s->slice_shape(full).value();
    if (value->shape() != part_shape || value->dtype() != dtype)
      return data_loss("Tensor " + part_key + " in " + bundle_index_filename(prefix_) +
                       " has shape " + value->shape().to_string() + " and dtype " +
                       std::string(dtype_name(value->dtype())) + ", not its slice's " +
                       part_shape.to_string() + " and " + std::string(dtype_name(dtype)));
    // The common case: the stored slice is the one asked for, or both are the whole tensor.
    if (*s == slice || (value->shape() == full && *target == full)) return std::move(*value);
    copy_slice_data(full, *s, *value, slice, out);
  }
  return out;
}

}  // namespace af
