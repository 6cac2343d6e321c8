// ParseExample, ParseExampleV2 and ParseSingleExample: CPU kernels reading serialized
// tf.train.Example protos (TensorFlow's example_parsing_ops.cc and
// util/example_proto_fast_parsing.cc, their checks and messages) in place, through the wire
// reader of example_wire.hpp (protobuf's generated code of formats/proto/actorflow/tf/example.proto
// only for what that reader refuses). Dense features (fixed shape, or a variable first
// dimension padded with the default) come out as one tensor each; sparse (var-len) features as
// indices, values and a dense shape. ParseSingleExample (TensorFlow 1.x's parse_single_example)
// holds its keys as attrs and names a feature by its key alone in its messages. Their definitions
// are in ops/src/defs/parse_example_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "example_wire.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// The name of the list an Example holds values of `t` in.
const char* list_name(DType t) {
  return t == DType::float32 ? "float_list" : t == DType::int64 ? "int64_list" : "bytes_list";
}

// TensorFlow's DataTypeString for the three feature types.
const char* type_string(DType t) {
  return t == DType::float32 ? "float" : t == DType::int64 ? "int64" : "string";
}

struct DenseSpec {
  std::string key;
  DType dtype = DType::float32;
  PartialShape shape;      // the per-example shape; dim 0 may be -1 (variable length)
  const Tensor* fallback;  // the default: empty = required (fixed) / padding 0 (variable)
  bool variable = false;   // dim 0 is -1: rows of `stride` values, padded
  Index stride = 1;        // values per row (variable) or per example (fixed)
};

struct SparseSpec {
  std::string key;
  DType dtype = DType::float32;
};

// Parses every example and fills the op's outputs: sparse indices, values and shapes from
// output 0, dense values from output 3 * num_sparse.
class ParseExampleOp : public StatusKernel {
 public:
  ParseExampleOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c),
        v2_(c.def.op == "ParseExampleV2"),
        single_(c.def.op == "ParseSingleExample") {
    *s = c.get_attr("sparse_types", &sparse_types_);
    if (s->ok() && single_) *s = c.get_attr("sparse_keys", &sparse_keys_);
    if (s->ok() && single_) *s = c.get_attr("dense_keys", &dense_keys_);
    if (s->ok()) *s = c.get_attr("Tdense", &dense_types_);
    if (s->ok()) *s = c.get_attr("dense_shapes", &dense_shapes_);
    if (s->ok() && v2_) {
      std::vector<DType> ragged;
      c.get_attr("ragged_value_types", &ragged);
      if (!ragged.empty())
        *s = unimplemented(
            "ParseExampleV2 with ragged features is not supported here; use "
            "VarLenFeature or FixedLenSequenceFeature");
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    const Tensor no_names(DType::string, Shape{0});
    const Tensor& names = single_ ? no_names : ctx.input(1);
    const auto num_sparse = static_cast<int>(sparse_types_.size());
    const auto num_dense = static_cast<int>(dense_types_.size());
    std::vector<std::string> sparse_keys, dense_keys;
    int defaults_at = 0;
    if (single_) {
      sparse_keys = sparse_keys_;
      dense_keys = dense_keys_;
      defaults_at = 1;
    } else if (v2_) {
      ACTORFLOW_RETURN_IF_ERROR(key_list(ctx.input(2), num_sparse, "sparse_keys", &sparse_keys));
      ACTORFLOW_RETURN_IF_ERROR(key_list(ctx.input(3), num_dense, "dense_keys", &dense_keys));
      defaults_at = 5;  // after ragged_keys
    } else {
      for (int i = 0; i < num_sparse; ++i)
        sparse_keys.push_back(ctx.input(2 + i).data<std::string>()[0]);
      for (int i = 0; i < num_dense; ++i)
        dense_keys.push_back(ctx.input(2 + num_sparse + i).data<std::string>()[0]);
      defaults_at = 2 + num_sparse + num_dense;
    }
    if (single_ && serialized.rank() != 0)
      return invalid_argument("Expected serialized to be a scalar, got shape: " +
                              serialized.shape().to_string());
    if (v2_ ? serialized.rank() > 1 : !single_ && serialized.rank() != 1)
      return invalid_argument(v2_ ? "Expected serialized to be a scalar or vector, got shape: " +
                                        serialized.shape().to_string()
                                  : "Expected serialized to be a vector, got shape: " +
                                        serialized.shape().to_string());
    if (names.num_elements() != 0 && names.shape() != serialized.shape())
      return invalid_argument("Expected names have the same shape as serialized: name.shape=" +
                              names.shape().to_string() +
                              ", serialized.shape=" + serialized.shape().to_string());
    std::vector<DenseSpec> dense(static_cast<std::size_t>(num_dense));
    for (int d = 0; d < num_dense; ++d) {
      DenseSpec& spec = dense[static_cast<std::size_t>(d)];
      spec.key = dense_keys[static_cast<std::size_t>(d)];
      spec.dtype = dense_types_[static_cast<std::size_t>(d)];
      spec.shape = dense_shapes_[static_cast<std::size_t>(d)];
      spec.fallback = &ctx.input(defaults_at + d);
      spec.variable = spec.shape.rank_known() && spec.shape.rank() > 0 && spec.shape.dim(0) == -1;
      for (int i = spec.variable ? 1 : 0; i < spec.shape.rank(); ++i)
        spec.stride *= spec.shape.dim(i);
      ACTORFLOW_RETURN_IF_ERROR(check_default(spec, d));
    }
    std::vector<SparseSpec> sparse(static_cast<std::size_t>(num_sparse));
    for (int s = 0; s < num_sparse; ++s)
      sparse[static_cast<std::size_t>(s)] = {sparse_keys[static_cast<std::size_t>(s)],
                                             sparse_types_[static_cast<std::size_t>(s)]};
    // Parse every example first: the outputs' sizes depend on all of them.
    const Index n = serialized.num_elements();
    std::vector<detail::ExampleView> examples;
    std::deque<std::string> rewritten;
    if (const Index bad = detail::parse_examples(serialized, &examples, &rewritten); bad >= 0)
      return invalid_argument("Could not parse example input, value: '" +
                              serialized.data<std::string>()[bad] + "'");
    // How a message names feature `key` of example e, and the example alone.
    auto where = [&](Index e, const std::string& key) {
      if (single_) return "Key: " + key + ".  ";
      const std::string name =
          names.num_elements() == 0 ? std::string("<unknown>") : names.data<std::string>()[e];
      return "Name: " + name + ", Key: " + key + ", Index: " + std::to_string(e) + ".  ";
    };
    auto example_name = [&](Index e) {
      if (single_) return std::string();
      return "Name: " +
             (names.num_elements() == 0 ? std::string("<unknown>") : names.data<std::string>()[e]) +
             ", ";
    };
    // The feature `key` of example e, null when absent or empty (no kind).
    auto find = [&](Index e, const std::string& key) -> const detail::FeatureView* {
      return examples[static_cast<std::size_t>(e)].find(key);
    };
    const std::vector<std::int64_t> batch = serialized.shape().dims();  // [] or [n]
    for (int s = 0; s < num_sparse; ++s) {
      const SparseSpec& spec = sparse[static_cast<std::size_t>(s)];
      Index total = 0, longest = 0;
      for (Index e = 0; e < n; ++e) {
        const detail::FeatureView* f = find(e, spec.key);
        if (f == nullptr) continue;
        if (f->kind != spec.dtype)
          return invalid_argument(where(e, spec.key) + "Data types don't match. Expected type: " +
                                  type_string(spec.dtype) +
                                  ", Actual type: " + type_string(f->kind));
        total += f->count;
        longest = std::max(longest, f->count);
      }
      const auto rank = static_cast<Index>(batch.size()) + 1;
      Tensor& indices = ctx.allocate_output(s, DType::int64, Shape{total, rank});
      Tensor& values = ctx.allocate_output(num_sparse + s, spec.dtype, Shape{total});
      Tensor& shape = ctx.allocate_output(2 * num_sparse + s, DType::int64, Shape{rank});
      Index at = 0;
      for (Index e = 0; e < n; ++e) {
        const detail::FeatureView* f = find(e, spec.key);
        if (f == nullptr) continue;
        f->copy_to(values, at);
        for (Index j = 0; j < f->count; ++j, ++at) {
          std::int64_t* row = indices.data<std::int64_t>() + at * rank;
          if (rank == 2) row[0] = e;
          row[rank - 1] = j;
        }
      }
      if (rank == 2) shape.data<std::int64_t>()[0] = n;
      shape.data<std::int64_t>()[rank - 1] = longest;
    }
    for (int d = 0; d < num_dense; ++d) {
      ACTORFLOW_RETURN_IF_ERROR(fill_dense(ctx, 3 * num_sparse + d,
                                           dense[static_cast<std::size_t>(d)], batch, n, find,
                                           where, example_name, single_));
    }
    return {};
  }

 private:
  // A V2 key input: a vector of `count` strings.
  static Status key_list(const Tensor& t, int count, const char* what,
                         std::vector<std::string>* out) {
    if (t.rank() != 1 || t.num_elements() != count)
      return invalid_argument(std::string("Expected len(") + what + ") to match the number of " +
                              what + " (" + std::to_string(count) + "), got shape " +
                              t.shape().to_string());
    out->assign(t.data<std::string>(), t.data<std::string>() + count);
    return {};
  }

  // TensorFlow's checks of a dense default: empty, or the feature's shape (a scalar for
  // variable-length features).
  static Status check_default(const DenseSpec& spec, int d) {
    const Tensor& def = *spec.fallback;
    if (def.dtype() != spec.dtype)
      return invalid_argument("dense_defaults[" + std::to_string(d) + "].dtype() == " +
                              std::string(dtype_name(def.dtype())) + " != Tdense[" +
                              std::to_string(d) + "] == " + std::string(dtype_name(spec.dtype)));
    if (def.num_elements() == 0) return {};
    if (spec.variable) {
      if (def.num_elements() != 1)
        return invalid_argument("For key '" + spec.key +
                                "' the default value must be a scalar (the padding value) for a "
                                "variable-length feature, got shape " +
                                def.shape().to_string());
      return {};
    }
    if (PartialShape(def.shape().dims()) != spec.shape)
      return invalid_argument("dense_defaults[" + std::to_string(d) + "].shape() == " +
                              def.shape().to_string() + " != dense_shapes[" + std::to_string(d) +
                              "] == " + detail::inference_shape_string(spec.shape));
    return {};
  }

  template <class Find, class Where, class ExampleName>
  static Status fill_dense(OpKernelContext& ctx, int output, const DenseSpec& spec,
                           const std::vector<std::int64_t>& batch, Index n, Find& find,
                           Where& where_of, ExampleName& example_name, bool single) {
    const Tensor& def = *spec.fallback;
    // Check every example and find the longest variable-length feature.
    Index rows = 0;
    for (Index e = 0; e < n; ++e) {
      const detail::FeatureView* f = find(e, spec.key);
      if (f == nullptr) {
        if (!spec.variable && def.num_elements() == 0)
          return invalid_argument(example_name(e) + "Feature: " + spec.key +
                                  " (data type: " + type_string(spec.dtype) +
                                  ") is required but could not be found.");
        continue;
      }
      const Index size = f->count;
      if (f->kind != spec.dtype)
        return invalid_argument(where_of(e, spec.key) +
                                "Data types don't match. Data type: " + type_string(f->kind) +
                                " but expected type: " + type_string(spec.dtype));
      if (spec.variable) {
        if (spec.stride == 0 ? size != 0 : size % spec.stride != 0)
          return invalid_argument(
              where_of(e, spec.key) + "Number of " + type_string(spec.dtype) +
              " values is not a multiple of stride length. Saw " + std::to_string(size) +
              " values but output shape is: " + detail::inference_shape_string(spec.shape));
        if (spec.stride > 0) rows = std::max(rows, size / spec.stride);
      } else if (size != spec.stride && single) {
        return invalid_argument(where_of(e, spec.key) + "Can't parse serialized Example: Some " +
                                list_name(spec.dtype) + " slice was not parsed.");
      } else if (size != spec.stride) {
        return invalid_argument(where_of(e, spec.key) + "Number of " + type_string(spec.dtype) +
                                " values != expected.  Values size: " + std::to_string(size) +
                                " but output shape: " + detail::inference_shape_string(spec.shape));
      }
    }
    std::vector<std::int64_t> dims = batch;
    std::vector<std::int64_t> per = spec.shape.dims();
    if (spec.variable) per[0] = rows;
    dims.insert(dims.end(), per.begin(), per.end());
    Tensor& out = ctx.allocate_output(output, spec.dtype, Shape(dims));
    const Index size = spec.variable ? rows * spec.stride : spec.stride;
    for (Index e = 0; e < n; ++e) {
      const detail::FeatureView* f = find(e, spec.key);
      Index written = 0;
      if (f != nullptr) {
        f->copy_to(out, e * size);
        written = f->count;
      } else if (!spec.variable) {
        detail::copy_elements(def, 0, out, e * size, size);  // the default, whole
        continue;
      }
      // Variable length: pad with the scalar default (zero / "" when none).
      if (def.num_elements() == 1)
        for (Index i = written; i < size; ++i) detail::copy_elements(def, 0, out, e * size + i, 1);
    }
    return {};
  }

  bool v2_;
  bool single_;
  std::vector<std::string> sparse_keys_, dense_keys_;  // ParseSingleExample's attrs
  std::vector<DType> sparse_types_, dense_types_;
  std::vector<PartialShape> dense_shapes_;
};

}  // namespace

namespace detail {

void register_parse_example_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ParseExampleOp>("ParseExample", "CPU"));
  r.add(make_kernel_def<ParseExampleOp>("ParseExampleV2", "CPU"));
  r.add(make_kernel_def<ParseExampleOp>("ParseSingleExample", "CPU"));
}

}  // namespace detail

}  // namespace af
