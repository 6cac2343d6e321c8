"""Fixture cases of the einsum family for make_op_fixtures.py: tf.einsum (op Einsum) on matrix
and batched products, transposes, traces and diagonals (repeated labels in an input or the
output), outer products, sums, ellipsis broadcasting, implicit outputs, chains of three
operands (pairwise Einsum ops), int32/int64 (exact), float64, bfloat16 and empty dimensions,
with TensorFlow's _EinsumGrad on every float case (its Einsum, BroadcastTo, Reshape and, for
broadcast ellipses, BroadcastGradientArgs and Sum ops)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


def build_einsum(b):
    f32, f64, i32, i64, bf16 = tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16
    rng = b.rng

    def u(*shape):
        return rng.uniform(-1.0, 1.0, size=shape)

    def ints(*shape):
        return rng.randint(-5, 6, size=shape)

    def case(name, equation, shapes, dtype=f32, raw=False, **kw):
        values = [ints(*s) if dtype in (i32, i64) else u(*s) for s in shapes]
        if raw:  # the op itself: tf.einsum refuses labels the output repeats
            fn = lambda *xs: tf.raw_ops.Einsum(inputs=list(xs), equation=equation)
        else:
            fn = lambda *xs: tf.einsum(equation, *xs)
        if dtype == f32:
            # TensorFlow's Eigen contraction sums in another order (and fused multiply-adds):
            # float32 results can differ by a few ulps of the terms, near zero too.
            kw.setdefault("atol", 1e-6)
        b.case(name, fn, [(v, dtype) for v in values], **kw)

    # -- products ---------------------------------------------------------------------------
    case("Einsum_matmul", "ij,jk->ik", [(2, 3), (3, 4)])
    case("Einsum_matmul_implicit", "ij,jk", [(2, 3), (3, 4)])
    case("Einsum_matmul_transposed", "ji,kj->ik", [(3, 2), (4, 3)])
    case("Einsum_batch_matmul", "bij,bjk->bik", [(2, 2, 3), (2, 3, 4)])
    case("Einsum_batch_matmul_f64", "bij,bkj->bik", [(3, 2, 4), (3, 5, 4)], f64)
    case("Einsum_batch_free_mixed", "aib,bjc->acij", [(2, 3, 4), (4, 2, 3)])
    case("Einsum_outer", "i,j->ij", [(3,), (4,)])
    case("Einsum_dot", "i,i->", [(5,)] * 2)
    case("Einsum_hadamard", "ij,ij->ij", [(2, 3)] * 2)
    case("Einsum_hadamard_sum", "ij,ij->", [(2, 3)] * 2)
    case("Einsum_matvec", "ij,j->i", [(3, 4), (4,)])
    case("Einsum_with_reduced_label", "abc,cd->ad", [(2, 3, 4), (4, 5)])
    case("Einsum_both_reduced", "abc,dce->ae", [(2, 3, 4), (2, 4, 3)])
    case("Einsum_uppercase", "Ab,bC->AC", [(2, 3), (3, 2)])
    case("Einsum_spaces", "ij, jk -> ik", [(2, 3), (3, 4)])
    # -- one operand ------------------------------------------------------------------------
    case("Einsum_transpose", "ij->ji", [(2, 3)])
    case("Einsum_transpose_3d", "abc->cab", [(2, 3, 4)])
    case("Einsum_identity", "ij->ij", [(2, 3)])
    case("Einsum_trace", "ii->", [(4, 4)])
    case("Einsum_trace_implicit", "ii", [(3, 3)])
    case("Einsum_diag", "ii->i", [(4, 4)])
    case("Einsum_generalized_diag", "iij->ji", [(3, 3, 2)])
    case("Einsum_diag_sum", "iij->j", [(3, 3, 2)])
    case("Einsum_diag_reduce_transpose", "aabc->ca", [(2, 2, 3, 4)])
    case("Einsum_inflate", "i->ii", [(3,)], raw=True)
    case("Einsum_inflate_transpose", "ij->jii", [(3, 2)], raw=True)
    case("Einsum_product_inflate", "i,i->ii", [(3,), (3,)], raw=True)
    case("Einsum_raw_digit_labels", "a1,1b->ab", [(2, 3), (3, 2)], raw=True)
    case("Einsum_sum_all", "ij->", [(3, 4)])
    case("Einsum_sum_rows", "ij->i", [(3, 4)])
    case("Einsum_sum_middle", "abcd->ac", [(2, 3, 4, 2)])
    case("Einsum_sum_transpose", "abc->ca", [(2, 3, 4)])
    # -- ellipsis ---------------------------------------------------------------------------
    case("Einsum_ellipsis_matmul", "...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)])
    case("Einsum_ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)])
    case("Einsum_ellipsis_one_side", "...ij,jk->...ik", [(2, 3, 2, 3), (3, 4)])
    case("Einsum_ellipsis_empty", "...ij,jk->ik", [(2, 3), (3, 4)])
    case("Einsum_ellipsis_trailing", "ab...,b->a...", [(2, 3, 4), (3,)])
    case("Einsum_ellipsis_middle", "a...b,b->...a", [(2, 3, 1, 4), (4,)])
    case("Einsum_ellipsis_elementwise", "...,...->...", [(2, 3), (3,)])
    case("Einsum_ellipsis_dot_broadcast", "...i,...i->...", [(2, 3), (1, 3)])
    case("Einsum_ellipsis_unary", "...ij->...ji", [(2, 3, 2, 4)])
    case("Einsum_ellipsis_unary_sum", "...ij->...i", [(2, 3, 4)])
    case("Einsum_ellipsis_implicit", "...ij", [(2, 3, 4)])
    # -- chains -----------------------------------------------------------------------------
    case("Einsum_chain3", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)])
    case("Einsum_chain3_batch", "bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 2), (2, 2, 4)])
    case("Einsum_chain4_sum", "i,ij,jk,k->", [(3,), (3, 4), (4, 2), (2,)])
    # -- dtypes -----------------------------------------------------------------------------
    case("Einsum_int32", "ij,jk->ik", [(2, 3), (3, 4)], i32, exact=True)
    case("Einsum_int32_trace", "ii->", [(4, 4)], i32, exact=True)
    case("Einsum_int32_ellipsis", "...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)], i32,
         exact=True)
    case("Einsum_int64", "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], i64, exact=True)
    case("Einsum_int64_diag", "ii->i", [(3, 3)], i64, exact=True)
    case("Einsum_f64_trace", "ii->", [(3, 3)], f64)
    case("Einsum_f64_ellipsis", "...ij,...jk->...ik", [(3, 1, 2, 2), (2, 2, 3)], f64)
    b.case("Einsum_bf16", lambda x, y: tf.einsum("ij,jk->ik", x, y),
           [(u(2, 3), bf16), (u(3, 4), bf16)], grad=False, tolerance=2e-2, atol=2e-2)
    b.case("Einsum_bf16_sum", lambda x: tf.einsum("ij->j", x), [(u(3, 4), bf16)],
           grad=False, tolerance=2e-2, atol=2e-2)
    # -- empty dimensions --------------------------------------------------------------------
    case("Einsum_empty_free", "ij,jk->ik", [(0, 3), (3, 4)])
    case("Einsum_empty_contract", "ij,jk->ik", [(2, 0), (0, 3)])
    case("Einsum_empty_batch", "bij,bjk->bik", [(0, 2, 3), (0, 3, 2)])
    case("Einsum_empty_reduce", "ij->i", [(3, 0)])
    case("Einsum_empty_trace", "ii->", [(0, 0)])
    case("Einsum_empty_ellipsis", "...ij,...jk->...ik", [(0, 2, 3), (1, 3, 2)])
