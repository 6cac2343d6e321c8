// Gradients of the TensorArray ops (TensorFlow's tensor_array_grad.py). Each gradient
// works on the gradient array of the forward array for its `gradients` call (the source:
// "gradients", "gradients_1", ... read off the incoming gradient's name): a read's gradient
// is a write to it, a write's gradient a read of it, a gather's a scatter, a scatter's a
// gather, a concat's a split and a split's a concat. The flow carries the order: the
// gradient of a forward op's flow input is the flow after its gradient op.
#include <string>
#include <vector>

#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/tensor_array_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

/// _GetGradSource: the name scope of the `gradients` call that built `grad` (the name's
/// components up to the last one starting with "gradients").
std::string grad_source(const Output& grad) {
  const std::string name = grad.name();
  std::vector<std::string> tokens;
  std::size_t start = 0;
  for (std::size_t slash; (slash = name.find('/', start)) != std::string::npos; start = slash + 1)
    tokens.push_back(name.substr(start, slash - start));
  tokens.push_back(name.substr(start));
  int last = -1;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].rfind("gradients", 0) == 0) last = static_cast<int>(i);
  if (last < 0)
    throw InvalidArgumentError(invalid_argument(
        "Expected op/tensor name to start with gradients (excluding scope), got: " + name +
        ". This means that a tf.gradients op with this op in its dependency path has a custom "
        "name that does not start with 'gradients'. Please make sure all calls to tf.gradients "
        "that have non-empty `name` arguments use names that start with 'gradients'."));
  std::string out = tokens[0];
  for (int i = 1; i <= last; ++i) out += "/" + tokens[static_cast<std::size_t>(i)];
  return out;
}

DType attr_dtype(const Operation& op, const char* attr) {
  const DType* t = op.node_def().attr<DType>(attr);
  return t ? *t : DType::invalid;
}

/// The gradient array of the forward array of `op` (handle input 0) for `source`, created
/// after `flow`.
TensorArray gradient_array(const Operation& op, const char* dtype_attr, const Output& flow,
                           const std::string& source) {
  return TensorArray::from_handle(attr_dtype(op, dtype_attr), input(op, 0), flow, true, false)
      .grad(source, flow);
}

/// The flow a write-like op's gradient starts from: its incoming flow gradient, after the
/// op's own output flow (so that the gradient array is made after the last forward write).
Output write_barrier(const Operation& op, const Output& flow_grad) {
  const Output flow_out = identity(op.output(0), "flow_out");
  auto deps = op.graph().control_dependencies({flow_out.op()});
  return identity(flow_grad, "write_barrier");
}

// _TensorArrayReadGrad: write the gradient at the index read.
std::vector<Output> read_grad(const Operation& op, const std::vector<Output>& grads) {
  const Output flow = input(op, 2);
  TensorArray g = gradient_array(op, "dtype", flow, grad_source(grads[0]));
  return {Output(), Output(), g.write(input(op, 1), grads[0]).flow()};
}

// _TensorArrayWriteGrad: read the gradient at the index written.
std::vector<Output> write_grad(const Operation& op, const std::vector<Output>& grads) {
  const std::string source = grad_source(grads[0]);
  const Output flow = write_barrier(op, grads[0]);
  TensorArray g = gradient_array(op, "T", flow, source);
  return {Output(), Output(), g.read(input(op, 1)), flow};
}

// _TensorArrayGatherGrad: scatter the gradient to the indices gathered.
std::vector<Output> gather_grad(const Operation& op, const std::vector<Output>& grads) {
  const Output flow = input(op, 2);
  TensorArray g = gradient_array(op, "dtype", flow, grad_source(grads[0]));
  return {Output(), Output(), g.scatter(input(op, 1), grads[0]).flow()};
}

// _TensorArrayScatterGrad: gather the gradients of the indices scattered.
std::vector<Output> scatter_grad(const Operation& op, const std::vector<Output>& grads) {
  const std::string source = grad_source(grads[0]);
  const Output flow = write_barrier(op, grads[0]);
  TensorArray g = gradient_array(op, "T", flow, source);
  return {Output(), Output(), g.gather(input(op, 1)), flow};
}

// _TensorArrayConcatGrad: split the gradient into the lengths concatenated.
std::vector<Output> concat_grad(const Operation& op, const std::vector<Output>& grads) {
  const Output flow = input(op, 1);
  TensorArray g = gradient_array(op, "dtype", flow, grad_source(grads[0]));
  return {Output(), g.split(grads[0], op.output(1)).flow()};
}

// _TensorArraySplitGrad: concatenate the gradients of the pieces.
std::vector<Output> split_grad(const Operation& op, const std::vector<Output>& grads) {
  const std::string source = grad_source(grads[0]);
  const Output flow = write_barrier(op, grads[0]);
  TensorArray g = gradient_array(op, "T", flow, source);
  return {Output(), g.concat(), Output(), flow};
}

}  // namespace

void register_tensor_array_gradients(GradientRegistry& r) {
  for (const char* type : {"TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape",
                           "TensorArraySizeV3", "TensorArrayCloseV3"})
    r.add_not_differentiable(type);
  r.add("TensorArrayReadV3", read_grad);
  r.add("TensorArrayWriteV3", write_grad);
  r.add("TensorArrayGatherV3", gather_grad);
  r.add("TensorArrayScatterV3", scatter_grad);
  r.add("TensorArrayConcatV3", concat_grad);
  r.add("TensorArraySplitV3", split_grad);
}

}  // namespace af::detail
