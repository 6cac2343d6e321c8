// ParseSequenceExampleV2, ParseSequenceExample and ParseSingleSequenceExample: CPU kernels
// reading serialized tf.train.SequenceExample protos (TensorFlow's example_parsing_ops.cc and
// util/example_proto_fast_parsing.cc, their checks and messages as TensorFlow 2.21 words them)
// through the generated code of formats/proto/actorflow/tf/example.proto. Context features come
// out as for ParseExample (dense: one tensor of [batch] + shape; sparse: indices, values and a
// dense shape); feature lists as [batch, longest list] + row shape, padded with zeros / "", with
// each example's list length (dense), or as sparse tensors indexed (example, row, position).
// ParseSequenceExample(V2) take a vector (V2: or a scalar) of records; ParseSingleSequenceExample
// (TensorFlow 1.x's own kernel, with its own messages) one record. Ragged features are refused.
// Their definitions are in ops/src/defs/parse_sequence_example_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/tf/example.pb.h"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// TensorFlow's DataTypeString for the three feature types.
const char* type_string(DType t) {
  return t == DType::float32 ? "float" : t == DType::int64 ? "int64" : "string";
}

// The dtype a Feature holds; invalid when it holds none (an empty Feature).
DType kind_of(const tensorflow::Feature& f) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kFloatList:
      return DType::float32;
    case tensorflow::Feature::kInt64List:
      return DType::int64;
    case tensorflow::Feature::kBytesList:
      return DType::string;
    default:
      return DType::invalid;
  }
}

Index size_of(const tensorflow::Feature& f) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kFloatList:
      return f.float_list().value_size();
    case tensorflow::Feature::kInt64List:
      return f.int64_list().value_size();
    case tensorflow::Feature::kBytesList:
      return f.bytes_list().value_size();
    default:
      return 0;
  }
}

// Copies a Feature's values into `out` from element `at` on (out's dtype is the feature's).
void copy_values(const tensorflow::Feature& f, Tensor& out, Index at) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kFloatList:
      std::copy(f.float_list().value().begin(), f.float_list().value().end(),
                out.data<float>() + at);
      break;
    case tensorflow::Feature::kInt64List:
      std::copy(f.int64_list().value().begin(), f.int64_list().value().end(),
                out.data<std::int64_t>() + at);
      break;
    case tensorflow::Feature::kBytesList:
      std::copy(f.bytes_list().value().begin(), f.bytes_list().value().end(),
                out.data<std::string>() + at);
      break;
    default:
      break;
  }
}

Index elements_of(const PartialShape& s) {
  Index n = 1;
  for (int i = 0; i < s.rank(); ++i) n *= s.dim(i);
  return n;
}

struct Config {
  std::vector<std::string> keys;
  std::vector<DType> types;
  std::vector<PartialShape> shapes;  // dense only
};

// One of the three ops; which in `version_`: 2 (V2), 1 (ParseSequenceExample), 0 (single).
class ParseSequenceExampleOp : public StatusKernel {
 public:
  ParseSequenceExampleOp(OpKernelConstruction& c, Status* s)
      : StatusKernel(c),
        version_(c.def.op == "ParseSequenceExampleV2" ? 2
                 : c.def.op == "ParseSequenceExample" ? 1
                                                      : 0) {
    *s = c.get_attr("context_sparse_types", &context_sparse_.types);
    if (s->ok()) *s = c.get_attr("Tcontext_dense", &context_dense_.types);
    if (s->ok()) *s = c.get_attr("context_dense_shapes", &context_dense_.shapes);
    if (s->ok()) *s = c.get_attr("feature_list_sparse_types", &list_sparse_.types);
    if (s->ok()) *s = c.get_attr("feature_list_dense_types", &list_dense_.types);
    if (s->ok()) *s = c.get_attr("feature_list_dense_shapes", &list_dense_.shapes);
    if (s->ok() && version_ == 1) {
      *s = c.get_attr("context_sparse_keys", &context_sparse_.keys);
      if (s->ok()) *s = c.get_attr("context_dense_keys", &context_dense_.keys);
      if (s->ok()) *s = c.get_attr("feature_list_sparse_keys", &list_sparse_.keys);
      if (s->ok()) *s = c.get_attr("feature_list_dense_keys", &list_dense_.keys);
      std::vector<std::string> missing;
      if (s->ok()) *s = c.get_attr("feature_list_dense_missing_assumed_empty", &missing);
      missing_set_.insert(missing.begin(), missing.end());
    }
    if (s->ok() && version_ == 2) {
      std::vector<DType> a, b;
      c.get_attr("context_ragged_value_types", &a);
      c.get_attr("feature_list_ragged_value_types", &b);
      if (!a.empty() || !b.empty())
        *s = unimplemented(
            "ParseSequenceExampleV2 with ragged features is not supported here; use "
            "VarLenFeature or FixedLenSequenceFeature");
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    Config cs = context_sparse_, cd = context_dense_, fs = list_sparse_, fd = list_dense_;
    const auto ncd = static_cast<int>(cd.types.size()), nfd = static_cast<int>(fd.types.size());
    std::vector<bool> assumed_empty(static_cast<std::size_t>(nfd), false);
    int defaults_at = 2;
    const Tensor& serialized = ctx.input(0);
    const Tensor* names = nullptr;
    if (version_ == 2) {
      names = &ctx.input(1);
      if (serialized.rank() > 1)
        return invalid_argument("Expected serialized to be a scalar or vector, got shape: " +
                                serialized.shape().to_string());
      const char* messages[] = {
          "Expected len(context_sparse_keys) to match Ncontext_sparse",
          "Expected len(context_dense_keys) to match len(Tcontext_dense)",
          "Expected len(feature_list_sparse_keys) to match Nfeature_list_sparse",
          "Expected len(feature_list_dense_keys) to match Nfeature_list_dense"};
      Config* configs[] = {&cs, &cd, &fs, &fd};
      const int inputs[] = {2, 3, 5, 6};
      for (int k = 0; k < 4; ++k) {
        const Tensor& t = ctx.input(inputs[k]);
        if (t.num_elements() != static_cast<Index>(configs[k]->types.size()))
          return invalid_argument(messages[k]);
        configs[k]->keys.assign(t.data<std::string>(), t.data<std::string>() + t.num_elements());
      }
      if (ctx.input(4).num_elements() != 0)
        return invalid_argument(
            "Expected len(context_ragged_keys) to match len(context_ragged_value_types)");
      if (ctx.input(7).num_elements() != 0)
        return invalid_argument(
            "Expected len(feature_list_ragged_keys) to match "
            "len(feature_list_ragged_value_types)");
      const Tensor& missing = ctx.input(8);
      if (missing.num_elements() != nfd)
        return invalid_argument(
            "Expected len(feature_list_dense_missing_assumed_empty to match "
            "Nfeature_list_dense");
      for (int d = 0; d < nfd; ++d)
        assumed_empty[static_cast<std::size_t>(d)] = missing.data<bool>()[d];
      defaults_at = 9;
    } else if (version_ == 1) {
      names = &ctx.input(1);
      if (serialized.rank() > 1)
        return invalid_argument("Expected serialized to be a scalar or vector, got shape: " +
                                serialized.shape().to_string());
      for (int d = 0; d < nfd; ++d)
        assumed_empty[static_cast<std::size_t>(d)] =
            missing_set_.count(fd.keys[static_cast<std::size_t>(d)]) > 0;
    } else {
      // ParseSingleSequenceExample: serialized, missing-assumed-empty keys, the key scalars,
      // the defaults, debug_name.
      const Tensor& missing = ctx.input(1);
      const std::set<std::string> set(missing.data<std::string>(),
                                      missing.data<std::string>() + missing.num_elements());
      int at = 2;
      Config* configs[] = {&cs, &cd, &fs, &fd};
      const char* what[] = {"context_sparse_keys", "context_dense_keys", "feature_list_sparse_keys",
                            "feature_list_dense_keys"};
      for (int k = 0; k < 4; ++k)
        for (std::size_t i = 0; i < configs[k]->types.size(); ++i, ++at) {
          const Tensor& key = ctx.input(at);
          if (key.rank() != 0)
            return invalid_argument("Expected " + std::string(what[k]) + "[" + std::to_string(i) +
                                    "] to be a scalar, got shape: " + key.shape().to_string());
          configs[k]->keys.push_back(key.data<std::string>()[0]);
        }
      for (int d = 0; d < nfd; ++d)
        assumed_empty[static_cast<std::size_t>(d)] =
            set.count(fd.keys[static_cast<std::size_t>(d)]) > 0;
      defaults_at = at;
      names = &ctx.input(at + ncd);
      if (serialized.rank() != 0)
        return invalid_argument("Expected serialized to be a scalar, got shape: " +
                                serialized.shape().to_string());
    }
    std::vector<const Tensor*> defaults;
    for (int d = 0; d < ncd; ++d) {
      const Tensor& def = ctx.input(defaults_at + d);
      defaults.push_back(&def);
      if (def.num_elements() == 0) continue;
      const PartialShape& shape = cd.shapes[static_cast<std::size_t>(d)];
      if (PartialShape(def.shape().dims()) != shape)
        return invalid_argument(
            (version_ == 0 ? "def_value[" : "default_value[") + std::to_string(d) +
            "].shape() == " + def.shape().to_string() +
            (version_ == 0 ? " != context_dense_shapes_[" : " != context_dense_shapes[") +
            std::to_string(d) + "] == " + detail::inference_shape_string(shape));
    }
    if (version_ == 0)
      return run_single(ctx, serialized, *names, cs, cd, fs, fd, assumed_empty, defaults);
    return run_batch(ctx, serialized, *names, cs, cd, fs, fd, assumed_empty, defaults);
  }

 private:
  // ParseSequenceExample(V2): TensorFlow's FastParseSequenceExample.
  Status run_batch(OpKernelContext& ctx, const Tensor& serialized, const Tensor& names,
                   const Config& cs, const Config& cd, const Config& fs, const Config& fd,
                   const std::vector<bool>& assumed_empty,
                   const std::vector<const Tensor*>& defaults) {
    const auto ncs = static_cast<int>(cs.types.size()), ncd = static_cast<int>(cd.types.size()),
               nfs = static_cast<int>(fs.types.size()), nfd = static_cast<int>(fd.types.size());
    const bool batch = serialized.rank() == 1;
    const Index n = serialized.num_elements();
    if (names.num_elements() != 0 && names.num_elements() != n)
      return invalid_argument("example_names must be empty or have the correct number of elements");
    for (const std::string& key : cd.keys)
      if (std::find(cs.keys.begin(), cs.keys.end(), key) != cs.keys.end())
        return invalid_argument("Context feature " + key + " cannot be both dense and sparse");
    for (const std::string& key : fd.keys)
      if (std::find(fs.keys.begin(), fs.keys.end(), key) != fs.keys.end())
        return invalid_argument("Sequence feature " + key + " cannot be both dense and sparse");
    auto name = [&](Index e) {
      return names.num_elements() == 0 ? std::string("<unknown>") : names.data<std::string>()[e];
    };
    std::vector<tensorflow::SequenceExample> examples(static_cast<std::size_t>(n));
    // First pass: parse, check the types, size the outputs.
    std::vector<Index> context_max(static_cast<std::size_t>(ncd));
    for (int d = 0; d < ncd; ++d)
      context_max[static_cast<std::size_t>(d)] =
          defaults[static_cast<std::size_t>(d)]->num_elements();
    for (Index e = 0; e < n; ++e) {
      auto& ex = examples[static_cast<std::size_t>(e)];
      if (!ex.ParseFromString(serialized.data<std::string>()[e]))
        return invalid_argument("Invalid protocol message input, example id: " + name(e));
      const auto& context = ex.context().feature();
      auto check_context = [&](const Config& c, bool dense) -> Status {
        for (std::size_t i = 0; i < c.keys.size(); ++i) {
          auto it = context.find(c.keys[i]);
          if (it == context.end()) continue;
          const DType kind = kind_of(it->second);
          if (kind != DType::invalid && kind != c.types[i])
            return invalid_argument(
                "Name: " + name(e) + ", Context feature: " + c.keys[i] +
                ".  Data types don't match. Expected type: " + type_string(c.types[i]));
          if (dense) context_max[i] = std::max(context_max[i], size_of(it->second));
        }
        return {};
      };
      ACTORFLOW_RETURN_IF_ERROR(check_context(cs, false));
      ACTORFLOW_RETURN_IF_ERROR(check_context(cd, true));
      const auto& lists = ex.feature_lists().feature_list();
      auto check_lists = [&](const Config& c, bool dense) -> Status {
        for (std::size_t i = 0; i < c.keys.size(); ++i) {
          auto it = lists.find(c.keys[i]);
          if (it == lists.end()) continue;
          Index total = 0;
          for (int t = 0; t < it->second.feature_size(); ++t) {
            const tensorflow::Feature& f = it->second.feature(t);
            const DType kind = kind_of(f);
            if (kind != DType::invalid && kind != c.types[i])
              return invalid_argument(
                  "Name: " + name(e) + ", Feature list: " + c.keys[i] +
                  ", Index: " + std::to_string(t) +
                  ".  Data types don't match. Expected type: " + type_string(c.types[i]));
            total += size_of(f);
          }
          const Index row = dense ? elements_of(c.shapes[i]) : 1;
          if (dense && (row == 0 ? total != 0 : total % row != 0)) {
            std::string shape = "[?";
            for (auto dim : c.shapes[i].dims()) shape += "," + std::to_string(dim);
            return invalid_argument("Feature list '" + c.keys[i] +
                                    "' has an unexpected number of values.  Total values size: " +
                                    std::to_string(total) +
                                    " is not consistent with output shape: " + shape + "]");
          }
        }
        return {};
      };
      ACTORFLOW_RETURN_IF_ERROR(check_lists(fs, false));
      ACTORFLOW_RETURN_IF_ERROR(check_lists(fd, true));
    }
    std::vector<std::int64_t> lead;  // [n] or []
    if (batch) lead.push_back(n);
    // Context dense.
    for (int d = 0; d < ncd; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const Index expected = elements_of(cd.shapes[i]);
      if (context_max[i] != expected)
        return invalid_argument("Inconsistent max number of elements for feature " + cd.keys[i] +
                                ": expected " + std::to_string(expected) + ", but found " +
                                std::to_string(context_max[i]));
      std::vector<std::int64_t> dims = lead;
      for (auto dim : cd.shapes[i].dims()) dims.push_back(dim);
      Tensor& out = ctx.allocate_output(3 * ncs + d, cd.types[i], Shape(dims));
      for (Index e = 0; e < n; ++e) {
        const auto& context = examples[static_cast<std::size_t>(e)].context().feature();
        auto it = context.find(cd.keys[i]);
        if (it == context.end()) {
          if (defaults[i]->num_elements() == 0)
            return invalid_argument("Feature: " + cd.keys[i] +
                                    " (data type: " + type_string(cd.types[i]) +
                                    ") is required but could not be found.");
          detail::copy_elements(*defaults[i], 0, out, e * expected, expected);
          continue;
        }
        if (size_of(it->second) != expected)
          return invalid_argument("Unexpected number of elements in example " + name(e));
        copy_values(it->second, out, e * expected);
      }
    }
    // Context sparse.
    for (int s = 0; s < ncs; ++s) {
      const auto i = static_cast<std::size_t>(s);
      Index total = 0, longest = 0;
      for (Index e = 0; e < n; ++e) {
        const auto& context = examples[static_cast<std::size_t>(e)].context().feature();
        auto it = context.find(cs.keys[i]);
        if (it != context.end()) total += size_of(it->second);
      }
      const Index rank = batch ? 2 : 1;
      Tensor& indices = ctx.allocate_output(s, DType::int64, Shape{total, rank});
      Tensor& values = ctx.allocate_output(ncs + s, cs.types[i], Shape{total});
      Tensor& shape = ctx.allocate_output(2 * ncs + s, DType::int64, Shape{rank});
      Index at = 0;
      for (Index e = 0; e < n; ++e) {
        const auto& context = examples[static_cast<std::size_t>(e)].context().feature();
        auto it = context.find(cs.keys[i]);
        if (it == context.end()) continue;
        copy_values(it->second, values, at);
        const Index size = size_of(it->second);
        longest = std::max(longest, size);
        for (Index j = 0; j < size; ++j, ++at) {
          std::int64_t* row = indices.data<std::int64_t>() + at * rank;
          if (batch) row[0] = e;
          row[rank - 1] = j;
        }
      }
      if (batch) shape.data<std::int64_t>()[0] = n;
      shape.data<std::int64_t>()[rank - 1] = longest;
    }
    const int lists_at = 3 * ncs + ncd;
    // Feature list sparse.
    for (int s = 0; s < nfs; ++s) {
      const auto i = static_cast<std::size_t>(s);
      Index total = 0, rows = 0, longest = 0;
      for (Index e = 0; e < n; ++e) {
        const auto& lists = examples[static_cast<std::size_t>(e)].feature_lists().feature_list();
        auto it = lists.find(fs.keys[i]);
        if (it == lists.end()) continue;
        rows = std::max<Index>(rows, it->second.feature_size());
        for (const auto& f : it->second.feature()) {
          total += size_of(f);
          longest = std::max(longest, size_of(f));
        }
      }
      const Index rank = batch ? 3 : 2;
      Tensor& indices = ctx.allocate_output(lists_at + s, DType::int64, Shape{total, rank});
      Tensor& values = ctx.allocate_output(lists_at + nfs + s, fs.types[i], Shape{total});
      Tensor& shape = ctx.allocate_output(lists_at + 2 * nfs + s, DType::int64, Shape{rank});
      Index at = 0;
      for (Index e = 0; e < n; ++e) {
        const auto& lists = examples[static_cast<std::size_t>(e)].feature_lists().feature_list();
        auto it = lists.find(fs.keys[i]);
        if (it == lists.end()) continue;
        for (int t = 0; t < it->second.feature_size(); ++t) {
          const tensorflow::Feature& f = it->second.feature(t);
          copy_values(f, values, at);
          for (Index j = 0; j < size_of(f); ++j, ++at) {
            std::int64_t* row = indices.data<std::int64_t>() + at * rank;
            if (batch) row[0] = e;
            row[rank - 2] = t;
            row[rank - 1] = j;
          }
        }
      }
      std::int64_t* dims = shape.data<std::int64_t>();
      if (batch) dims[0] = n;
      dims[rank - 2] = rows;
      dims[rank - 1] = longest;
    }
    // Feature list dense, and their lengths.
    const int dense_at = lists_at + 3 * nfs;
    for (int d = 0; d < nfd; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const Index row = elements_of(fd.shapes[i]);
      Index rows = 0;
      for (Index e = 0; e < n; ++e) {
        const auto& lists = examples[static_cast<std::size_t>(e)].feature_lists().feature_list();
        auto it = lists.find(fd.keys[i]);
        if (it != lists.end()) rows = std::max<Index>(rows, it->second.feature_size());
      }
      std::vector<std::int64_t> dims = lead;
      dims.push_back(rows);
      for (auto dim : fd.shapes[i].dims()) dims.push_back(dim);
      Tensor& out = ctx.allocate_output(dense_at + d, fd.types[i], Shape(dims));
      Tensor& lengths = ctx.allocate_output(dense_at + nfd + d, DType::int64, Shape(lead));
      for (Index e = 0; e < n; ++e) {
        const auto& lists = examples[static_cast<std::size_t>(e)].feature_lists().feature_list();
        auto it = lists.find(fd.keys[i]);
        lengths.data<std::int64_t>()[e] = 0;
        if (it == lists.end()) {
          if (!assumed_empty[i])
            return invalid_argument("Name: " + name(e) + ", Feature list '" + fd.keys[i] +
                                    "' is required but could not be found.  Did you mean to "
                                    "include it in feature_list_dense_missing_assumed_empty or "
                                    "feature_list_dense_defaults?");
          continue;
        }
        for (int t = 0; t < it->second.feature_size(); ++t) {
          const tensorflow::Feature& f = it->second.feature(t);
          if (size_of(f) != row)
            return invalid_argument(
                "Name: " + name(e) + ", Key: " + fd.keys[i] + ", Index: " + std::to_string(t) +
                ".  Number of values != expected.  values size: " + std::to_string(size_of(f)) +
                " but output shape: " + detail::inference_shape_string(fd.shapes[i]));
          copy_values(f, out, (e * rows + t) * row);
        }
        lengths.data<std::int64_t>()[e] = it->second.feature_size();
      }
    }
    return {};
  }

  // ParseSingleSequenceExample: TensorFlow's ParseSingleSequenceExampleOp, on the parsed proto.
  Status run_single(OpKernelContext& ctx, const Tensor& serialized, const Tensor& names,
                    const Config& cs, const Config& cd, const Config& fs, const Config& fd,
                    const std::vector<bool>& assumed_empty,
                    const std::vector<const Tensor*>& defaults) {
    const auto ncs = static_cast<int>(cs.types.size()), ncd = static_cast<int>(cd.types.size()),
               nfs = static_cast<int>(fs.types.size()), nfd = static_cast<int>(fd.types.size());
    const std::string& bytes = serialized.data<std::string>()[0];
    tensorflow::SequenceExample ex;
    if (!ex.ParseFromString(bytes))
      return invalid_argument("Could not parse example input, value: '" + bytes + "'");
    const std::string name =
        names.num_elements() > 0 ? names.data<std::string>()[0] : std::string("<unknown>");
    // TensorFlow's FeatureDenseCopy: a feature's values must fill the shape exactly.
    auto dense_copy = [&](Index t, const std::string& key, DType dtype, const PartialShape& shape,
                          const tensorflow::Feature& f, Tensor& out) -> Status {
      const Index expected = elements_of(shape), size = size_of(f);
      if (size != expected) {
        const std::string s = detail::inference_shape_string(shape);
        if (dtype == DType::string)
          return invalid_argument(
              "Name: " + name + ", Key " + key + ", Index: " + std::to_string(t) +
              ".  Number of bytes values != expected.  Values size: " + std::to_string(size) +
              " but output shape: " + s);
        return invalid_argument(
            "Name: " + name + ", Key: " + key + ", Index: " + std::to_string(t) + ".  Number of " +
            type_string(dtype) + " values != expected.  values size: " + std::to_string(size) +
            " but output shape: " + s);
      }
      copy_values(f, out, t * expected);
      return {};
    };
    auto mismatch = [&](const std::string& where, DType dtype, const tensorflow::Feature& f) {
      return invalid_argument("Name: " + name + ", " + where +
                              ".  Data types don't match. Expected type: " + type_string(dtype) +
                              "  Feature is: " + f.ShortDebugString());
    };
    const auto& context = ex.context().feature();
    for (int d = 0; d < ncd; ++d) {
      const auto i = static_cast<std::size_t>(d);
      Tensor& out = ctx.allocate_output(3 * ncs + d, cd.types[i], Shape(cd.shapes[i].dims()));
      auto it = context.find(cd.keys[i]);
      if (it == context.end()) {
        if (defaults[i]->num_elements() == 0)
          return invalid_argument("Name: " + name + ", Context feature '" + cd.keys[i] +
                                  "' is required but could not be found.");
        detail::copy_elements(*defaults[i], 0, out, 0, out.num_elements());
        continue;
      }
      if (kind_of(it->second) != cd.types[i])
        return mismatch("Context feature: " + cd.keys[i], cd.types[i], it->second);
      ACTORFLOW_RETURN_IF_ERROR(
          dense_copy(0, cd.keys[i], cd.types[i], cd.shapes[i], it->second, out));
    }
    for (int s = 0; s < ncs; ++s) {
      const auto i = static_cast<std::size_t>(s);
      auto it = context.find(cs.keys[i]);
      const bool has = it != context.end() && kind_of(it->second) != DType::invalid;
      if (has && kind_of(it->second) != cs.types[i])
        return mismatch("Context feature: " + cs.keys[i], cs.types[i], it->second);
      const Index size = has ? size_of(it->second) : 0;
      Tensor& indices = ctx.allocate_output(s, DType::int64, Shape{size, 1});
      Tensor& values = ctx.allocate_output(ncs + s, cs.types[i], Shape{size});
      Tensor& shape = ctx.allocate_output(2 * ncs + s, DType::int64, Shape{1});
      if (has) copy_values(it->second, values, 0);
      for (Index j = 0; j < size; ++j) indices.data<std::int64_t>()[j] = j;
      shape.data<std::int64_t>()[0] = size;
    }
    const auto& lists = ex.feature_lists().feature_list();
    const int lists_at = 3 * ncs + ncd;
    const tensorflow::FeatureList empty;
    for (int d = 0; d < nfd; ++d) {
      const auto i = static_cast<std::size_t>(d);
      auto it = lists.find(fd.keys[i]);
      if (it == lists.end() && !assumed_empty[i])
        return invalid_argument("Name: " + name + ", Feature list '" + fd.keys[i] +
                                "' is required but could not be found.  Did you mean to include "
                                "it in feature_list_dense_missing_assumed_empty or "
                                "feature_list_dense_defaults?");
      const tensorflow::FeatureList& fl = it == lists.end() ? empty : it->second;
      std::vector<std::int64_t> dims{fl.feature_size()};
      for (auto dim : fd.shapes[i].dims()) dims.push_back(dim);
      Tensor& out = ctx.allocate_output(lists_at + 3 * nfs + d, fd.types[i], Shape(dims));
      for (int t = 0; t < fl.feature_size(); ++t) {
        if (kind_of(fl.feature(t)) != fd.types[i])
          return mismatch("Feature list: " + fd.keys[i] + ", Index: " + std::to_string(t),
                          fd.types[i], fl.feature(t));
        ACTORFLOW_RETURN_IF_ERROR(
            dense_copy(t, fd.keys[i], fd.types[i], fd.shapes[i], fl.feature(t), out));
      }
    }
    for (int s = 0; s < nfs; ++s) {
      const auto i = static_cast<std::size_t>(s);
      auto it = lists.find(fs.keys[i]);
      const tensorflow::FeatureList& fl = it == lists.end() ? empty : it->second;
      Index total = 0, longest = 0;
      for (int t = 0; t < fl.feature_size(); ++t) {
        const tensorflow::Feature& f = fl.feature(t);
        if (kind_of(f) != DType::invalid && kind_of(f) != fs.types[i])
          return mismatch("Feature List: " + fs.keys[i] + ", Index: " + std::to_string(t),
                          fs.types[i], f);
        total += size_of(f);
        longest = std::max(longest, size_of(f));
      }
      Tensor& indices = ctx.allocate_output(lists_at + s, DType::int64, Shape{total, 2});
      Tensor& values = ctx.allocate_output(lists_at + nfs + s, fs.types[i], Shape{total});
      Tensor& shape = ctx.allocate_output(lists_at + 2 * nfs + s, DType::int64, Shape{2});
      Index at = 0;
      for (int t = 0; t < fl.feature_size(); ++t) {
        const tensorflow::Feature& f = fl.feature(t);
        copy_values(f, values, at);
        for (Index j = 0; j < size_of(f); ++j, ++at) {
          indices.data<std::int64_t>()[2 * at] = t;
          indices.data<std::int64_t>()[2 * at + 1] = j;
        }
      }
      shape.data<std::int64_t>()[0] = fl.feature_size();
      shape.data<std::int64_t>()[1] = longest;
    }
    return {};
  }

  int version_;
  Config context_sparse_, context_dense_, list_sparse_, list_dense_;  // keys: V1's attrs
  std::set<std::string> missing_set_;                                 // V1's attr
};

}  // namespace

namespace detail {

void register_parse_sequence_example_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ParseSequenceExampleOp>("ParseSequenceExampleV2", "CPU"));
  r.add(make_kernel_def<ParseSequenceExampleOp>("ParseSequenceExample", "CPU"));
  r.add(make_kernel_def<ParseSequenceExampleOp>("ParseSingleSequenceExample", "CPU"));
}

}  // namespace detail

}  // namespace af
