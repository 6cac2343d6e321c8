// TensorArrays: the definitions (shape functions) of TensorArrayV3, TensorArrayGradV3,
// TensorArrayGradWithShape, TensorArrayWriteV3, TensorArrayReadV3, TensorArrayGatherV3,
// TensorArrayScatterV3, TensorArrayConcatV3, TensorArraySplitV3, TensorArraySizeV3 and
// TensorArrayCloseV3 (TensorFlow's data_flow_ops.cc), and the graph API of
// tensor_array_ops.hpp (tensor_array_ops.py's _GraphTensorArray). The arrays and their CPU
// kernels are in kernels/src/tensor_array_ops.cpp; the gradients in
// ops/src/gradients/tensor_array_grad.cpp.
#include "actorflow/ops/tensor_array_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../gradients/gradient_helpers.hpp"  // constant_ints
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace detail {

namespace {

// A handle input: a resource vector of 2 (TensorFlow's handle shape).
Status check_handle(const InferenceContext& c, int i = 0) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(i, DType::resource));
  const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(s, 1));
  if (s.rank_known() && s.dim(0) >= 0 && s.dim(0) != 2)
    return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                            std::to_string(s.dim(0)) + " and 2.");
  return {};
}

Status check_scalar(const InferenceContext& c, int i) {
  return with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0);
}

// The element shape the handle carries (TensorFlow's handle data), or unknown.
const PartialShape& handle_element_shape(const InferenceContext& c) {
  static const PartialShape none;
  return c.input_handle_shapes.empty() ? none : c.input_handle_shapes[0];
}

void add_handle_output(InferenceContext& c, PartialShape element_shape) {
  c.add_output(DType::resource, PartialShape{2});
  c.output_handle_shapes.resize(c.output_types.size());
  c.output_handle_shapes.back() = std::move(element_shape);
}

// TensorArrayV3(size: int32) -> (handle, flow: float).
Status infer_tensor_array(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 0));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  PartialShape element;
  c.get_attr("element_shape", &element);
  bool identical = false;
  c.get_attr("identical_element_shapes", &identical);
  add_handle_output(c, element.fully_defined() || identical ? element : PartialShape());
  c.add_output(DType::float32, PartialShape(Shape{}));
  return {};
}

// TensorArrayGradV3(handle, flow_in) -> (grad_handle, flow_out); WithShape adds
// shape_to_prepend: int32.
Status infer_grad(InferenceContext& c) {
  if (c.num_inputs() != 2 && c.num_inputs() != 3) return c.expect_inputs(2);
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::float32));
  std::string source;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("source", &source));
  add_handle_output(c, c.num_inputs() == 2 ? handle_element_shape(c) : PartialShape());
  c.add_output(DType::float32, PartialShape(Shape{}));
  return {};
}

// TensorArrayWriteV3(handle, index: int32, value: T, flow_in) -> flow_out.
Status infer_write(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(3, DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 3));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(handle_element_shape(c).merge_with(c.input_shapes[2], &merged));
  c.add_output(DType::float32, PartialShape(Shape{}));
  return {};
}

// TensorArrayReadV3(handle, index: int32, flow_in) -> value: dtype.
Status infer_read(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 2));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  c.add_output(dtype, handle_element_shape(c));
  return {};
}

// [n] + element: a gather's shape.
PartialShape prepend(std::int64_t n, const PartialShape& element) {
  if (!element.rank_known()) return PartialShape::unknown();
  std::vector<std::int64_t> dims = element.dims();
  dims.insert(dims.begin(), n);
  return PartialShape(std::move(dims));
}

// TensorArrayGatherV3(handle, indices: int32, flow_in) -> value: dtype.
Status infer_gather(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  const PartialShape& indices = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(indices, 1));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 2));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  // TensorFlow concatenates the handle's element shape when the handle has one, which an
  // array made with identical_element_shapes always has, known or not: the attr (the static
  // shape the Python API knew) is left to Python's set_shape, as TensorFlow leaves it.
  c.add_output(dtype, prepend(indices.rank_known() ? indices.dim(0) : -1, handle_element_shape(c)));
  return {};
}

// TensorArrayScatterV3(handle, indices: int32, value: T, flow_in) -> flow_out.
Status infer_scatter(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 3));
  c.add_output(DType::float32, PartialShape(Shape{}));
  return {};
}

// TensorArrayConcatV3(handle, flow_in) -> (value: dtype, lengths: int64).
Status infer_concat(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  c.add_output(dtype, PartialShape::unknown());
  c.add_output(DType::int64, PartialShape{-1});
  return {};
}

// TensorArraySplitV3(handle, value: T, lengths: int64, flow_in) -> flow_out.
Status infer_split(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 3));
  c.add_output(DType::float32, PartialShape(Shape{}));
  return {};
}

// TensorArraySizeV3(handle, flow_in) -> size: int32.
Status infer_size(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1));
  c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

// TensorArrayCloseV3(handle).
Status infer_close(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  return check_handle(c);
}

}  // namespace

void register_tensor_array_ops(OpRegistry& r) {
  r.add({"TensorArrayV3", infer_tensor_array, true});
  r.add({"TensorArrayGradV3", infer_grad, true});
  r.add({"TensorArrayGradWithShape", infer_grad, true});
  r.add({"TensorArrayWriteV3", infer_write, true});
  r.add({"TensorArrayReadV3", infer_read, true});
  r.add({"TensorArrayGatherV3", infer_gather, true});
  r.add({"TensorArrayScatterV3", infer_scatter, true});
  r.add({"TensorArrayConcatV3", infer_concat, true});
  r.add({"TensorArraySplitV3", infer_split, true});
  r.add({"TensorArraySizeV3", infer_size, true});
  r.add({"TensorArrayCloseV3", infer_close, true});
}

}  // namespace detail

// -- the graph API -------------------------------------------------------------------------

/// What the copies of one TensorArray share (Python shares these between the objects
/// `build_ta_with_new_flow` makes): the static element shape writes refine, and the value
/// the array's ops are colocated with.
struct TensorArray::State {
  DType dtype = DType::invalid;
  Output size;  ///< the size given at construction (invalid: read it with TensorArraySizeV3)
  std::optional<std::int32_t> size_value;  ///< a size given as a number (Python's int)
  bool dynamic_size = false;
  bool infer_shape = true;
  bool colocate_with_first_write_call = true;
  std::shared_ptr<PartialShape> element_shape = std::make_shared<PartialShape>();
  std::shared_ptr<std::vector<Operation>> colocate_with =
      std::make_shared<std::vector<Operation>>();
};

TensorArray::TensorArray(std::shared_ptr<State> state, Output handle, Output flow)
    : state_(std::move(state)), handle_(std::move(handle)), flow_(std::move(flow)) {}

namespace {

/// tensor_util.constant_value for integer tensors: a Const's values, also through a Cast.
std::optional<std::vector<std::int64_t>> constant_ints_of(const Output& x) {
  if (x.valid() && x.node()->type() == "Cast") return detail::constant_ints(x.node()->inputs()[0]);
  return detail::constant_ints(x);
}

/// The name scope `name` (default `fallback`) made unique, as Python's name_scope(name,
/// default_name) opens it.
ScopeGuard scope_of(Graph& g, std::string_view name, std::string_view fallback) {
  return g.name_scope(name.empty() ? fallback : name);
}

/// An op named `name` (default `type`) whose int32 scalar input `index` a Python int gave:
/// the Const "<op>/index", as op_def_library converts it.
Output int_input(Graph& g, std::string_view name, std::string_view type, std::int32_t value,
                 std::string* op_name) {
  *op_name = g.unique_name(name.empty() ? type : name);
  auto scope = g.name_scope(*op_name + "/");
  return g.constant(Tensor(value), "index");
}

}  // namespace

std::shared_ptr<TensorArray::State> TensorArray::new_state(DType dtype,
                                                           const TensorArrayOptions& o) {
  auto s = std::make_shared<TensorArray::State>();
  s->dtype = dtype;
  s->dynamic_size = o.dynamic_size;
  s->infer_shape = o.infer_shape;
  s->colocate_with_first_write_call = o.colocate_with_first_write_call;
  *s->element_shape = o.element_shape;
  return s;
}

TensorArray::TensorArray(DType dtype, const Output& size, TensorArrayOptions options)
    : state_(new_state(dtype, options)) {
  Graph& g = size.graph();
  const std::string scope = g.unique_name(options.name.empty() ? "TensorArray" : options.name);
  auto name_scope = g.name_scope(scope + "/");
  state_->size = size;
  // Python makes the op without a device when its writes will colocate it with a value.
  auto no_device = options.colocate_with_first_write_call ? g.device(nullptr) : ScopeGuard();
  Operation op = g.create_op("TensorArrayV3", {size},
                             {{"dtype", dtype},
                              {"element_shape", options.element_shape},
                              {"dynamic_size", options.dynamic_size},
                              {"clear_after_read", options.clear_after_read},
                              {"identical_element_shapes", options.infer_shape},
                              {"tensor_array_name", options.tensor_array_name}},
                             scope + "/");
  handle_ = op.output(0);
  flow_ = op.output(1);
}

TensorArray::TensorArray(Graph& g, DType dtype, std::int32_t size, TensorArrayOptions options)
    : TensorArray(
          dtype,
          [&] {
            // The Const is "<scope>/size": peek at the scope name the op will take.
            const std::string scope =
                g.unique_name(options.name.empty() ? "TensorArray" : options.name, false);
            auto s = g.name_scope(scope + "/");
            return g.constant(Tensor(size), "size");
          }(),
          options) {
  state_->size_value = size;
}

TensorArray TensorArray::from_handle(DType dtype, const Output& handle, const Output& flow,
                                     bool infer_shape, bool colocate_with_first_write_call) {
  // Python opens (and so uses up) the name scope "TensorArray" even when it makes no op.
  handle.graph().unique_name("TensorArray");
  TensorArrayOptions o;
  o.infer_shape = infer_shape;
  o.colocate_with_first_write_call = colocate_with_first_write_call;
  return TensorArray(new_state(dtype, o), handle, flow);
}

DType TensorArray::dtype() const noexcept { return state_->dtype; }

PartialShape TensorArray::element_shape() const { return *state_->element_shape; }

TensorArray TensorArray::with_flow(const Output& flow) const {
  return TensorArray(state_, handle_, flow);
}

TensorArray TensorArray::identity() const {
  const Output flow = af::identity(flow_);
  graph().unique_name("TensorArray");  // build_ta_with_new_flow's name scope, as in Python
  return with_flow(flow);
}

void TensorArray::check_element_shape(const PartialShape& shape) const {
  PartialShape& known = *state_->element_shape;
  if (!shape.is_compatible_with(known))
    throw InvalidArgumentError(invalid_argument("Inconsistent shapes: saw " + shape.to_string() +
                                                " but expected " + known.to_string() + " "));
  if (state_->infer_shape) {
    PartialShape merged;
    (void)known.merge_with(shape, &merged);
    known = std::move(merged);
  }
}

ScopeGuard TensorArray::maybe_colocate_with(const Output& value) const {
  if (!state_->colocate_with_first_write_call) return ScopeGuard();
  if (state_->colocate_with->empty()) state_->colocate_with->push_back(value.op());
  return graph().colocate_with(state_->colocate_with->front());
}

Output TensorArray::read(const Output& index, std::string_view name) const {
  Output value =
      graph()
          .create_op("TensorArrayReadV3", {handle_, index, flow_}, {{"dtype", state_->dtype}},
                     name.empty() ? "TensorArrayReadV3" : name)
          .output(0);
  graph().set_shape(value, *state_->element_shape);
  return value;
}

Output TensorArray::read(std::int32_t index, std::string_view name) const {
  std::string op_name;
  Output i = int_input(graph(), name, "TensorArrayReadV3", index, &op_name);
  Output value = graph()
                     .create_op("TensorArrayReadV3", {handle_, i, flow_},
                                {{"dtype", state_->dtype}}, op_name + "/")
                     .output(0);
  graph().set_shape(value, *state_->element_shape);
  return value;
}

TensorArray TensorArray::write(const Output& index, const Output& value,
                               std::string_view name) const {
  Graph& g = graph();
  auto scope = scope_of(g, name, "TensorArrayWrite");
  check_element_shape(value.shape());
  Output flow;
  {
    auto colocate = maybe_colocate_with(value);
    flow = g.create_op("TensorArrayWriteV3", {handle_, index, value, flow_}, {{"T", value.dtype()}},
                       name.empty() ? "TensorArrayWriteV3" : name)
               .output(0);
  }
  return with_flow(flow);
}

TensorArray TensorArray::write(std::int32_t index, const Output& value,
                               std::string_view name) const {
  Graph& g = graph();
  auto scope = scope_of(g, name, "TensorArrayWrite");
  check_element_shape(value.shape());
  Output flow;
  {
    auto colocate = maybe_colocate_with(value);
    std::string op_name;
    Output i = int_input(g, name, "TensorArrayWriteV3", index, &op_name);
    flow = g.create_op("TensorArrayWriteV3", {handle_, i, value, flow_}, {{"T", value.dtype()}},
                       op_name + "/")
               .output(0);
  }
  return with_flow(flow);
}

Output TensorArray::gather(const Output& indices, std::string_view name) const {
  const PartialShape& element = *state_->element_shape;
  Output value = graph()
                     .create_op("TensorArrayGatherV3", {handle_, indices, flow_},
                                {{"dtype", state_->dtype}, {"element_shape", element}},
                                name.empty() ? "TensorArrayGatherV3" : name)
                     .output(0);
  if (element.rank_known()) graph().set_shape(value, detail::prepend(-1, element));
  return value;
}

Output TensorArray::stack(std::string_view name) const {
  Graph& g = graph();
  auto colocate = g.colocate_with(handle_.op());
  auto scope = scope_of(g, name, "TensorArrayStack");
  Output value = gather(range(size()), name);
  const PartialShape& element = *state_->element_shape;
  if (element.rank_known() && !state_->dynamic_size && state_->size.valid()) {
    std::int64_t n = -1;
    if (state_->size_value)
      n = *state_->size_value;
    else if (auto v = constant_ints_of(state_->size); v && v->size() == 1)
      n = v->front();
    g.set_shape(value, detail::prepend(n, element));
  }
  return value;
}

Output TensorArray::concat(std::string_view name) const {
  const PartialShape& element = *state_->element_shape;
  PartialShape except0;
  if (element.rank_known() && element.rank() > 0)
    except0 =
        PartialShape(std::vector<std::int64_t>(element.dims().begin() + 1, element.dims().end()));
  else if (element.rank_known())
    except0 = PartialShape(Shape{});
  Output value = graph()
                     .create_op("TensorArrayConcatV3", {handle_, flow_},
                                {{"dtype", state_->dtype}, {"element_shape_except0", except0}},
                                name.empty() ? "TensorArrayConcatV3" : name)
                     .output(0);
  if (element.rank_known()) {
    std::int64_t dim0 = -1;
    if (state_->infer_shape) {
      // As Python, size() may add an op (a Const, or TensorArraySizeV3) just to be read here.
      auto n = constant_ints_of(size());
      if (n && n->size() == 1 && element.rank() > 0 && element.dim(0) >= 0)
        dim0 = n->front() * element.dim(0);
    }
    if (element.rank() == 0) return value;
    std::vector<std::int64_t> dims = element.dims();
    dims[0] = dim0;
    graph().set_shape(value, PartialShape(std::move(dims)));
  }
  return value;
}

TensorArray TensorArray::scatter(const Output& indices, const Output& value,
                                 std::string_view name) const {
  Graph& g = graph();
  auto scope = scope_of(g, name, "TensorArrayScatter");
  const PartialShape& s = value.shape();
  check_element_shape(s.rank_known() && s.rank() > 0 ? PartialShape(std::vector<std::int64_t>(
                                                           s.dims().begin() + 1, s.dims().end()))
                                                     : PartialShape());
  Output flow;
  {
    auto colocate = maybe_colocate_with(value);
    flow = g.create_op("TensorArrayScatterV3", {handle_, indices, value, flow_},
                       {{"T", value.dtype()}}, name.empty() ? "TensorArrayScatterV3" : name)
               .output(0);
  }
  return with_flow(flow);
}

TensorArray TensorArray::unstack(const Output& value, std::string_view name) const {
  Graph& g = graph();
  auto scope = scope_of(g, name, "TensorArrayUnstack");
  Output n = strided_slice(shape(value), {0}, {1}, {1}, {.shrink_axis_mask = 1});
  return scatter(range(n), value, name);
}

TensorArray TensorArray::split(const Output& value, const Output& lengths,
                               std::string_view name) const {
  Graph& g = graph();
  auto scope = scope_of(g, name, "TensorArraySplit");
  Output flow;
  {
    auto colocate = maybe_colocate_with(value);
    Output lengths64 = cast(lengths, DType::int64);
    if (value.shape().rank_known() && value.shape().rank() > 0) {
      if (auto c = constant_ints_of(lengths64); c && !c->empty()) {
        const auto [lo, hi] = std::minmax_element(c->begin(), c->end());
        if (*lo == *hi) {
          std::vector<std::int64_t> dims = value.shape().dims();
          dims[0] = c->front();
          check_element_shape(PartialShape(std::move(dims)));
        }
      }
    }
    flow = g.create_op("TensorArraySplitV3", {handle_, value, lengths64, flow_},
                       {{"T", value.dtype()}}, name.empty() ? "TensorArraySplitV3" : name)
               .output(0);
  }
  return with_flow(flow);
}

Output TensorArray::size(std::string_view name) const {
  if (!state_->dynamic_size && state_->size_value)  // convert_to_tensor of Python's int
    return graph().constant(Tensor(*state_->size_value));
  if (!state_->dynamic_size && state_->size.valid()) return state_->size;
  return graph()
      .create_op("TensorArraySizeV3", {handle_, flow_}, {},
                 name.empty() ? "TensorArraySizeV3" : name)
      .output(0);
}

Operation TensorArray::close(std::string_view name) const {
  return graph().create_op("TensorArrayCloseV3", {handle_}, {},
                           name.empty() ? "TensorArrayCloseV3" : name);
}

TensorArray TensorArray::grad(const std::string& source, const Output& flow,
                              std::string_view name) const {
  Graph& g = graph();
  const Output in_flow = flow.valid() ? flow : flow_;
  auto scope = scope_of(g, name, "TensorArrayGrad");
  auto colocate = g.colocate_with(handle_.op());
  Operation op = g.create_op("TensorArrayGradV3", {handle_, in_flow}, {{"source", source}},
                             name.empty() ? "TensorArrayGradV3" : name);
  Output gradient_flow;
  {
    auto deps = g.control_dependencies({op});
    gradient_flow = af::identity(in_flow, "gradient_flow");
  }
  TensorArray ta =
      from_handle(state_->dtype, op.output(0), gradient_flow, state_->infer_shape, false);
  ta.state_->element_shape = state_->element_shape;  // shared, as Python does
  return ta;
}

}  // namespace af
