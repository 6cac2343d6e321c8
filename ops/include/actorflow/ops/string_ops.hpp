#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// The string ops (TensorFlow's `tf.strings`, `tf.io.encode_base64`): hashing strings into
/// buckets (how hashed categorical features become embedding ids), splitting, substrings,
/// conversions to and from numbers, case, whitespace, regular expressions, joins and base64.
namespace af {

/// `tf.strings.to_hash_bucket_fast`: op StringToHashBucketFast (default name
/// "StringToHashBucketFast"), for each string of `input` (any shape) its FarmHash
/// `Fingerprint64` modulo `num_buckets`, as int64 of the input's shape: the same bucket as
/// TensorFlow's on every platform ("Hello" → 0xd5c87c1e326b2087, so 0 of 3). Throws
/// InvalidArgumentError "Value for attr 'num_buckets' of 0 must be at least minimum 1" for
/// fewer than one bucket, and for an input that is not a string.
Output string_to_hash_bucket_fast(const Output& input, std::int64_t num_buckets,
                                  std::string_view name = {});

}  // namespace af

// -- the string ops of input pipelines (ops/src/defs/string_ops.cpp) ------------------------

namespace af {

/// `tf.compat.v1.string_split(source, delimiter, skip_empty)`: op StringSplit (default name
/// "StringSplit", `delimiter` the string Const "<op>/delimiter") cutting each string of the
/// vector `source` at every byte that occurs in `delimiter` (a set of delimiter characters, not
/// a separator string); an empty delimiter cuts every byte apart. With `skip_empty` empty
/// tokens are dropped; an empty string gives no tokens either way. Returns the tokens as a
/// SparseTensor: indices `[n, 2]` (row, position), values `[n]`, dense shape `[rows, most
/// tokens]`. Throws InvalidArgumentError "Shape must be rank 1 but is rank 2" for a `source`
/// that is not a vector (the kernel: "input must be a vector, got shape: [1,1]"). Not
/// differentiable.
SparseTensor string_split(const Output& source, std::string_view delimiter = " ",
                          bool skip_empty = true, std::string_view name = {});

/// `tf.compat.v1.strings.split(source, sep, maxsplit)` as a SparseTensor: op StringSplitV2
/// (default name "StringSplitV2", `sep` the string Const "<op>/sep"), Python's `str.split`
/// of each string of the vector `source`: a non-empty `sep` cuts at each occurrence ("1,,2"
/// gives "1", "", "2"; "" gives one empty token); an empty `sep` splits at runs of ASCII
/// whitespace and drops them at both ends. After `maxsplit` cuts (when positive) the rest is
/// one last token (TensorFlow keeps it even when empty); 0 leaves each string whole. Same
/// outputs and errors as string_split. Not differentiable.
SparseTensor string_split_v2(const Output& source, std::string_view sep = "",
                             std::int64_t maxsplit = -1, std::string_view name = {});

/// `tf.strings.substr(input, pos, len, unit)`: op Substr (default name "Substr"), for each
/// string the `len` units from `pos` ("BYTE" or "UTF8_CHAR"; a negative `pos` counts from the
/// end; a length past the end stops there; a negative length in bytes runs to the end).
/// `pos` and `len` (int32 or int64, one dtype, one shape) are scalars, of `input`'s shape, or
/// broadcast against it up to two dimensions. Errors: InvalidArgumentError "pos 6 out of range
/// for string b'hello' at index 0" (bytes), "pos 6 out of range for string at index 0"
/// (characters), "pos and len should have the same shape, got: [2] vs. [1]", "Incompatible
/// shapes: [2] vs. [3]"; UnimplementedError "Substr broadcast not implemented for 3
/// dimensions"; "Value for attr 'unit' of \"UTF8\" is not in the list of allowed values:
/// \"BYTE\", \"UTF8_CHAR\"" when built. Not differentiable.
Output substr(const Output& input, const Output& pos, const Output& len,
              std::string_view unit = "BYTE", std::string_view name = {});
/// `substr` with `pos` and `len` int32 scalar Consts "<op>/pos" and "<op>/len".
Output substr(const Output& input, std::int64_t pos, std::int64_t len,
              std::string_view unit = "BYTE", std::string_view name = {});

/// What `as_string` formats with (TensorFlow's AsString attrs and defaults).
struct AsStringOptions {
  std::int64_t precision = -1;  ///< digits after the point (floats, strings: most bytes); -1 none
  bool scientific = false;      ///< %e for floats
  bool shortest = false;        ///< %g for floats
  std::int64_t width = -1;      ///< pad to this many bytes; -1 none
  std::string fill;             ///< "" or one of " ", "+", "-" (left-justify), "0", "#"
};

/// `tf.strings.as_string(input, ...)`: op AsString (default name "AsString"), each element
/// printed as printf's "%<fill><width>.<precision><conv>" (d for int32 and int64, u for uint8,
/// f, e with `scientific` or g with `shortest` for float, double and bfloat16), bools as
/// "true"/"false", strings padded to `width` (passed through without one). The kernel refuses,
/// when the step runs: "precision not supported for datatype int32", "scientific and shortest
/// format not supported for datatype int32", "Fill string must be one or fewer characters",
/// "Cannot select both scientific and shortest notation", "Fill argument not supported: \"x\"".
/// Not differentiable.
Output as_string(const Output& input, const AsStringOptions& options = {},
                 std::string_view name = {});

/// `tf.strings.to_number(string_tensor, out_type)`: op StringToNumber (default name
/// "StringToNumber") parsing each string whole as float32, float64, int32 or int64. Integers:
/// ASCII whitespace around an optional sign and decimal digits, overflow refused. Floats: also
/// ".5", "5.", "1e5", hex after "0x", inf, infinity and nan in any case; overflow gives an
/// infinity. Anything else fails the step with InvalidArgumentError "StringToNumberOp could not
/// correctly convert string: 1.5x". Not differentiable.
Output string_to_number(const Output& string_tensor, DType out_type = DType::float32,
                        std::string_view name = {});

/// `tf.strings.length(input, unit)`: op StringLength (default name "StringLength"), the int32
/// length of each string in "BYTE"s or "UTF8_CHAR"s (the bytes that are not UTF-8
/// continuation bytes; invalid UTF-8 is not detected). Not differentiable.
Output string_length(const Output& input, std::string_view unit = "BYTE",
                     std::string_view name = {});

/// `tf.strings.strip(input)`: op StringStrip (default name "StringStrip"), leading and
/// trailing ASCII whitespace (space, \t, \n, \v, \f, \r) removed. Not differentiable.
Output string_strip(const Output& input, std::string_view name = {});

/// `tf.strings.lower(input, encoding)`: op StringLower (default name "StringLower"), ASCII
/// letters lowered, other bytes kept; with `encoding` "utf-8", ICU's full case mapping of the
/// UTF-8 text, as TensorFlow's ("\xc3\x89COLE \xce\xa3\xce\x91\xce\xa3" to "\xc3\xa9cole
/// \xcf\x83\xce\xb1\xcf\x82", a final sigma; malformed bytes become U+FFFD). Other values fail
/// with InvalidArgumentError "only utf-8 or '' (no encoding) is supported, received latin1".
/// Not differentiable.
Output string_lower(const Output& input, std::string_view encoding = "",
                    std::string_view name = {});
/// `tf.strings.upper(input, encoding)`: op StringUpper (default name "StringUpper"), as
/// `string_lower` with letters raised ("stra\xc3\x9fe" to "STRASSE" with "utf-8").
Output string_upper(const Output& input, std::string_view encoding = "",
                    std::string_view name = {});

/// `tf.strings.regex_replace(input, pattern, rewrite, replace_global)` with a fixed pattern:
/// op StaticRegexReplace (default name "StaticRegexReplace"), the first or (with
/// `replace_global`) every non-overlapping match of the RE2 `pattern` replaced by `rewrite`,
/// in which \1..\9 name groups, \0 the match and \\ a backslash (a rewrite naming a group the
/// pattern lacks leaves the string unchanged, as RE2::Replace). An invalid pattern fails the
/// step with InvalidArgumentError "Invalid pattern: (, error: missing ): (". Not
/// differentiable.
Output regex_replace(const Output& input, std::string_view pattern, std::string_view rewrite,
                     bool replace_global = true, std::string_view name = {});
/// `regex_replace` with `pattern` and `rewrite` string scalars computed in the graph: op
/// RegexReplace (default name "RegexReplace"); "Pattern must be scalar, but received [2]",
/// "Rewrite must be scalar, but received [2]" when they are not scalars.
Output regex_replace(const Output& input, const Output& pattern, const Output& rewrite,
                     bool replace_global = true, std::string_view name = {});

/// `tf.strings.regex_full_match(input, pattern)` with a fixed pattern: op StaticRegexFullMatch
/// (default name "StaticRegexFullMatch"), whether each string matches `pattern` whole, as bool
/// of `input`'s shape. Not differentiable.
Output regex_full_match(const Output& input, std::string_view pattern, std::string_view name = {});
/// `regex_full_match` with `pattern` a string scalar computed in the graph: op RegexFullMatch
/// (default name "RegexFullMatch") on RE2; "Invalid pattern: ..." and "Pattern must be
/// scalar, but received [2]" fail the step.
Output regex_full_match(const Output& input, const Output& pattern, std::string_view name = {});

/// `tf.compat.v1.reduce_join(inputs, axis, keep_dims, separator)`: op ReduceJoin (default name
/// "ReduceJoin", `axis` the int32 Const "<op>/reduction_indices"), the strings along `axis`
/// joined with `separator`, those axes dropped (kept as 1 with `keep_dims`). The axis listed
/// first varies fastest in each join; without `axis` all axes reduce in order (the Const is
/// rank-1 down to 0, as TensorFlow's), which needs a known rank (InvalidArgumentError
/// otherwise). Errors: "Invalid reduction dimension 2 for input with 2 dimensions." when
/// built; the kernel's OutOfRangeError "... for input with 2 dimension(s)" and
/// InvalidArgumentError "Duplicate reduction dimension -2" (the repeated value as given). Not
/// differentiable.
Output reduce_join(const Output& inputs, std::optional<std::vector<std::int64_t>> axis = {},
                   bool keep_dims = false, std::string_view separator = "",
                   std::string_view name = {});

/// `tf.strings.to_hash_bucket(string_tensor, num_buckets)`: op StringToHashBucket (default name
/// "StringToHashBucket"), TensorFlow's legacy Hash64 (MurmurHash64A, seed 0xDECAFCAFFE) of
/// each string modulo `num_buckets`, as int64: TensorFlow's buckets on every platform. Throws
/// InvalidArgumentError "Value for attr 'num_buckets' of 0 must be at least minimum 1".
Output string_to_hash_bucket(const Output& string_tensor, std::int64_t num_buckets,
                             std::string_view name = {});

/// `tf.strings.to_hash_bucket_strong(input, num_buckets, key)`: op StringToHashBucketStrong
/// (default name "StringToHashBucketStrong"), SipHash-2-4 of each string under the 128-bit
/// `key` (two int64s, as TensorFlow's) modulo `num_buckets`. A key of another length fails the
/// step with InvalidArgumentError "Key must have 2 elements"; fewer than one bucket throws.
Output string_to_hash_bucket_strong(const Output& input, std::int64_t num_buckets,
                                    const std::vector<std::int64_t>& key,
                                    std::string_view name = {});

/// `tf.io.encode_base64(input, pad)`: op EncodeBase64 (default name "EncodeBase64"), web-safe
/// base64 ('-' and '_' for '+' and '/'), '=' padding only with `pad`. Not differentiable.
Output encode_base64(const Output& input, bool pad = false, std::string_view name = {});

/// `tf.io.decode_base64(input)`: op DecodeBase64 (default name "DecodeBase64"), web-safe base64
/// with or without padding back to bytes. Errors fail the step: InvalidArgumentError "Invalid
/// character found in base64.", "Base64 string length cannot be 1 modulo 4.". Not
/// differentiable.
Output decode_base64(const Output& input, std::string_view name = {});

/// `tf.strings.format(template, inputs, placeholder, summarize)`: op StringFormat (default
/// name "StringFormat"), a string scalar: `format` with each occurrence of `placeholder`
/// (left to right, not overlapping) replaced by the next input summarized as TensorFlow's
/// Tensor::SummarizeValue(summarize, print_v2) prints it: "[1 2 3]", nested "[[1 2]\n [3 4]]",
/// the first and last `summarize` entries of each dimension with "..." between when there
/// are more than 2 * summarize (all of them for a negative `summarize`), strings quoted and
/// C-escaped ("\"a\\n\""), floats as "%.6g" ("%.9g" when that does not read back; doubles
/// 15 and 17 digits), bools as 1 and 0. `inputs` may hold tensors of any dtype, and may be
/// empty (the graph is `g`). Throws InvalidArgumentError "The template expects 1 tensors, but
/// the inputs only has 2. Please ensure the number of placeholders in template matches inputs
/// length." (Python's ValueError, with Python's str.count: an empty placeholder counts
/// len(format) + 1) before making a node. Not differentiable.
Output string_format(Graph& g, std::string_view format, const std::vector<Output>& inputs,
                     std::string_view placeholder = "{}", std::int64_t summarize = 3,
                     std::string_view name = {});

/// string_format of the one tensor `input` (tf.strings.format's single-tensor form).
Output string_format(std::string_view format, const Output& input,
                     std::string_view placeholder = "{}", std::int64_t summarize = 3,
                     std::string_view name = {});

/// The settings of `string_ngrams` (op StringNGrams's attrs).
struct StringNGramsOptions {
  /// The n-gram lengths, each positive.
  std::vector<std::int64_t> ngram_widths;
  /// What joins the tokens (and pads) of an n-gram.
  std::string separator = " ";
  /// The tokens put before a sequence's start ...
  std::string left_pad;
  /// ... and after its end.
  std::string right_pad;
  /// How many pads at each end (never more than width - 1); -1: width - 1 for each width.
  std::int64_t pad_width = 0;
  /// A non-empty sequence too short for every width gives one n-gram of all its tokens
  /// (with pad_width pads each side).
  bool preserve_short_sequences = false;
};

/// What `string_ngrams` returns: a ragged tensor of n-grams.
struct StringNGramsOutputs {
  Output ngrams;         ///< string [total]: every sequence's n-grams, by width, in order
  Output ngrams_splits;  ///< the splits (of data_splits' dtype): sequence i's n-grams
};

/// `tf.raw_ops.StringNGrams(data, data_splits, ...)` (op StringNGrams, default name
/// "StringNGrams"), what `tf.strings.ngrams` runs on a ragged tensor: the n-grams of each
/// sequence `data[data_splits[i]:data_splits[i+1]]` of the string vector `data`, for each
/// width in turn, padded as `options` say. `data_splits` is an int32 or int64 vector starting
/// at 0, not decreasing, ending at data's length. Running fails with TensorFlow's messages:
/// "ngram_widths must contain positive values", "First split value must be 0, got 1",
/// "Invalid split value 5, must be in [2, 4]", "Last split value must be data size. Expected
/// 4, got 3", and "Pad width should be >= 0 when preserve_short_sequences is True and
/// ngram_widths are not provided, got -1". Not differentiable.
StringNGramsOutputs string_ngrams(const Output& data, const Output& data_splits,
                                  const StringNGramsOptions& options, std::string_view name = {});

/// `tf.strings.unsorted_segment_join(inputs, segment_ids, num_segments, separator)`: op
/// UnsortedSegmentJoin (default name "UnsortedSegmentJoin"): output[s, ...] joins, in input
/// order and with `separator`, the strings inputs[i, ...] whose segment_ids[i] is s (ids of
/// rank k cover inputs' first k dimensions); shape [num_segments] + inputs.shape[k:], empty
/// segments "". As TensorFlow's kernel, the separator follows only a non-empty join ("", "y",
/// "" give "y-"). `segment_ids` and `num_segments` are int32 or int64. Running fails with
/// "segment_ids are not allowed to exceed num_segments or to have negative values." and
/// "Segment dimension is 3 while input dimension is 2 in rank 0". Not differentiable.
Output unsorted_segment_join(const Output& inputs, const Output& segment_ids,
                             const Output& num_segments, const std::string& separator = {},
                             std::string_view name = {});
/// As above with the count as the int32 Const "<op>/num_segments".
Output unsorted_segment_join(const Output& inputs, const Output& segment_ids,
                             std::int32_t num_segments, const std::string& separator = {},
                             std::string_view name = {});

/// The error handling of the Unicode ops (their attrs `errors`, `replacement_char`,
/// `replace_control_characters`) and the splits' dtype of `unicode_decode`.
struct UnicodeOptions {
  /// "replace" (a malformed sequence, or a code point out of range, becomes
  /// `replacement_char`), "ignore" (it is dropped) or "strict" (the op fails with "Invalid
  /// formatting on input string", or in `unicode_encode` "Code point is out of range for
  /// Unicode, or is a surrogate.").
  std::string errors = "replace";
  /// The code point that replaces what is malformed (0 to 0x10FFFF).
  std::int64_t replacement_char = 0xFFFD;
  /// Whether C0 control characters (U+0000 to U+001F) are treated as errors too (not
  /// `unicode_encode`).
  bool replace_control_characters = false;
  /// `unicode_decode`'s row_splits dtype (int64, or int32).
  DType splits_type = DType::int64;
};

/// What `unicode_decode` returns: a ragged tensor of code points, row `i` (input element `i`,
/// flattened in row-major order) being `char_values[row_splits[i]:row_splits[i + 1]]`, and for
/// `unicode_decode_with_offsets` each code point's byte offset in its string.
struct UnicodeDecoded {
  Output row_splits;           ///< `[input.size + 1]`, UnicodeOptions::splits_type
  Output char_values;          ///< int32 code points
  Output char_to_byte_starts;  ///< int64 (invalid for `unicode_decode`)
};

/// `tf.strings.unicode_decode`'s op: UnicodeDecode (default name "UnicodeDecode"), the code
/// points of each string of `input` (any shape) in `input_encoding`, any name ICU's
/// converters know ("UTF-8", "UTF-16-BE", "UTF-32-BE", "ISO-8859-1", "Shift_JIS", ...); a
/// malformed sequence is one error per maximal subpart, as ICU reads it. Running fails with
/// "Could not create converter for input encoding: X" for a name ICU does not know.
UnicodeDecoded unicode_decode(const Output& input, std::string_view input_encoding,
                              const UnicodeOptions& options = {}, std::string_view name = {});
/// `tf.strings.unicode_decode_with_offsets`'s op: UnicodeDecodeWithOffsets (default name
/// "UnicodeDecodeWithOffsets"), as `unicode_decode` with each code point's starting byte
/// (int64; TensorFlow's kernel aborts its process for int32 splits, actorflow's runs).
UnicodeDecoded unicode_decode_with_offsets(const Output& input, std::string_view input_encoding,
                                           const UnicodeOptions& options = {},
                                           std::string_view name = {});
/// `tf.strings.unicode_encode`'s op: UnicodeEncode (default name "UnicodeEncode"), one string
/// in `output_encoding` ("UTF-8", "UTF-16-BE" or "UTF-32-BE") per row of the ragged int32
/// code points `values` split by `splits` (int32 or int64). Fails with TensorFlow's messages
/// for splits that are empty, do not start at 0, do not end at `values`' length or go down.
Output unicode_encode(const Output& values, const Output& splits, std::string_view output_encoding,
                      const UnicodeOptions& options = {}, std::string_view name = {});
/// `tf.strings.unicode_transcode`: op UnicodeTranscode (default name "UnicodeTranscode"),
/// each string of `input` decoded from `input_encoding` (as `unicode_decode`) and written in
/// `output_encoding` ("UTF-8", "UTF-16-BE" or "UTF-32-BE").
Output unicode_transcode(const Output& input, std::string_view input_encoding,
                         std::string_view output_encoding, const UnicodeOptions& options = {},
                         std::string_view name = {});
/// `tf.strings.unicode_script`: op UnicodeScript (default name "UnicodeScript"), ICU's
/// UScriptCode of each int32 code point (25 Latin, 17 Han, 0 Common, 103 Unknown, ...), -1
/// for a value that is no code point.
Output unicode_script(const Output& input, std::string_view name = {});

}  // namespace af
