// The Unicode ops: CPU kernels of UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode,
// UnicodeTranscode and UnicodeScript, on ICU as TensorFlow's (unicode_ops.cc,
// unicode_script_op.cc): an input encoding is any ICU converter name, decoding takes ICU's
// converter one code point at a time (a malformed sequence is one U+FFFD per maximal subpart,
// flagged by the converter's callback), and the output encodings (UTF-8, UTF-16-BE,
// UTF-32-BE) are written from an icu::UnicodeString as TensorFlow writes them. Messages are
// TensorFlow 2.21's. The definitions are in ops/src/defs/unicode_ops.cpp.
#include <unicode/schriter.h>
#include <unicode/uchar.h>
#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>
#include <unicode/utf16.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::StatusKernel;
using Index = std::int64_t;

enum class Encoding { utf8, utf16be, utf32be };

Status parse_encoding(const std::string& name, Encoding* out) {
  if (name == "UTF-8") {
    *out = Encoding::utf8;
  } else if (name == "UTF-16-BE") {
    *out = Encoding::utf16be;
  } else if (name == "UTF-32-BE") {
    *out = Encoding::utf32be;
  } else {
    return invalid_argument("Invalid encoding \"" + name +
                            "\": Should be one of: UTF-8, UTF-16-BE, UTF-32-BE");
  }
  return {};
}

// TensorFlow's Encode: UTF-8 by ICU (an unpaired surrogate as U+FFFD), UTF-16-BE code unit
// by code unit, UTF-32-BE code point by code point (an unpaired surrogate as itself).
std::string encode(Encoding encoding, const icu::UnicodeString& in) {
  std::string out;
  if (encoding == Encoding::utf8) {
    in.toUTF8String(out);
  } else if (encoding == Encoding::utf16be) {
    out.reserve(2 * static_cast<std::size_t>(in.length()));
    const char16_t* buf = in.getBuffer();
    for (int i = 0; i < in.length(); ++i) {
      out.push_back(static_cast<char>((buf[i] & 0xFF00) >> 8));
      out.push_back(static_cast<char>(buf[i] & 0x00FF));
    }
  } else {
    out.reserve(4 * static_cast<std::size_t>(in.countChar32()));
    icu::StringCharacterIterator it(in);
    while (it.hasNext()) {
      const auto ch = static_cast<std::uint32_t>(it.next32PostInc());
      for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(ch >> shift));
    }
  }
  return out;
}

// The attrs errors, replacement_char and replace_control_characters (GetErrorOptions).
struct ErrorOptions {
  UChar32 subst = 0xFFFD;
  bool elide = false;   // "ignore"
  bool strict = false;  // "strict"
  bool replace_control = false;
};

Status error_options(OpKernelConstruction& c, ErrorOptions* out) {
  std::string policy = "replace";
  c.get_attr("errors", &policy);
  if (policy == "ignore") {
    out->elide = true;
  } else if (policy == "strict") {
    out->strict = true;
  } else if (policy != "replace") {
    return invalid_argument("errors policy must be one of 'strict', 'replace', or 'ignore'");
  }
  std::int64_t subst = 0xFFFD;
  c.get_attr("replacement_char", &subst);
  if (subst < UCHAR_MIN_VALUE || subst > UCHAR_MAX_VALUE)
    return invalid_argument("replacement_char out of unicode codepoint range");
  out->subst = static_cast<UChar32>(subst);
  c.get_attr("replace_control_characters", &out->replace_control);
  return {};
}

bool handle_as_error(const ErrorOptions& o, UChar32 ch, bool format_error) {
  return (o.replace_control && ch <= 0x1F) || format_error;
}

// An ICU converter opened by name, closed with its owner.
struct Converter {
  explicit Converter(const std::string& name) {
    UErrorCode status = U_ZERO_ERROR;
    cnv = ucnv_open(name.c_str(), &status);
    if (U_FAILURE(status) && cnv != nullptr) {
      ucnv_close(cnv);
      cnv = nullptr;
    }
  }
  ~Converter() {
    if (cnv != nullptr) ucnv_close(cnv);
  }
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;
  UConverter* cnv = nullptr;
};

Status open_converter(const std::string& name, std::unique_ptr<Converter>* out) {
  *out = std::make_unique<Converter>(name);
  if ((*out)->cnv == nullptr)
    return invalid_argument("Could not create converter for input encoding: " + name);
  return {};
}

// ICU's to-Unicode callback: notes a malformed, irregular or unassigned sequence in the bool
// behind `context` and lets ICU substitute U+FFFD.
void flag_and_substitute(const void* context, UConverterToUnicodeArgs* args, const char* code_units,
                         int32_t length, UConverterCallbackReason reason, UErrorCode* error) {
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL || reason == UCNV_IRREGULAR)
    *const_cast<bool*>(static_cast<const bool*>(context)) = true;
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, code_units, length, reason, error);
}

// IterateUnicodeString: `visit(code_point, bytes_consumed, format_error)` for each code point
// of `str` in the converter's encoding.
void for_each_code_point(const std::string& str, UConverter* cnv,
                         const std::function<void(UChar32, int, bool)>& visit) {
  ucnv_reset(cnv);
  const char* source = str.data();
  const char* limit = str.data() + str.size();
  UErrorCode status = U_ZERO_ERROR;
  bool format_error = false;
  UConverterToUCallback old_action = nullptr;
  const void* old_context = nullptr;
  ucnv_setToUCallBack(cnv, flag_and_substitute, &format_error, &old_action, &old_context, &status);
  if (U_FAILURE(status)) return;
  while (source < limit) {
    const char* before = source;
    const UChar32 ch = ucnv_getNextUChar(cnv, &source, limit, &status);
    if (U_FAILURE(status)) source = limit;
    visit(ch, static_cast<int>(source - before), format_error);
    format_error = false;
  }
  ucnv_setToUCallBack(cnv, old_action, old_context, nullptr, nullptr, &status);
}

// UnicodeTranscode(input; input_encoding, output_encoding, errors, replacement_char,
// replace_control_characters).
class UnicodeTranscodeOp : public StatusKernel {
 public:
  UnicodeTranscodeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = init(c); }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::unique_ptr<Converter> in;
    ACTORFLOW_RETURN_IF_ERROR(open_converter(input_encoding_, &in));
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
    const std::string* src = input.data<std::string>();
    std::string* dst = out.data<std::string>();
    bool any_error = false;
    for (Index i = 0; i < input.num_elements(); ++i) {
      icu::UnicodeString text;
      for_each_code_point(src[i], in->cnv, [&](UChar32 ch, int, bool format_error) {
        if (handle_as_error(errors_, ch, format_error)) {
          any_error = true;
          if (errors_.elide) return;
          ch = errors_.subst;
        }
        text.append(ch);
      });
      dst[i] = encode(output_, text);
    }
    if (errors_.strict && any_error) return invalid_argument("Invalid formatting on input string");
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    ACTORFLOW_RETURN_IF_ERROR(error_options(c, &errors_));
    std::string output;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_encoding", &output));
    ACTORFLOW_RETURN_IF_ERROR(parse_encoding(output, &output_));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("input_encoding", &input_encoding_));
    std::unique_ptr<Converter> probe;
    return open_converter(input_encoding_, &probe);
  }

  std::string input_encoding_;
  ErrorOptions errors_;
  Encoding output_ = Encoding::utf8;
};

// UnicodeDecode and UnicodeDecodeWithOffsets (input; input_encoding, errors,
// replacement_char, replace_control_characters, Tsplits) -> row_splits, char_values[,
// char_to_byte_starts (int64)].
template <class Split>
class UnicodeDecodeOp : public StatusKernel {
 public:
  UnicodeDecodeOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c), offsets_(c.def.op == "UnicodeDecodeWithOffsets") {
    *s = init(c);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::unique_ptr<Converter> in;
    ACTORFLOW_RETURN_IF_ERROR(open_converter(input_encoding_, &in));
    const Tensor& input = ctx.input(0);
    const std::string* src = input.data<std::string>();
    const Index n = input.num_elements();
    Tensor& splits = ctx.allocate_output(0, dtype_of_v<Split>, Shape{n + 1});
    Split* split = splits.data<Split>();
    std::vector<std::int32_t> chars;
    std::vector<std::int64_t> starts;
    bool failed = false;
    Split next = 0;
    for (Index i = 0; i < n; ++i) {
      split[i] = next;
      std::int64_t offset = 0;
      for_each_code_point(src[i], in->cnv, [&](UChar32 ch, int length, bool format_error) {
        if (errors_.strict && format_error) failed = true;
        if (handle_as_error(errors_, ch, format_error)) {
          if (errors_.elide) {
            offset += length;
            return;
          }
          ch = errors_.subst;
        }
        chars.push_back(ch);
        starts.push_back(offset);
        offset += length;
        ++next;
      });
    }
    split[n] = next;
    if (failed) return invalid_argument("Invalid formatting on input string");
    const auto count = static_cast<Index>(chars.size());
    Tensor& values = ctx.allocate_output(1, DType::int32, Shape{count});
    std::copy(chars.begin(), chars.end(), values.data<std::int32_t>());
    if (offsets_) {
      Tensor& out = ctx.allocate_output(2, DType::int64, Shape{count});
      std::copy(starts.begin(), starts.end(), out.data<std::int64_t>());
    }
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    ACTORFLOW_RETURN_IF_ERROR(error_options(c, &errors_));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("input_encoding", &input_encoding_));
    std::unique_ptr<Converter> probe;
    return open_converter(input_encoding_, &probe);
  }

  const bool offsets_;
  std::string input_encoding_;
  ErrorOptions errors_;
};

// UnicodeEncode(input_values, input_splits; errors, output_encoding, replacement_char,
// Tsplits) -> output: one string per row of the ragged code points.
template <class Split>
class UnicodeEncodeOp : public StatusKernel {
 public:
  UnicodeEncodeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = init(c); }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& values = ctx.input(0);
    const Tensor& splits = ctx.input(1);
    const std::int32_t* v = values.data<std::int32_t>();
    const Split* split = splits.data<Split>();
    const Index rows = splits.num_elements();
    if (rows == 0)
      return invalid_argument("Input_splits should contain elements, but given input_values has " +
                              std::to_string(values.num_elements()) + " elements");
    if (split[0] != 0) return invalid_argument("First value in input_splits must be zero.");
    if (static_cast<Index>(split[rows - 1]) != values.num_elements())
      return invalid_argument(
          "Last value in input_splits must be equal to length of input_tensor.");
    for (Index i = 1; i < rows; ++i)
      if (split[i - 1] > split[i])
        return invalid_argument("Values in input_splits must be equal or in ascending order.");
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{rows - 1});
    std::string* dst = out.data<std::string>();
    for (Index i = 1; i < rows; ++i) {
      icu::UnicodeString text;
      for (auto k = static_cast<Index>(split[i - 1]); k < static_cast<Index>(split[i]); ++k) {
        UChar32 cp = v[k];
        if (cp < 0 || cp > UCHAR_MAX_VALUE || U_IS_SURROGATE(cp)) {
          if (errors_.strict)
            return invalid_argument("Code point is out of range for Unicode, or is a surrogate.");
          if (errors_.elide) continue;
          cp = errors_.subst;
        }
        text.append(cp);
      }
      dst[i - 1] = encode(output_, text);
    }
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    std::string output;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("output_encoding", &output));
    ACTORFLOW_RETURN_IF_ERROR(parse_encoding(output, &output_));
    return error_options(c, &errors_);
  }

  ErrorOptions errors_;
  Encoding output_ = Encoding::utf8;
};

// UnicodeScript(input: int32) -> ICU's UScriptCode of each code point, -1 for a value ICU
// refuses.
class UnicodeScriptOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::int32, input.shape());
    const std::int32_t* in = input.data<std::int32_t>();
    std::int32_t* o = out.data<std::int32_t>();
    for (Index i = 0; i < input.num_elements(); ++i) {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode code = uscript_getScript(in[i], &status);
      o[i] = U_SUCCESS(status) ? static_cast<std::int32_t>(code) : -1;
    }
    return {};
  }
};

}  // namespace

namespace detail {

/// The Unicode ops' kernels (called by register_string_kernels, string_ops.cpp).
void register_unicode_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<UnicodeTranscodeOp>("UnicodeTranscode", "CPU"));
  r.add(make_kernel_def<UnicodeScriptOp>("UnicodeScript", "CPU"));
  for (const char* op : {"UnicodeDecode", "UnicodeDecodeWithOffsets"}) {
    r.add(make_kernel_def<UnicodeDecodeOp<std::int64_t>>(op, "CPU", {{"Tsplits", {DType::int64}}}));
    r.add(make_kernel_def<UnicodeDecodeOp<std::int32_t>>(op, "CPU", {{"Tsplits", {DType::int32}}}));
  }
  r.add(make_kernel_def<UnicodeEncodeOp<std::int64_t>>("UnicodeEncode", "CPU",
                                                       {{"Tsplits", {DType::int64}}}));
  r.add(make_kernel_def<UnicodeEncodeOp<std::int32_t>>("UnicodeEncode", "CPU",
                                                       {{"Tsplits", {DType::int32}}}));
}

}  // namespace detail

}  // namespace af
