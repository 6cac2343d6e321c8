// signature_def_utils: TensorInfos of graph tensors and the Predict, Classify and Regress
// signatures TensorFlow Serving expects, with TensorFlow's checks and messages.
#include <utility>

#include "actorflow/ops/detail/tf_datatype.hpp"
#include "actorflow/saved_model/saved_model.hpp"

namespace af::saved_model {

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw InvalidArgumentError(invalid_argument(message));
}

}  // namespace

TensorInfo build_tensor_info(const Output& t) {
  require(t.valid(), "build_tensor_info: an invalid Output");
  TensorInfo info;
  info.name = t.name();
  info.dtype = t.dtype();
  info.shape = t.shape();
  return info;
}

TensorInfo build_tensor_info(const SparseTensor& t) {
  require(t.valid(), "build_tensor_info: a SparseTensor without its three tensors");
  TensorInfo info;
  info.coo_sparse = TensorInfo::CooSparse{t.values.name(), t.indices.name(), t.dense_shape.name()};
  info.dtype = t.values.dtype();
  // SparseTensor.get_shape(): the dense shape's static length as the rank.
  const PartialShape& s = t.dense_shape.shape();
  if (s.rank() == 1 && s.dim(0) >= 0)
    info.shape = PartialShape(std::vector<std::int64_t>(static_cast<std::size_t>(s.dim(0)), -1));
  return info;
}

SignatureDef build_signature_def(std::map<std::string, TensorInfo> inputs,
                                 std::map<std::string, TensorInfo> outputs,
                                 std::string method_name) {
  SignatureDef def;
  def.inputs = std::move(inputs);
  def.outputs = std::move(outputs);
  def.method_name = std::move(method_name);
  return def;
}

SignatureDef predict_signature_def(const std::map<std::string, Output>& inputs,
                                   const std::map<std::string, Output>& outputs) {
  require(!inputs.empty(), "Prediction `inputs` cannot be None or empty.");
  require(!outputs.empty(), "Prediction `outputs` cannot be None or empty.");
  std::map<std::string, TensorInfo> in, out;
  for (const auto& [key, t] : inputs) in.emplace(key, build_tensor_info(t));
  for (const auto& [key, t] : outputs) out.emplace(key, build_tensor_info(t));
  return build_signature_def(std::move(in), std::move(out), kPredictMethodName);
}

SignatureDef classification_signature_def(const Output& examples, const Output& classes,
                                          const Output& scores) {
  require(examples.valid(), "Classification `examples` cannot be None.");
  require(classes.valid() || scores.valid(),
          "Classification `classes` and `scores` cannot both be None.");
  TensorInfo input = build_tensor_info(examples);
  require(input.dtype == DType::string,
          "Classification input tensors must be of type string. Found tensors of type " +
              std::to_string(detail::tf_enum(input.dtype)));
  std::map<std::string, TensorInfo> outputs;
  if (classes.valid()) {
    TensorInfo c = build_tensor_info(classes);
    require(c.dtype == DType::string,
            "Classification classes must be of type string Tensor. Found tensors of type " +
                std::to_string(detail::tf_enum(c.dtype)) + ".`");
    outputs.emplace(kClassifyOutputClasses, std::move(c));
  }
  if (scores.valid()) {
    TensorInfo s = build_tensor_info(scores);
    require(s.dtype == DType::float32, "Classification scores must be a float Tensor.");
    outputs.emplace(kClassifyOutputScores, std::move(s));
  }
  return build_signature_def({{kClassifyInputs, std::move(input)}}, std::move(outputs),
                             kClassifyMethodName);
}

SignatureDef regression_signature_def(const Output& examples, const Output& predictions) {
  require(examples.valid(), "Regression `examples` cannot be None.");
  require(predictions.valid(), "Regression `predictions` cannot be None.");
  TensorInfo input = build_tensor_info(examples);
  require(input.dtype == DType::string,
          "Regression input tensors must be of type string. Found tensors with type " +
              std::to_string(detail::tf_enum(input.dtype)) + ".");
  TensorInfo output = build_tensor_info(predictions);
  require(output.dtype == DType::float32,
          "Regression output tensors must be of type float. Found tensors with type " +
              std::to_string(detail::tf_enum(output.dtype)) + ".");
  return build_signature_def({{kRegressInputs, std::move(input)}},
                             {{kRegressOutputs, std::move(output)}}, kRegressMethodName);
}

}  // namespace af::saved_model
