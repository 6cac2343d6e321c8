"""Fixture cases of the seq_ctc family (make_op_fixtures.Builder): ReverseSequence (ranks 2 to
5, either axis order, int32 and int64 lengths, every value type, empty batches) with its
gradient; CTCLoss through tf.compat.v1.nn.ctc_loss (float32 and float64, time- and
batch-major, preprocess_collapse_repeated, ctc_merge_repeated, ignore_longer_outputs_than_inputs,
short sequences, labels ending in blanks or made of one, a label no path fits) with the
gradient TensorFlow registers (the op's second output times the loss's gradient), and the raw
op's two outputs; CTCGreedyDecoder (merge_repeated, blank_index, -inf logits, empty
sequences) and CTCBeamSearchDecoder (beam widths, top paths, merge_repeated, float64) on
logits without ties; EditDistance (normalize, rank 2 and 3, int, string, bool, float values
with NaN and -0, positions holding only a hypothesis or only a truth, a truth shape larger
than the hypothesis', indices grouped in runs rather than sorted). The decoders and
EditDistance are not differentiable."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops

INF, NAN = float("inf"), float("nan")


def _sp(ind, val, shape):
    return tf.SparseTensor(ind, val, shape)


def _decoded(out):
    """The decoders' (decoded SparseTensors, log probabilities) as a flat output list."""
    decoded, log_prob = out
    flat = []
    for sp in decoded:
        flat += [sp.indices, sp.values, sp.dense_shape]
    return flat + [log_prob]


def build_seq_ctc(b):
    f32, f64, i32, i64, bf16 = tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16
    rng = b.rng

    # -- ReverseSequence ------------------------------------------------------------------
    x3 = rng.uniform(-1, 1, size=(3, 5, 2))
    b.case("ReverseSequence", lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1, batch_axis=0),
           [(x3, f32), ([2, 5, 0], i64)], exact=True)
    b.case("ReverseSequence_time_major",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=0, batch_axis=1),
           [(rng.uniform(-1, 1, size=(4, 3, 2)), f64), ([4, 1, 3], i32)], exact=True)
    b.case("ReverseSequence_rank2", lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [(rng.uniform(-1, 1, size=(2, 6)), f32), ([3, 6], i32)], exact=True)
    b.case("ReverseSequence_rank2_batch1",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=0, batch_axis=1),
           [(rng.uniform(-1, 1, size=(5, 3)), f32), ([5, 2, 1], i64)], exact=True)
    b.case("ReverseSequence_rank4",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=3, batch_axis=1),
           [(rng.uniform(-1, 1, size=(2, 3, 2, 4)), f32), ([4, 0, 2], i64)], exact=True)
    b.case("ReverseSequence_rank5",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=2, batch_axis=4),
           [(rng.uniform(-1, 1, size=(2, 1, 3, 2, 2)), f32), ([3, 2], i32)], exact=True)
    b.case("ReverseSequence_int32",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [(np.arange(12).reshape(3, 4), i32), ([1, 4, 2], i64)], exact=True)
    b.case("ReverseSequence_int64",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=0, batch_axis=1),
           [(np.arange(12).reshape(4, 3) * 2 ** 40, i64), ([4, 3, 2], i32)], exact=True)
    # (uint8 outputs are compared through a Cast: the fixture format has no uint8.)
    b.case("ReverseSequence_uint8",
           lambda x, n: tf.cast(tf1.reverse_sequence(x, n, seq_axis=1), i32),
           [(np.arange(6).reshape(2, 3), tf.uint8), ([3, 2], i32)], exact=True)
    b.case("ReverseSequence_bool",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [([[True, False, False], [False, True, True]], tf.bool), ([2, 3], i64)], exact=True)
    b.case("ReverseSequence_string",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [([[b"a", b"b", b"c"], [b"d", b"e", b"f"]], tf.string), ([3, 1], i32)], exact=True)
    b.case("ReverseSequence_bf16",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [(rng.uniform(-1, 1, size=(2, 4)), bf16), ([4, 2], i32)], exact=True, grad=False)
    b.case("ReverseSequence_empty_batch",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [(np.zeros((0, 3)), f32), (np.zeros((0,), np.int64), i64)], exact=True)
    b.case("ReverseSequence_empty_steps",
           lambda x, n: tf1.reverse_sequence(x, n, seq_axis=1),
           [(np.zeros((2, 0, 3)), f32), ([0, 0], i32)], exact=True)

    # -- CTCLoss --------------------------------------------------------------------------
    # Logits [max_time, batch, num_classes]; labels as a SparseTensor of int32 values.
    def ctc(li, lv, dense, **kw):
        def fn(x, n):
            return tf1.nn.ctc_loss(_sp(li, np.array(lv, np.int32), dense), x, n, **kw)
        return fn

    li = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]]
    lv = [0, 1, 2, 2, 0, 3]
    logits = rng.uniform(-2, 2, size=(6, 3, 5))
    tol32 = dict(tolerance=1e-5, atol=1e-6)
    tol64 = dict(tolerance=1e-6, atol=1e-7)
    b.case("CTCLoss", ctc(li, lv, [3, 3]), [(logits, f32), ([6, 5, 4], i32)], **tol32)
    b.case("CTCLoss_f64", ctc(li, lv, [3, 3]), [(logits, f64), ([6, 5, 4], i32)], **tol64)
    b.case("CTCLoss_batch_major", ctc(li, lv, [3, 3], time_major=False),
           [(logits.transpose(1, 0, 2), f32), ([6, 6, 3], i32)], **tol32)
    rep_li = [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]]
    rep_lv = [1, 1, 2, 0, 0, 0, 2]
    b.case("CTCLoss_repeats", ctc(rep_li, rep_lv, [2, 4]),
           [(rng.uniform(-2, 2, size=(8, 2, 4)), f32), ([8, 8], i32)], **tol32)
    b.case("CTCLoss_collapse", ctc(rep_li, rep_lv, [2, 4], preprocess_collapse_repeated=True),
           [(rng.uniform(-2, 2, size=(8, 2, 4)), f32), ([8, 5], i32)], **tol32)
    b.case("CTCLoss_no_merge", ctc(rep_li, rep_lv, [2, 4], ctc_merge_repeated=False),
           [(rng.uniform(-2, 2, size=(8, 2, 4)), f64), ([8, 7], i32)], **tol64)
    b.case("CTCLoss_collapse_no_merge",
           ctc(rep_li, rep_lv, [2, 4], preprocess_collapse_repeated=True,
               ctc_merge_repeated=False),
           [(rng.uniform(-2, 2, size=(8, 2, 4)), f32), ([6, 8], i32)], **tol32)
    # Batch entry 1 has more labels than steps: ignored (loss and gradient 0).
    b.case("CTCLoss_ignore_longer",
           ctc([[0, 0], [1, 0], [1, 1], [1, 2]], [1, 0, 1, 0], [2, 3],
               ignore_longer_outputs_than_inputs=True),
           [(rng.uniform(-2, 2, size=(4, 2, 3)), f32), ([4, 2], i32)], **tol32)
    b.case("CTCLoss_ignore_empty_sequence",
           ctc([[0, 0], [1, 0]], [1, 0], [2, 1], ignore_longer_outputs_than_inputs=True),
           [(rng.uniform(-2, 2, size=(3, 2, 3)), f32), ([3, 0], i32)], **tol32)
    # Labels from num_classes - 1 on end the sequence (the blank); one made of a blank only.
    b.case("CTCLoss_trailing_blank", ctc([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 2, 1, 5], [2, 2]),
           [(rng.uniform(-2, 2, size=(5, 2, 3)), f32), ([5, 4], i32)], **tol32)
    b.case("CTCLoss_blank_label", ctc([[0, 0], [1, 0]], [2, 1], [2, 1]),
           [(rng.uniform(-2, 2, size=(4, 2, 3)), f32), ([4, 3], i32)], **tol32)
    # Two equal labels need a blank between them: 2 steps are too few (loss +inf).
    b.case("CTCLoss_no_valid_path", ctc([[0, 0], [0, 1], [1, 0]], [1, 1, 0], [2, 2]),
           [(rng.uniform(-2, 2, size=(3, 2, 3)), f32), ([2, 3], i32)], grad=False, **tol32)
    b.case("CTCLoss_raw_outputs",
           lambda x, ix, v, n: list(R.CTCLoss(inputs=x, labels_indices=ix, labels_values=v,
                                              sequence_length=n)),
           [(logits, f32), (np.array(li, np.int64), i64), (np.array(lv, np.int32), i32),
            ([6, 4, 5], i32)], grad=False, **tol32)
    b.case("CTCLoss_raw_outputs_f64",
           lambda x, ix, v, n: list(R.CTCLoss(inputs=x, labels_indices=ix, labels_values=v,
                                              sequence_length=n, ctc_merge_repeated=False)),
           [(logits, f64), (np.array(li, np.int64), i64), (np.array(lv, np.int32), i32),
            ([6, 4, 5], i32)], grad=False, **tol64)

    # -- CTCGreedyDecoder -----------------------------------------------------------------
    g_logits = rng.uniform(-2, 2, size=(7, 3, 4))
    # Steps of batch entry 0 picked so that classes repeat with and without blanks between.
    g_logits[:, 0, :] = [[3, 0, 0, 0], [3, 0, 0, 0], [0, 0, 0, 3], [3, 0, 0, 0],
                         [0, 3, 0, 0], [0, 0, 3, 0], [0, 0, 3, 0]]
    for merge in (True, False):
        b.case("CTCGreedyDecoder_merge_%s" % merge,
               lambda x, n, m=merge: _decoded(tf.nn.ctc_greedy_decoder(x, n, merge_repeated=m)),
               [(g_logits, f32), ([7, 5, 0], i32)], exact=True, grad=False)
    b.case("CTCGreedyDecoder_blank_0",
           lambda x, n: _decoded(tf.nn.ctc_greedy_decoder(x, n, blank_index=0)),
           [(g_logits, f64), ([7, 7, 3], i32)], exact=True, grad=False)
    b.case("CTCGreedyDecoder_blank_neg",
           lambda x, n: _decoded(tf.nn.ctc_greedy_decoder(x, n, merge_repeated=False,
                                                          blank_index=-3)),
           [(g_logits, f32), ([2, 7, 6], i32)], exact=True, grad=False)
    b.case("CTCGreedyDecoder_inf",
           lambda x, n: _decoded(tf.nn.ctc_greedy_decoder(x, n, blank_index=1)),
           [([[[0.0, -INF, -INF], [-2.3, -INF, -0.1]], [[-INF, -0.5, -INF], [-INF, -INF, -0.1]],
              [[-INF, -INF, -INF], [-0.1, -INF, -2.3]]], f32), ([2, 3], i32)],
           exact=True, grad=False)
    b.case("CTCGreedyDecoder_one_class",
           lambda x, n: _decoded(tf.nn.ctc_greedy_decoder(x, n)),
           [(rng.uniform(-1, 1, size=(3, 2, 1)), f32), ([3, 1], i32)], exact=True, grad=False)

    # -- CTCBeamSearchDecoder -------------------------------------------------------------
    def beam(width, top, merge=True):
        def fn(x, n):
            return _decoded(tf1.nn.ctc_beam_search_decoder(x, n, beam_width=width, top_paths=top,
                                                           merge_repeated=merge))
        return fn

    bl = rng.uniform(-3, 3, size=(8, 3, 5))
    for width, top, merge in [(1, 1, True), (4, 3, True), (4, 3, False), (10, 5, True),
                              (100, 2, False), (3, 3, True)]:
        b.case("CTCBeamSearchDecoder_w%d_p%d_%s" % (width, top, "merge" if merge else "nomerge"),
               beam(width, top, merge), [(bl, f32), ([8, 6, 3], i32)], grad=False,
               tolerance=1e-5, atol=1e-6)
    b.case("CTCBeamSearchDecoder_f64", beam(5, 4), [(bl, f64), ([8, 2, 7], i32)], grad=False,
           tolerance=1e-6, atol=1e-7)
    peaked = rng.uniform(-1, 1, size=(6, 2, 4))
    peaked[[0, 1, 3, 4], 0, [2, 2, 2, 0]] += 6.0  # repeats around a blank-heavy step
    peaked[2, 0, 3] += 6.0
    b.case("CTCBeamSearchDecoder_peaked", beam(6, 4, False), [(peaked, f32), ([6, 5], i32)],
           grad=False, tolerance=1e-5, atol=1e-6)
    b.case("CTCBeamSearchDecoder_peaked_merge", beam(6, 4, True), [(peaked, f32), ([6, 5], i32)],
           grad=False, tolerance=1e-5, atol=1e-6)
    b.case("CTCBeamSearchDecoder_inf", beam(3, 2),
           [([[[0.0, -INF, -1.0], [-2.3, -INF, -0.1]], [[-INF, -0.5, -1.0], [-1.5, -0.2, -0.1]],
              [[-0.7, -INF, -1.2], [-0.1, -INF, -2.3]]], f32), ([3, 3], i32)], grad=False,
           tolerance=1e-5, atol=1e-6)

    # -- EditDistance ---------------------------------------------------------------------
    def ed(normalize):
        def fn(hi, hv, hs, ti, tv, ts):
            return tf.edit_distance(_sp(hi, hv, hs), _sp(ti, tv, ts), normalize=normalize)
        return fn

    def ed_inputs(h_ind, h_val, h_shape, t_ind, t_val, t_shape, dtype):
        rank = len(h_shape)
        return [(np.array(h_ind, np.int64).reshape(-1, rank), i64), (h_val, dtype),
                (np.array(h_shape, np.int64), i64),
                (np.array(t_ind, np.int64).reshape(-1, rank), i64), (t_val, dtype),
                (np.array(t_shape, np.int64), i64)]

    # Batch [3]: equal, one substitution + deletion, hypothesis only; position 3 truth only.
    h2 = ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]], [1, 2, 1, 5, 3, 4], [4, 3])
    t2 = ([[0, 0], [0, 1], [1, 0], [1, 1], [3, 0], [3, 1]], [1, 2, 1, 3, 7, 8], [4, 2])
    for normalize in (True, False):
        b.case("EditDistance_normalize_%s" % normalize, ed(normalize),
               ed_inputs(*h2, *t2, i64), exact=True, grad=False)
    b.case("EditDistance_int32", ed(True), ed_inputs(*h2, *t2, i32), exact=True, grad=False)
    h3 = ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]],
          [b"a", b"b", b"c", b"d", b"e", b"f"], [2, 2, 3])
    t3 = ([[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0]],
          [b"a", b"c", b"x", b"f", b"e", b"g"], [2, 3, 5])
    for normalize in (True, False):
        b.case("EditDistance_string_rank3_%s" % normalize, ed(normalize),
               ed_inputs(*h3, *t3, tf.string), exact=True, grad=False)
    b.case("EditDistance_float_nan",
           ed(False), ed_inputs([[0, 0], [0, 1], [1, 0]], [NAN, -0.0, 1.5], [2, 2],
                                [[0, 0], [0, 1], [1, 0], [1, 1]], [NAN, 0.0, 1.5, 2.0], [2, 2],
                                f32), exact=True, grad=False)
    b.case("EditDistance_bool",
           ed(True), ed_inputs([[0, 0], [0, 1], [0, 2]], [True, False, True], [1, 3],
                               [[0, 0], [0, 1]], [False, True], [1, 3], tf.bool),
           exact=True, grad=False)
    b.case("EditDistance_empty_hypothesis",
           ed(True), ed_inputs(np.zeros((0, 2)), np.zeros((0,), np.int64), [2, 3],
                               [[1, 0], [1, 1]], [4, 5], [2, 3], i64), exact=True, grad=False)
    b.case("EditDistance_empty_both",
           ed(True), ed_inputs(np.zeros((0, 2)), np.zeros((0,), np.int64), [3, 3],
                               np.zeros((0, 2)), np.zeros((0,), np.int64), [2, 1], i64),
           exact=True, grad=False)
    # Runs, not sorted: hypothesis rows 1, 0, 1 make three groups; the last one wins.
    b.case("EditDistance_unsorted_runs",
           ed(False), ed_inputs([[1, 0], [0, 0], [1, 1]], [1, 2, 3], [2, 3],
                                [[0, 0], [1, 0]], [2, 1], [2, 3], i64), exact=True, grad=False)
