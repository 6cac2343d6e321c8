#pragma once

// The arithmetic of TensorFlow's fused recurrent cells (tensorflow/core/kernels/rnn/lstm_ops.h,
// lstm_ops.cc, gru_ops.h) on row-major float buffers: one LSTM or GRU time step forward and
// backward, and the matrix products they make through the GEMM backend. Private to the
// kernels module; the kernels with TensorFlow's checks are in rnn_block_ops.cpp.
//
// Element-wise work follows the order in which TensorFlow's Eigen expressions add and
// multiply, so that float results agree to the last bits where the products do; sigmoid and
// tanh are Eigen's (vectorised) functions, as TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <vector>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
// Eigen 3.4's thread-pool code captures `this` implicitly, deprecated in C++20.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
#include <unsupported/Eigen/CXX11/Tensor>
#pragma GCC diagnostic pop

#include "actorflow/ops/kernel.hpp"
#include "cpu_gemm.hpp"

namespace af::detail::rnn {

using Index = std::int64_t;

/// out[m,n] = op(a) * op(b), row-major (`a` [m,k] or [k,m] when `ta`, `b` [k,n] or [n,k]
/// when `tb`), through the GEMM backend with the kernel's intra-op threads, else a direct
/// loop. Zeros for k == 0; nothing for an empty result.
inline void gemm(const OpKernelContext& ctx, const float* a, const float* b, float* out, Index m,
                 Index n, Index k, bool ta, bool tb) {
  if (m == 0 || n == 0) return;
  std::fill_n(out, m * n, 0.0f);
  if (k == 0) return;
  if (cpu_gemm(a, b, out, m, n, k, ta, tb, std::max(1, ctx.intra_op_threads), ctx.eigen_device))
    return;
  for (Index i = 0; i < m; ++i) {
    float* row = out + i * n;
    for (Index p = 0; p < k; ++p) {
      const float av = ta ? a[p * m + i] : a[i * k + p];
      for (Index j = 0; j < n; ++j) row[j] += av * (tb ? b[j * k + p] : b[p * n + j]);
    }
  }
}

/// Eigen's logistic function on `n` floats in place, as TensorFlow's `.sigmoid()`.
inline void sigmoid_in_place(float* v, Index n) {
  if (n == 0) return;
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor, Eigen::Index>> m(v, n);
  m = m.sigmoid();
}

/// Eigen's tanh on `n` floats in place, as TensorFlow's `.tanh()`.
inline void tanh_in_place(float* v, Index n) {
  if (n == 0) return;
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor, Eigen::Index>> m(v, n);
  m = m.tanh();
}

/// Where the four gates sit in a row of `4 * cell` gate values: LSTMBlockCell and BlockLSTM
/// use i, c, f, o (TensorFlow's ICFO); BlockLSTMV2 uses i, f, c, o (IFCO, Keras' order).
enum class GateLayout { icfo, ifco };

/// The sizes of one LSTM or GRU step.
struct CellShape {
  Index batch = 0;  ///< rows of x and of the state
  Index input = 0;  ///< columns of x
  Index cell = 0;   ///< columns of the state
};

/// TensorFlow's gate_c_offset: the first column of the cell input's gate.
inline Index gate_c_offset(GateLayout layout, Index cell) {
  return layout == GateLayout::icfo ? cell : 2 * cell;
}

/// TensorFlow's gate_f_offset: the first column of the forget gate.
inline Index gate_f_offset(GateLayout layout, Index cell) {
  return layout == GateLayout::icfo ? 2 * cell : cell;
}

/// Copies `x` [batch, input] and `h` [batch, cell] side by side into `xh` [batch, input + cell].
inline void concat_rows(const CellShape& s, const float* x, const float* h, float* xh) {
  const Index width = s.input + s.cell;
  for (Index r = 0; r < s.batch; ++r) {
    std::copy_n(x + r * s.input, s.input, xh + r * width);
    std::copy_n(h + r * s.cell, s.cell, xh + r * width + s.input);
  }
}

/// The inputs of one LSTM step ([batch, ...] rows; the peephole weights and the bias are
/// vectors of `cell` and `4 * cell`).
struct LstmStepInputs {
  const float* x;        ///< [batch, input]
  const float* cs_prev;  ///< [batch, cell]
  const float* h_prev;   ///< [batch, cell]
  const float* w;        ///< [input + cell, 4 * cell]
  const float* wci;      ///< [cell]
  const float* wcf;      ///< [cell]
  const float* wco;      ///< [cell]
  const float* b;        ///< [4 * cell]
};

/// The activations of one LSTM step, each [batch, cell].
struct LstmStepOutputs {
  float* i;
  float* cs;
  float* f;
  float* o;
  float* ci;
  float* co;
  float* h;
};

/// The attrs of the forward LSTM ops.
struct LstmAttrs {
  float forget_bias = 1.0f;
  float cell_clip = 3.0f;  ///< clip cs to [-cell_clip, cell_clip] when positive
  bool use_peephole = false;
  GateLayout layout = GateLayout::icfo;
};

/// LSTMBlockCellFprop: gates = [x, h_prev] * w + b; i = sigmoid(gates_i + cs_prev * wci),
/// ci = tanh(gates_c), f = sigmoid(gates_f + forget_bias + cs_prev * wcf), cs = i * ci + f *
/// cs_prev (clipped), co = tanh(cs), o = sigmoid(gates_o + cs * wco), h = o * co (the
/// peephole terms only with use_peephole). `xh` and `gates` are scratch of [batch, input +
/// cell] and [batch, 4 * cell].
inline void lstm_step_forward(const OpKernelContext& ctx, const CellShape& s, const LstmAttrs& a,
                              const LstmStepInputs& in, const LstmStepOutputs& out,
                              std::vector<float>& xh, std::vector<float>& gates) {
  const Index c = s.cell, width = 4 * c;
  xh.resize(static_cast<std::size_t>(s.batch * (s.input + c)));
  gates.resize(static_cast<std::size_t>(s.batch * width));
  concat_rows(s, in.x, in.h_prev, xh.data());
  gemm(ctx, xh.data(), in.w, gates.data(), s.batch, width, s.input + c, false, false);
  const Index c_off = gate_c_offset(a.layout, c), f_off = gate_f_offset(a.layout, c);
  for (Index r = 0; r < s.batch; ++r) {
    float* g = gates.data() + r * width;
    for (Index j = 0; j < width; ++j) g[j] += in.b[j];
    const Index at = r * c;
    const float* cs_prev = in.cs_prev + at;
    float *i = out.i + at, *ci = out.ci + at, *f = out.f + at, *cs = out.cs + at;
    float *o = out.o + at, *co = out.co + at, *h = out.h + at;
    for (Index j = 0; j < c; ++j) {
      i[j] = a.use_peephole ? g[j] + cs_prev[j] * in.wci[j] : g[j];
      ci[j] = g[c_off + j];
      f[j] = a.use_peephole ? (g[f_off + j] + a.forget_bias) + cs_prev[j] * in.wcf[j]
                            : g[f_off + j] + a.forget_bias;
    }
    sigmoid_in_place(i, c);
    tanh_in_place(ci, c);
    sigmoid_in_place(f, c);
    for (Index j = 0; j < c; ++j) {
      cs[j] = i[j] * ci[j] + f[j] * cs_prev[j];
      // Eigen's scalar_clip_op: min(max(cs, -clip), clip).
      if (a.cell_clip > 0.0f) cs[j] = std::min(std::max(cs[j], -a.cell_clip), a.cell_clip);
      co[j] = cs[j];
    }
    tanh_in_place(co, c);
    for (Index j = 0; j < c; ++j)
      o[j] = a.use_peephole ? g[3 * c + j] + cs[j] * in.wco[j] : g[3 * c + j];
    sigmoid_in_place(o, c);
    for (Index j = 0; j < c; ++j) h[j] = o[j] * co[j];
  }
}

/// What one LSTM step's backward pass reads: the step's inputs and activations and the
/// gradients reaching cs and h.
struct LstmStepGradInputs {
  LstmStepInputs in;
  const float* i;
  const float* cs;
  const float* f;
  const float* o;
  const float* ci;
  const float* co;
  const float* cs_grad;  ///< [batch, cell]
  const float* h_grad;   ///< [batch, cell]
};

/// LSTMBlockCellBprop: the gate gradients `dgates` [batch, 4 * cell] (in `layout`),
/// `cs_prev_grad` [batch, cell], and with use_peephole the batch sums of di * cs_prev, df *
/// cs_prev and do * cs, each summed over the batch first and then added to `wci_grad`,
/// `wcf_grad`, `wco_grad` (left alone otherwise). The clip of cs passes the gradient
/// unchanged, as TensorFlow's.
inline void lstm_step_backward(const CellShape& s, GateLayout layout, bool use_peephole,
                               const LstmStepGradInputs& g, float* dgates, float* cs_prev_grad,
                               float* wci_grad, float* wcf_grad, float* wco_grad) {
  const Index c = s.cell, width = 4 * c;
  const Index c_off = gate_c_offset(layout, c), f_off = gate_f_offset(layout, c);
  std::vector<float> sums(use_peephole ? static_cast<std::size_t>(3 * c) : 0, 0.0f);
  float *wci_sum = sums.data(), *wcf_sum = wci_sum + c, *wco_sum = wcf_sum + c;
  for (Index r = 0; r < s.batch; ++r) {
    const Index at = r * c;
    const float *i = g.i + at, *cs = g.cs + at, *f = g.f + at, *o = g.o + at;
    const float *ci = g.ci + at, *co = g.co + at, *cs_prev = g.in.cs_prev + at;
    const float *cs_grad = g.cs_grad + at, *h_grad = g.h_grad + at;
    float* dg = dgates + r * width;
    float* dcs_prev = cs_prev_grad + at;
    for (Index j = 0; j < c; ++j) {
      const float d_o = o[j] * (1.0f - o[j]) * h_grad[j] * co[j];
      float dcs = (1.0f - co[j] * co[j]) * h_grad[j] * o[j] + cs_grad[j];
      if (use_peephole) dcs = dcs + d_o * g.in.wco[j];
      const float dci = (1.0f - ci[j] * ci[j]) * dcs * i[j];
      const float df = f[j] * (1.0f - f[j]) * dcs * cs_prev[j];
      const float di = i[j] * (1.0f - i[j]) * dcs * ci[j];
      dg[j] = di;
      dg[c_off + j] = dci;
      dg[f_off + j] = df;
      dg[3 * c + j] = d_o;
      dcs_prev[j] = dcs * f[j];
      if (use_peephole) {
        dcs_prev[j] = dcs_prev[j] + di * g.in.wci[j] + df * g.in.wcf[j];
        wci_sum[j] += di * cs_prev[j];
        wcf_sum[j] += df * cs_prev[j];
        wco_sum[j] += d_o * cs[j];
      }
    }
  }
  if (!use_peephole) return;
  for (Index j = 0; j < c; ++j) {
    wci_grad[j] += wci_sum[j];
    wcf_grad[j] += wcf_sum[j];
    wco_grad[j] += wco_sum[j];
  }
}

/// The inputs of one GRU step.
struct GruStepInputs {
  const float* x;       ///< [batch, input]
  const float* h_prev;  ///< [batch, cell]
  const float* w_ru;    ///< [input + cell, 2 * cell]
  const float* w_c;     ///< [input + cell, cell]
  const float* b_ru;    ///< [2 * cell]
  const float* b_c;     ///< [cell]
};

/// GRUBlockCellFprop: [r_bar u_bar] = [x, h_prev] * w_ru + b_ru, r = sigmoid(r_bar), u =
/// sigmoid(u_bar), c = tanh([x, h_prev * r] * w_c + b_c), h = u * (h_prev - c) + c; each
/// output [batch, cell].
inline void gru_step_forward(const OpKernelContext& ctx, const CellShape& s,
                             const GruStepInputs& in, float* r, float* u, float* c, float* h) {
  const Index n = s.cell, width = s.input + n;
  std::vector<float> xh(static_cast<std::size_t>(s.batch * width));
  std::vector<float> ru(static_cast<std::size_t>(s.batch * 2 * n));
  concat_rows(s, in.x, in.h_prev, xh.data());
  gemm(ctx, xh.data(), in.w_ru, ru.data(), s.batch, 2 * n, width, false, false);
  for (Index row = 0; row < s.batch; ++row) {
    float* g = ru.data() + row * 2 * n;
    for (Index j = 0; j < 2 * n; ++j) g[j] += in.b_ru[j];
    sigmoid_in_place(g, 2 * n);
    std::copy_n(g, n, r + row * n);
    std::copy_n(g + n, n, u + row * n);
    // x_h_prevr = [x, h_prev * r]
    for (Index j = 0; j < n; ++j)
      xh[static_cast<std::size_t>(row * width + s.input + j)] =
          in.h_prev[row * n + j] * r[row * n + j];
  }
  gemm(ctx, xh.data(), in.w_c, c, s.batch, n, width, false, false);
  for (Index row = 0; row < s.batch; ++row) {
    float* cr = c + row * n;
    for (Index j = 0; j < n; ++j) cr[j] += in.b_c[j];
    tanh_in_place(cr, n);
    for (Index j = 0; j < n; ++j)
      h[row * n + j] = u[row * n + j] * (in.h_prev[row * n + j] - cr[j]) + cr[j];
  }
}

/// GRUBlockCellBprop: d_c_bar = d_h * (1 - u) * (1 - c * c), d_u_bar = d_h * (h_prev - c) * u *
/// (1 - u), d_r_bar = (d_hr * h_prev * r) * (1 - r) with [., d_hr] = d_c_bar * w_c^T; d_x and
/// d_h_prev through both products; `d_r_bar_u_bar` is [batch, 2 * cell].
inline void gru_step_backward(const OpKernelContext& ctx, const CellShape& s,
                              const GruStepInputs& in, const float* r, const float* u,
                              const float* c, const float* d_h, float* d_x, float* d_h_prev,
                              float* d_c_bar, float* d_r_bar_u_bar) {
  const Index n = s.cell, width = s.input + n;
  for (Index k = 0; k < s.batch * n; ++k) {
    const Index row = k / n, j = k % n;
    d_c_bar[k] = (d_h[k] * (1.0f - u[k])) * (1.0f - c[k] * c[k]);
    d_r_bar_u_bar[row * 2 * n + n + j] = d_h[k] * (in.h_prev[k] - c[k]) * u[k] * (1.0f - u[k]);
  }
  std::vector<float> comp2(static_cast<std::size_t>(s.batch * width));
  gemm(ctx, d_c_bar, in.w_c, comp2.data(), s.batch, width, n, false, true);
  for (Index k = 0; k < s.batch * n; ++k) {
    const Index row = k / n, j = k % n;
    const float d_hr = comp2[static_cast<std::size_t>(row * width + s.input + j)];
    d_r_bar_u_bar[row * 2 * n + j] = (d_hr * in.h_prev[k] * r[k]) * (1.0f - r[k]);
  }
  std::vector<float> comp1(static_cast<std::size_t>(s.batch * width));
  gemm(ctx, d_r_bar_u_bar, in.w_ru, comp1.data(), s.batch, width, 2 * n, false, true);
  for (Index row = 0; row < s.batch; ++row) {
    const float* c1 = comp1.data() + row * width;
    const float* c2 = comp2.data() + row * width;
    for (Index j = 0; j < s.input; ++j) d_x[row * s.input + j] = c1[j] + c2[j];
    for (Index j = 0; j < n; ++j) {
      const Index k = row * n + j;
      d_h_prev[k] = c1[s.input + j] + (c2[s.input + j] * r[k]) + (d_h[k] * u[k]);
    }
  }
}

}  // namespace af::detail::rnn
