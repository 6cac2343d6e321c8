// ParseExampleDataset(V2) and ExperimentalParseExampleDataset (TensorFlow's
// experimental/parse_example_dataset_op.cc: `tf.data.experimental.parse_example_dataset`,
// what `make_batched_features_dataset` builds): each element, a batch of serialized
// tf.train.Examples, parsed by the ParseExampleV2 kernel. The outputs come one per feature
// key in the keys' sorted order; a dense feature is its tensor, a sparse one a variant [3]
// holding its indices, values and dense shape (as SerializeSparse with out_type variant).
#include <map>

#include "dataset_base.hpp"
#include "dataset_registration.hpp"
#include "variant_values.hpp"

namespace af::data::detail {

namespace {

struct ParseSpec {
  std::vector<std::string> sparse_keys, dense_keys;
  std::vector<DType> sparse_types, dense_types;
  std::vector<Tensor> dense_defaults;
  std::vector<int> sparse_out, dense_out;  // each key's output index
  std::shared_ptr<OpKernel> parser;        // a ParseExampleV2 kernel (stateless: shared)
  NodeDef parser_def;
};

class ParseExampleDataset final : public UnaryDataset {
 public:
  ParseExampleDataset(std::string op, std::shared_ptr<const DatasetBase> input,
                      std::shared_ptr<const ParseSpec> spec, std::vector<DType> dtypes,
                      std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        spec_(std::move(spec)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<ParseExampleDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        std::vector<Tensor> element;
        ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, end));
        if (*end) return {};
        return ds->parse(env, element, out);
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override { return input().cardinality(); }

 private:
  Status parse(const IteratorEnv& env, const std::vector<Tensor>& element,
               std::vector<Tensor>* out) const {
    const ParseSpec& p = *spec_;
    // Every string of the element, as one batch (TensorFlow flattens them the same way).
    std::int64_t n = 0;
    for (const auto& t : element) {
      if (t.dtype() != DType::string)
        return invalid_argument(op() + ": its input's elements must be strings, got " +
                                std::string(data_type_string(t.dtype())));
      n += t.num_elements();
    }
    Tensor serialized(DType::string, Shape{n});
    std::int64_t at = 0;
    for (const auto& t : element)
      for (std::int64_t i = 0; i < t.num_elements(); ++i)
        serialized.data<std::string>()[at++] = t.data<std::string>()[i];
    std::vector<Tensor> inputs{serialized, Tensor(DType::string, Shape{0}),
                               Tensor::from_vector(p.sparse_keys),
                               Tensor::from_vector(p.dense_keys), Tensor(DType::string, Shape{0})};
    inputs.insert(inputs.end(), p.dense_defaults.begin(), p.dense_defaults.end());
    OpKernelContext ctx(p.parser_def, std::move(inputs));
    const int ns = static_cast<int>(p.sparse_keys.size());
    const int nd = static_cast<int>(p.dense_keys.size());
    ctx.set_num_outputs(3 * ns + nd);
    env.apply_to(ctx);
    p.parser->compute(ctx);
    if (!ctx.ok()) return ctx.status();
    out->assign(static_cast<std::size_t>(ns + nd), Tensor());
    const auto& results = ctx.outputs();
    for (int d = 0; d < nd; ++d)
      (*out)[static_cast<std::size_t>(p.dense_out[static_cast<std::size_t>(d)])] =
          results[static_cast<std::size_t>(3 * ns + d)];
    for (int s = 0; s < ns; ++s) {
      Tensor sparse(DType::variant, Shape{3});
      for (int k = 0; k < 3; ++k)
        sparse.data<Variant>()[k] = Variant(std::make_shared<af::detail::TensorValue>(
            results[static_cast<std::size_t>(k * ns + s)]));
      (*out)[static_cast<std::size_t>(p.sparse_out[static_cast<std::size_t>(s)])] =
          std::move(sparse);
    }
    return verify_element(dtypes(), shapes(), *out);
  }

  std::shared_ptr<const ParseSpec> spec_;
};

// Inputs: input_dataset, num_parallel_calls, dense_defaults (one per dense key).
class ParseExampleDatasetOp final : public DatasetOpKernel {
 public:
  ParseExampleDatasetOp(OpKernelConstruction& c, Status* s) : DatasetOpKernel(c, s), op_(c.def.op) {
    if (!s->ok()) return;
    auto spec = std::make_shared<ParseSpec>();
    std::vector<PartialShape> dense_shapes;
    *s = c.get_attr("sparse_keys", &spec->sparse_keys);
    if (s->ok()) *s = c.get_attr("dense_keys", &spec->dense_keys);
    if (s->ok()) *s = c.get_attr("sparse_types", &spec->sparse_types);
    if (s->ok()) *s = c.get_attr("Tdense", &spec->dense_types);
    if (s->ok()) *s = c.get_attr("dense_shapes", &dense_shapes);
    if (!s->ok()) return;
    if (const auto* ragged = c.def.attr<std::vector<std::string>>("ragged_keys");
        ragged && !ragged->empty()) {
      *s = unimplemented(op_ + " '" + c.def.name +
                         "': ragged features are not supported by actorflow");
      return;
    }
    for (std::size_t i = 0; i < dense_shapes.size(); ++i) {
      const PartialShape& d = dense_shapes[i];
      bool ok = d.rank_known();
      for (int k = 1; ok && k < d.rank(); ++k) ok = d.dim(k) != -1;
      if (!ok) {
        *s = invalid_argument("dense_shapes[" + std::to_string(i) +
                              "] has unknown rank or unknown inner dimensions: " + d.to_string());
        return;
      }
    }
    // The outputs: every key, sorted.
    std::map<std::string, int> index;
    for (const auto* keys : {&spec->dense_keys, &spec->sparse_keys})
      for (const auto& k : *keys)
        if (!index.emplace(k, 0).second) {
          *s = invalid_argument("Duplicate key not allowed: " + k);
          return;
        }
    int i = 0;
    for (auto& [key, at] : index) at = i++;
    for (const auto& k : spec->dense_keys) spec->dense_out.push_back(index[k]);
    for (const auto& k : spec->sparse_keys) spec->sparse_out.push_back(index[k]);
    // The parser: a ParseExampleV2 node with this op's keys' types and shapes.
    NodeDef& def = spec->parser_def;
    def.name = c.def.name + "/ParseExampleV2";
    def.op = "ParseExampleV2";
    def.attrs["Tdense"] = spec->dense_types;
    def.attrs["num_sparse"] = static_cast<std::int64_t>(spec->sparse_keys.size());
    def.attrs["sparse_types"] = spec->sparse_types;
    def.attrs["ragged_value_types"] = std::vector<DType>{};
    def.attrs["ragged_split_types"] = std::vector<DType>{};
    def.attrs["dense_shapes"] = dense_shapes;
    std::vector<DType> in_types(5, DType::string);
    in_types.insert(in_types.end(), spec->dense_types.begin(), spec->dense_types.end());
    std::vector<DType> out_types;
    for (std::size_t k = 0; k < spec->sparse_keys.size(); ++k) out_types.push_back(DType::int64);
    out_types.insert(out_types.end(), spec->sparse_types.begin(), spec->sparse_types.end());
    for (std::size_t k = 0; k < spec->sparse_keys.size(); ++k) out_types.push_back(DType::int64);
    out_types.insert(out_types.end(), spec->dense_types.begin(), spec->dense_types.end());
    OpKernelConstruction pc{def, in_types, out_types, "CPU", c.device_name};
    std::unique_ptr<OpKernel> parser;
    *s = KernelRegistry::global().create(pc, &parser);
    spec->parser = std::move(parser);
    spec_ = std::move(spec);
  }

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::shared_ptr<const DatasetBase> input;
    ACTORFLOW_RETURN_IF_ERROR(input_dataset(ctx, 0, &input));
    std::int64_t parallel = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "num_parallel_calls", &parallel));
    if (parallel <= 0 && parallel != -1)
      return invalid_argument("num_parallel_calls must be greater than zero.");
    const auto nd = static_cast<int>(spec_->dense_keys.size());
    if (ctx.num_inputs() - 2 != nd)
      return invalid_argument("Expected len(dense_defaults) == len(dense_keys) but got: " +
                              std::to_string(ctx.num_inputs() - 2) + " vs. " + std::to_string(nd));
    auto spec = std::make_shared<ParseSpec>(*spec_);
    spec->dense_defaults.clear();
    for (int d = 0; d < nd; ++d) {
      const Tensor& t = ctx.input(2 + d);
      if (t.dtype() != spec->dense_types[static_cast<std::size_t>(d)])
        return invalid_argument(
            "dense_defaults[" + std::to_string(d) +
            "].dtype() == " + std::string(data_type_string(t.dtype())) + " != dense_types_[" +
            std::to_string(d) + "] == " +
            std::string(data_type_string(spec->dense_types[static_cast<std::size_t>(d)])));
      spec->dense_defaults.push_back(t);
    }
    *out = std::make_shared<ParseExampleDataset>(op_, std::move(input), std::move(spec), dtypes_,
                                                 shapes_);
    return {};
  }

 private:
  std::string op_;
  std::shared_ptr<const ParseSpec> spec_;
};

}  // namespace

void register_parse_example_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op :
       {"ParseExampleDataset", "ParseExampleDatasetV2", "ExperimentalParseExampleDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(make_kernel_def<ParseExampleDatasetOp>(op, "CPU"));
  }
}

}  // namespace af::data::detail
