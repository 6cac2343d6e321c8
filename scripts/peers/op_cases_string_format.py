"""Fixture cases of StringFormat (tf.strings.format) for make_op_fixtures.py: each dtype
actorflow has (float32, float64, bfloat16, int32, int64, uint8, bool, string) summarized as
Tensor::SummarizeValue prints it: scalars, vectors, nested ranks, elision beyond `summarize`
(0, 1, 2, the default 3, large and negative), empty tensors of several ranks, float edge values
(NaN, infinities, signed zero, subnormals, values needing 9 or 17 digits), escaped strings,
several inputs, other placeholders (an empty one cuts between bytes) and no inputs. Not
differentiable; every case compares exactly. Outputs stay valid UTF-8 (the fixture encoder
decodes strings as UTF-8)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _fmt(template, placeholder="{}", summarize=3):
    def fn(*xs):
        return R.StringFormat(inputs=list(xs), template=template, placeholder=placeholder,
                              summarize=summarize)
    return fn


def build_string_format(b):
    f32, f64, i32, i64, bf16, u8, bl, s = (tf.float32, tf.float64, tf.int32, tf.int64,
                                           tf.bfloat16, tf.uint8, tf.bool, tf.string)
    one = _fmt("{}")

    def case(name, fn, inputs):
        b.case("StringFormat_" + name, fn, inputs, exact=True, grad=False)

    # -- shapes and elision -------------------------------------------------------------------
    case("scalar", one, [(np.int32(7), i32)])
    case("vector", one, [(np.array([1, 2, 3], np.int32), i32)])
    case("vector_elided", one, [(np.arange(10, dtype=np.int64), i64)])
    case("vector_seven", one, [(np.arange(7, dtype=np.int32), i32)])
    case("matrix", one, [(np.array([[1, 2], [3, 4]], np.int32), i32)])
    case("matrix_5x5", one, [(np.arange(25, dtype=np.int32).reshape(5, 5), i32)])
    case("matrix_8x9", one, [(np.arange(72, dtype=np.int32).reshape(8, 9), i32)])
    case("rank3", one, [(np.arange(24, dtype=np.int32).reshape(2, 3, 4), i32)])
    case("rank3_elided", one, [(np.arange(343, dtype=np.int32).reshape(7, 7, 7), i32)])
    case("rank4", one, [(np.arange(16, dtype=np.int32).reshape(2, 2, 2, 2), i32)])
    case("rank1_of_1", one, [(np.array([[[5]]], np.int32), i32)])
    for n, shape in [("0", [0]), ("2x0", [2, 0]), ("0x2", [0, 2]), ("2x3x0", [2, 3, 0])]:
        case("empty_" + n, one, [(np.zeros(shape, np.float32), f32)])
    for k in [0, 1, 2, 4, 100, -1, -5]:
        tag = ("m%d" % -k) if k < 0 else str(k)
        case("summarize_" + tag, _fmt("v={} m={} s={}", summarize=k),
             [(np.arange(10, dtype=np.int32), i32),
              (np.arange(25, dtype=np.int32).reshape(5, 5), i32), (np.int32(3), i32)])
    case("summarize_0_empty", _fmt("{}", summarize=0), [(np.zeros([2, 0], np.int32), i32)])

    # -- dtypes and values --------------------------------------------------------------------
    floats = np.array([0.1, 1.0 / 3, 1e10, 1e-5, -0.0, 2.5, 100.0, 123456789.0, np.nan, np.inf,
                       -np.inf, 1e-40, -1e-40, 3.4028235e38, 1.17549435e-38, 16777217.0],
                      np.float32)
    case("float32", _fmt("{}", summarize=-1), [(floats, f32)])
    case("float32_scalar", one, [(np.float32(0.1), f32)])
    doubles = np.array([0.1, 1.0 / 3, 1e22, 1e-5, -0.0, 0.1 + 0.2, 1e100, np.nan, np.inf,
                        -np.inf, 1e-310, 5e-324, 2.2250738585072014e-308, 123456789012345678.0],
                       np.float64)
    case("float64", _fmt("{}", summarize=-1), [(doubles, f64)])
    case("bfloat16", _fmt("{}", summarize=-1),
         [(np.array([0.1, 1.0 / 3, 3.0, 1e10, -0.0, np.inf, 123456.0, 1e-40], np.float32),
           bf16)])
    case("int64", one, [(np.array([-2**63, 2**63 - 1], np.int64), i64)])
    case("uint8", one, [(np.array([0, 200, 255], np.uint8), u8)])
    case("bool", one, [(np.array([[True, False], [False, True]]), bl)])
    case("bool_scalar", one, [(np.bool_(True), bl)])
    case("strings", _fmt("{}", summarize=-1),
         [(np.array([b"a", b"b\"c'\\", b"\n\t\r\x01\x1f\x7f", "h\u00e9llo".encode(), b""],
                    dtype=object), s)])
    case("string_scalar", one, [(b"hi there", s)])
    case("string_matrix", one,
         [(np.array([[b"x", b"y"], [b"z", b"w"]], dtype=object), s)])

    # -- templates ----------------------------------------------------------------------------
    case("several", _fmt("A {} B {} C {} D"),
         [(np.array([1.5, 2.5], np.float64), f64), (b"x", s), (np.array([[True]]), bl)])
    case("adjacent", _fmt("{}{}"), [(np.int32(1), i32), (np.int32(2), i32)])
    case("percent_s", _fmt("x%sy", placeholder="%s"), [(np.int32(1), i32)])
    case("overlapping", _fmt("aaa", placeholder="aa"), [(np.int32(1), i32)])
    case("empty_placeholder", _fmt("ab", placeholder=""), [(np.int32(1), i32)])
    case("no_inputs", _fmt("no placeholders"), [])
    case("empty_template", _fmt(""), [])
    case("python_format", lambda x, y: tf.strings.format("x: {}, y: {}", (x, y), summarize=2),
         [(np.arange(6, dtype=np.float32).reshape(2, 3), f32), (np.arange(5, dtype=np.int64),
                                                                  i64)])
