// MatrixBandPart, MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3}, MatrixSetDiag{,V2,V3}, Diag and
// DiagPart: CPU kernels with TensorFlow's checks and messages (matrix_band_part_op.cc,
// matrix_diag_op.cc, matrix_set_diag_op.cc, diag_op.cc). They move elements without reading
// them, so each is instantiated once per element size. Their definitions are in
// ops/src/defs/matrix_diag_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::elements;
using detail::Index;
using detail::index_values;
using detail::StatusKernel;
using detail::visit_storage;

// The types TensorFlow registers the band and diagonal kernels for (TF_CALL_POD_TYPES: every
// number and bool).
const std::vector<DType> kPodTypes =
    detail::dtypes_of(detail::Concat<detail::NumberTypes, detail::TypeList<bool>>{});
// Diag and DiagPart: TensorFlow's CPU kernels take these.
const std::vector<DType> kDiagTypes = {DType::float32, DType::float64,   DType::int32,
                                       DType::int64,   DType::complex64, DType::complex128,
                                       DType::float16};

// The rows and columns of the innermost matrices of a tensor of rank >= 2, and how many.
struct MatrixDims {
  Index batch = 0, rows = 0, cols = 0;
};

MatrixDims matrix_dims(const Shape& s) {
  const int rank = s.rank();
  MatrixDims m{1, s.dim(rank - 2), s.dim(rank - 1)};
  for (int i = 0; i < rank - 2; ++i) m.batch *= s.dim(i);
  return m;
}

// -- MatrixBandPart -------------------------------------------------------------------------

// MatrixBandPart(input, num_lower, num_upper): input[..., i, j] where (num_lower < 0 or
// i - j <= num_lower) and (num_upper < 0 or j - i <= num_upper), zeros elsewhere.
class MatrixBandPartOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() < 2)
      return invalid_argument("input must be at least 2-dim, received shape: " +
                              input.shape().to_string());
    const MatrixDims m = matrix_dims(input.shape());
    const Tensor& lower_t = ctx.input(1);
    if (lower_t.rank() != 0)
      return invalid_argument("num_lower must be scalar, got shape " + lower_t.shape().to_string());
    const Index num_lower = index_values(lower_t)[0];
    if (num_lower > m.rows)
      return invalid_argument("num_lower must be negative or less or equal to number of rows (" +
                              std::to_string(m.rows) + ") got: " + std::to_string(num_lower));
    const Tensor& upper_t = ctx.input(2);
    if (upper_t.rank() != 0)
      return invalid_argument("num_upper must be scalar, got shape " + upper_t.shape().to_string());
    const Index num_upper = index_values(upper_t)[0];
    if (num_upper > m.cols)
      return invalid_argument("num_upper must be negative or less or equal to number of columns (" +
                              std::to_string(m.cols) + ") got: " + std::to_string(num_upper));
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    if (input.num_elements() == 0) return {};
    visit_storage(input.dtype(), [&]<class E>(E) {
      const E* in = elements<E>(input);
      E* o = elements<E>(out);
      for (Index b = 0; b < m.batch; ++b)
        for (Index i = 0; i < m.rows; ++i)
          for (Index j = 0; j < m.cols; ++j) {
            const Index at = (b * m.rows + i) * m.cols + j;
            const bool in_band =
                (num_lower < 0 || i - j <= num_lower) && (num_upper < 0 || j - i <= num_upper);
            o[at] = in_band ? in[at] : E{};
          }
    });
    return {};
  }
};

// -- the diagonals of MatrixDiag, MatrixDiagPart and MatrixSetDiag --------------------------

// Which diagonals: k = lower..upper, and how the shorter ones sit in a row of the packed
// diagonals (attr align of the V3 ops; V1 and V2 align both kinds left).
struct Diagonals {
  Index lower = 0, upper = 0;
  bool left_super = true, left_sub = true;

  Index count() const { return upper - lower + 1; }
  // ComputeDiagLenAndContentOffset: the length of diagonal `d` of a rows x cols matrix and
  // where its first element sits in a row of length max_len.
  std::pair<Index, Index> length_and_offset(Index d, Index max_len, Index rows, Index cols) const {
    const bool left = (d >= 0 && left_super) || (d <= 0 && left_sub);
    const Index len = std::min(rows + std::min<Index>(0, d), cols - std::max<Index>(0, d));
    return {len, left ? 0 : max_len - len};
  }
};

// ReadAlignment: attr align of the V3 ops (absent: LEFT_LEFT).
void read_alignment(OpKernelConstruction& c, Diagonals* d) {
  std::string align;
  if (!c.get_attr("align", &align).ok()) return;
  d->left_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  d->left_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
}

// Input k (int32, a scalar or a vector of one or two values): the diagonals' range.
// `empty_message` is the text of the kernel at hand for an empty k.
Status read_diag_index(const Tensor& k, const char* empty_message, Diagonals* d) {
  if (k.rank() > 1)
    return invalid_argument("diag_index must be a scalar or vector, received shape: " +
                            k.shape().to_string());
  if (k.num_elements() == 0) return invalid_argument(empty_message);
  const std::vector<Index> values = index_values(k);
  d->lower = d->upper = values[0];
  if (k.rank() == 1) {
    if (values.size() > 2)
      return invalid_argument("diag_index must have only one or two elements, received " +
                              std::to_string(values.size()) + " elements.");
    if (values.size() > 1) d->upper = values[1];
  }
  return {};
}

// The checks MatrixDiagPart and MatrixSetDiag share: the range within a rows x cols matrix.
Status check_diag_range(const Diagonals& d, Index rows, Index cols, const char* lower_sep) {
  if (!((-rows < d.lower && d.lower < cols) || d.lower == 0))
    return invalid_argument("lower_diag_index is out of bound: " + std::to_string(d.lower) +
                            lower_sep + "It must be between " + std::to_string(-rows) + " and " +
                            std::to_string(cols));
  if (!((-rows < d.upper && d.upper < cols) || d.upper == 0))
    return invalid_argument("upper_diag_index is out of bound: " + std::to_string(d.upper) +
                            " It must be between " + std::to_string(-rows) + " and " +
                            std::to_string(cols));
  if (d.lower > d.upper)
    return invalid_argument("lower_diag_index must not be larger than upper_diag_index: " +
                            std::to_string(d.lower) + " > " + std::to_string(d.upper));
  return {};
}

// The shape of the packed diagonals d of `input` (rank >= 2, `m` its matrices): its batch
// dimensions, the number of diagonals where there are several, and `*max_len`, the longest's
// length.
Shape packed_shape(const Shape& input, const MatrixDims& m, const Diagonals& d, Index* max_len) {
  std::vector<std::int64_t> dims = input.dims();
  dims.resize(dims.size() - 2);
  if (d.count() > 1) dims.push_back(d.count());
  *max_len = std::min(m.rows + std::min<Index>(d.upper, 0), m.cols - std::max<Index>(d.lower, 0));
  dims.push_back(*max_len);
  return Shape(dims);
}

// Calls `f(first, row, offset, len)` for each diagonal d of each of the `m.batch` matrices, in
// packed order: `first` the index of its first element in the matrices (the next ones follow
// every m.cols + 1), `row` the start of its row of the packed diagonals, `offset` where it
// sits in that row and `len` its length.
template <class F>
void for_each_diagonal(const MatrixDims& m, const Diagonals& d, Index max_len, F&& f) {
  Index base = 0;
  for (Index b = 0; b < m.batch; ++b)
    for (Index k = 0; k < d.count(); ++k, base += max_len) {
      const Index diag = d.upper - k;
      const Index y = std::max<Index>(0, -diag), x = std::max<Index>(0, diag);
      const auto [len, offset] = d.length_and_offset(diag, max_len, m.rows, m.cols);
      f(b * m.rows * m.cols + y * m.cols + x, base, offset, len);
    }
}

// The kernels of the diagonals: attr align read at construction.
class DiagonalsKernel : public StatusKernel {
 public:
  DiagonalsKernel(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    read_alignment(c, &diags_);
    *s = {};
  }

 protected:
  Diagonals diags_;
};

// MatrixDiagPart(input), MatrixDiagPartV2/V3(input, k, padding_value): the diagonals k of
// each innermost matrix, packed one row each (upper first), shorter ones padded.
class MatrixDiagPartOp : public DiagonalsKernel {
 public:
  using DiagonalsKernel::DiagonalsKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Diagonals d = diags_;
    const Tensor* padding = nullptr;
    if (ctx.num_inputs() > 1) {
      ACTORFLOW_RETURN_IF_ERROR(
          read_diag_index(ctx.input(1), "Expected diag_index to have at least 1 element", &d));
      padding = &ctx.input(2);
      if (padding->rank() != 0) return invalid_argument("Padding must be scalar.");
    }
    if (input.rank() < 2)
      return invalid_argument("input must be at least 2-dim, received shape: " +
                              input.shape().to_string());
    const MatrixDims m = matrix_dims(input.shape());
    ACTORFLOW_RETURN_IF_ERROR(check_diag_range(d, m.rows, m.cols, ". "));
    Index max_len = 0;
    Tensor& out =
        ctx.allocate_output(0, input.dtype(), packed_shape(input.shape(), m, d, &max_len));
    if (out.num_elements() == 0) return {};
    visit_storage(input.dtype(), [&]<class E>(E) {
      const E pad = padding ? elements<E>(*padding)[0] : E{};
      const E* in = elements<E>(input);
      E* o = elements<E>(out);
      for_each_diagonal(m, d, max_len, [&](Index first, Index row, Index offset, Index len) {
        for (Index n = 0; n < max_len; ++n) o[row + n] = pad;
        for (Index n = 0; n < len; ++n) o[row + offset + n] = in[first + n * (m.cols + 1)];
      });
    });
    return {};
  }
};

// MatrixDiag(diagonal), MatrixDiagV2/V3(diagonal, k, num_rows, num_cols, padding_value):
// matrices holding the packed diagonals k, padding_value elsewhere.
class MatrixDiagOp : public DiagonalsKernel {
 public:
  using DiagonalsKernel::DiagonalsKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& diagonal = ctx.input(0);
    Diagonals d = diags_;
    Index num_rows = -1, num_cols = -1;
    const Tensor* padding = nullptr;
    if (ctx.num_inputs() > 1) {
      ACTORFLOW_RETURN_IF_ERROR(
          read_diag_index(ctx.input(1), "Expected diag_index to have at least 1 element", &d));
      if (ctx.input(2).rank() != 0) return invalid_argument("num_rows must be a scalar");
      if (ctx.input(3).rank() != 0) return invalid_argument("num_cols must be a scalar");
      padding = &ctx.input(4);
      if (padding->rank() != 0) return invalid_argument("padding_value must be a scalar");
      num_rows = index_values(ctx.input(2))[0];
      num_cols = index_values(ctx.input(3))[0];
    }
    const int rank = diagonal.rank();
    if (rank < 1)
      return invalid_argument("diagonal must be at least 1-dim, received shape: " +
                              diagonal.shape().to_string());
    if (d.lower > d.upper)
      return invalid_argument("lower_diag_index must not be larger than upper_diag_index: " +
                              std::to_string(d.lower) + " > " + std::to_string(d.upper));
    // TensorFlow reads dimension -2 of a vector here and aborts; a vector holds one diagonal.
    if (d.lower != d.upper && (rank < 2 || diagonal.shape().dim(rank - 2) != d.count()))
      return invalid_argument(
          "The number of diagonals provided in the input does not match the lower_diag_index "
          "and upper_diag_index range.");
    const Index max_len = diagonal.shape().dim(rank - 1);
    const Index min_rows = max_len - std::min<Index>(d.upper, 0);
    const Index min_cols = max_len + std::max<Index>(d.lower, 0);
    if (num_rows != -1 && num_rows < min_rows)
      return invalid_argument("The number of rows is too small.");
    if (num_cols != -1 && num_cols < min_cols)
      return invalid_argument("The number of columns is too small.");
    if (num_rows == -1 && num_cols == -1) {
      num_rows = num_cols = std::max(min_rows, min_cols);
    } else if (num_rows == -1) {
      num_rows = min_rows;
    } else if (num_cols == -1) {
      num_cols = min_cols;
    }
    if (num_rows != min_rows && num_cols != min_cols)
      return invalid_argument(
          "The number of rows or columns is not consistent with the specified d_lower, d_upper, "
          "and diagonal.");
    std::vector<std::int64_t> dims = diagonal.shape().dims();
    if (d.count() == 1) {
      dims.back() = num_rows;
      dims.push_back(num_cols);
    } else {
      dims[dims.size() - 2] = num_rows;
      dims.back() = num_cols;
    }
    Tensor& out = ctx.allocate_output(0, diagonal.dtype(), Shape(dims));
    if (out.num_elements() == 0) return {};
    const Index batch = out.num_elements() / (num_rows * num_cols);
    visit_storage(diagonal.dtype(), [&]<class E>(E) {
      const E pad = padding ? elements<E>(*padding)[0] : E{};
      const E* in = elements<E>(diagonal);
      E* o = elements<E>(out);
      for (Index b = 0; b < batch; ++b) {
        const E* packed = in + b * d.count() * max_len;
        for (Index i = 0; i < num_rows; ++i)
          for (Index j = 0; j < num_cols; ++j) {
            const Index diag = j - i;
            E& at = o[(b * num_rows + i) * num_cols + j];
            if (diag < d.lower || diag > d.upper) {
              at = pad;
              continue;
            }
            const Index offset = d.length_and_offset(diag, max_len, num_rows, num_cols).second;
            at = packed[(d.upper - diag) * max_len + j - std::max<Index>(diag, 0) + offset];
          }
      }
    });
    return {};
  }
};

// MatrixSetDiag(input, diagonal), MatrixSetDiagV2/V3(input, diagonal, k): input with its
// diagonals k replaced by the packed `diagonal`.
class MatrixSetDiagOp : public DiagonalsKernel {
 public:
  using DiagonalsKernel::DiagonalsKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& diagonal = ctx.input(1);
    Diagonals d = diags_;
    if (ctx.num_inputs() > 2)
      ACTORFLOW_RETURN_IF_ERROR(
          read_diag_index(ctx.input(2), "diag_index must have at least one element", &d));
    const int rank = input.rank();
    if (rank < 2)
      return invalid_argument("input must be at least 2-dim, received shape: " +
                              input.shape().to_string());
    if (diagonal.rank() < 1)
      return invalid_argument("diagonal must be at least 1-dim, received shape: " +
                              diagonal.shape().to_string());
    const MatrixDims m = matrix_dims(input.shape());
    ACTORFLOW_RETURN_IF_ERROR(check_diag_range(d, m.rows, m.cols, " "));
    if (d.lower != d.upper &&
        (diagonal.rank() < rank - 1 || diagonal.shape().dim(rank - 2) != d.count()))
      return invalid_argument(
          "The number of diagonals provided in `diag` is not consistent with `lower_diag_index` "
          "and `upper_diag_index`");
    Index max_len = 0;
    const Shape expected = packed_shape(input.shape(), m, d, &max_len);
    if (expected != diagonal.shape())
      return invalid_argument(
          "Either first dimensions of diagonal don't match input.shape[:-2], or "
          "diagonal.shape[:-1] is not equal to the longests diagonal in range "
          "[lower_diag_index:upper_diag_index].\nInput shape: " +
          input.shape().to_string() + "\nDiagonal shape: " + diagonal.shape().to_string() +
          "\nExpected diagonal shape: " + expected.to_string());
    if (input.num_elements() == 0) {
      ctx.set_output(0, input);
      return {};
    }
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    detail::copy_elements(input, 0, out, 0, input.num_elements());
    visit_storage(input.dtype(), [&]<class E>(E) {
      const E* packed = elements<E>(diagonal);
      E* o = elements<E>(out);
      for_each_diagonal(m, d, max_len, [&](Index first, Index row, Index offset, Index len) {
        for (Index n = 0; n < len; ++n) o[first + n * (m.cols + 1)] = packed[row + offset + n];
      });
    });
    return {};
  }
};

// -- Diag, DiagPart -------------------------------------------------------------------------

// Diag(diagonal): a tensor of shape diagonal.shape + diagonal.shape holding diagonal[i...]
// at [i..., i...], zeros elsewhere.
class DiagOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& diagonal = ctx.input(0);
    if (diagonal.rank() == 0) return invalid_argument("Input must be at least rank 1, got 0");
    std::vector<std::int64_t> dims = diagonal.shape().dims();
    const std::vector<std::int64_t> half = dims;
    dims.insert(dims.end(), half.begin(), half.end());
    Tensor& out = ctx.allocate_output(0, diagonal.dtype(), Shape(dims));
    const Index n = diagonal.num_elements();
    visit_storage(diagonal.dtype(), [&]<class E>(E) {
      const E* in = elements<E>(diagonal);
      E* o = elements<E>(out);
      std::fill(o, o + n * n, E{});
      for (Index i = 0; i < n; ++i) o[i * (n + 1)] = in[i];
    });
    return {};
  }
};

// DiagPart(input): of an input of shape s + s, the tensor of shape s holding input[i..., i...].
class DiagPartOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int rank = input.rank();
    if (rank % 2 != 0)
      return invalid_argument("The rank of the tensor should be even and positive, got shape " +
                              input.shape().to_string());
    const int half = rank / 2;
    for (int i = 0; i < half; ++i)
      if (input.shape().dim(i) != input.shape().dim(i + half))
        return invalid_argument("Invalid shape " + input.shape().to_string() + ": dimensions " +
                                std::to_string(i) + " and " + std::to_string(i + half) +
                                " do not match.");
    std::vector<std::int64_t> dims = input.shape().dims();
    dims.resize(static_cast<std::size_t>(half));
    Tensor& out = ctx.allocate_output(0, input.dtype(), Shape(dims));
    const Index n = out.num_elements();
    visit_storage(input.dtype(), [&]<class E>(E) {
      const E* in = elements<E>(input);
      E* o = elements<E>(out);
      for (Index i = 0; i < n; ++i) o[i] = in[i * (n + 1)];
    });
    return {};
  }
};

}  // namespace

namespace detail {

void register_matrix_diag_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<MatrixBandPartOp>("MatrixBandPart", "CPU",
                                          {{"T", kPodTypes}, {"Tindex", kIndexTypes}}));
  for (const char* type : {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"})
    r.add(make_kernel_def<MatrixDiagOp>(type, "CPU", {{"T", kPodTypes}}));
  for (const char* type : {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"})
    r.add(make_kernel_def<MatrixDiagPartOp>(type, "CPU", {{"T", kPodTypes}}));
  for (const char* type : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"})
    r.add(make_kernel_def<MatrixSetDiagOp>(type, "CPU", {{"T", kPodTypes}}));
  r.add(make_kernel_def<DiagOp>("Diag", "CPU", {{"T", kDiagTypes}}));
  r.add(make_kernel_def<DiagPartOp>("DiagPart", "CPU", {{"T", kDiagTypes}}));
}

}  // namespace detail

}  // namespace af
