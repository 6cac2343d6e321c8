// Fingerprint, DecodePaddedRaw, DecodeCompressed, SerializeTensor and ParseTensor: CPU
// kernels with TensorFlow's checks and messages (fingerprint_op.cc, decode_padded_raw_op.cc,
// decode_compressed_op.cc, parse_tensor_op.cc), and TensorFlow's TensorProto encodings
// (serialize_io_proto.hpp) that they and the SparseTensor serializers share. ReadFile,
// WriteFile and MatchingFiles are in serialize_io_file_ops.cpp, the SparseTensor ops in
// sparse_serialize_ops.cpp; the definitions in ops/src/defs/serialize_io_ops.cpp.
#include <dlfcn.h>
#include <farmhash.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "actorflow/ops/detail/tf_datatype.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "serialize_io_proto.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace detail {
// serialize_io_file_ops.cpp
void register_serialize_io_file_kernels(KernelRegistry& r);
}  // namespace detail

namespace {

using detail::Index;
using detail::StatusKernel;

// -- TensorProto encodings -------------------------------------------------------------------

// TensorFlow's DataType enum: value, DataTypeString and element size (0: not fixed).
struct TfType {
  int value;
  const char* name;
  std::size_t size;
};

constexpr TfType kTfTypes[] = {{1, "float", 4},
                               {2, "double", 8},
                               {3, "int32", 4},
                               {4, "uint8", 1},
                               {5, "int16", 2},
                               {6, "int8", 1},
                               {7, "string", 0},
                               {8, "complex64", 8},
                               {9, "int64", 8},
                               {10, "bool", 1},
                               {11, "qint8", 1},
                               {12, "quint8", 1},
                               {13, "qint32", 4},
                               {14, "bfloat16", 2},
                               {15, "qint16", 2},
                               {16, "quint16", 2},
                               {17, "uint16", 2},
                               {18, "complex128", 16},
                               {19, "half", 2},
                               {20, "resource", 0},
                               {21, "variant", 0},
                               {22, "uint32", 4},
                               {23, "uint64", 8},
                               {24, "float8_e5m2", 1},
                               {25, "float8_e4m3fn", 1},
                               {26, "float8_e4m3fnuz", 1},
                               {27, "float8_e4m3b11fnuz", 1},
                               {28, "float8_e5m2fnuz", 1},
                               {29, "int4", 1},
                               {30, "uint4", 1}};

const TfType* tf_type(int value) {
  for (const TfType& t : kTfTypes)
    if (t.value == value) return &t;
  return nullptr;
}

using detail::tf_enum;

// actorflow's value type of a DataType enum value; invalid for the others.
DType af_type(int value) {
  switch (value) {
    case 1:
      return DType::float32;
    case 2:
      return DType::float64;
    case 3:
      return DType::int32;
    case 4:
      return DType::uint8;
    case 7:
      return DType::string;
    case 9:
      return DType::int64;
    case 10:
      return DType::boolean;
    case 14:
      return DType::bfloat16;
    default:
      return DType::invalid;
  }
}

// A TensorProto of `t`'s dtype and shape, nothing else.
tensorflow::TensorProto proto_header(const Tensor& t) {
  tensorflow::TensorProto p;
  p.set_dtype(static_cast<tensorflow::DataType>(tf_enum(t.dtype())));
  auto* shape = p.mutable_tensor_shape();  // present even for a scalar, as TensorFlow writes
  for (std::int64_t d : t.shape().dims()) shape->add_dim()->set_size(d);
  return p;
}

// core::PutVarint32.
void put_varint32(std::string* out, std::uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// core::GetVarint32: false when `in` ends inside the varint or it is longer than 5 bytes.
bool get_varint32(std::string_view* in, std::uint32_t* v) {
  std::uint32_t result = 0;
  for (int shift = 0; shift <= 28 && !in->empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    result |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

// port::DecodeStringList: `n` varint32 sizes, then exactly that many bytes.
bool decode_string_list(std::string_view in, std::string* out, Index n) {
  std::vector<std::uint32_t> sizes(static_cast<std::size_t>(n));
  std::uint64_t total = 0;
  for (auto& size : sizes) {
    if (!get_varint32(&in, &size)) return false;
    total += size;
  }
  if (total != in.size()) return false;
  for (Index i = 0; i < n; ++i) {
    const std::uint32_t size = sizes[static_cast<std::size_t>(i)];
    out[i].assign(in.data(), size);
    in.remove_prefix(size);
  }
  return true;
}

// FromProtoField: `count` typed values into the `n` elements of `out`, the last repeating,
// none meaning zeros, extra ones ignored.
template <class E, class Get>
void fill_from_field(E* out, Index n, Index count, Get get) {
  for (Index i = 0; i < n; ++i) out[i] = count == 0 ? E{} : get(std::min(i, count - 1));
}

// The standard alphabet, padded (absl::Base64Escape).
std::string base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8 |
                            static_cast<unsigned char>(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kAlphabet[(v >> k) & 63];
  }
  if (i < in.size()) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << 16;
    if (i + 1 < in.size())
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

namespace detail {

std::string tensor_content_bytes(const Tensor& t) {
  tensorflow::TensorProto p = proto_header(t);
  const Index n = t.num_elements();
  if (n > 0) {
    if (t.dtype() == DType::string) {
      std::string content;
      const std::string* s = t.data<std::string>();
      for (Index i = 0; i < n; ++i) put_varint32(&content, static_cast<std::uint32_t>(s[i].size()));
      for (Index i = 0; i < n; ++i) content += s[i];
      p.set_tensor_content(std::move(content));
    } else if (t.dtype() == DType::boolean) {
      std::string content(static_cast<std::size_t>(n), '\0');
      for (Index i = 0; i < n; ++i)
        content[static_cast<std::size_t>(i)] = t.data<bool>()[i] ? 1 : 0;
      p.set_tensor_content(std::move(content));
    } else {
      p.set_tensor_content(std::string(static_cast<const char*>(t.raw_data()), t.total_bytes()));
    }
  }
  return p.SerializeAsString();
}

std::string string_field_bytes(const Tensor& t) {
  tensorflow::TensorProto p = proto_header(t);
  for (const std::string& s : t.flat<std::string>()) p.add_string_val(s);
  return p.SerializeAsString();
}

std::string tf_data_type_string(int dtype) {
  if (const TfType* t = tf_type(dtype)) return t->name;
  return "unknown dtype " + std::to_string(dtype);
}

FromProto tensor_from_proto(const tensorflow::TensorProto& proto, Tensor* out,
                            std::string* tf_dtype) {
  // TensorShape::IsValid: at most 254 dimensions, none negative, no overflow.
  const auto& shape = proto.tensor_shape();
  if (shape.dim_size() > 254) return FromProto::invalid;
  std::vector<std::int64_t> dims;
  Index n = 1;
  for (const auto& d : shape.dim()) {
    if (d.size() < 0) return FromProto::invalid;
    if (d.size() != 0 && n > std::numeric_limits<Index>::max() / d.size())
      return FromProto::invalid;
    n *= d.size();
    dims.push_back(d.size());
  }
  const int value = static_cast<int>(proto.dtype());
  const std::string& content = proto.tensor_content();
  const DType dtype = af_type(value);
  if (dtype == DType::invalid) {
    // DT_INVALID and reference types fail; TensorFlow's other types parse there.
    const TfType* t = value == 0 ? nullptr : tf_type(value);
    if (t == nullptr) return FromProto::invalid;
    if (n > 0 && !content.empty() && t->size > 0 &&
        content.size() != t->size * static_cast<std::size_t>(n))
      return FromProto::invalid;
    *tf_dtype = t->name;
    return FromProto::unsupported;
  }
  Tensor result(dtype, Shape(dims));
  if (n > 0 && !content.empty()) {
    if (dtype == DType::string) {
      if (!decode_string_list(content, result.data<std::string>(), n)) return FromProto::invalid;
    } else {
      if (content.size() != result.total_bytes()) return FromProto::invalid;
      if (dtype == DType::boolean) {
        // The bytes become bools; any non-zero byte reads as true.
        for (Index i = 0; i < n; ++i)
          result.data<bool>()[i] = content[static_cast<std::size_t>(i)] != 0;
      } else {
        std::memcpy(result.raw_data(), content.data(), content.size());
      }
    }
  } else if (n > 0) {
    switch (dtype) {
      case DType::float32:
        fill_from_field(result.data<float>(), n, proto.float_val_size(),
                        [&](Index i) { return proto.float_val(static_cast<int>(i)); });
        break;
      case DType::float64:
        fill_from_field(result.data<double>(), n, proto.double_val_size(),
                        [&](Index i) { return proto.double_val(static_cast<int>(i)); });
        break;
      case DType::int32:
        fill_from_field(result.data<std::int32_t>(), n, proto.int_val_size(),
                        [&](Index i) { return proto.int_val(static_cast<int>(i)); });
        break;
      case DType::uint8:
        fill_from_field(result.data<std::uint8_t>(), n, proto.int_val_size(), [&](Index i) {
          return static_cast<std::uint8_t>(proto.int_val(static_cast<int>(i)));
        });
        break;
      case DType::int64:
        fill_from_field(result.data<std::int64_t>(), n, proto.int64_val_size(), [&](Index i) {
          return static_cast<std::int64_t>(proto.int64_val(static_cast<int>(i)));
        });
        break;
      case DType::boolean:
        fill_from_field(result.data<bool>(), n, proto.bool_val_size(),
                        [&](Index i) { return proto.bool_val(static_cast<int>(i)); });
        break;
      case DType::bfloat16:
        fill_from_field(result.data<bfloat16_t>(), n, proto.half_val_size(), [&](Index i) {
          bfloat16_t b;
          b.bits = static_cast<std::uint16_t>(proto.half_val(static_cast<int>(i)));
          return b;
        });
        break;
      case DType::string:
        fill_from_field(result.data<std::string>(), n, proto.string_val_size(),
                        [&](Index i) { return proto.string_val(static_cast<int>(i)); });
        break;
      default:
        return FromProto::invalid;
    }
  }
  *out = std::move(result);
  return FromProto::ok;
}

}  // namespace detail

namespace {

using detail::FromProto;

// -- Fingerprint -----------------------------------------------------------------------------

constexpr Index kFingerprintSize = 8;

// FarmHash's Fingerprint64 (TensorFlow's Fingerprint64) of `size` bytes, written to `out`
// little-endian.
void fingerprint_into(const char* data, std::size_t size, std::uint8_t* out) {
  std::uint64_t v = util::Fingerprint64(data, size);
  for (Index k = 0; k < kFingerprintSize; ++k, v >>= 8)
    out[k] = static_cast<std::uint8_t>(v & 0xff);
}

// Fingerprint(data, method): a uint8 [batch, 8] holding the farmhash64 fingerprint of each
// row's bytes (little-endian); a string row of several elements is fingerprinted through the
// fingerprints of its strings.
class FingerprintOp : public StatusKernel {
 public:
  FingerprintOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    DType t = DType::invalid;
    *s = c.get_attr("T", &t);
    if (s->ok() && (t == DType::variant || t == DType::resource))
      *s = invalid_argument("Data type not supported: " + std::string(data_type_string(t)));
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > 64 * 1024;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& method = ctx.input(1);
    if (method.rank() != 0)
      return invalid_argument("`method` should be a scalar string: " + method.shape().to_string());
    // For now, farmhash64 is the only function supported.
    const std::string& name = method.data<std::string>()[0];
    if (name != "farmhash64") return invalid_argument("Unsupported fingerprint method: " + name);
    const Tensor& input = ctx.input(0);
    if (input.rank() < 1)
      return invalid_argument("`data` should have at least one dimension: " +
                              input.shape().to_string());
    const Index dim0 = input.shape().dim(0);
    const Index dim1 = dim0 == 0 ? 0 : input.num_elements() / dim0;
    Tensor& output = ctx.allocate_output(0, DType::uint8, Shape{dim0, kFingerprintSize});
    std::uint8_t* out = output.data<std::uint8_t>();
    if (input.dtype() == DType::string) {
      const std::string* s = input.data<std::string>();
      if (dim1 == 1) {
        for (Index i = 0; i < dim0; ++i) fingerprint_into(s[i].data(), s[i].size(), out + i * 8);
        return {};
      }
      // Several strings a row: the fingerprint of the row's string fingerprints. (TensorFlow
      // leaves the output unset for rows of none; here it is the fingerprint of no bytes.)
      std::vector<std::uint8_t> prints(static_cast<std::size_t>(input.num_elements() * 8));
      for (Index i = 0; i < input.num_elements(); ++i)
        fingerprint_into(s[i].data(), s[i].size(), prints.data() + i * 8);
      for (Index i = 0; i < dim0; ++i)
        fingerprint_into(reinterpret_cast<const char*>(prints.data()) + i * dim1 * 8,
                         static_cast<std::size_t>(dim1 * 8), out + i * 8);
      return {};
    }
    const auto row_bytes = static_cast<std::size_t>(dim1) * dtype_size(input.dtype());
    std::vector<char> bools;
    const char* bytes = static_cast<const char*>(input.raw_data());
    if (input.dtype() == DType::boolean) {  // bools as TensorFlow holds them: one byte, 0 or 1
      bools.resize(static_cast<std::size_t>(input.num_elements()));
      for (Index i = 0; i < input.num_elements(); ++i)
        bools[static_cast<std::size_t>(i)] = input.data<bool>()[i] ? 1 : 0;
      bytes = bools.data();
    }
    for (Index i = 0; i < dim0; ++i)
      fingerprint_into(bytes + static_cast<std::size_t>(i) * row_bytes, row_bytes, out + i * 8);
    return {};
  }
};

// -- DecodePaddedRaw -------------------------------------------------------------------------

// DecodePaddedRaw(input_bytes, fixed_length): each string's first fixed_length bytes as
// fixed_length / sizeof(T) elements (zeros past a shorter string), output input.shape + [width].
class DecodePaddedRawOp : public StatusKernel {
 public:
  DecodePaddedRawOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("out_type", &out_type_);
    bool little_endian = true;
    if (s->ok()) *s = c.get_attr("little_endian", &little_endian);
    swap_bytes_ = (std::endian::native == std::endian::little) != little_endian;
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > 4096;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& length = ctx.input(1);
    if (length.rank() != 0)
      return invalid_argument("k must be scalar, got shape " + length.shape().to_string());
    const std::int32_t fixed_length = length.data<std::int32_t>()[0];
    const std::size_t size = dtype_size(out_type_);
    // TensorFlow takes the remainder of the length converted to size_t: -4 passes for int32.
    if (static_cast<std::size_t>(static_cast<std::int64_t>(fixed_length)) % size != 0)
      return invalid_argument("fixed_length (" + std::to_string(fixed_length) +
                              ") must be a multiple of the size of out_type (" +
                              std::to_string(size) + ")");
    if (fixed_length <= 0)
      return invalid_argument("fixed_length (" + std::to_string(fixed_length) +
                              ") must be greater than zero.");
    const auto width = static_cast<Index>(static_cast<std::size_t>(fixed_length) / size);
    std::vector<std::int64_t> dims(input.shape().dims().begin(), input.shape().dims().end());
    dims.push_back(width);
    Tensor& output = ctx.allocate_output(0, out_type_, Shape(dims));
    const Index n = input.num_elements();
    const std::string* in = input.data<std::string>();
    char* out = static_cast<char*>(output.raw_data());
    for (Index i = 0; i < n; ++i) {
      char* row = out + i * fixed_length;
      const std::size_t take = std::min(in[i].size(), static_cast<std::size_t>(fixed_length));
      std::memcpy(row, in[i].data(), take);
      if (swap_bytes_ && size > 1)
        for (Index k = 0; k < width; ++k) std::reverse(row + k * size, row + (k + 1) * size);
    }
    return {};
  }

 private:
  DType out_type_ = DType::invalid;
  bool swap_bytes_ = false;
};

// -- DecodeCompressed ------------------------------------------------------------------------

constexpr char kSupportedCompressions[] =
    "Only ZLIB, ZSTD, GZIP or NONE are supported compressions";

// ZlibInputStream::ReadNBytes(INT_MAX) over one string: inflate until no more output comes
// (truncated input gives what it holds), gzip members read back to back, a zlib stream's
// trailing bytes ignored. Errors: DataLoss "inflate() failed with error -3: incorrect header
// check".
Status inflate_all(const std::string& input, bool gzip, std::string* output) {
  constexpr std::size_t kChunk = 256 << 10;
  z_stream stream{};
  if (inflateInit2(&stream, gzip ? MAX_WBITS + 16 : MAX_WBITS) != Z_OK)
    return internal("inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  std::vector<char> buffer(kChunk);
  output->clear();
  Status status;
  for (;;) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(kChunk);
    const int error = inflate(&stream, Z_NO_FLUSH);
    if (error != Z_OK && error != Z_STREAM_END && error != Z_BUF_ERROR) {
      std::string message = "inflate() failed with error " + std::to_string(error);
      if (stream.msg != nullptr) message += std::string(": ") + stream.msg;
      status = data_loss(std::move(message));
      break;
    }
    if (error == Z_STREAM_END && gzip) inflateReset(&stream);  // concatenated gzip members
    const std::size_t produced = kChunk - stream.avail_out;
    if (produced == 0) break;  // TensorFlow reads on and meets the end of the input
    output->append(buffer.data(), produced);
  }
  inflateEnd(&stream);
  return status;
}

// libzstd, opened on first use (TensorFlow links it; actorflow needs it only here).
struct Zstd {
  unsigned long long (*frame_content_size)(const void*, std::size_t) = nullptr;
  std::size_t (*decompress)(void*, std::size_t, const void*, std::size_t) = nullptr;
  unsigned (*is_error)(std::size_t) = nullptr;
  const char* (*error_name)(std::size_t) = nullptr;

  // The library's functions, or null when it cannot be opened.
  static const Zstd* get() {
    static const Zstd* zstd = []() -> const Zstd* {
      void* lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
      if (lib == nullptr) return nullptr;
      static Zstd z;
      z.frame_content_size =
          reinterpret_cast<decltype(z.frame_content_size)>(dlsym(lib, "ZSTD_getFrameContentSize"));
      z.decompress = reinterpret_cast<decltype(z.decompress)>(dlsym(lib, "ZSTD_decompress"));
      z.is_error = reinterpret_cast<decltype(z.is_error)>(dlsym(lib, "ZSTD_isError"));
      z.error_name = reinterpret_cast<decltype(z.error_name)>(dlsym(lib, "ZSTD_getErrorName"));
      if (!z.frame_content_size || !z.decompress || !z.is_error || !z.error_name) return nullptr;
      return &z;
    }();
    return zstd;
  }
};

Status zstd_decompress(const std::string& input, std::string* output) {
  const Zstd* zstd = Zstd::get();
  if (zstd == nullptr)
    return unimplemented("ZSTD decompression needs libzstd.so.1, which could not be opened");
  constexpr unsigned long long kUnknown = 0ULL - 1, kError = 0ULL - 2;
  const unsigned long long size = zstd->frame_content_size(input.data(), input.size());
  if (size == kUnknown || size == kError)
    return invalid_argument("Failed to determine decompressed size");
  try {
    output->resize(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when decompressing " + std::to_string(size) + " bytes");
  }
  const std::size_t actual =
      zstd->decompress(output->data(), output->size(), input.data(), input.size());
  if (zstd->is_error(actual))
    return invalid_argument(std::string("Failed to decompress zstd input: ") +
                            zstd->error_name(actual));
  output->resize(actual);
  return {};
}

// DecodeCompressed(bytes; compression_type): each string decompressed, "" copying it.
class DecodeCompressedOp : public StatusKernel {
 public:
  DecodeCompressedOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("compression_type", &type_);
    if (s->ok() && !(type_.empty() || type_ == "ZLIB" || type_ == "GZIP" || type_ == "ZSTD"))
      *s = invalid_argument(kSupportedCompressions);
  }

  bool is_expensive(const OpKernelContext&) const override { return !type_.empty(); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& bytes = ctx.input(0);
    Tensor& output = ctx.allocate_output(0, DType::string, bytes.shape());
    const std::string* in = bytes.data<std::string>();
    std::string* out = output.data<std::string>();
    for (Index i = 0; i < bytes.num_elements(); ++i) {
      if (type_.empty())
        out[i] = in[i];
      else if (type_ == "ZSTD")
        ACTORFLOW_RETURN_IF_ERROR(zstd_decompress(in[i], &out[i]));
      else
        ACTORFLOW_RETURN_IF_ERROR(inflate_all(in[i], type_ == "GZIP", &out[i]));
    }
    return {};
  }

 private:
  std::string type_;
};

// -- SerializeTensor, ParseTensor ------------------------------------------------------------

// SerializeTensor(tensor): a scalar string, the tensor's TensorProto (strings in string_val,
// the rest in tensor_content).
class SerializeTensorOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    Tensor out(t.dtype() == DType::string ? detail::string_field_bytes(t)
                                          : detail::tensor_content_bytes(t));
    ctx.set_output(0, std::move(out));
    return {};
  }
};

// ParseTensor(serialized; out_type): the tensor a scalar TensorProto holds.
class ParseTensorOp : public StatusKernel {
 public:
  ParseTensorOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("out_type", &out_type_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    if (serialized.rank() != 0)
      return invalid_argument("Expected `serialized` to be a scalar, got shape: " +
                              serialized.shape().to_string());
    const std::string& bytes = serialized.data<std::string>()[0];
    tensorflow::TensorProto proto;
    if (!proto.ParseFromString(bytes))
      return invalid_argument("Could not parse `serialized` as TensorProto, base64: " +
                              base64(bytes));
    Tensor output;
    std::string tf_dtype;
    switch (detail::tensor_from_proto(proto, &output, &tf_dtype)) {
      case FromProto::invalid:
        return invalid_argument("Cannot parse tensor from proto: " + proto.DebugString());
      case FromProto::unsupported:
        return invalid_argument("Type mismatch between parsed tensor (" + tf_dtype +
                                ") and dtype (" + std::string(data_type_string(out_type_)) + ")");
      case FromProto::ok:
        break;
    }
    if (output.dtype() != out_type_)
      return invalid_argument("Type mismatch between parsed tensor (" +
                              std::string(data_type_string(output.dtype())) + ") and dtype (" +
                              std::string(data_type_string(out_type_)) + ")");
    ctx.set_output(0, std::move(output));
    return {};
  }

 private:
  DType out_type_ = DType::invalid;
};

// DecodePaddedRaw's out_type, as far as actorflow has the types.
// DecodePaddedRaw's out_type: TensorFlow's CPU kernels' (its OpDef also allows half).
const std::vector<DType> kPaddedRawTypes = {DType::float32, DType::float64, DType::int32,
                                            DType::uint16,  DType::uint8,   DType::int16,
                                            DType::int8,    DType::int64,   DType::bfloat16};

}  // namespace

namespace detail {

void register_serialize_io_kernels(KernelRegistry& r) {
  std::vector<DType> fingerprint_types = kValueTypes;
  fingerprint_types.push_back(DType::variant);  // refused with TensorFlow's message
  r.add(make_kernel_def<FingerprintOp>("Fingerprint", "CPU", {{"T", fingerprint_types}}));
  r.add(make_kernel_def<DecodePaddedRawOp>("DecodePaddedRaw", "CPU",
                                           {{"out_type", kPaddedRawTypes}}));
  r.add(make_kernel_def<DecodeCompressedOp>("DecodeCompressed", "CPU"));
  r.add(make_kernel_def<SerializeTensorOp>("SerializeTensor", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<ParseTensorOp>("ParseTensor", "CPU", {{"out_type", kValueTypes}}));
  register_serialize_io_file_kernels(r);
}

}  // namespace detail

}  // namespace af
