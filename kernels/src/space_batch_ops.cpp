// SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth and DepthToSpace:
// CPU kernels with TensorFlow's checks and messages (spacetobatch_op.cc, batchtospace_op.cc,
// spacetobatch_functor.cc, spacetodepth_op.cc, depthtospace_op.cc). They move elements
// without reading them, so every dtype shares one instantiation per element size. Their
// definitions are in ops/src/defs/space_batch_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::copy_elements;
using detail::elements;
using detail::Index;
using detail::index_values;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::StatusKernel;
using detail::visit_storage;

// Inputs holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

// kMaxSpaceToBatchBlockDims: the block dimensions left once the leading and trailing ones
// without padding (cropping) and of block size 1 are folded into the batch and the depth.
constexpr int kMaxBlockDims = 4;

// The real number types TensorFlow registers SpaceToBatch(ND) and BatchToSpace(ND) for
// (TF_CALL_REAL_NUMBER_TYPES): no bool or string.
const std::vector<DType> kRealNumberTypes = detail::dtypes_of(detail::RealNumberTypes{});

// TensorFlow's MultiplyWithoutOverflow: x * y for non-negative x and y, -1 when either is
// negative or the product leaves uint64 (a product past int64 but within uint64 comes out
// negative, as TensorFlow's does).
Index multiply_without_overflow(Index x, Index y) {
  if (x < 0 || y < 0) return -1;
  if (x == 0) return 0;
  const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
  const std::uint64_t product = ux * uy;
  if (((ux | uy) >> 32) != 0 && product / ux != uy) return -1;
  return static_cast<Index>(product);
}

// x * y with int64's wrap-around (TensorFlow multiplies BatchToSpace's block sizes unchecked).
Index wrapping_multiply(Index x, Index y) {
  return static_cast<Index>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
}

// How a SpaceToBatch or BatchToSpace kernel walks its tensors: the space tensor (SpaceToBatch's
// input, BatchToSpace's output) and the batch tensor seen as [batch] + the internal block
// dimensions + [depth], the leading block dimensions that need no work folded into the batch
// and the trailing ones into the depth.
struct BlockWalk {
  Index space_batch = 0;          // the space tensor's folded batch
  std::vector<Index> space_dims;  // its internal block dimensions
  Index batch_batch = 0;          // the batch tensor's folded batch
  std::vector<Index> batch_dims;  // its internal block dimensions
  std::vector<Index> block;       // the internal block sizes
  std::vector<Index> start;       // the paddings (crops) before each internal dimension
  Index depth = 1;                // the folded trailing dimensions
};

// The leading and trailing block dimensions with neither padding (cropping) nor a block size
// other than 1, which TensorFlow folds into the batch and the depth.
void removable_block_dims(const std::vector<Index>& block, const std::vector<Index>& pads,
                          int* prefix, int* suffix) {
  const int block_dims = static_cast<int>(block.size());
  auto plain = [&](int dim) {
    const auto d = static_cast<std::size_t>(dim);
    return pads[2 * d] == 0 && pads[2 * d + 1] == 0 && block[d] == 1;
  };
  *prefix = 0;
  while (*prefix < block_dims && plain(*prefix)) ++*prefix;
  *suffix = 0;
  while (*suffix < block_dims - *prefix && plain(block_dims - 1 - *suffix)) ++*suffix;
}

// SpaceToBatchFunctor's walk: calls `row(space_row, batch_row)` for each row of `depth`
// elements of the batch tensor that lies inside the space tensor, with the space tensor's
// row it corresponds to. SpaceToBatch copies those rows into the batch tensor (the rest is
// padding: zero), BatchToSpace copies them back (the rest is cropped away).
template <class Row>
void for_each_block_row(const BlockWalk& w, Row&& row) {
  const std::size_t n = w.block.size();
  Index rows_per_batch = 1;
  for (Index d : w.batch_dims) rows_per_batch *= d;
  std::vector<Index> offsets(n), pos(n);
  for (Index batch_b = 0; batch_b < w.batch_batch; ++batch_b) {
    // Output batch (o * space_batch + b) holds block offset o (row-major) of batch b.
    const Index space_b = batch_b % w.space_batch;
    Index block_index = batch_b / w.space_batch;
    for (std::size_t k = n; k-- > 0;) {
      offsets[k] = k > 0 ? block_index % w.block[k] : block_index;
      block_index /= w.block[k];
    }
    std::fill(pos.begin(), pos.end(), Index{0});
    for (Index r = 0; r < rows_per_batch; ++r) {
      bool inside = true;
      Index space_row = space_b;
      for (std::size_t k = 0; k < n; ++k) {
        const Index at = pos[k] * w.block[k] + offsets[k] - w.start[k];
        if (at < 0 || at >= w.space_dims[k]) {
          inside = false;
          break;
        }
        space_row = space_row * w.space_dims[k] + at;
      }
      if (inside) row(space_row, batch_b * rows_per_batch + r);
      for (std::size_t k = n; k-- > 0;) {
        if (++pos[k] < w.batch_dims[k]) break;
        pos[k] = 0;
      }
    }
  }
}

// The checks of block_shape and of paddings (crops, `what`) both directions start with; the
// values in `*block` and `*pads`.
Status read_block_inputs(const Tensor& input, const Tensor& block_shape, const Tensor& pads_tensor,
                         const char* what, std::vector<Index>* block, std::vector<Index>* pads) {
  if (block_shape.rank() != 1)
    return invalid_argument("block_shape rank should be 1 instead of " +
                            std::to_string(block_shape.rank()));
  const Index block_dims = block_shape.shape().dim(0);
  if (input.rank() < 1 + block_dims)
    return invalid_argument("input rank should be >= " + std::to_string(1 + block_dims) +
                            " instead of " + std::to_string(input.rank()));
  if (!(pads_tensor.rank() == 2 && pads_tensor.shape().dim(0) == block_dims &&
        pads_tensor.shape().dim(1) == 2))
    return invalid_argument(std::string(what) + " should have shape [" +
                            std::to_string(block_dims) + ", 2] instead of " +
                            pads_tensor.shape().to_string());
  *block = index_values(block_shape);
  *pads = index_values(pads_tensor);
  return {};
}

// "Maximum number of non-combined block dimensions is 5 but must not exceed 4".
Status check_internal_dims(int internal) {
  if (internal > kMaxBlockDims)
    return invalid_argument("Maximum number of non-combined block dimensions is " +
                            std::to_string(internal) + " but must not exceed " +
                            std::to_string(kMaxBlockDims));
  return {};
}

// SpaceToBatchOpCompute: `input` zero-padded by `paddings_tensor` in its block dimensions and
// its blocks of `block_shape` moved into the batch.
Status space_to_batch(OpKernelContext& ctx, const Tensor& input, const Tensor& block_shape,
                      const Tensor& paddings_tensor) {
  std::vector<Index> block, pads;
  ACTORFLOW_RETURN_IF_ERROR(
      read_block_inputs(input, block_shape, paddings_tensor, "paddings", &block, &pads));
  const int block_dims = static_cast<int>(block.size());
  int prefix = 0, suffix = 0;
  removable_block_dims(block, pads, &prefix, &suffix);
  Index product = 1;
  for (int d = 0; d < block_dims; ++d) {
    const Index v = block[static_cast<std::size_t>(d)];
    if (v < 1)
      return invalid_argument("All values in block_shape must be positive, got value, " +
                              std::to_string(v) + " at index " + std::to_string(d) + ".");
    product = multiply_without_overflow(product, v);
  }
  if (product <= 0)
    return invalid_argument("Product of block sizes must be positive, got " +
                            std::to_string(product));
  const int internal = block_dims - prefix - suffix;
  ACTORFLOW_RETURN_IF_ERROR(check_internal_dims(internal));
  if (internal == 0) {
    ctx.set_output(0, input);
    return {};
  }
  const Shape& in = input.shape();
  const Index out_batch = multiply_without_overflow(in.dim(0), product);
  if (out_batch < 0)
    return invalid_argument("Negative output dimension size caused by overflow when multiplying " +
                            std::to_string(in.dim(0)) + " and " + std::to_string(product));
  std::vector<std::int64_t> out_dims{out_batch};
  BlockWalk w;
  w.space_batch = in.dim(0);
  for (int d = 0; d < prefix; ++d) {
    w.space_batch *= in.dim(d + 1);
    out_dims.push_back(in.dim(d + 1));
  }
  w.batch_batch = w.space_batch * product;
  for (int d = prefix; d < block_dims - suffix; ++d) {
    const auto u = static_cast<std::size_t>(d);
    const Index pad_start = pads[2 * u], pad_end = pads[2 * u + 1];
    if (pad_start < 0 || pad_end < 0) return invalid_argument("Paddings must be non-negative");
    const Index size = in.dim(d + 1);
    const Index padded = size + pad_start + pad_end;
    if (padded % block[u] != 0)
      return invalid_argument("padded_shape[" + std::to_string(d) + "]=" + std::to_string(padded) +
                              " is not divisible by block_shape[" + std::to_string(d) +
                              "]=" + std::to_string(block[u]));
    w.space_dims.push_back(size);
    w.batch_dims.push_back(padded / block[u]);
    w.block.push_back(block[u]);
    w.start.push_back(pad_start);
    out_dims.push_back(padded / block[u]);
  }
  for (int d = block_dims - suffix + 1; d < input.rank(); ++d) {
    out_dims.push_back(in.dim(d));
    w.depth *= in.dim(d);
  }
  Tensor& out = ctx.allocate_output(0, input.dtype(), Shape(std::move(out_dims)));
  if (out.num_elements() == 0) return {};
  visit_storage(input.dtype(), [&](auto tag) {
    using E = decltype(tag);
    const E* from = elements<E>(input);
    E* to = elements<E>(out);
    std::fill_n(to, out.num_elements(), E{});
    if (input.num_elements() == 0) return;
    for_each_block_row(w, [&](Index space_row, Index batch_row) {
      std::copy_n(from + space_row * w.depth, w.depth, to + batch_row * w.depth);
    });
  });
  return {};
}

// BatchToSpaceOpCompute: the blocks of `block_shape` in `input`'s batch moved back into its
// block dimensions, which are then cropped by `crops_tensor`.
Status batch_to_space(OpKernelContext& ctx, const Tensor& input, const Tensor& block_shape,
                      const Tensor& crops_tensor) {
  std::vector<Index> block, crops;
  ACTORFLOW_RETURN_IF_ERROR(
      read_block_inputs(input, block_shape, crops_tensor, "crops", &block, &crops));
  const int block_dims = static_cast<int>(block.size());
  int prefix = 0, suffix = 0;
  removable_block_dims(block, crops, &prefix, &suffix);
  Index product = 1;
  for (Index v : block) product = wrapping_multiply(product, v);
  if (product <= 0)
    return invalid_argument("Product of block sizes must be positive, got " +
                            std::to_string(product));
  const Shape& in = input.shape();
  if (in.dim(0) % product != 0)
    return invalid_argument("Input batch dimension (" + std::to_string(in.dim(0)) +
                            ") is not divisible by product of block sizes (" +
                            std::to_string(product) + ")");
  const int internal = block_dims - prefix - suffix;
  ACTORFLOW_RETURN_IF_ERROR(check_internal_dims(internal));
  if (internal == 0) {
    ctx.set_output(0, input);
    return {};
  }
  std::vector<std::int64_t> out_dims{in.dim(0) / product};
  BlockWalk w;
  w.batch_batch = in.dim(0);
  for (int d = 0; d < prefix; ++d) {
    w.batch_batch *= in.dim(d + 1);
    out_dims.push_back(in.dim(d + 1));
  }
  w.space_batch = w.batch_batch / product;
  for (int d = prefix; d < block_dims - suffix; ++d) {
    const auto u = static_cast<std::size_t>(d);
    const Index crop_start = crops[2 * u], crop_end = crops[2 * u + 1];
    if (crop_start < 0 || crop_end < 0) return invalid_argument("Crops must be non-negative");
    const Index size = in.dim(d + 1);
    const Index cropped = wrapping_multiply(size, block[u]) - crop_start - crop_end;
    if (cropped < 0)
      return invalid_argument("cropped_shape[" + std::to_string(d) +
                              "]=" + std::to_string(cropped) + " must be non-negative");
    w.batch_dims.push_back(size);
    w.space_dims.push_back(cropped);
    w.block.push_back(block[u]);
    w.start.push_back(crop_start);
    out_dims.push_back(cropped);
  }
  for (int d = block_dims - suffix + 1; d < input.rank(); ++d) {
    out_dims.push_back(in.dim(d));
    w.depth *= in.dim(d);
  }
  Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), Shape(std::move(out_dims)));
  if (out.num_elements() == 0 || input.num_elements() == 0) return {};
  visit_storage(input.dtype(), [&](auto tag) {
    using E = decltype(tag);
    const E* from = elements<E>(input);
    E* to = elements<E>(out);
    for_each_block_row(w, [&](Index space_row, Index batch_row) {
      std::copy_n(from + batch_row * w.depth, w.depth, to + space_row * w.depth);
    });
  });
  return {};
}

// A kernel that moves blocks: worth a pool thread for large inputs.
class BlockKernel : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }
};

// SpaceToBatchND(input, block_shape, paddings) and BatchToSpaceND(input, block_shape, crops);
// SpaceToBatch(input, paddings; block_size) and BatchToSpace(input, crops; block_size), the
// legacy 4-D forms, with block_shape [block_size, block_size].
class SpaceBatchOp : public BlockKernel {
 public:
  SpaceBatchOp(OpKernelConstruction& c, Status* s) : BlockKernel(c) {
    const bool v1 = c.def.op == "SpaceToBatch" || c.def.op == "BatchToSpace";
    to_batch_ = c.def.op == "SpaceToBatchND" || c.def.op == "SpaceToBatch";
    *s = {};
    if (!v1) return;
    std::int64_t block_size = 0;
    *s = c.get_attr("block_size", &block_size);
    if (!s->ok()) return;
    if (block_size <= 1) {
      *s = invalid_argument("Block size should be > 1: " + std::to_string(block_size));
      return;
    }
    block_shape_ = Tensor::from_vector(std::vector<std::int64_t>{block_size, block_size});
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (block_shape_.dtype() == DType::invalid) {
      return to_batch_ ? space_to_batch(ctx, input, ctx.input(1), ctx.input(2))
                       : batch_to_space(ctx, input, ctx.input(1), ctx.input(2));
    }
    // TensorFlow's message, the space missing.
    if (input.rank() != 4)
      return invalid_argument("Input rank should be: 4instead of: " + std::to_string(input.rank()));
    return to_batch_ ? space_to_batch(ctx, input, block_shape_, ctx.input(1))
                     : batch_to_space(ctx, input, block_shape_, ctx.input(1));
  }

  bool to_batch_ = true;
  Tensor block_shape_;  // the legacy ops' [block_size, block_size]; none for the ND ops
};

// SpaceToDepth(input; block_size, data_format) and DepthToSpace: NHWC only on the CPU.
class SpaceDepthOp : public BlockKernel {
 public:
  SpaceDepthOp(OpKernelConstruction& c, Status* s) : BlockKernel(c) {
    to_depth_ = c.def.op == "SpaceToDepth";
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC" && format != "NCHW" && format != "NCHW_VECT_C") {
      *s = invalid_argument("Invalid data format");
      return;
    }
    *s = c.get_attr("block_size", &block_size_);
    if (!s->ok()) return;
    // SpaceToDepth checks block_size before the format, DepthToSpace after it.
    if (to_depth_ && block_size_ <= 1) {
      *s = invalid_argument("Block size should be > 1, but was: " + std::to_string(block_size_));
      return;
    }
    if (format != "NHWC") {
      *s = invalid_argument("Only NHWC data_format supported on CPU. Got " + format);
      return;
    }
    if (!to_depth_ && block_size_ <= 1)
      *s = invalid_argument("Block size should be > 1: " + std::to_string(block_size_));
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4)
      return invalid_argument((to_depth_ ? "Input rank should be 4 instead of "
                                         : "Input rank should be: 4 instead of: ") +
                              std::to_string(input.rank()));
    const Shape& in = input.shape();
    const Index batch = in.dim(0), height = in.dim(1), width = in.dim(2), depth = in.dim(3);
    const Index bs = block_size_;
    if (to_depth_ && (width % bs != 0 || height % bs != 0))
      return invalid_argument("Image width " + std::to_string(width) + " and height " +
                              std::to_string(height) +
                              " should be divisible by block_size: " + std::to_string(bs));
    if (!to_depth_ && depth % (bs * bs) != 0)
      return invalid_argument("Input depth dimension " + std::to_string(depth) +
                              " should be divisible by: " + std::to_string(bs * bs));
    const Shape out_shape = to_depth_ ? Shape{batch, height / bs, width / bs, depth * bs * bs}
                                      : Shape{batch, height * bs, width * bs, depth / (bs * bs)};
    Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), out_shape);
    if (out.num_elements() == 0) return {};
    // The space side: rows of `space_depth` elements at each (b, h, w) of the larger image;
    // the depth side holds block position (h % bs, w % bs) of each at channel offset
    // ((h % bs) * bs + w % bs) * space_depth of pixel (b, h / bs, w / bs).
    const Shape& space = to_depth_ ? in : out_shape;
    const Index space_depth = space.dim(3), rows = space.dim(1), cols = space.dim(2);
    const Index depth_cols = cols / bs, depth_channels = space_depth * bs * bs;
    for (Index b = 0; b < batch; ++b)
      for (Index h = 0; h < rows; ++h)
        for (Index x = 0; x < cols; ++x) {
          const Index space_at = ((b * rows + h) * cols + x) * space_depth;
          const Index depth_at =
              ((b * (rows / bs) + h / bs) * depth_cols + x / bs) * depth_channels +
              ((h % bs) * bs + x % bs) * space_depth;
          if (to_depth_)
            copy_elements(input, space_at, out, depth_at, space_depth);
          else
            copy_elements(input, depth_at, out, space_at, space_depth);
        }
    return {};
  }

  bool to_depth_ = true;
  std::int64_t block_size_ = 0;
};

}  // namespace

namespace detail {

void register_space_batch_kernels(KernelRegistry& r) {
  // TF_CALL_REAL_NUMBER_TYPES: no bool or string.
  r.add(make_kernel_def<SpaceBatchOp>(
      "SpaceToBatchND", "CPU",
      {{"T", kRealNumberTypes}, {"Tblock_shape", kIndexTypes}, {"Tpaddings", kIndexTypes}}));
  r.add(make_kernel_def<SpaceBatchOp>(
      "BatchToSpaceND", "CPU",
      {{"T", kRealNumberTypes}, {"Tblock_shape", kIndexTypes}, {"Tcrops", kIndexTypes}}));
  r.add(make_kernel_def<SpaceBatchOp>("SpaceToBatch", "CPU",
                                      {{"T", kRealNumberTypes}, {"Tpaddings", kIndexTypes}}));
  r.add(make_kernel_def<SpaceBatchOp>("BatchToSpace", "CPU",
                                      {{"T", kRealNumberTypes}, {"Tidx", kIndexTypes}}));
  // TF_CALL_ALL_TYPES: every value type, bool and string included.
  r.add(make_kernel_def<SpaceDepthOp>("SpaceToDepth", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<SpaceDepthOp>("DepthToSpace", "CPU", {{"T", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
