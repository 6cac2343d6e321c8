// CsvDataset (TensorFlow's experimental/csv_dataset_op.cc: CSVDataset, CSVDatasetV2 and
// ExperimentalCSVDataset): the records of CSV files, one scalar per selected column. Records
// end at `\n`, `\r` or `\r\n`; a quoted field (use_quote_delim) may hold delimiters, line
// breaks and doubled quotes. An empty field or one equal to na_value takes its column's
// default, and without one fails. A bad field fails its record, which is read to its end
// first, so the next element is the next record. With `header` each file's first record is
// skipped.
#include <memory>
#include <string>
#include <vector>

#include "csv_parse.hpp"
#include "dataset_base.hpp"
#include "dataset_registration.hpp"
#include "record_io.hpp"

namespace af::data::detail {

namespace {

struct CsvOptions {
  std::vector<std::string> files;
  io::Compression compression = io::Compression::none;
  bool header = false;
  char delim = ',';
  bool use_quote = true;
  std::string na_value;
  std::vector<std::int64_t> select, exclude;
  std::vector<Tensor> defaults;  // per output: one value or none
  std::vector<DType> dtypes;
};

/// A file's characters, read a buffer at a time.
class CharStream {
 public:
  explicit CharStream(std::unique_ptr<io::InputStream> in) : in_(std::move(in)), buf_(65536) {}

  /// The next character without taking it, or -1 at the end.
  Status peek(int* c) {
    if (pos_ == end_ && !eof_) {
      std::size_t got = 0;
      ACTORFLOW_RETURN_IF_ERROR(in_->read(buf_.data(), buf_.size(), &got));
      pos_ = 0;
      end_ = got;
      eof_ = got == 0;
    }
    *c = pos_ < end_ ? static_cast<unsigned char>(buf_[pos_]) : -1;
    return {};
  }
  /// Takes the next character (-1 at the end).
  Status get(int* c) {
    ACTORFLOW_RETURN_IF_ERROR(peek(c));
    if (*c >= 0) ++pos_;
    return {};
  }

 private:
  std::unique_ptr<io::InputStream> in_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
};

void keep_first(Status& result, Status s) {
  if (result.ok() && !s.ok()) result = std::move(s);
}

class CsvDataset final : public DatasetBase {
 public:
  CsvDataset(std::string op, CsvOptions o, std::vector<PartialShape> shapes)
      : DatasetBase(std::move(op), o.dtypes, std::move(shapes)), o_(std::move(o)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    return std::make_unique<Iterator>(*this);
  }

 private:
  struct Iterator final : DatasetIterator<CsvDataset> {
    using DatasetIterator::DatasetIterator;
    std::size_t file = 0;
    std::unique_ptr<CharStream> in;

    Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
      const CsvOptions& o = ds->o_;
      const bool select_all = o.select.empty() && o.exclude.empty();
      for (;;) {
        if (in) {
          out->clear();
          Status s = read_record(out, select_all);
          if (s.ok()) {
            if (out->size() != o.dtypes.size())
              return invalid_argument("Expect " + std::to_string(o.dtypes.size()) +
                                      " fields but have " + std::to_string(out->size()) +
                                      " in record");
            *end = false;
            return {};
          }
          if (s.code() != Code::out_of_range) {
            *end = false;
            return s;
          }
          in.reset();
          ++file;
        }
        if (file == o.files.size()) {
          *end = true;
          return {};
        }
        ACTORFLOW_RETURN_IF_ERROR(open());
      }
    }

    Status open() {
      const CsvOptions& o = ds->o_;
      std::unique_ptr<io::FileInputStream> f;
      ACTORFLOW_RETURN_IF_ERROR(io::FileInputStream::open(o.files[file], &f));
      std::unique_ptr<io::InputStream> stream = std::move(f);
      if (o.compression != io::Compression::none)
        stream =
            std::make_unique<io::ZlibInputStream>(std::move(stream), o.compression, o.files[file]);
      in = std::make_unique<CharStream>(std::move(stream));
      // The header is read as a record (it may hold quoted line breaks) and dropped.
      if (o.header && !read_record(nullptr, false).ok())
        return invalid_argument("Can't read header of file");
      return {};
    }

    /// One record into `out` (null: parsed and dropped); OutOfRange at the end of the file.
    Status read_record(std::vector<Tensor>* out, bool select_all) {
      const CsvOptions& o = ds->o_;
      int c = 0;
      ACTORFLOW_RETURN_IF_ERROR(in->peek(&c));
      if (c < 0) return out_of_range("end of file");
      bool end_of_record = false;
      std::size_t parsed = 0, selected = 0, excluded = 0;
      Status result;
      while (!end_of_record) {
        const bool explicit_exclude =
            excluded < o.exclude.size() && o.exclude[excluded] == static_cast<std::int64_t>(parsed);
        const bool include =
            out != nullptr && (select_all ||
                               (selected < o.select.size() &&
                                o.select[selected] == static_cast<std::int64_t>(parsed)) ||
                               (!o.exclude.empty() && !explicit_exclude));
        keep_first(result, parse_field(out, &end_of_record, include));
        ++parsed;
        if (include) ++selected;
        if (explicit_exclude) ++excluded;
      }
      return result;
    }

    Status parse_field(std::vector<Tensor>* out, bool* end_of_record, bool include) {
      int c = 0;
      ACTORFLOW_RETURN_IF_ERROR(in->peek(&c));
      if (c < 0) {  // the record ended with a delimiter at the end of the file
        *end_of_record = true;
        return include ? to_output("", out) : Status{};
      }
      if (ds->o_.use_quote && c == '"') return quoted_field(out, end_of_record, include);
      return unquoted_field(out, end_of_record, include);
    }

    /// Takes the `\n` of a `\r\n`.
    Status skip_newline() {
      int c = 0;
      ACTORFLOW_RETURN_IF_ERROR(in->peek(&c));
      if (c == '\n') ACTORFLOW_RETURN_IF_ERROR(in->get(&c));
      return {};
    }

    Status quoted_field(std::vector<Tensor>* out, bool* end_of_record, bool include) {
      const char delim = ds->o_.delim;
      int c = 0;
      ACTORFLOW_RETURN_IF_ERROR(in->get(&c));  // the opening quote
      std::string field;
      Status result;
      for (;;) {
        ACTORFLOW_RETURN_IF_ERROR(in->get(&c));
        if (c < 0)
          return invalid_argument("Reached end of file without closing quoted field in record");
        if (c != '"') {
          field.push_back(static_cast<char>(c));
          continue;
        }
        int next = 0;
        ACTORFLOW_RETURN_IF_ERROR(in->get(&next));
        if (next < 0) {
          *end_of_record = true;
          if (include) keep_first(result, to_output(field, out));
          return result;
        }
        if (next == delim) {
          if (include) keep_first(result, to_output(field, out));
          return result;
        }
        if (next == '\n' || next == '\r') {
          *end_of_record = true;
          if (include) keep_first(result, to_output(field, out));
          if (next == '\r') ACTORFLOW_RETURN_IF_ERROR(skip_newline());
          return result;
        }
        if (next == '"') {
          field.push_back('"');
          continue;
        }
        // Noted, and the field read to its end.
        include = false;
        keep_first(result,
                   invalid_argument("Quote inside a string has to be escaped by another quote"));
      }
    }

    Status unquoted_field(std::vector<Tensor>* out, bool* end_of_record, bool include) {
      const CsvOptions& o = ds->o_;
      std::string field;
      Status result;
      for (;;) {
        int c = 0;
        ACTORFLOW_RETURN_IF_ERROR(in->get(&c));
        if (c < 0) {
          *end_of_record = true;
          if (include) keep_first(result, to_output(field, out));
          return result;
        }
        if (c == o.delim) {
          if (include) keep_first(result, to_output(field, out));
          return result;
        }
        if (c == '\n' || c == '\r') {
          if (include) keep_first(result, to_output(field, out));
          *end_of_record = true;
          if (c == '\r') ACTORFLOW_RETURN_IF_ERROR(skip_newline());
          return result;
        }
        if (o.use_quote && c == '"')
          keep_first(result, invalid_argument("Unquoted fields cannot have quotes inside"));
        field.push_back(static_cast<char>(c));
      }
    }

    /// Converts `field` for the next output (TensorFlow's FieldToOutput).
    Status to_output(const std::string& field, std::vector<Tensor>* out) {
      const CsvOptions& o = ds->o_;
      const std::size_t i = out->size();
      if (i >= o.dtypes.size())
        return invalid_argument("Expect " + std::to_string(o.dtypes.size()) +
                                " fields but have more in record");
      const DType t = o.dtypes[i];
      out->emplace_back(t, Shape{});
      Tensor& v = out->back();
      const bool missing = field.empty() || field == o.na_value;
      if (missing && o.defaults[i].num_elements() != 1)
        return invalid_argument("Field " + std::to_string(i) +
                                " is required but missing in record!");
      if (missing) {
        v = o.defaults[i];
        return {};
      }
      auto bad = [&](const char* type) {
        return invalid_argument("Field " + std::to_string(i) + " in record is not a valid " + type +
                                ": " + field);
      };
      switch (t) {
        case DType::int32:
          if (!csv::parse_int32(field, v.data<std::int32_t>())) return bad("int32");
          return {};
        case DType::int64:
          if (!csv::parse_int64(field, v.data<std::int64_t>())) return bad("int64");
          return {};
        case DType::float32:
          if (!csv::parse_float(field, v.data<float>())) return bad("float");
          return {};
        case DType::float64:
          if (!csv::parse_double(field, v.data<double>())) return bad("double");
          return {};
        case DType::string:
          v.data<std::string>()[0] = field;
          return {};
        default:
          return invalid_argument("csv: data type " + std::string(data_type_string(t)) +
                                  " not supported in field " + std::to_string(i));
      }
    }
  };

  CsvOptions o_;
};

Status int64_vector(const Tensor& t, const char* what, std::vector<std::int64_t>* out) {
  if (t.shape().rank() != 1) return invalid_argument(what);
  for (std::int64_t i = 0; i < t.num_elements(); ++i)
    out->push_back(t.dtype() == DType::int32 ? t.data<std::int32_t>()[i]
                                             : t.data<std::int64_t>()[i]);
  return {};
}

Status increasing(const std::vector<std::int64_t>& v, const std::string& name) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i - 1] >= v[i]) return invalid_argument(name + " should be strictly increasing indices");
  if (!v.empty() && v.front() < 0)
    return invalid_argument(name + " should be non-negative indices");
  return {};
}

// Inputs: filenames, compression_type, buffer_size, header, field_delim, use_quote_delim,
// na_value, select_cols, record_defaults (one per output)[, exclude_cols (V2)].
class CsvDatasetOp final : public DatasetOpKernel {
 public:
  CsvDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {}

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    CsvOptions o;
    o.dtypes = dtypes_;
    const int n = static_cast<int>(dtypes_.size());
    if (ctx.num_inputs() < 8 + n)
      return invalid_argument(op_ + " '" + ctx.node_name() + "' has " +
                              std::to_string(ctx.num_inputs()) + " inputs for " +
                              std::to_string(n) + " columns");
    const Tensor& files = ctx.input(0);
    if (files.shape().rank() > 1 || files.dtype() != DType::string)
      return invalid_argument("`filenames` must be a scalar or a vector.");
    o.files.assign(files.data<std::string>(), files.data<std::string>() + files.num_elements());
    std::string compression, delim;
    ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 1, "compression_type", &compression));
    for (int i = 0; i < n; ++i) {
      const Tensor& d = ctx.input(8 + i);
      if (d.shape().rank() > 1)
        return invalid_argument("Each record default should be at most rank 1");
      if (d.num_elements() >= 2)
        return invalid_argument("There should only be 1 default per field but field " +
                                std::to_string(i) + " has " + std::to_string(d.num_elements()));
      o.defaults.push_back(d.num_elements() == 1 ? d.reshaped(Shape{}) : d);
    }
    ACTORFLOW_RETURN_IF_ERROR(
        int64_vector(ctx.input(7), "`select_cols` must be a vector.", &o.select));
    if (op_ == "CSVDatasetV2" && ctx.num_inputs() > 8 + n)
      ACTORFLOW_RETURN_IF_ERROR(
          int64_vector(ctx.input(8 + n), "`exclude_cols` must be a vector", &o.exclude));
    std::int64_t buffer = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "buffer_size", &buffer));
    if (buffer <= 0) return invalid_argument("buffer_size should be positive");
    ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 4, "field_delim", &delim));
    if (delim.size() != 1) return invalid_argument("field_delim should be only 1 char");
    o.delim = delim[0];
    ACTORFLOW_RETURN_IF_ERROR(scalar_bool(ctx, 3, "header", &o.header));
    ACTORFLOW_RETURN_IF_ERROR(scalar_bool(ctx, 5, "use_quote_delim", &o.use_quote));
    ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 6, "na_value", &o.na_value));
    if (compression != "" && compression != "ZLIB" && compression != "GZIP")
      return invalid_argument("Unsupported compression_type: " + compression + ".");
    ACTORFLOW_RETURN_IF_ERROR(io::parse_compression(compression, &o.compression));
    if (!o.select.empty() && o.select.size() != o.dtypes.size())
      return invalid_argument("select_cols should match output size");
    ACTORFLOW_RETURN_IF_ERROR(increasing(o.select, "select_cols"));
    if (!o.select.empty() && !o.exclude.empty())
      return invalid_argument("Either select_cols or exclude_cols should be empty");
    ACTORFLOW_RETURN_IF_ERROR(increasing(o.exclude, "exclude_cols"));
    *out = std::make_shared<CsvDataset>(op_, std::move(o), shapes_);
    return {};
  }

 private:
  std::string op_;
};

}  // namespace

void register_csv_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op : {"CSVDataset", "CSVDatasetV2", "ExperimentalCSVDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<CsvDatasetOp>(op, "CPU"));
  }
}

}  // namespace af::data::detail
