"""Fixture cases of the rnn_block family (make_op_fixtures.Builder): TensorFlow's fused
recurrent cells LSTMBlockCell, GRUBlockCell, BlockLSTM and BlockLSTMV2 (default attrs, peephole
weights, a cell_clip that clips, forget_bias, no clip, seq_len_max short of the time length
and 0, odd sizes, an empty batch) with their gradients, and the gradient ops
LSTMBlockCellGrad, GRUBlockCellGrad, BlockLSTMGrad and BlockLSTMGradV2 run straight.

TensorFlow 2 registers gradients for BlockLSTM and BlockLSTMV2 only (rnn_grad.py; both build
BlockLSTMGrad, so BlockLSTMV2's has its gate blocks in BlockLSTM's order, as TensorFlow
computes it). The gradients of LSTMBlockCell and GRUBlockCell are tf.contrib.rnn's
(lstm_ops.py's _LSTMBlockCellGrad, gru_ops.py's _GRUBlockCellGrad), registered here so that
TensorFlow computes what actorflow builds. TensorFlow leaves BlockLSTM's outputs other than cs
and h unset after seq_len_max: those cases compare them up to seq_len_max only."""
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops as tf_ops
from tensorflow.python.ops import array_ops, gen_rnn_ops, math_ops, nn_ops

tf1 = tf.compat.v1
R = tf.raw_ops


def _lstm_block_cell_grad(op, *grad):
    """tf.contrib.rnn's _LSTMBlockCellGrad (TensorFlow 1.15 lstm_ops.py)."""
    (x, cs_prev, h_prev, w, wci, wcf, wco, b) = op.inputs
    (i, cs, f, o, ci, co, _) = op.outputs
    (_, cs_grad, _, _, _, _, h_grad) = grad
    batch_size = x.get_shape().with_rank(2)[0]
    if batch_size is None:
        batch_size = -1
    input_size = x.get_shape().with_rank(2)[1]
    cell_size = cs_prev.get_shape().with_rank(2)[1]
    (cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad) = gen_rnn_ops.lstm_block_cell_grad(
        x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, i=i, cs=cs,
        f=f, o=o, ci=ci, co=co, cs_grad=cs_grad, h_grad=h_grad,
        use_peephole=op.get_attr("use_peephole"))
    xh_grad = math_ops.matmul(dicfo, w, transpose_b=True)
    x_grad = array_ops.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = array_ops.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    xh = array_ops.concat([x, h_prev], 1)
    w_grad = math_ops.matmul(xh, dicfo, transpose_a=True)
    b_grad = nn_ops.bias_add_grad(dicfo)
    return (x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad)


def _gru_block_cell_grad(op, *grad):
    """tf.contrib.rnn's _GRUBlockCellGrad (TensorFlow 1.15 gru_ops.py)."""
    x, h_prev, w_ru, w_c, b_ru, b_c = op.inputs
    r, u, c, _ = op.outputs
    _, _, _, d_h = grad
    d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = gen_rnn_ops.gru_block_cell_grad(
        x=x, h_prev=h_prev, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c, r=r, u=u, c=c, d_h=d_h)
    x_h_prev = array_ops.concat([x, h_prev], 1)
    d_w_ru = math_ops.matmul(x_h_prev, d_r_bar_u_bar, transpose_a=True)
    d_b_ru = nn_ops.bias_add_grad(d_r_bar_u_bar)
    x_h_prevr = array_ops.concat([x, h_prev * r], 1)
    d_w_c = math_ops.matmul(x_h_prevr, d_c_bar, transpose_a=True)
    d_b_c = nn_ops.bias_add_grad(d_c_bar)
    return d_x, d_h_prev, d_w_ru, d_w_c, d_b_ru, d_b_c


for _type, _fn in (("LSTMBlockCell", _lstm_block_cell_grad),
                   ("GRUBlockCell", _gru_block_cell_grad)):
    try:
        tf_ops.RegisterGradient(_type)(_fn)
    except KeyError:  # registered already (the module imported twice)
        pass


def build_rnn_block(b):
    f32, i64 = tf.float32, tf.int64
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731

    def case(name, fn, inputs, **kw):
        # Chains of float32 products, sigmoids and tanhs: the GEMM backends and Eigen's
        # vectorised activations differ from TensorFlow's in the last bits.
        kw.setdefault("tolerance", 3e-5)
        kw.setdefault("atol", 3e-6)
        b.case(name, fn, inputs, **kw)

    def lstm_cell_inputs(batch, inp, cell, scale=1.0):
        return [(u(batch, inp) * scale, f32), (u(batch, cell), f32), (u(batch, cell), f32),
                (u(inp + cell, 4 * cell) * scale, f32), (u(cell), f32), (u(cell), f32),
                (u(cell), f32), (u(4 * cell), f32)]

    # -- LSTMBlockCell: TensorFlow's default attrs (forget_bias 1, cell_clip 3, no peephole),
    # peepholes with a clip that bites, no clip on large pre-activations, one unit.
    def lstm_cell(**attrs):
        return lambda x, cs, h, w, wci, wcf, wco, bias: R.LSTMBlockCell(
            x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf, wco=wco, b=bias, **attrs)

    case("LSTMBlockCell_defaults", lstm_cell(), lstm_cell_inputs(3, 4, 5))
    case("LSTMBlockCell_peephole_clip",
         lstm_cell(forget_bias=0.5, cell_clip=0.4, use_peephole=True),
         lstm_cell_inputs(2, 3, 4, scale=2.0))
    case("LSTMBlockCell_no_clip", lstm_cell(forget_bias=0.0, cell_clip=-1.0),
         lstm_cell_inputs(4, 2, 3, scale=3.0))
    case("LSTMBlockCell_one_unit", lstm_cell(use_peephole=True), lstm_cell_inputs(1, 1, 1))

    # LSTMBlockCellGrad straight, from a forward step's activations.
    def lstm_cell_grad(use_peephole):
        def fn(x, cs, h, w, wci, wcf, wco, bias, cs_grad, h_grad):
            i, cs_out, f, o, ci, co, _ = R.LSTMBlockCell(
                x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf, wco=wco, b=bias,
                use_peephole=use_peephole)
            return R.LSTMBlockCellGrad(
                x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf, wco=wco, b=bias, i=i,
                cs=cs_out, f=f, o=o, ci=ci, co=co, cs_grad=cs_grad, h_grad=h_grad,
                use_peephole=use_peephole)
        return fn

    for peephole in (False, True):
        case("LSTMBlockCellGrad_peephole_%s" % str(peephole).lower(), lstm_cell_grad(peephole),
             lstm_cell_inputs(3, 2, 4) + [(u(3, 4), f32), (u(3, 4), f32)], grad=False)

    # -- GRUBlockCell: sizes, an empty batch; GRUBlockCellGrad straight.
    def gru_inputs(batch, inp, cell):
        return [(u(batch, inp), f32), (u(batch, cell), f32), (u(inp + cell, 2 * cell), f32),
                (u(inp + cell, cell), f32), (u(2 * cell), f32), (u(cell), f32)]

    gru = lambda x, h, w_ru, w_c, b_ru, b_c: R.GRUBlockCell(  # noqa: E731
        x=x, h_prev=h, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c)
    case("GRUBlockCell", gru, gru_inputs(3, 4, 5))
    case("GRUBlockCell_wide_input", gru, gru_inputs(2, 7, 2))
    case("GRUBlockCell_one_unit", gru, gru_inputs(1, 1, 1))
    case("GRUBlockCell_empty_batch", gru, gru_inputs(0, 3, 2))

    def gru_grad(x, h, w_ru, w_c, b_ru, b_c, d_h):
        r, uu, c, _ = R.GRUBlockCell(x=x, h_prev=h, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c)
        return R.GRUBlockCellGrad(x=x, h_prev=h, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c, r=r,
                                  u=uu, c=c, d_h=d_h)

    case("GRUBlockCellGrad", gru_grad, gru_inputs(3, 2, 4) + [(u(3, 4), f32)], grad=False)

    # -- BlockLSTM and BlockLSTMV2 over time-major x.
    def block_inputs(slm, time, batch, inp, cell, scale=1.0):
        return [(np.array(slm), i64), (u(time, batch, inp) * scale, f32), (u(batch, cell), f32),
                (u(batch, cell), f32), (u(inp + cell, 4 * cell) * scale, f32), (u(cell), f32),
                (u(cell), f32), (u(cell), f32), (u(4 * cell), f32)]

    def block(op, slm=None, **attrs):
        def fn(n, x, cs, h, w, wci, wcf, wco, bias):
            outs = getattr(R, op)(seq_len_max=n, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci,
                                  wcf=wcf, wco=wco, b=bias, **attrs)
            if slm is None:
                return list(outs)
            # After seq_len_max TensorFlow zeroes cs and h and leaves the rest unset.
            i, cs_out, f, o, ci, co, h_out = outs
            return [cs_out, h_out] + [t[:slm] for t in (i, f, o, ci, co)]
        return fn

    for op, v1 in (("BlockLSTM", True), ("BlockLSTMV2", False)):
        case(op + "_defaults", block(op), block_inputs(4, 4, 2, 3, 4))
        clip = dict(cell_clip=0.5, use_peephole=True)
        if v1:
            clip["forget_bias"] = 0.7
        case(op + "_peephole_clip", block(op, **clip), block_inputs(3, 3, 2, 2, 3, scale=2.0))
        case(op + "_no_clip", block(op, cell_clip=-1.0), block_inputs(3, 3, 3, 2, 2, scale=3.0))
        case(op + "_seq_len_max_short", block(op, slm=2, use_peephole=True),
             block_inputs(2, 5, 2, 3, 4))
        case(op + "_seq_len_max_zero", block(op, slm=0), block_inputs(0, 3, 2, 2, 3))
        case(op + "_odd_sizes", block(op, use_peephole=True), block_inputs(3, 3, 3, 5, 3))
        case(op + "_one_step", block(op), block_inputs(1, 1, 1, 1, 2))

    # BlockLSTMGrad and BlockLSTMGradV2 straight, from a forward pass of the matching op.
    def block_grad(op, fwd, slm, use_peephole):
        def fn(n, x, cs, h, w, wci, wcf, wco, bias, cs_grad, h_grad):
            common = dict(seq_len_max=n, x=x, cs_prev=cs, h_prev=h, w=w, wci=wci, wcf=wcf,
                          wco=wco, b=bias)
            i, cs_out, f, o, ci, co, h_out = getattr(R, fwd)(use_peephole=use_peephole,
                                                             **common)
            return getattr(R, op)(i=i, cs=cs_out, f=f, o=o, ci=ci, co=co, h=h_out,
                                  cs_grad=cs_grad, h_grad=h_grad, use_peephole=use_peephole,
                                  **common)
        return fn

    for op, fwd in (("BlockLSTMGrad", "BlockLSTM"), ("BlockLSTMGradV2", "BlockLSTMV2")):
        for slm, peephole in ((4, False), (4, True), (2, True)):
            case("%s_slm%d_peephole_%s" % (op, slm, str(peephole).lower()),
                 block_grad(op, fwd, slm, peephole),
                 block_inputs(slm, 4, 2, 3, 3) + [(u(4, 2, 3), f32), (u(4, 2, 3), f32)],
                 grad=False)
