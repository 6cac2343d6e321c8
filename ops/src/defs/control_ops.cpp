// Const, Placeholder, Identity, IdentityN, NoOp, _Send, _Recv and _Delay: ops, shape functions and
// graph-building functions. Their CPU kernels are in kernels/src/control_ops.cpp.
#include <chrono>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

Status infer_identity(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  // An identity of a resource handle still names the same variable (TF's handle data).
  if (c.input_types[0] == DType::resource) c.output_handle_shapes = {c.input_handle_shapes[0]};
  return {};
}

// Placeholder and _Recv: the output has the type of attr `type_attr` and the shape of attr
// "shape" (unknown without it).
Status infer_from_type_and_shape_attrs(InferenceContext& c, const char* type_attr) {
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr(type_attr, &t));
  PartialShape s;
  c.get_attr("shape", &s);
  c.add_output(t, s);
  return {};
}

}  // namespace

namespace detail {

void register_control_ops(OpRegistry& r) {
  r.add({"Const", [](InferenceContext& c) -> Status {
           Tensor value;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("value", &value));
           c.add_output(value.dtype(), PartialShape(value.shape()));
           return {};
         }});
  r.add({"Placeholder",
         [](InferenceContext& c) { return infer_from_type_and_shape_attrs(c, "dtype"); }});
  r.add({"Identity", infer_identity});
  // IdentityN (what a lowered While or If leaves under the functional node's name): each
  // output is its input, types from attr T.
  r.add({"IdentityN", [](InferenceContext& c) -> Status {
           std::vector<DType> types;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &types));
           if (types.size() != c.input_types.size())
             return invalid_argument("IdentityN has " + std::to_string(c.input_types.size()) +
                                     " inputs for " + std::to_string(types.size()) + " types in T");
           for (int i = 0; i < c.num_inputs(); ++i) {
             if (types[static_cast<std::size_t>(i)] != c.input_types[static_cast<std::size_t>(i)])
               return invalid_argument(
                   "IdentityN input " + std::to_string(i) + " is " +
                   std::string(dtype_name(c.input_types[static_cast<std::size_t>(i)])) +
                   ", T says " + std::string(dtype_name(types[static_cast<std::size_t>(i)])));
             c.add_output(c.input_types[static_cast<std::size_t>(i)],
                          c.input_shapes[static_cast<std::size_t>(i)]);
           }
           c.output_handle_shapes = c.input_handle_shapes;
           return {};
         }});
  r.add({"NoOp", [](InferenceContext&) -> Status { return {}; }});
  r.add({"_Send", [](InferenceContext& c) { return c.expect_inputs(1); }, true});
  r.add(
      {"_Recv", [](InferenceContext& c) { return infer_from_type_and_shape_attrs(c, "T"); }, true});
  r.add({"_Delay", infer_identity, true});
}

}  // namespace detail

Output identity(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("Identity", {x}, {{"T", x.dtype()}}, name.empty() ? "Identity" : name)
      .output(0);
}

Output delay(const Output& x, std::chrono::microseconds d, std::string_view name) {
  return x.graph()
      .create_op("_Delay", {x},
                 {{"T", x.dtype()}, {"delay_us", static_cast<std::int64_t>(d.count())}},
                 name.empty() ? "Delay" : name)
      .output(0);
}

Output scalar_like(const Output& like, double value, std::string_view name) {
  // A scalar of like's numeric dtype (complex: a zero imaginary part); float32 for the
  // others (bool, string, resource, variant).
  const DType t_like = like.dtype();
  const DType dtype = dtype_size(t_like) > 0 && t_like != DType::boolean ? t_like : DType::float32;
  Tensor t(dtype, Shape{});
  visit_numeric_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_half_like_v<T>)
      t.data<T>()[0] = T(static_cast<float>(value));
    else
      t.data<T>()[0] = static_cast<T>(value);
  });
  return like.graph().constant(t, name.empty() ? "Const" : name);
}

}  // namespace af
