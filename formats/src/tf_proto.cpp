// Conversions between actorflow's graph types and TensorFlow's messages, with TensorFlow's
// rules for reading tensors (tensorflow/core/framework/tensor.cc) and Python's for writing
// them (tensorflow/python/framework/tensor_util.py).
#include "tf_proto.hpp"

#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "actorflow/ops/detail/tf_datatype.hpp"
#include "function_instantiation.hpp"
#include "functional_ops.hpp"
#include "op_defaults.hpp"

namespace af::tfproto {

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// Fills `n` elements from `count` typed values: the last repeats, none means zeros.
template <class E, class Get>
Status fill(Tensor& t, int count, Get get, std::string_view where) {
  const std::int64_t n = t.num_elements();
  if (count > n)
    return invalid_argument(std::string(where) + ": the tensor proto holds " +
                            std::to_string(count) + " values for a tensor of " + std::to_string(n) +
                            " elements");
  E* data = t.data<E>();
  for (std::int64_t i = 0; i < n; ++i)
    data[i] = count == 0 ? E{} : static_cast<E>(get(std::min<std::int64_t>(i, count - 1)));
  return {};
}

// The int_val-carried types (int8, int16, uint16, as uint8 and int32): each value truncated.
template <class E>
Status fill_ints(Tensor& t, const tensorflow::TensorProto& p, std::string_view where) {
  return fill<E>(
      t, p.int_val_size(), [&](std::int64_t i) { return p.int_val(static_cast<int>(i)); }, where);
}

// Lists whose kind TensorFlow's op definitions give, for an empty `list {}`.
const std::set<std::string>& type_list_attrs() {
  static const std::set<std::string> names = {
      "dtypes",       "Tin",           "Tout",      "component_types", "output_types",
      "Tcomponents",  "Toutput_types", "Tinput",    "Tvalues",         "Tdense",
      "sparse_types", "dense_types",   "out_types", "Targuments",      "Tcaptured"};
  return names;
}
const std::set<std::string>& shape_list_attrs() {
  static const std::set<std::string> names = {"_output_shapes", "shapes", "output_shapes",
                                              "dense_shapes", "element_shapes"};
  return names;
}
const std::set<std::string>& string_list_attrs() {
  static const std::set<std::string> names = {"_class", "container_names", "split_names",
                                              "dense_keys", "sparse_keys"};
  return names;
}

}  // namespace

tensorflow::DataType to_proto(DType t) {
  return static_cast<tensorflow::DataType>(detail::tf_enum(t));
}

StatusOr<DType> from_proto(tensorflow::DataType t, std::string_view where) {
  if (t == tensorflow::DT_INVALID) return DType::invalid;
  const DType d = detail::dtype_of_tf_enum(static_cast<int>(t));
  if (d != DType::invalid) return d;
  const std::string name = tensorflow::DataType_IsValid(t)
                               ? tensorflow::DataType_Name(t)
                               : "DataType " + std::to_string(static_cast<int>(t));
  return invalid_argument(std::string(where) + ": " + name + " is not supported by actorflow");
}

void to_proto(const PartialShape& s, tensorflow::TensorShapeProto* out) {
  out->Clear();
  if (!s.rank_known()) {
    out->set_unknown_rank(true);
    return;
  }
  for (std::int64_t d : s.dims()) out->add_dim()->set_size(d);
}

StatusOr<PartialShape> from_proto(const tensorflow::TensorShapeProto& s, std::string_view where) {
  if (s.unknown_rank()) {
    if (s.dim_size() > 0)
      return invalid_argument(std::string(where) + ": a shape of unknown rank with dimensions");
    return PartialShape::unknown();
  }
  std::vector<std::int64_t> dims;
  for (const auto& d : s.dim()) {
    if (d.size() < -1)
      return invalid_argument(std::string(where) + ": dimension " + std::to_string(d.size()) +
                              " in a shape");
    dims.push_back(d.size());
  }
  return PartialShape(std::move(dims));
}

Status to_proto(const Tensor& t, tensorflow::TensorProto* out, std::string_view where) {
  out->Clear();
  if (!t.is_initialized()) return {};
  if (t.dtype() == DType::resource || t.dtype() == DType::variant)
    return invalid_argument(std::string(where) + ": a " + std::string(dtype_name(t.dtype())) +
                            " tensor has no TensorProto in actorflow");
  out->set_dtype(to_proto(t.dtype()));
  to_proto(PartialShape(t.shape()), out->mutable_tensor_shape());
  const std::int64_t n = t.num_elements();
  if (n == 0) return {};
  switch (t.dtype()) {
    case DType::boolean:
      for (bool b : t.flat<bool>()) out->add_bool_val(b);
      return {};
    case DType::string:
      for (const auto& s : t.flat<std::string>()) out->add_string_val(s);
      return {};
    default:
      break;
  }
  // Several elements: the raw bytes, unless every element is the same (TensorFlow's splat,
  // as `tf.zeros` and `tf.constant(0.0, shape=...)` write it: one typed value).
  const std::size_t width = dtype_size(t.dtype());
  const char* bytes = static_cast<const char*>(t.raw_data());
  bool splat = n > 1;
  for (std::int64_t i = 1; splat && i < n; ++i)
    splat = std::memcmp(bytes, bytes + static_cast<std::size_t>(i) * width, width) == 0;
  if (n > 1 && !splat) {
    out->set_tensor_content(std::string(bytes, t.total_bytes()));
    return {};
  }
  switch (t.dtype()) {
    case DType::float32:
      out->add_float_val(t.flat<float>()[0]);
      break;
    case DType::float64:
      out->add_double_val(t.flat<double>()[0]);
      break;
    case DType::int32:
      out->add_int_val(t.flat<std::int32_t>()[0]);
      break;
    case DType::uint8:
      out->add_int_val(t.flat<std::uint8_t>()[0]);
      break;
    case DType::int64:
      out->add_int64_val(t.flat<std::int64_t>()[0]);
      break;
    case DType::bfloat16:
      out->add_half_val(t.flat<bfloat16_t>()[0].bits);
      break;
    case DType::float16:
      out->add_half_val(t.flat<half_t>()[0].bits);
      break;
    case DType::int8:
      out->add_int_val(t.flat<std::int8_t>()[0]);
      break;
    case DType::int16:
      out->add_int_val(t.flat<std::int16_t>()[0]);
      break;
    case DType::uint16:
      out->add_int_val(t.flat<std::uint16_t>()[0]);
      break;
    case DType::uint32:
      out->add_uint32_val(t.flat<std::uint32_t>()[0]);
      break;
    case DType::uint64:
      out->add_uint64_val(t.flat<std::uint64_t>()[0]);
      break;
    case DType::complex64:
      out->add_scomplex_val(t.flat<complex64_t>()[0].real());
      out->add_scomplex_val(t.flat<complex64_t>()[0].imag());
      break;
    case DType::complex128:
      out->add_dcomplex_val(t.flat<complex128_t>()[0].real());
      out->add_dcomplex_val(t.flat<complex128_t>()[0].imag());
      break;
    default:
      return invalid_argument(std::string(where) + ": no TensorProto for dtype " +
                              std::string(dtype_name(t.dtype())));
  }
  return {};
}

StatusOr<Tensor> from_proto(const tensorflow::TensorProto& p, std::string_view where) {
  auto dtype = from_proto(p.dtype(), where);
  if (!dtype.ok()) return dtype.status();
  if (*dtype == DType::invalid) return Tensor();
  if (*dtype == DType::resource || *dtype == DType::variant)
    return invalid_argument(std::string(where) + ": a " + std::string(dtype_name(*dtype)) +
                            " tensor cannot be imported");
  auto partial = from_proto(p.tensor_shape(), where);
  if (!partial.ok()) return partial.status();
  auto shape = partial->to_shape();
  if (!shape)
    return invalid_argument(std::string(where) + ": a tensor of shape " + partial->to_string() +
                            " (not fully defined)");
  Tensor t(*dtype, *shape);
  const std::int64_t n = t.num_elements();
  const std::string& content = p.tensor_content();
  if (!content.empty() && *dtype != DType::string) {
    if (content.size() != t.total_bytes())
      return invalid_argument(
          std::string(where) + ": tensor_content holds " + std::to_string(content.size()) +
          " bytes for a " + std::string(dtype_name(*dtype)) + " tensor of shape " +
          shape->to_string() + " (" + std::to_string(t.total_bytes()) + " bytes)");
    if (*dtype == DType::boolean) {
      bool* b = t.data<bool>();
      for (std::int64_t i = 0; i < n; ++i) b[i] = content[static_cast<std::size_t>(i)] != 0;
    } else if (n > 0) {
      std::memcpy(t.raw_data(), content.data(), content.size());
    }
    return t;
  }
  Status s;
  switch (*dtype) {
    case DType::float32:
      s = fill<float>(
          t, p.float_val_size(), [&](std::int64_t i) { return p.float_val(static_cast<int>(i)); },
          where);
      break;
    case DType::float64:
      s = fill<double>(
          t, p.double_val_size(), [&](std::int64_t i) { return p.double_val(static_cast<int>(i)); },
          where);
      break;
    case DType::int32:
      s = fill<std::int32_t>(
          t, p.int_val_size(), [&](std::int64_t i) { return p.int_val(static_cast<int>(i)); },
          where);
      break;
    case DType::uint8:
      s = fill<std::uint8_t>(
          t, p.int_val_size(), [&](std::int64_t i) { return p.int_val(static_cast<int>(i)); },
          where);
      break;
    case DType::int64:
      s = fill<std::int64_t>(
          t, p.int64_val_size(), [&](std::int64_t i) { return p.int64_val(static_cast<int>(i)); },
          where);
      break;
    case DType::boolean:
      s = fill<bool>(
          t, p.bool_val_size(), [&](std::int64_t i) { return p.bool_val(static_cast<int>(i)); },
          where);
      break;
    case DType::bfloat16:
      s = fill<bfloat16_t>(
          t, p.half_val_size(),
          [&](std::int64_t i) {
            bfloat16_t b;
            b.bits = static_cast<std::uint16_t>(p.half_val(static_cast<int>(i)));
            return b;
          },
          where);
      break;
    case DType::float16:
      s = fill<half_t>(
          t, p.half_val_size(),
          [&](std::int64_t i) {
            half_t h;
            h.bits = static_cast<std::uint16_t>(p.half_val(static_cast<int>(i)));
            return h;
          },
          where);
      break;
    case DType::int8:
      s = fill_ints<std::int8_t>(t, p, where);
      break;
    case DType::int16:
      s = fill_ints<std::int16_t>(t, p, where);
      break;
    case DType::uint16:
      s = fill_ints<std::uint16_t>(t, p, where);
      break;
    case DType::uint32:
      s = fill<std::uint32_t>(
          t, p.uint32_val_size(), [&](std::int64_t i) { return p.uint32_val(static_cast<int>(i)); },
          where);
      break;
    case DType::uint64:
      s = fill<std::uint64_t>(
          t, p.uint64_val_size(), [&](std::int64_t i) { return p.uint64_val(static_cast<int>(i)); },
          where);
      break;
    case DType::complex64:
      s = fill<complex64_t>(
          t, p.scomplex_val_size() / 2,
          [&](std::int64_t i) {
            const int k = static_cast<int>(2 * i);
            return complex64_t(p.scomplex_val(k), p.scomplex_val(k + 1));
          },
          where);
      break;
    case DType::complex128:
      s = fill<complex128_t>(
          t, p.dcomplex_val_size() / 2,
          [&](std::int64_t i) {
            const int k = static_cast<int>(2 * i);
            return complex128_t(p.dcomplex_val(k), p.dcomplex_val(k + 1));
          },
          where);
      break;
    case DType::string:
      s = fill<std::string>(
          t, p.string_val_size(), [&](std::int64_t i) { return p.string_val(static_cast<int>(i)); },
          where);
      break;
    default:
      return invalid_argument(std::string(where) + ": no tensor for dtype " +
                              std::string(dtype_name(*dtype)));
  }
  if (!s.ok()) return s;
  return t;
}

tensorflow::FunctionDefLibrary function_closure(const tensorflow::FunctionDefLibrary& library,
                                                const std::string& root) {
  std::map<std::string, const tensorflow::FunctionDef*> by_name;
  for (const auto& f : library.function()) by_name.emplace(f.signature().name(), &f);
  tensorflow::FunctionDefLibrary out;
  std::set<std::string> seen;
  std::vector<std::string> pending{root};
  auto visit_attr = [&](const tensorflow::AttrValue& a) {
    if (a.has_func()) pending.push_back(a.func().name());
    if (a.has_list())
      for (const auto& f : a.list().func()) pending.push_back(f.name());
  };
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    const auto it = by_name.find(name);
    if (it == by_name.end() || !seen.insert(name).second) continue;
    *out.add_function() = *it->second;
    for (const auto& n : it->second->node_def()) {
      pending.push_back(n.op());
      for (const auto& [key, a] : n.attr()) visit_attr(a);
    }
  }
  return out;
}

StatusOr<AttrValue> from_proto(const tensorflow::AttrValue& v, const std::string& attr_name,
                               std::string_view where,
                               const tensorflow::FunctionDefLibrary* library) {
  switch (v.value_case()) {
    case tensorflow::AttrValue::VALUE_NOT_SET:
      return AttrValue{};
    case tensorflow::AttrValue::kS:
      return AttrValue{v.s()};
    case tensorflow::AttrValue::kI:
      return AttrValue{static_cast<std::int64_t>(v.i())};
    case tensorflow::AttrValue::kF:
      return AttrValue{v.f()};
    case tensorflow::AttrValue::kB:
      return AttrValue{v.b()};
    case tensorflow::AttrValue::kType: {
      auto t = from_proto(v.type(), where);
      if (!t.ok()) return t.status();
      return AttrValue{*t};
    }
    case tensorflow::AttrValue::kShape: {
      auto s = from_proto(v.shape(), where);
      if (!s.ok()) return s.status();
      return AttrValue{*s};
    }
    case tensorflow::AttrValue::kTensor: {
      auto t = from_proto(v.tensor(), where);
      if (!t.ok()) return t.status();
      return AttrValue{*t};
    }
    case tensorflow::AttrValue::kFunc: {
      FunctionAttr f;
      f.name = v.func().name();
      if (library) f.library = function_closure(*library, f.name).SerializeAsString();
      if (v.func().attr_size() > 0) {
        tensorflow::NameAttrList attrs = v.func();
        attrs.clear_name();
        f.attrs = attrs.SerializeAsString();
      }
      return AttrValue{std::move(f)};
    }
    case tensorflow::AttrValue::kPlaceholder:
      return invalid_argument(std::string(where) + ": a placeholder attribute (" + v.placeholder() +
                              ") belongs in a function body");
    case tensorflow::AttrValue::kList:
      break;
  }
  const auto& l = v.list();
  if (l.b_size() > 0 || l.tensor_size() > 0 || l.func_size() > 0)
    return invalid_argument(std::string(where) + ": a list of " +
                            (l.b_size() > 0        ? "bools"
                             : l.tensor_size() > 0 ? "tensors"
                                                   : "functions") +
                            " is not supported by actorflow");
  if (l.s_size() > 0) return AttrValue{std::vector<std::string>(l.s().begin(), l.s().end())};
  if (l.i_size() > 0) return AttrValue{std::vector<std::int64_t>(l.i().begin(), l.i().end())};
  if (l.f_size() > 0) return AttrValue{std::vector<float>(l.f().begin(), l.f().end())};
  if (l.type_size() > 0) {
    std::vector<DType> types;
    for (int t : l.type()) {
      auto d = from_proto(static_cast<tensorflow::DataType>(t), where);
      if (!d.ok()) return d.status();
      types.push_back(*d);
    }
    return AttrValue{std::move(types)};
  }
  if (l.shape_size() > 0) {
    std::vector<PartialShape> shapes;
    for (const auto& s : l.shape()) {
      auto p = from_proto(s, where);
      if (!p.ok()) return p.status();
      shapes.push_back(*p);
    }
    return AttrValue{std::move(shapes)};
  }
  if (type_list_attrs().count(attr_name)) return AttrValue{std::vector<DType>{}};
  if (shape_list_attrs().count(attr_name)) return AttrValue{std::vector<PartialShape>{}};
  if (string_list_attrs().count(attr_name)) return AttrValue{std::vector<std::string>{}};
  return AttrValue{std::vector<std::int64_t>{}};
}

Status to_proto(const AttrValue& v, tensorflow::AttrValue* out, std::string_view where) {
  out->Clear();
  return std::visit(
      [&](const auto& x) -> Status {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return {};
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          out->set_i(x);
        } else if constexpr (std::is_same_v<T, float>) {
          out->set_f(x);
        } else if constexpr (std::is_same_v<T, bool>) {
          out->set_b(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out->set_s(x);
        } else if constexpr (std::is_same_v<T, DType>) {
          out->set_type(to_proto(x));
        } else if constexpr (std::is_same_v<T, PartialShape>) {
          to_proto(x, out->mutable_shape());
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return to_proto(x, out->mutable_tensor(), where);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          auto* l = out->mutable_list();
          for (auto i : x) l->add_i(i);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          auto* l = out->mutable_list();
          for (auto f : x) l->add_f(f);
        } else if constexpr (std::is_same_v<T, std::vector<DType>>) {
          auto* l = out->mutable_list();
          for (auto t : x) l->add_type(to_proto(t));
        } else if constexpr (std::is_same_v<T, std::vector<PartialShape>>) {
          auto* l = out->mutable_list();
          for (const auto& s : x) to_proto(s, l->add_shape());
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          auto* l = out->mutable_list();
          for (const auto& s : x) l->add_s(s);
        } else if constexpr (std::is_same_v<T, FunctionAttr>) {
          auto* f = out->mutable_func();
          if (!x.attrs.empty() && !f->ParseFromString(x.attrs))
            return invalid_argument(std::string(where) + ": the attributes of function " +
                                    quoted(x.name) + " do not parse");
          f->set_name(x.name);
        }
        return {};
      },
      v);
}

namespace {

template <class T>
constexpr bool is_vector_v = false;
template <class T>
constexpr bool is_vector_v<std::vector<T>> = true;

// An empty list does not say what it lists; the op's default for the attribute does (types
// for ParseSequenceExampleV2's context_sparse_types, shapes for its context_dense_shapes), or
// for an attr without a default its definition (Bucketize's float boundaries).
// `v` is what from_proto made of it; it stays when the op lists no default.
AttrValue empty_list_of_default_kind(const std::string& op, const std::string& key,
                                     const tensorflow::AttrValue& value, AttrValue v) {
  if (!value.has_list()) return v;
  const auto& l = value.list();
  if (l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() + l.shape_size() +
          l.tensor_size() + l.func_size() >
      0)
    return v;
  // An empty list takes the kind of the attr's default where there is one (a list attr
  // without a default reads as any kind: NodeDef::attr).
  const AttrMap& defaults = detail::op_attr_defaults(op);
  const auto it = defaults.find(key);
  if (it == defaults.end()) return v;
  return std::visit(
      [&](const auto& d) -> AttrValue {
        using T = std::decay_t<decltype(d)>;
        if constexpr (is_vector_v<T>)
          return T{};
        else
          return v;
      },
      it->second);
}

}  // namespace

StatusOr<NodeDef> from_proto(const tensorflow::NodeDef& n,
                             const tensorflow::FunctionDefLibrary* library) {
  NodeDef def;
  def.name = n.name();
  def.op = n.op();
  def.inputs.assign(n.input().begin(), n.input().end());
  def.device = n.device();
  for (const auto& [key, value] : n.attr()) {
    auto v = from_proto(value, key, "node " + quoted(n.name()) + ": attr " + quoted(key), library);
    if (!v.ok()) return v.status();
    def.attrs.emplace(key, empty_list_of_default_kind(n.op(), key, value, std::move(*v)));
  }
  return def;
}

Status to_proto(const NodeDef& n, tensorflow::NodeDef* out) {
  out->Clear();
  out->set_name(n.name);
  out->set_op(n.op);
  for (const auto& in : n.inputs) out->add_input(in);
  out->set_device(n.device);
  auto* attrs = out->mutable_attr();
  for (const auto& [key, value] : n.attrs)
    ACTORFLOW_RETURN_IF_ERROR(
        to_proto(value, &(*attrs)[key], "node " + quoted(n.name) + ": attr " + quoted(key)));
  return {};
}

namespace {

/// The nodes of `g` as they are (no lowering).
StatusOr<GraphDef> convert_nodes(const tensorflow::GraphDef& g) {
  GraphDef def;
  def.version = g.versions().producer();
  def.nodes.reserve(static_cast<std::size_t>(g.node_size()));
  for (const auto& n : g.node()) {
    auto node = from_proto(n, g.has_library() ? &g.library() : nullptr);
    if (!node.ok()) return node.status();
    def.nodes.push_back(std::move(*node));
  }
  if (g.has_library()) def.function_library = g.library().SerializeAsString();
  return def;
}

}  // namespace

StatusOr<GraphDef> from_proto(const tensorflow::GraphDef& g) {
  // Dataset nodes run the functions they carry with the formats module's instantiator.
  install_function_instantiator();
  if (!has_functional_ops(g)) return convert_nodes(g);
  auto lowered = lower_functional_ops(g);
  if (!lowered.ok()) return lowered.status();
  return convert_nodes(*lowered);
}

Status to_proto(const GraphDef& g, tensorflow::GraphDef* out) {
  out->Clear();
  for (const auto& n : g.nodes) ACTORFLOW_RETURN_IF_ERROR(to_proto(n, out->add_node()));
  out->mutable_versions()->set_producer(g.version);
  if (!g.function_library.empty() && !out->mutable_library()->ParseFromString(g.function_library))
    return invalid_argument("GraphDef: the function library does not parse");
  // The functions the nodes carry join the library, each name once.
  std::set<std::string> defined;
  for (const auto& f : out->library().function()) defined.insert(f.signature().name());
  for (const auto& n : g.nodes)
    for (const auto& [key, value] : n.attrs) {
      const auto* f = std::get_if<FunctionAttr>(&value);
      if (!f || f->library.empty()) continue;
      tensorflow::FunctionDefLibrary carried;
      if (!carried.ParseFromString(f->library))
        return invalid_argument("node " + quoted(n.name) + ": attr " + quoted(key) +
                                ": the library of function " + quoted(f->name) + " does not parse");
      for (auto& fn : *carried.mutable_function())
        if (defined.insert(fn.signature().name()).second)
          *out->mutable_library()->add_function() = std::move(fn);
    }
  return {};
}

}  // namespace af::tfproto
