// The string ops have no gradient: TensorFlow's string_ops.py and parsing_ops.py declare them
// NotDifferentiable (their outputs are strings, bools or integers, or numbers parsed from
// strings), so a gradient walk that meets one stops there instead of failing.
#include "gradient_helpers.hpp"

namespace af::detail {

void register_string_gradients(GradientRegistry& r) {
  for (const char* type :
       {"StringSplit", "StringSplitV2", "Substr", "AsString", "StringToNumber", "StringLength",
        "StringStrip", "StringLower", "StringUpper", "RegexReplace", "StaticRegexReplace",
        "RegexFullMatch", "ReduceJoin", "StringToHashBucket", "StringToHashBucketStrong",
        "EncodeBase64", "DecodeBase64", "StringFormat"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
