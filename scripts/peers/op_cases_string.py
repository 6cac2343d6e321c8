"""Fixture cases of the string family for make_op_fixtures.py: StringSplit, StringSplitV2,
Substr, AsString, StringToNumber, StringLength, StringStrip, StringLower, StringUpper,
RegexReplace, StaticRegexReplace, RegexFullMatch, ReduceJoin, StringToHashBucket,
StringToHashBucketStrong, EncodeBase64 and DecodeBase64, on ASCII and UTF-8 strings, empty
strings and empty tensors, with their attrs' edge values. None is differentiable; every case
compares exactly. Outputs stay valid UTF-8 (the fixture encoder decodes strings as UTF-8), so
byte-wise cuts of multi-byte characters are left to the C++ tests."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops

WORDS = [b"pigs on the wing", b"", b"  lead and trail  ", "h\u00e9llo w\u00f6rld".encode(),
         b"a,,b;c", "\u65e5\u672c\u8a9e".encode()]
UNICODE = ["h\u00e9llo".encode(), "\u65e5\u672c\u8a9e\u6587".encode(), b"", b"abc",
           "na\u00efve caf\u00e9".encode()]


def _split(op, **attrs):
    def fn(x, d):
        out = getattr(R, op)(input=x, **{("sep" if op == "StringSplitV2" else "delimiter"): d},
                             **attrs)
        return [out.indices, out.values, out.shape]
    return fn


def build_string(b):
    s, f32, f64, i32, i64, bf16, u8, bl = (tf.string, tf.float32, tf.float64, tf.int32, tf.int64,
                                           tf.bfloat16, tf.uint8, tf.bool)

    # -- StringSplit: delimiter characters, skip_empty, empty strings and vectors ------------
    b.case("StringSplit", _split("StringSplit"), [(WORDS, s), (b" ", s)], exact=True, grad=False)
    b.case("StringSplit_chars", _split("StringSplit"), [(WORDS, s), (b" ,;", s)], exact=True,
           grad=False)
    b.case("StringSplit_keep_empty", _split("StringSplit", skip_empty=False),
           [(WORDS, s), (b" ,;", s)], exact=True, grad=False)
    b.case("StringSplit_bytes", _split("StringSplit"), [([b"abc", b"", b"a b"], s), (b"", s)],
           exact=True, grad=False)
    b.case("StringSplit_empty_vector", _split("StringSplit"),
           [(np.array([], dtype=object), s), (b",", s)], exact=True, grad=False)
    b.case("StringSplit_all_empty", _split("StringSplit", skip_empty=False),
           [([b"", b""], s), (b",", s)], exact=True, grad=False)

    # -- StringSplitV2: Python's str.split, maxsplit -------------------------------------
    lines = [b"1<>2<>3", b"<><>4<>5<><>6<>", b"", b"no separator"]
    spaced = [b"pigs on the wing", b"  4  5    6  ", b"", b"   ", b"a   ", "h\u00e9 \u00e9h".encode()]
    b.case("StringSplitV2_sep", _split("StringSplitV2"), [(lines, s), (b"<>", s)], exact=True,
           grad=False)
    b.case("StringSplitV2_whitespace", _split("StringSplitV2"), [(spaced, s), (b"", s)],
           exact=True, grad=False)
    b.case("StringSplitV2_maxsplit", _split("StringSplitV2", maxsplit=1), [(lines, s), (b"<>", s)],
           exact=True, grad=False)
    b.case("StringSplitV2_whitespace_maxsplit", _split("StringSplitV2", maxsplit=1),
           [(spaced, s), (b"", s)], exact=True, grad=False)
    b.case("StringSplitV2_maxsplit_zero", _split("StringSplitV2", maxsplit=0),
           [(lines, s), (b"<>", s)], exact=True, grad=False)
    b.case("StringSplitV2_empty_vector", _split("StringSplitV2"),
           [(np.array([], dtype=object), s), (b",", s)], exact=True, grad=False)

    # -- Substr: bytes and UTF-8 characters, negative pos and len, broadcasting ------------
    ascii_words = [b"hello", b"world", b"", b"tensorflow"]
    b.case("Substr_scalar", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [(ascii_words[:2] + ascii_words[3:], s), (1, i32), (3, i32)], exact=True, grad=False)
    b.case("Substr_past_end", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [(ascii_words, s), (0, i64), (100, i64)], exact=True, grad=False)
    b.case("Substr_negative_pos", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [([b"hello", b"world!"], s), (-3, i32), (2, i32)], exact=True, grad=False)
    b.case("Substr_negative_len", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [([b"hello", b"world!"], s), (1, i32), (-1, i32)], exact=True, grad=False)
    b.case("Substr_at_end", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [([b"hello", b"hi"], s), ([5, 2], i32), ([1, 1], i32)], exact=True, grad=False)
    b.case("Substr_utf8", lambda x, p, n: R.Substr(input=x, pos=p, len=n, unit="UTF8_CHAR"),
           [(UNICODE, s), (0, i32), (2, i32)], exact=True, grad=False)
    b.case("Substr_utf8_negative",
           lambda x, p, n: R.Substr(input=x, pos=p, len=n, unit="UTF8_CHAR"),
           [(UNICODE[:2], s), (-3, i64), (2, i64)], exact=True, grad=False)
    b.case("Substr_utf8_negative_len",
           lambda x, p, n: R.Substr(input=x, pos=p, len=n, unit="UTF8_CHAR"),
           [(UNICODE[:2] + UNICODE[3:], s), (1, i32), (-1, i32)], exact=True, grad=False)
    b.case("Substr_utf8_bytes_on_boundaries", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [(["h\u00e9llo".encode(), "\u65e5\u672c".encode()], s), ([1, 3], i32), ([3, 3], i32)],
           exact=True, grad=False)
    grid = [[b"ten", b"sor"], [b"flow", b"ops"]]
    b.case("Substr_elementwise", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [(grid, s), ([[0, 1], [2, -2]], i32), ([[2, 1], [5, 2]], i32)], exact=True,
           grad=False)
    b.case("Substr_broadcast_1d", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [([b"tensorflow"], s), ([0, 3, -4], i64), ([3, 4, 4], i64)], exact=True, grad=False)
    b.case("Substr_broadcast_2d", lambda x, p, n: R.Substr(input=x, pos=p, len=n),
           [(grid, s), ([1, 0], i32), ([2, 3], i32)], exact=True, grad=False)
    b.case("Substr_broadcast_2d_column",
           lambda x, p, n: R.Substr(input=x, pos=p, len=n, unit="UTF8_CHAR"),
           [(["h\u00e9llo".encode(), b"abc"], s), ([[0], [1]], i32), ([[2], [1]], i32)],
           exact=True, grad=False)

    # -- AsString: formats of every dtype ------------------------------------------------
    floats = [1.5, -0.25, 1e10, 3.14159265, 0.0, -0.0, float("nan"), float("inf"),
              float("-inf"), 1e-7]
    b.case("AsString_float", lambda x: R.AsString(input=x), [(floats, f32)], exact=True,
           grad=False)
    b.case("AsString_double_precision", lambda x: R.AsString(input=x, precision=3),
           [(floats, f64)], exact=True, grad=False)
    b.case("AsString_scientific", lambda x: R.AsString(input=x, scientific=True, precision=2),
           [(floats, f32)], exact=True, grad=False)
    b.case("AsString_shortest", lambda x: R.AsString(input=x, shortest=True), [(floats, f64)],
           exact=True, grad=False)
    b.case("AsString_width_zero_fill",
           lambda x: R.AsString(input=x, width=10, fill="0", precision=2), [(floats, f32)],
           exact=True, grad=False)
    b.case("AsString_hash_fill", lambda x: R.AsString(input=x, width=6, fill="#", precision=0),
           [([3.0, -2.0, 10.5], f32)], exact=True, grad=False)
    b.case("AsString_bfloat16", lambda x: R.AsString(input=x), [([1.5, -3.0, 0.1], bf16)],
           exact=True, grad=False)
    ints = [0, 7, -42, 2147483647, -2147483648]
    b.case("AsString_int32", lambda x: R.AsString(input=x), [(ints, i32)], exact=True,
           grad=False)
    b.case("AsString_int32_left", lambda x: R.AsString(input=x, width=5, fill="-"),
           [(ints[:3], i32)], exact=True, grad=False)
    b.case("AsString_int32_space", lambda x: R.AsString(input=x, width=4, fill=" "),
           [(ints[:3], i32)], exact=True, grad=False)
    b.case("AsString_int64_plus", lambda x: R.AsString(input=x, width=8, fill="+"),
           [([-9223372036854775808, 0, 42, 9223372036854775807], i64)], exact=True, grad=False)
    b.case("AsString_uint8", lambda x: R.AsString(input=x, width=5), [([0, 7, 255], u8)],
           exact=True, grad=False)
    b.case("AsString_bool", lambda x: R.AsString(input=x, width=8), [([True, False], bl)],
           exact=True, grad=False)
    b.case("AsString_string_passthrough", lambda x: R.AsString(input=x), [(UNICODE, s)],
           exact=True, grad=False)
    b.case("AsString_string_width", lambda x: R.AsString(input=x, width=6, precision=3),
           [([b"ab", b"abcdef", b""], s)], exact=True, grad=False)
    b.case("AsString_string_left", lambda x: R.AsString(input=x, width=6, fill="-"),
           [([b"ab", b"abcdefgh", b""], s)], exact=True, grad=False)
    b.case("AsString_empty", lambda x: R.AsString(input=x), [(np.zeros((0, 3)), f32)],
           exact=True, grad=False)

    # -- StringToNumber: what parses -----------------------------------------------------
    float_strings = [b"1.5", b" -2.25 ", b"+3", b".5", b"5.", b"1e5", b"1E-3", b"inf",
                     b"-Infinity", b"NaN", b"0x10", b"0x1.8p1", b"3.4e39", b"1e-50", b"\t7\n",
                     b"007", b"123456789012345678901234567890123"]
    b.case("StringToNumber_float", lambda x: R.StringToNumber(string_tensor=x),
           [(float_strings, s)], exact=True, grad=False)
    b.case("StringToNumber_double",
           lambda x: R.StringToNumber(string_tensor=x, out_type=tf.float64),
           [(float_strings, s)], exact=True, grad=False)
    int_strings = [b"12", b" 12 ", b"+12", b"-12", b"2147483647", b"-2147483648", b"012",
                   b"\v5\f", b"-0"]
    b.case("StringToNumber_int32", lambda x: R.StringToNumber(string_tensor=x, out_type=i32),
           [(int_strings, s)], exact=True, grad=False)
    b.case("StringToNumber_int64", lambda x: R.StringToNumber(string_tensor=x, out_type=i64),
           [(int_strings + [b"9223372036854775807", b"-9223372036854775808"], s)], exact=True,
           grad=False)
    b.case("StringToNumber_2d", lambda x: R.StringToNumber(string_tensor=x, out_type=i32),
           [([[b"1", b"2"], [b"3", b"4"]], s)], exact=True, grad=False)

    # -- StringLength, StringStrip, StringLower, StringUpper ------------------------------
    b.case("StringLength", lambda x: R.StringLength(input=x), [(UNICODE, s)], exact=True,
           grad=False)
    b.case("StringLength_utf8", lambda x: R.StringLength(input=x, unit="UTF8_CHAR"),
           [([UNICODE[:2], UNICODE[2:4]], s)], exact=True, grad=False)
    b.case("StringStrip", lambda x: R.StringStrip(input=x),
           [([b" hello ", b"", b"world ", b" \t \r \n ", b"\vin\fner \x0b"], s)], exact=True,
           grad=False)
    mixed = [b"Hello World", "\u00c9COLE caf\u00e9".encode(), b"", b"123 ABC xyz!"]
    b.case("StringLower", lambda x: R.StringLower(input=x), [(mixed, s)], exact=True, grad=False)
    b.case("StringUpper", lambda x: R.StringUpper(input=x), [(mixed, s)], exact=True, grad=False)

    # -- regular expressions (RE2) -------------------------------------------------------
    b.case("RegexReplace", lambda x, p, r: tf.strings.regex_replace(x, p, r),
           [(WORDS, s), (b"[aeiou]", s), (b"*", s)], exact=True, grad=False)
    b.case("RegexReplace_first", lambda x, p, r: tf.strings.regex_replace(x, p, r, False),
           [(WORDS, s), (b"[aeiou]", s), (b"<\\0>", s)], exact=True, grad=False)
    b.case("RegexReplace_groups", lambda x, p, r: tf.strings.regex_replace(x, p, r),
           [([b"john smith", b"jane doe", b"solo"], s), (b"(\\w+) (\\w+)", s), (b"\\2, \\1", s)],
           exact=True, grad=False)
    b.case("RegexReplace_empty_matches", lambda x, p, r: tf.strings.regex_replace(x, p, r),
           [([b"abc", b""], s), (b"x*", s), (b"-", s)], exact=True, grad=False)
    b.case("RegexReplace_unicode_dot", lambda x, p, r: tf.strings.regex_replace(x, p, r),
           [(UNICODE, s), (b".", s), (b"<\\0>", s)], exact=True, grad=False)
    b.case("RegexReplace_missing_group", lambda x, p, r: tf.strings.regex_replace(x, p, r),
           [([b"abc"], s), (b"(b)", s), (b"\\2", s)], exact=True, grad=False)
    b.case("StaticRegexReplace", lambda x: tf.strings.regex_replace(x, r"\s+", " "),
           [([b"a  b\t\tc", b"  ", b"", b"x"], s)], exact=True, grad=False)
    b.case("StaticRegexReplace_first",
           lambda x: tf.strings.regex_replace(x, r"(\d+)", r"#\1#", replace_global=False),
           [([b"a1b22c333", b"none", "\u00e97".encode()], s)], exact=True, grad=False)
    b.case("RegexFullMatch", lambda x, p: tf.strings.regex_full_match(x, p),
           [([b"abc", b"ab", b"", "h\u00e9llo".encode(), b"abcabc"], s), (b"(abc)+|h.llo", s)],
           exact=True, grad=False)
    b.case("RegexFullMatch_unicode_class", lambda x, p: tf.strings.regex_full_match(x, p),
           [(UNICODE, s), (b"\\pL+", s)], exact=True, grad=False)

    # -- ReduceJoin: axes in order, negative axes, keep_dims, separators, empties ---------
    cube = np.array([[[b"a", b"b"], [b"c", b"d"]], [[b"e", b"f"], [b"g", b"h"]]], dtype=object)
    grid3 = [[b"a", b"b", b"c"], ["\u00e9".encode(), b"", b"f"]]
    b.case("ReduceJoin_axis0", lambda x: R.ReduceJoin(inputs=x, reduction_indices=[0]),
           [(grid3, s)], exact=True, grad=False)
    b.case("ReduceJoin_axis_neg", lambda x: R.ReduceJoin(inputs=x, reduction_indices=[-1],
                                                         separator=", "),
           [(grid3, s)], exact=True, grad=False)
    b.case("ReduceJoin_keep_dims",
           lambda x: R.ReduceJoin(inputs=x, reduction_indices=[1], keep_dims=True, separator="|"),
           [(grid3, s)], exact=True, grad=False)
    # Python passes every axis, last to first. (keep_dims: the encoder takes no string scalar.)
    b.case("ReduceJoin_all_reversed", lambda x: tf1.reduce_join(x, keep_dims=True), [(cube, s)],
           exact=True, grad=False)
    b.case("ReduceJoin_order_0_2", lambda x: R.ReduceJoin(inputs=x, reduction_indices=[0, 2]),
           [(cube, s)], exact=True, grad=False)
    b.case("ReduceJoin_order_2_0", lambda x: R.ReduceJoin(inputs=x, reduction_indices=[2, 0],
                                                          separator="."),
           [(cube, s)], exact=True, grad=False)
    b.case("ReduceJoin_none",
           lambda x: R.ReduceJoin(inputs=x, reduction_indices=tf.constant([], tf.int32)),
           [(grid3, s)], exact=True, grad=False)
    b.case("ReduceJoin_empty_dim",
           lambda x: R.ReduceJoin(inputs=x, reduction_indices=[1], separator="-"),
           [(np.zeros((2, 0), dtype=object), s)], exact=True, grad=False)
    b.case("ReduceJoin_scalar_axis",
           lambda x: R.ReduceJoin(inputs=x, reduction_indices=1, keep_dims=True),
           [(grid3, s)], exact=True, grad=False)

    # -- hash buckets --------------------------------------------------------------------
    keys = WORDS + UNICODE + [b"a" * 17]
    b.case("StringToHashBucket",
           lambda x: R.StringToHashBucket(string_tensor=x, num_buckets=1000003), [(keys, s)],
           exact=True, grad=False)
    b.case("StringToHashBucket_one", lambda x: R.StringToHashBucket(string_tensor=x,
                                                                     num_buckets=1),
           [(keys[:3], s)], exact=True, grad=False)
    b.case("StringToHashBucketStrong",
           lambda x: R.StringToHashBucketStrong(input=x, num_buckets=1000003, key=[1, 2]),
           [(keys, s)], exact=True, grad=False)
    b.case("StringToHashBucketStrong_negative_key",
           lambda x: R.StringToHashBucketStrong(input=x, num_buckets=97,
                                                key=[-5, 123456789012]),
           [([[b"x", b"y"], [b"", "\u00e9".encode()]], s)], exact=True, grad=False)

    # -- base64 (web-safe alphabet) ------------------------------------------------------
    blobs = [b"", b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar", "\u00e9\u00e8?>".encode(),
             b"\xfb\xff\xbf"[:0] + b"??>>"]
    b.case("EncodeBase64", lambda x: R.EncodeBase64(input=x), [(blobs, s)], exact=True,
           grad=False)
    b.case("EncodeBase64_pad", lambda x: R.EncodeBase64(input=x, pad=True), [(blobs, s)],
           exact=True, grad=False)
    b.case("DecodeBase64", lambda x: R.DecodeBase64(input=x),
           [([b"", b"Zg", b"Zg==", b"Zm8", b"Zm8=", b"Zm9v", b"Zm9vYmFy", b"w6nDqD8-",
              b"Pz8-Pg", b"Pz8-Pg=="], s)], exact=True, grad=False)
    b.case("Base64_roundtrip", lambda x: R.DecodeBase64(input=R.EncodeBase64(input=x, pad=True)),
           [([[b"ab", b"cde"], [UNICODE[1], b""]], s)], exact=True, grad=False)
