// The definition of Einsum (shape function as TensorFlow's EinsumShape, common_shape_fns.cc)
// and the builder tf.einsum (special_math_ops.py's _einsum_v2). Its CPU kernel is in
// kernels/src/einsum_ops.cpp, its gradient in ops/src/gradients/einsum_grad.cpp.
#include "actorflow/ops/einsum_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/einsum_equation.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::list_type_mismatch_message;

// "Dimensions must be equal, but are 2 and 3": InferenceContext::Merge of two dimensions.
Status merge_dim(Index a, Index b, Index* out) {
  if (a >= 0 && b >= 0 && a != b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                            std::to_string(b));
  *out = a >= 0 ? a : b;
  return {};
}

// BroadcastBinaryOpOutputShapeFnHelper of the two inputs' ellipsis shapes.
Status broadcast_ellipsis_shapes(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.rank_known() || !b.rank_known()) {
    *out = PartialShape::unknown();
    return {};
  }
  const int rank = std::max(a.rank(), b.rank());
  std::vector<Index> dims(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    const Index da = ia >= 0 ? a.dim(ia) : 1, db = ib >= 0 ? b.dim(ib) : 1;
    Index d = -1;
    if (da == 1) {
      d = db;
    } else if (db == 1) {
      d = da;
    } else if (da < 0 || db < 0) {
      // One unknown, the other known and not 1: the known one (or unknown if both are).
      d = da < 0 ? (db > 1 ? db : -1) : (da > 1 ? da : -1);
    } else {
      ACTORFLOW_RETURN_IF_ERROR(merge_dim(da, db, &d));
    }
    dims[static_cast<std::size_t>(i)] = d;
  }
  *out = PartialShape(std::move(dims));
  return {};
}

// EinsumShape: each label's dimension merged across the inputs, the ellipsis shapes
// broadcast, the output laid out by its subscript.
Status infer_einsum(InferenceContext& c) {
  std::string equation;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("equation", &equation));
  std::vector<std::string> input_labels;
  std::string output_labels;
  ACTORFLOW_RETURN_IF_ERROR(detail::split_einsum_equation(equation, &input_labels, &output_labels));
  const int n = c.num_inputs();
  if (n == 0 || n > 2)
    return invalid_argument("Expected either 1 or 2 inputs but got: " + std::to_string(n));
  if (static_cast<std::size_t>(n) != input_labels.size())
    return invalid_argument("Expected " + std::to_string(input_labels.size()) +
                            " inputs for equation " + equation + " but got: " + std::to_string(n));
  for (int i = 1; i < n; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != c.input_types[0])
      return invalid_argument(list_type_mismatch_message(c.node.op, "inputs", c.input_types));

  std::map<char, Index> label_to_dimension;
  std::vector<PartialShape> bcast_shapes(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::string& labels = input_labels[static_cast<std::size_t>(i)];
    ACTORFLOW_RETURN_IF_ERROR(detail::validate_einsum_ellipsis(labels));
    const bool has_ellipsis = labels.find('.') != std::string::npos;
    const PartialShape& shape = c.input_shapes[static_cast<std::size_t>(i)];
    const auto size = static_cast<int>(labels.size());
    if (shape.rank_known()) {
      const Status s = has_ellipsis ? detail::with_rank_at_least(shape, size - 3)
                                    : detail::with_rank(shape, size);
      if (!s.ok())
        return s.with_context("\n\t for " + std::to_string(i) +
                              "th input and equation: " + equation);
    }
    bcast_shapes[static_cast<std::size_t>(i)] = PartialShape(std::vector<Index>{});
    bool seen_ellipsis = false;
    for (int k = 0; k < size; ++k) {
      const char label = labels[static_cast<std::size_t>(k)];
      // After the ellipsis, label k is axis rank - (size - k).
      const int after = shape.rank_known() ? k + shape.rank() - size : -1;
      if (label == '.') {
        if (!shape.rank_known()) {
          bcast_shapes[static_cast<std::size_t>(i)] = PartialShape::unknown();
        } else {
          const std::vector<Index>& dims = shape.dims();
          bcast_shapes[static_cast<std::size_t>(i)] =
              PartialShape(std::vector<Index>(dims.begin() + k, dims.begin() + after + 3));
        }
        k += 2;
        seen_ellipsis = true;
        continue;
      }
      const Index dim = shape.rank_known() ? shape.dim(seen_ellipsis ? after : k) : -1;
      auto [it, inserted] = label_to_dimension.emplace(label, dim);
      if (!inserted) ACTORFLOW_RETURN_IF_ERROR(merge_dim(it->second, dim, &it->second));
    }
  }
  PartialShape out_bcast = bcast_shapes[0];
  if (n == 2)
    ACTORFLOW_RETURN_IF_ERROR(
        broadcast_ellipsis_shapes(bcast_shapes[0], bcast_shapes[1], &out_bcast));

  ACTORFLOW_RETURN_IF_ERROR(detail::validate_einsum_ellipsis(output_labels));
  const bool output_has_ellipsis = output_labels.find('.') != std::string::npos;
  if (output_has_ellipsis) {
    if (!out_bcast.rank_known()) {
      c.add_output(c.input_types[0], PartialShape::unknown());
      return {};
    }
  } else {
    if (out_bcast.rank_known() && out_bcast.rank() > 0)
      return invalid_argument("Shape must be at most rank 0 but is rank " +
                              std::to_string(out_bcast.rank()) + "\n\t for einsum equation '" +
                              equation +
                              "' without ellipsis (...) in the output subscripts where input(s) "
                              "have non-empty broadcasting shape");
    out_bcast = PartialShape(std::vector<Index>{});
  }
  std::vector<Index> dims;
  for (std::size_t k = 0; k < output_labels.size(); ++k) {
    const char label = output_labels[k];
    if (label == '.') {
      dims.insert(dims.end(), out_bcast.dims().begin(), out_bcast.dims().end());
      k += 2;
      continue;
    }
    const auto it = label_to_dimension.find(label);
    if (it == label_to_dimension.end())
      return invalid_argument("Einsum output subscripts for equation '" + equation +
                              "' has label '" + std::string(1, label) +
                              "' which is not present in the input subscripts");
    dims.push_back(it->second);
  }
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

bool is_label(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

// The subscripts of an operand as _einsum_v2 resolves them, '0' standing for "...".
struct ResolvedEquation {
  std::vector<std::string> inputs;
  std::string output;
};

// _einsum_v2_parse_and_resolve_equation for `num_inputs` operands.
ResolvedEquation resolve_equation(const std::string& equation, std::size_t num_inputs) {
  auto fail = [](const std::string& message) {
    throw InvalidArgumentError(invalid_argument(message));
  };
  std::string resolved;
  for (char ch : equation)
    if (ch != ' ') resolved += ch;
  const bool has_ellipsis = equation.find("...") != std::string::npos;
  if (has_ellipsis) {
    if (resolved.find('0') != std::string::npos)
      fail("Invalid character \"0\" in equation: " + equation + ".");
    for (std::size_t at; (at = resolved.find("...")) != std::string::npos;)
      resolved.replace(at, 3, "0");
  }
  // ^([labels,]*)(->[labels]*)?$
  auto allowed = [&](char ch) { return is_label(ch) || (has_ellipsis && ch == '0'); };
  const std::size_t arrow = resolved.find("->");
  const std::string lhs = resolved.substr(0, arrow);
  const bool explicit_output = arrow != std::string::npos;
  const std::string rhs = explicit_output ? resolved.substr(arrow + 2) : std::string();
  bool ok = true;
  for (char ch : lhs) ok = ok && (allowed(ch) || ch == ',');
  for (char ch : rhs) ok = ok && allowed(ch);
  if (!ok) fail("Subscripts have incorrect format: " + resolved);
  ResolvedEquation out;
  for (std::size_t from = 0;;) {
    const std::size_t comma = lhs.find(',', from);
    out.inputs.push_back(lhs.substr(from, comma == std::string::npos ? comma : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (out.inputs.size() != num_inputs)
    fail("Got " + std::to_string(num_inputs) + " inputs for equation \"" + equation +
         "\", expecting " + std::to_string(out.inputs.size()));
  if (explicit_output) {
    out.output = rhs;
  } else {
    // Implicit output: the labels that appear once, sorted.
    std::map<char, int> counts;
    for (char ch : lhs)
      if (ch != ',') ++counts[ch];
    for (const auto& [ch, count] : counts)
      if (count == 1) out.output += ch;
  }
  if (std::set<char>(out.output.begin(), out.output.end()).size() != out.output.size())
    fail("Output subscripts contain a label appearing more than once: " + equation);
  for (char ch : out.output)
    if (ch != '0' && lhs.find(ch) == std::string::npos)
      fail("Output subscripts contain the label " + std::string(1, ch) +
           " not present in the input subscripts.");
  return out;
}

// A resolved subscript with "..." for '0' again.
std::string with_ellipsis(const std::string& subscript) {
  std::string out;
  for (char ch : subscript) out += ch == '0' ? std::string("...") : std::string(1, ch);
  return out;
}

Output einsum_node(const std::vector<Output>& inputs, const std::string& equation) {
  return inputs[0]
      .graph()
      .create_op("Einsum", inputs,
                 {{"equation", equation},
                  {"N", static_cast<std::int64_t>(inputs.size())},
                  {"T", inputs[0].dtype()}},
                 "Einsum")
      .output(0);
}

}  // namespace

namespace detail {

void register_einsum_ops(OpRegistry& r) { r.add({"Einsum", infer_einsum}); }

}  // namespace detail

Output einsum(std::string_view equation, const std::vector<Output>& inputs, std::string_view name) {
  if (inputs.empty())
    throw InvalidArgumentError(invalid_argument("einsum needs at least one input"));
  std::vector<DType> types;
  for (const Output& x : inputs) types.push_back(x.dtype());
  if (std::any_of(types.begin(), types.end(), [&](DType t) { return t != types[0]; }))
    throw InvalidArgumentError(
        invalid_argument(list_type_mismatch_message("Einsum", "inputs", types)));
  const std::string original(equation);
  const ResolvedEquation resolved = resolve_equation(original, inputs.size());
  Graph& g = inputs[0].graph();
  auto scope = g.name_scope(name.empty() ? "einsum" : name);
  if (inputs.size() <= 2) {
    std::string eq;
    for (std::size_t i = 0; i < resolved.inputs.size(); ++i)
      eq += (i ? "," : "") + with_ellipsis(resolved.inputs[i]);
    return einsum_node(inputs, eq + "->" + with_ellipsis(resolved.output));
  }
  // More operands: pairwise Einsums from the left, each intermediate keeping the labels a
  // later operand or the output still needs (TensorFlow orders the pairs by opt_einsum's
  // greedy path; the values are the same).
  std::vector<Output> operands = inputs;
  std::vector<std::string> subscripts = resolved.inputs;
  while (operands.size() > 1) {
    const std::string a = subscripts[0], b = subscripts[1];
    std::string kept;
    if (operands.size() == 2) {
      kept = resolved.output;
    } else {
      std::string later = resolved.output;
      for (std::size_t i = 2; i < subscripts.size(); ++i) later += subscripts[i];
      for (char ch : a + b)
        if (later.find(ch) != std::string::npos && kept.find(ch) == std::string::npos) kept += ch;
    }
    const Output product =
        einsum_node({operands[0], operands[1]},
                    with_ellipsis(a) + "," + with_ellipsis(b) + "->" + with_ellipsis(kept));
    operands.erase(operands.begin(), operands.begin() + 2);
    subscripts.erase(subscripts.begin(), subscripts.begin() + 2);
    operands.insert(operands.begin(), product);
    subscripts.insert(subscripts.begin(), kept);
  }
  return operands[0];
}

}  // namespace af
