// DecodeCSV: CPU kernel, and CsvDecoder / CsvBatch (csv_decoder.hpp), which the kernel and
// the reader actors use. The splitting and number parsing live in csv_parse.cpp; the op's
// definition (shape function, builder decode_csv) is in ops/src/defs/parsing_ops.cpp.
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "actorflow/kernels/csv_decoder.hpp"
#include "actorflow/ops/detail/parsing_attrs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/tf/example.pb.h"
#include "csv_parse.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;

// Batches of more records than this are worth a pool thread.
constexpr Index kExpensiveRecords = 256;

using detail::attr_or;
using detail::node_suffix;

// -- DecodeCSV ----------------------------------------------------------------------------

// One output column while a batch is parsed: where values go and what replaces a missing
// field (null when the field is required).
struct Column {
  DType type = DType::invalid;
  void* out = nullptr;
  const void* fallback = nullptr;
};

Status not_valid(std::size_t f, Index r, const char* type, std::string_view field) {
  return invalid_argument("Field " + std::to_string(f) + " in record " + std::to_string(r) +
                          " is not a valid " + type + ": " + std::string(field));
}

Status unsupported(DType t, std::size_t f) {
  return invalid_argument("csv: data type " + std::string(data_type_string(t)) +
                          " not supported in field " + std::to_string(f));
}

template <class T>
void store(const Column& col, Index r, T value) {
  static_cast<T*>(col.out)[r] = value;
}

class DecodeCSVOp : public OpKernel {
 public:
  DecodeCSVOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = CsvDecoder::create(c.def, &decoder_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > kExpensiveRecords;
  }

  void compute(OpKernelContext& ctx) override {
    const int columns = static_cast<int>(decoder_->out_types().size());
    const bool has_keys = decoder_->has_keys();
    if (ctx.num_inputs() != 1 + columns + (has_keys ? 1 : 0))
      return ctx.fail(invalid_argument("DecodeCSV expects " + std::to_string(1 + columns) +
                                       (has_keys ? " inputs and keys" : " inputs") + ", got " +
                                       std::to_string(ctx.num_inputs()) + decoder_->node_suffix()));
    const Tensor& records = ctx.input(0);
    std::vector<Tensor> defaults;
    defaults.reserve(static_cast<std::size_t>(columns));
    for (int i = 0; i < columns; ++i) defaults.push_back(ctx.input(1 + i));
    // Per-thread batch: compute is synchronous and does not reenter, and the split
    // buffers stay warm across records and steps.
    thread_local CsvBatch batch;
    Status started = batch.start(*decoder_, defaults, records.shape());
    if (!started.ok()) return ctx.fail(started.with_context(decoder_->node_suffix()));
    const std::string* keys = nullptr;
    if (has_keys) {
      const Tensor& key_tensor = ctx.input(1 + columns);
      if (key_tensor.num_elements() != records.num_elements())
        return ctx.fail(
            invalid_argument("keys must have one element per record, but records has shape " +
                             records.shape().to_string() + " and keys " +
                             key_tensor.shape().to_string() + decoder_->node_suffix()));
      keys = key_tensor.data<std::string>();
    }
    const std::string* input = records.data<std::string>();
    const Index n = records.num_elements();
    for (Index r = 0; r < n; ++r) {
      Status s = batch.decode(input[r], r);
      if (!s.ok()) {
        std::string message = s.message();
        if (keys != nullptr) message += " (" + keys[r] + ")";
        return ctx.fail(invalid_argument(message + decoder_->node_suffix()));
      }
    }
    auto& out = batch.columns();
    for (int i = 0; i < columns; ++i)
      ctx.set_output(i, std::move(out[static_cast<std::size_t>(i)]));
  }

 private:
  std::shared_ptr<const CsvDecoder> decoder_;
};

}  // namespace

// -- CsvDecoder / CsvBatch ----------------------------------------------------------------

struct CsvDecoder::Impl {
  csv::RecordSplitter splitter{csv::SplitOptions{}};
  std::string na_value;
  /// All columns numeric, every column selected, no na_value: records of plain numbers can
  /// be parsed in one pass (CsvBatch::Impl::decode_plain).
  bool plain_numbers = false;
  char delim = ',';
};

CsvDecoder::CsvDecoder() : impl_(std::make_unique<Impl>()) {}
CsvDecoder::~CsvDecoder() = default;

std::string CsvDecoder::node_suffix() const { return af::node_suffix(node_name_); }

Status CsvDecoder::create(const NodeDef& def, std::shared_ptr<const CsvDecoder>* out) {
  std::shared_ptr<CsvDecoder> d(new CsvDecoder());
  const auto* types = def.attr<std::vector<DType>>("OUT_TYPE");
  if (types == nullptr)
    return invalid_argument("DecodeCSV " + def.name + ": missing attr 'OUT_TYPE'");
  d->out_types_ = *types;
  d->node_name_ = def.name;
  const auto delim = attr_or<std::string>(def, "field_delim", ",");
  csv::SplitOptions options;
  options.use_quote_delim = attr_or(def, "use_quote_delim", true);
  options.select_cols = attr_or<std::vector<std::int64_t>>(def, "select_cols", {});
  d->impl_->na_value = attr_or<std::string>(def, "na_value", "");
  d->has_keys_ = attr_or(def, "has_keys", false);
  const auto& select = options.select_cols;
  if (!select.empty() && select.size() != d->out_types_.size())
    return invalid_argument("select_cols should match output size");
  for (std::size_t i = 1; i < select.size(); ++i)
    if (select[i - 1] >= select[i])
      return invalid_argument("select_cols should be strictly increasing indices");
  if (!select.empty() && select.front() < 0)
    return invalid_argument("select_cols should be non-negative indices");
  if (delim.size() != 1) return invalid_argument("field_delim should be only 1 char");
  options.delim = delim[0];
  d->impl_->delim = delim[0];
  d->impl_->plain_numbers =
      select.empty() && d->impl_->na_value.empty() &&
      std::all_of(d->out_types_.begin(), d->out_types_.end(), [](DType t) {
        return t == DType::float32 || t == DType::float64 || t == DType::int32 || t == DType::int64;
      });
  d->impl_->splitter = csv::RecordSplitter(std::move(options));
  *out = std::move(d);
  return {};
}

struct CsvBatch::Impl {
  const CsvDecoder* decoder = nullptr;
  std::vector<Column> cols;
  csv::SplitBuffers buffers;

  // One pass over a record of plain decimal numbers ("-12.5,3,0.25"): each field parsed
  // where it starts, its end found by the parse. True when every field was such a number
  // and the record had exactly one per column; false leaves the record to the splitter and
  // the TensorFlow parsers, which give the same values for such fields (from_chars rounds
  // correctly, as they do) and handle everything else: spaces, signs, hex, inf/nan, quotes,
  // empty fields, overflow, errors.
  template <class T>
  static bool parse_plain(const char*& p, const char* end, const Column& col, Index r) {
    T v;
    const char* ptr = p;
    if (!csv::parse_plain_number(ptr, end, &v)) return false;
    // safe_strtof/d refuse texts of 32 bytes or more.
    if constexpr (std::is_floating_point_v<T>)
      if (ptr - p >= 32) return false;
    store<T>(col, r, v);
    p = ptr;
    return true;
  }

  bool decode_plain(std::string_view record, Index r) const {
    const char* p = record.data();
    const char* const end = p + record.size();
    const char delim = decoder->impl_->delim;
    for (std::size_t f = 0; f < cols.size(); ++f) {
      if (p == end) return false;
      const char c0 = *p;
      if (!((c0 >= '0' && c0 <= '9') || (c0 == '-' && end - p > 1 && p[1] >= '0' && p[1] <= '9')))
        return false;
      const Column& col = cols[f];
      bool ok = false;
      switch (col.type) {
        case DType::float32:
          ok = parse_plain<float>(p, end, col, r);
          break;
        case DType::float64:
          ok = parse_plain<double>(p, end, col, r);
          break;
        case DType::int32:
          ok = parse_plain<std::int32_t>(p, end, col, r);
          break;
        case DType::int64:
          ok = parse_plain<std::int64_t>(p, end, col, r);
          break;
        default:
          return false;
      }
      if (!ok) return false;
      if (f + 1 < cols.size()) {
        if (p == end || *p != delim) return false;
        ++p;
      } else if (p != end) {
        return false;
      }
    }
    return true;
  }

  // Stores field `f` of record `r` into its column, or the column's default when the field
  // is empty or `na_value`. Errors are TensorFlow's messages, without context.
  Status convert(const Column& col, std::string_view field, std::size_t f, Index r) const {
    if (field.empty() || field == decoder->impl_->na_value) {
      if (col.fallback == nullptr)
        return invalid_argument("Field " + std::to_string(f) +
                                " is required but missing in record " + std::to_string(r) + "!");
      switch (col.type) {
        case DType::float32:
          store<float>(col, r, *static_cast<const float*>(col.fallback));
          break;
        case DType::float64:
          store<double>(col, r, *static_cast<const double*>(col.fallback));
          break;
        case DType::int32:
          store<std::int32_t>(col, r, *static_cast<const std::int32_t*>(col.fallback));
          break;
        case DType::int64:
          store<std::int64_t>(col, r, *static_cast<const std::int64_t*>(col.fallback));
          break;
        case DType::string:
          static_cast<std::string*>(col.out)[r] = *static_cast<const std::string*>(col.fallback);
          break;
        default:
          return unsupported(col.type, f);
      }
      return {};
    }
    switch (col.type) {
      case DType::float32: {
        float v;
        if (!csv::parse_float(field, &v)) return not_valid(f, r, "float", field);
        store<float>(col, r, v);
        break;
      }
      case DType::float64: {
        double v;
        if (!csv::parse_double(field, &v)) return not_valid(f, r, "double", field);
        store<double>(col, r, v);
        break;
      }
      case DType::int32: {
        std::int32_t v;
        if (!csv::parse_int32(field, &v)) return not_valid(f, r, "int32", field);
        store<std::int32_t>(col, r, v);
        break;
      }
      case DType::int64: {
        std::int64_t v;
        if (!csv::parse_int64(field, &v)) return not_valid(f, r, "int64", field);
        store<std::int64_t>(col, r, v);
        break;
      }
      case DType::string:
        static_cast<std::string*>(col.out)[r].assign(field);
        break;
      default:
        return unsupported(col.type, f);
    }
    return {};
  }
};

CsvBatch::CsvBatch() : impl_(std::make_unique<Impl>()) {}
CsvBatch::~CsvBatch() = default;

Status CsvBatch::start(const CsvDecoder& decoder, std::span<const Tensor> defaults,
                       const Shape& records) {
  const auto& types = decoder.out_types();
  const std::size_t columns = types.size();
  if (defaults.size() != columns)
    return invalid_argument("DecodeCSV expects " + std::to_string(columns) +
                            " record defaults, got " + std::to_string(defaults.size()));
  for (std::size_t i = 0; i < columns; ++i) {
    const Tensor& fallback = defaults[i];
    if (fallback.rank() > 1)
      return invalid_argument("Each record default should be at most rank 1");
    if (fallback.num_elements() >= 2)
      return invalid_argument("There should only be 1 default per field but field " +
                              std::to_string(i) + " has " +
                              std::to_string(fallback.num_elements()));
  }
  impl_->decoder = &decoder;
  impl_->cols.assign(columns, Column{});
  columns_.clear();
  columns_.reserve(columns);
  for (std::size_t i = 0; i < columns; ++i) {
    Column& col = impl_->cols[i];
    col.type = types[i];
    columns_.emplace_back(col.type, records);
    Tensor& out = columns_.back();
    col.out =
        col.type == DType::string ? static_cast<void*>(out.data<std::string>()) : out.raw_data();
    const Tensor& fallback = defaults[i];
    if (fallback.num_elements() == 1)
      col.fallback = col.type == DType::string
                         ? static_cast<const void*>(fallback.data<std::string>())
                         : fallback.raw_data();
  }
  return {};
}

void CsvBatch::grow(std::int64_t rows) {
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    Tensor& old = columns_[i];
    Column& col = impl_->cols[i];
    Tensor bigger(col.type, Shape{rows});
    const auto kept = static_cast<std::size_t>(old.num_elements());
    if (col.type == DType::string) {
      std::move(old.data<std::string>(), old.data<std::string>() + kept,
                bigger.data<std::string>());
      col.out = bigger.data<std::string>();
    } else {
      std::memcpy(bigger.raw_data(), old.raw_data(), kept * dtype_size(col.type));
      col.out = bigger.raw_data();
    }
    old = std::move(bigger);
  }
}

Status CsvBatch::decode(std::string_view record, std::int64_t r) {
  const auto& decoder = *impl_->decoder;
  if (decoder.impl_->plain_numbers && impl_->decode_plain(record, r)) return {};
  const csv::SplitError error = decoder.impl_->splitter.split(record, impl_->buffers);
  if (error != csv::SplitError::none)
    return invalid_argument(std::string(csv::split_error_message(error)));
  const auto& fields = impl_->buffers.fields;
  const auto& cols = impl_->cols;
  if (fields.size() != cols.size())
    return invalid_argument("Expect " + std::to_string(cols.size()) + " fields but have " +
                            std::to_string(fields.size()) + " in record " + std::to_string(r));
  for (std::size_t f = 0; f < cols.size(); ++f)
    ACTORFLOW_RETURN_IF_ERROR(impl_->convert(cols[f], fields[f], f, r));
  return {};
}

namespace {

// DecodeJSONExample(json_examples): each string, an Example in protobuf's JSON mapping, as
// the binary Example, by protobuf's JsonToBinaryStream over the generated tensorflow.Example
// (TensorFlow's decode_json_example_op.cc).
class DecodeJSONExampleOp : public detail::StatusKernel {
 public:
  explicit DecodeJSONExampleOp(OpKernelConstruction& c)
      : StatusKernel(c),
        resolver_(google::protobuf::util::NewTypeResolverForDescriptorPool(
            "type.googleapis.com", tensorflow::Example::descriptor()->file()->pool())) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& json = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::string, json.shape());
    const std::string* in = json.data<std::string>();
    std::string* binary = out.data<std::string>();
    for (std::int64_t i = 0; i < json.num_elements(); ++i) {
      google::protobuf::io::ArrayInputStream stream(in[i].data(), static_cast<int>(in[i].size()));
      google::protobuf::io::StringOutputStream sink(&binary[i]);
      const auto s = google::protobuf::util::JsonToBinaryStream(
          resolver_.get(), "type.googleapis.com/tensorflow.Example", &stream, &sink);
      if (!s.ok()) return invalid_argument("Error while parsing JSON: " + std::string(s.message()));
    }
    return {};
  }

 private:
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver_;
};

}  // namespace

namespace detail {

void register_parsing_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<DecodeCSVOp>("DecodeCSV", "CPU"));
  r.add(make_kernel_def<DecodeJSONExampleOp>("DecodeJSONExample", "CPU"));
}

}  // namespace detail

}  // namespace af
