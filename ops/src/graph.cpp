#include "actorflow/ops/graph.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <mutex>
#include <optional>

#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"

namespace af {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// TensorFlow's rendering of shapes in inference errors: "[2,?]", "?" for unknown rank.
std::string inference_shape_string(const PartialShape& s) {
  if (!s.rank_known()) return "?";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    out += s.dim(i) < 0 ? std::string("?") : std::to_string(s.dim(i));
  }
  return out + "]";
}

std::string input_string(const Output& o) {
  return o.index() == 0 ? o.node()->name() : o.node()->name() + ":" + std::to_string(o.index());
}

}  // namespace

// -- Output / Operation -------------------------------------------------------------------

Graph& Output::graph() const { return node_->graph(); }
Operation Output::op() const { return Operation(node_); }
std::string Output::name() const { return node_->name() + ":" + std::to_string(index_); }
DType Output::dtype() const { return node_->output_types().at(static_cast<std::size_t>(index_)); }
const PartialShape& Output::shape() const {
  return node_->output_shapes().at(static_cast<std::size_t>(index_));
}
bool operator<(const Output& a, const Output& b) {
  if (a.node_ != b.node_) return a.node_->id() < b.node_->id();
  return a.index_ < b.index_;
}
std::ostream& operator<<(std::ostream& os, const Output& o) {
  return os << "Output(\"" << o.name() << "\", dtype=" << o.dtype() << ", shape=" << o.shape()
            << ")";
}

const std::string& Operation::name() const { return node_->name(); }
const std::string& Operation::type() const { return node_->type(); }
const std::string& Operation::device() const { return node_->def().device; }
const NodeDef& Operation::node_def() const { return node_->def(); }
int Operation::num_outputs() const { return node_->num_outputs(); }
Graph& Operation::graph() const { return node_->graph(); }

PartialShape Node::output_handle_shape(int i) const {
  if (i < 0 || static_cast<std::size_t>(i) >= output_handle_shapes_.size())
    return PartialShape::unknown();
  return output_handle_shapes_[static_cast<std::size_t>(i)];
}

std::vector<std::string> Node::colocation_names() const {
  std::vector<std::string> out;
  if (auto cls = def_.attr<std::vector<std::string>>("_class")) {
    for (auto& s : *cls)
      if (s.rfind("loc:@", 0) == 0) out.push_back(s.substr(5));
  }
  return out;
}

// -- Graph --------------------------------------------------------------------------------

Graph::Graph() = default;
Graph::~Graph() = default;

std::string Graph::unique_name(std::string_view base, bool mark_as_used) {
  std::string name(base);
  if (!name_scopes_.empty() && !name_scopes_.back().empty())
    name = name_scopes_.back() + "/" + name;
  // TensorFlow counts names case-insensitively (graph.py, unique_name).
  std::string key = lower(name);
  int i = 0;
  if (auto it = name_counts_.find(key); it != name_counts_.end()) i = it->second;
  if (mark_as_used) name_counts_[key] = i + 1;
  if (i > 0) {
    std::string base_key = key;
    while (name_counts_.count(key)) {
      key = base_key + "_" + std::to_string(i);
      ++i;
    }
    if (mark_as_used) name_counts_[key] = 1;
    name = name + "_" + std::to_string(i - 1);
  }
  return name;
}

std::string Graph::apply_device_functions(const NodeDef& def) const {
  // Innermost first; each merge function fills the fields the inner ones left unset
  // (TensorFlow's _apply_device_functions + pydev.merge_device).
  NodeDef current = def;
  for (auto it = device_stack_.rbegin(); it != device_stack_.rend(); ++it) {
    if (!it->fn) break;
    current.device = it->fn(current);
  }
  return current.device;
}

Operation Graph::create_op(const std::string& type, const std::vector<Output>& inputs,
                           AttrMap attrs, std::string_view name,
                           const std::vector<Operation>& control_inputs) {
  if (context_) return create_op_in_context(type, inputs, std::move(attrs), name, control_inputs);
  return create_op_plain(type, inputs, std::move(attrs), name, control_inputs, true, nullptr);
}

std::vector<Node*> Graph::control_stack_inputs(const std::vector<Output>& inputs) const {
  // Every enclosing frame applies unless an input was created inside it; a control input
  // that is also a data input is left out.
  std::vector<Node*> out;
  for (const auto& frame : control_stack_) {
    bool dominated = std::any_of(inputs.begin(), inputs.end(),
                                 [&](const Output& in) { return frame.created.count(in.node()); });
    if (dominated) continue;
    for (Node* d : frame.deps)
      if (std::none_of(inputs.begin(), inputs.end(),
                       [&](const Output& in) { return in.node() == d; }))
        out.push_back(d);
  }
  return out;
}

Operation Graph::create_op_plain(const std::string& type, const std::vector<Output>& inputs,
                                 AttrMap attrs, std::string_view name,
                                 const std::vector<Operation>& control_inputs,
                                 bool apply_control_stack, const ControlFlowContext* context) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto node = std::make_unique<Node>();
  node->graph_ = this;
  NodeDef& def = node->def_;
  def.op = type;
  std::string requested(name.empty() ? std::string_view(type) : name);
  if (!requested.empty() && requested.back() == '/') {
    def.name = requested.substr(0, requested.size() - 1);
  } else {
    def.name = unique_name(requested);
  }
  for (auto& in : inputs) {
    if (!in.valid())
      throw InvalidArgumentError(
          af::invalid_argument("Invalid (null) input to node '" + def.name + "'"));
    if (&in.graph() != this)
      throw InvalidArgumentError(af::invalid_argument(
          "Tensor " + in.name() + " must be from the same graph as node '" + def.name + "'"));
    if (!context_of_.empty()) check_input_context(context, type, def.name, in);
    node->inputs_.push_back(in);
    def.inputs.push_back(input_string(in));
  }
  def.attrs = std::move(attrs);
  // Control dependencies (TensorFlow's _control_dependencies_for_inputs).
  std::vector<Node*> controls;
  for (auto& op : control_inputs) controls.push_back(op.node());
  if (apply_control_stack) {
    auto scoped = control_stack_inputs(inputs);
    controls.insert(controls.end(), scoped.begin(), scoped.end());
  }
  for (auto* c : controls) {
    if (std::find(node->control_inputs_.begin(), node->control_inputs_.end(), c) ==
        node->control_inputs_.end()) {
      node->control_inputs_.push_back(c);
      def.inputs.push_back("^" + c->name());
    }
  }
  // Container scope fills the "container" attribute of stateful ops that have one.
  if (!container_stack_.empty()) {
    if (auto it = def.attrs.find("container"); it != def.attrs.end()) {
      if (auto s = std::get_if<std::string>(&it->second); s && s->empty())
        *s = container_stack_.back();
    }
  }
  def.device = apply_device_functions(def);
  // Colocation (TensorFlow's _create_op_helper): the node takes the colocated op's groups
  // and device.
  if (!colocation_stack_.empty()) {
    std::vector<std::string> groups;
    for (auto& frame : colocation_stack_) {
      for (auto& target_name : frame) {
        auto found = by_name_.find(target_name);
        if (found == by_name_.end()) {
          // A variable's initializer, built before the variable (TensorFlow's
          // `_attr_scope({"_class": loc:@var})`): the placer puts it with the variable.
          groups.push_back("loc:@" + target_name);
          continue;
        }
        Node* target = found->second;
        auto names = target->colocation_names();
        if (names.empty()) names.push_back(target->name());
        for (auto& n : names) groups.push_back("loc:@" + n);
        if (!target->def().device.empty()) def.device = target->def().device;
      }
    }
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    def.attrs["_class"] = groups;
  }
  Node* n = finish_node(std::move(node), true);
  return Operation(n);
}

Node* Graph::finish_node(std::unique_ptr<Node> node, bool apply_scopes) {
  NodeDef& def = node->def_;
  if (by_name_.count(def.name))
    throw InvalidArgumentError(
        af::invalid_argument("Duplicate node name in graph: '" + def.name + "'"));
  const OpDef* op = OpRegistry::global().find(def.op);
  if (!op) throw NotFoundError(af::not_found("Op type not registered '" + def.op + "' in binary"));
  InferenceContext ctx{def, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  for (std::size_t i = 0; i < node->inputs_.size(); ++i) {
    const Output& in = node->inputs_[i];
    ctx.input_types.push_back(in.dtype());
    ctx.input_shapes.push_back(in.shape());
    ctx.input_handle_shapes.push_back(in.node()->output_handle_shape(in.index()));
    bool wants_ref = std::find(op->ref_inputs.begin(), op->ref_inputs.end(), static_cast<int>(i)) !=
                     op->ref_inputs.end();
    // A resource handle is a reference however it arrives: through an Identity, a Switch, a
    // loop's Enter or a lowered While's IdentityN, as TensorFlow's resource tensors.
    bool is_ref = in.node()->output_is_ref(in.index()) || in.dtype() == DType::resource;
    if (wants_ref && !is_ref)
      throw InvalidArgumentError(
          af::invalid_argument("Input " + std::to_string(i) + " of '" + def.name + "' Op (" +
                               def.op + ") requires l-value input; got " + in.name()));
    ctx.input_is_ref.push_back(wants_ref);
    node->input_is_ref_.push_back(wants_ref);
    const Tensor* value = nullptr;
    if (in.node()->type() == "Const") value = in.node()->def().attr<Tensor>("value");
    ctx.input_values.push_back(value);
  }
  Status s = op->infer(ctx);
  if (!s.ok()) {
    std::string shapes;
    for (std::size_t i = 0; i < ctx.input_shapes.size(); ++i) {
      if (i) shapes += ", ";
      shapes += inference_shape_string(ctx.input_shapes[i]);
    }
    throw_if_error(Status(s.code(), s.message() + " for '" + def.name + "' (op: '" + def.op +
                                        "') with input shapes: " + shapes + "."));
  }
  node->output_types_ = std::move(ctx.output_types);
  node->output_shapes_ = std::move(ctx.output_shapes);
  node->output_is_ref_ = std::move(ctx.output_is_ref);
  node->output_is_ref_.resize(node->output_types_.size(), false);
  node->output_handle_shapes_ = std::move(ctx.output_handle_shapes);
  node->id_ = static_cast<int>(nodes_.size());
  Node* raw = node.get();
  by_name_[def.name] = raw;
  nodes_.push_back(std::move(node));
  if (apply_scopes)
    for (auto& frame : control_stack_) frame.created.insert(raw);
  // Imported names must also reserve the name for unique_name.
  name_counts_.try_emplace(lower(def.name), 1);
  ++version_;
  return raw;
}

Operation Graph::add_node_def(const NodeDef& def) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto node = std::make_unique<Node>();
  node->graph_ = this;
  node->def_ = def;
  for (auto& in : def.inputs) {
    bool control = !in.empty() && in[0] == '^';
    std::string ref = control ? in.substr(1) : in;
    int index = 0;
    if (auto colon = ref.rfind(':'); !control && colon != std::string::npos) {
      index = std::stoi(ref.substr(colon + 1));
      ref = ref.substr(0, colon);
    }
    auto it = by_name_.find(ref);
    if (it == by_name_.end())
      throw InvalidArgumentError(af::invalid_argument("Node '" + def.name + "': unknown input '" +
                                                      in + "' (inputs must precede consumers)"));
    if (control) {
      node->control_inputs_.push_back(it->second);
    } else {
      if (index < 0 || index >= it->second->num_outputs())
        throw InvalidArgumentError(af::invalid_argument("Node '" + def.name + "': input '" + in +
                                                        "' names a missing output"));
      node->inputs_.emplace_back(it->second, index);
    }
  }
  return Operation(finish_node(std::move(node), false));
}

void Graph::update_input(const Operation& op, int index, const Output& value) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  Node* node = op.node();
  if (node == nullptr || &node->graph() != this || !value.valid() || &value.graph() != this)
    throw InvalidArgumentError(
        af::invalid_argument("update_input: the op and the tensor must belong to this graph"));
  if (index < 0 || static_cast<std::size_t>(index) >= node->inputs_.size())
    throw InvalidArgumentError(af::invalid_argument("update_input: node '" + node->name() +
                                                    "' has no input " + std::to_string(index)));
  const Output& old = node->inputs_[static_cast<std::size_t>(index)];
  if (old.dtype() != value.dtype())
    throw InvalidArgumentError(af::invalid_argument(
        "Input " + std::to_string(index) + " of node " + node->name() + " was passed " +
        std::string(data_type_string(value.dtype())) + " from " + value.name() +
        " incompatible with expected " + std::string(data_type_string(old.dtype()))));
  node->inputs_[static_cast<std::size_t>(index)] = value;
  // The NodeDef lists data inputs first, in order.
  node->def_.inputs[static_cast<std::size_t>(index)] =
      value.index() == 0 ? value.node()->name()
                         : value.node()->name() + ":" + std::to_string(value.index());
  ++version_;
}

namespace {

// Whether `t` is an output of a node of `g`.
bool is_output_of(const Graph& g, const Output& t) {
  return t.valid() && &t.graph() == &g && t.index() >= 0 && t.index() < t.node()->num_outputs();
}

}  // namespace

void Graph::set_shape(const Output& t, const PartialShape& shape) {
  if (!is_output_of(*this, t))
    throw InvalidArgumentError(af::invalid_argument("set_shape: no such tensor in this graph"));
  std::unique_lock<std::shared_mutex> lock(mu_);
  PartialShape& current = t.node()->output_shapes_.at(static_cast<std::size_t>(t.index()));
  PartialShape merged;
  if (!current.merge_with(shape, &merged).ok())
    throw InvalidArgumentError(af::invalid_argument("Shapes " + current.to_string() + " and " +
                                                    shape.to_string() + " are incompatible"));
  current = std::move(merged);
}

void Graph::prevent_fetching(const Operation& op) {
  if (!op.valid() || &op.graph() != this)
    throw InvalidArgumentError(af::invalid_argument("prevent_fetching: no such op in this graph"));
  std::unique_lock<std::shared_mutex> lock(mu_);
  op.node()->fetchable_ = false;
}

void Graph::prevent_feeding(const Output& t) {
  if (!is_output_of(*this, t))
    throw InvalidArgumentError(
        af::invalid_argument("prevent_feeding: no such tensor in this graph"));
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto& marks = t.node()->not_feedable_;
  marks.resize(static_cast<std::size_t>(t.node()->num_outputs()), false);
  marks.at(static_cast<std::size_t>(t.index())) = true;
}

Operation Graph::operation(std::string_view name) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = by_name_.find(name);
  if (it == by_name_.end())
    throw NotFoundError(af::not_found("The name '" + std::string(name) +
                                      "' refers to an Operation not in the graph."));
  return Operation(it->second);
}

bool Graph::contains(std::string_view name) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return by_name_.find(name) != by_name_.end();
}

Output Graph::output(std::string_view name) const {
  std::string_view op_name = name;
  int index = 0;
  if (auto colon = name.rfind(':'); colon != std::string_view::npos) {
    op_name = name.substr(0, colon);
    const std::string_view digits = name.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      // Python's as_graph_element says the same of a name whose index is not a number.
      throw InvalidArgumentError(af::invalid_argument(
          "The name '" + std::string(name) +
          "' looks like a Tensor name, but is not a valid one. Tensor names must be of the "
          "form \"<op_name>:<output_index>\"."));
  }
  Operation op = operation(op_name);
  if (index < 0 || index >= op.num_outputs())
    throw NotFoundError(af::not_found("The name '" + std::string(name) +
                                      "' refers to a Tensor which does not exist."));
  return op.output(index);
}

std::vector<Node*> Graph::nodes() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (auto& n : nodes_) out.push_back(n.get());
  return out;
}

std::vector<Node*> Graph::nodes_locked() const {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (auto& n : nodes_) out.push_back(n.get());
  return out;
}

int Graph::num_nodes() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return static_cast<int>(nodes_.size());
}

// -- scopes ---------------------------------------------------------------------------------

ScopeGuard Graph::device(std::string_view spec) {
  DeviceSpec parsed = DeviceSpec::parse(spec);
  return device(DeviceFunction([parsed](const NodeDef& def) {
    // pydev.merge_device: the node's current (inner) spec wins over this scope's.
    DeviceSpec merged = parsed;
    merged.merge_from(DeviceSpec::parse(def.device));
    return merged.to_string();
  }));
}

ScopeGuard Graph::device(DeviceFunction fn) {
  device_stack_.push_back({std::move(fn)});
  return ScopeGuard([this] { device_stack_.pop_back(); });
}

ScopeGuard Graph::device(std::nullptr_t) {
  device_stack_.push_back({nullptr});
  return ScopeGuard([this] { device_stack_.pop_back(); });
}

ScopeGuard Graph::control_dependencies(const std::vector<Operation>& deps) {
  ControlFrame frame;
  for (auto& op : deps) {
    if (!op.valid())
      throw InvalidArgumentError(af::invalid_argument("control_dependencies: invalid operation"));
    frame.deps.push_back(op.node());
  }
  control_stack_.push_back(std::move(frame));
  return ScopeGuard([this] { control_stack_.pop_back(); });
}

ScopeGuard Graph::name_scope(std::string_view name) {
  std::string scope;
  if (!name.empty() && name.back() == '/') {
    scope = std::string(name.substr(0, name.size() - 1));
  } else if (!name.empty()) {
    scope = unique_name(name);
  }
  name_scopes_.push_back(scope);
  return ScopeGuard([this] { name_scopes_.pop_back(); });
}

ScopeGuard Graph::colocate_with(const Operation& op) {
  // Like TensorFlow, colocation is stronger than device functions: they are suspended.
  auto saved = std::make_shared<std::vector<DeviceEntry>>(std::move(device_stack_));
  device_stack_.clear();
  colocation_stack_.push_back({op.name()});
  return ScopeGuard([this, saved] {
    colocation_stack_.pop_back();
    device_stack_ = std::move(*saved);
  });
}

ScopeGuard Graph::container(std::string_view name) {
  container_stack_.emplace_back(name);
  return ScopeGuard([this] { container_stack_.pop_back(); });
}

// -- building blocks --------------------------------------------------------------------------

Output Graph::constant(const Tensor& value, std::string_view name) {
  if (!value.is_initialized())
    throw InvalidArgumentError(af::invalid_argument("constant: uninitialized tensor"));
  return create_op("Const", {}, {{"value", value}, {"dtype", value.dtype()}},
                   name.empty() ? "Const" : name)
      .output(0);
}

Output Graph::placeholder(DType dtype, PartialShape shape, std::string_view name) {
  return create_op("Placeholder", {}, {{"dtype", dtype}, {"shape", shape}},
                   name.empty() ? "Placeholder" : name)
      .output(0);
}

Variable Graph::variable(const Tensor& initial_value, VariableOptions options) {
  if (!initial_value.is_initialized())
    throw InvalidArgumentError(af::invalid_argument("variable: uninitialized initial value"));
  auto scope = name_scope(options.name.empty() ? "Variable" : options.name);
  Tensor init = initial_value;
  // ResourceVariable._init_from_args converts the value under `Initializer/`.
  Output init_out =
      constant(init, options.use_resource ? "Initializer/initial_value" : "initial_value");
  return variable(init_out, [&] {
    VariableOptions o = options;
    o.name = name_scopes_.back() + "/";  // already inside the variable's scope
    return o;
  }());
}

Variable Graph::variable(const std::function<Output(Graph&)>& make_initial,
                         VariableOptions options) {
  std::optional<ScopeGuard> scope;
  std::string scope_name;
  if (!options.name.empty() && options.name.back() == '/') {
    scope_name = options.name.substr(0, options.name.size() - 1);
  } else {
    scope.emplace(name_scope(options.name.empty() ? "Variable" : options.name));
    scope_name = name_scopes_.back();
  }
  Output initial;
  {
    auto saved = std::make_shared<std::vector<DeviceEntry>>(std::move(device_stack_));
    device_stack_.clear();
    colocation_stack_.push_back({scope_name});  // the variable is made below
    ScopeGuard restore([this, saved] {
      colocation_stack_.pop_back();
      device_stack_ = std::move(*saved);
    });
    auto init_scope = name_scope(scope_name + "/Initializer/");
    initial = make_initial(*this);
  }
  options.name = scope_name + "/";
  return variable(initial, std::move(options));
}

Variable Graph::variable(const Output& initial_value, VariableOptions options) {
  std::optional<ScopeGuard> scope;
  std::string scope_name;
  if (!options.name.empty() && options.name.back() == '/') {
    scope_name = options.name.substr(0, options.name.size() - 1);
  } else {
    scope.emplace(name_scope(options.name.empty() ? "Variable" : options.name));
    scope_name = name_scopes_.back();
  }
  DType dtype = options.dtype.value_or(initial_value.dtype());
  Output init = initial_value;
  if (dtype != init.dtype()) init = cast(init, dtype);
  PartialShape shape = options.shape.value_or(init.shape());
  if (options.use_resource) return resource_variable(init, dtype, shape, scope_name, options);
  Operation var = create_op("VariableV2", {},
                            {{"shape", shape},
                             {"dtype", dtype},
                             {"container", std::string()},
                             {"shared_name", options.shared_name}},
                            scope_name + "/");
  Output ref = var.output(0);
  Operation assign_op;
  {
    auto colocate = colocate_with(var);
    assign_op = create_op("Assign", {ref, init},
                          {{"T", dtype}, {"validate_shape", true}, {"use_locking", true}},
                          scope_name + "/Assign/");
  }
  Output read;
  {
    auto colocate = colocate_with(var);
    read = create_op("Identity", {ref}, {{"T", dtype}}, scope_name + "/read/").output(0);
  }
  return add_variable(Variable(ref, assign_op, read, init), options);
}

Variable Graph::resource_variable(const Output& init, DType dtype, const PartialShape& shape,
                                  const std::string& scope_name, const VariableOptions& options) {
  // ResourceVariable._init_from_args: the handle is the variable's op, shared under its name;
  // the initializer and the cached read sit beside it.
  const std::string shared_name = options.shared_name.empty() ? scope_name : options.shared_name;
  Output handle = var_handle_op(*this, dtype, shape, shared_name, scope_name + "/");
  Operation assign_op;
  Output read;
  {
    auto colocate = colocate_with(handle.op());
    assign_op = assign_variable_op(handle, init, scope_name + "/Assign/");
    auto read_scope = name_scope(scope_name + "/Read/");
    read = read_variable_op(handle, dtype, "ReadVariableOp");
  }
  return add_variable(Variable(handle, assign_op, read, init), options);
}

Variable Graph::add_variable(Variable v, const VariableOptions& options) {
  if (options.save_slice_info) v.set_save_slice_info(*options.save_slice_info);
  // TensorFlow's RefVariable._init_from_args: the given collections (default
  // GLOBAL_VARIABLES), plus TRAINABLE_VARIABLES when trainable, each once.
  std::vector<std::string> collections =
      options.collections.value_or(std::vector<std::string>{kGlobalVariables});
  if (options.trainable) collections.emplace_back(kTrainableVariables);
  std::vector<std::string> joined;
  for (auto& name : collections) {
    if (std::find(joined.begin(), joined.end(), name) != joined.end()) continue;
    joined.push_back(name);
    add_to_collection(name, v);
  }
  return v;
}

Operation Graph::no_op(std::string_view name) {
  return create_op("NoOp", {}, {}, name.empty() ? "NoOp" : name);
}

Operation Graph::group(const std::vector<Operation>& ops, std::string_view name) {
  // TensorFlow's control_flow_ops.group: inputs are sorted by their device; the NoOp goes
  // to the device its inputs share, and inputs on several devices get one NoOp per device
  // (`<name>/NoOp`, `<name>/NoOp_1`, ...) that the returned NoOp, in the current scope,
  // depends on. So a group never makes a device wait on another for nothing: the gradients'
  // tuples of a worker stay on that worker when the variables are on a parameter server.
  std::map<std::string, std::vector<Operation>> by_device;
  for (const auto& op : ops) by_device[op.node()->def().device].push_back(op);
  const std::string base(name.empty() ? std::string_view("group_deps") : name);
  if (by_device.size() <= 1) {
    std::optional<ScopeGuard> on;
    if (!by_device.empty() && !by_device.begin()->first.empty())
      on.emplace(device(by_device.begin()->first));
    return create_op("NoOp", {}, {}, base, ops);
  }
  const std::string root = unique_name(base);
  std::vector<Operation> per_device;
  for (auto& [dev, members] : by_device) {
    std::optional<ScopeGuard> on;
    if (!dev.empty()) on.emplace(device(dev));
    const std::string suffix = per_device.empty() ? "" : "_" + std::to_string(per_device.size());
    per_device.push_back(create_op("NoOp", {}, {}, root + "/NoOp" + suffix + "/", members));
  }
  return create_op("NoOp", {}, {}, root + "/", per_device);
}

Operation Graph::global_variables_initializer() {
  return variables_initializer(global_variables(), "init");
}

Operation Graph::variables_initializer(const std::vector<Variable>& vars, std::string_view name) {
  std::vector<Operation> inits;
  for (auto& v : vars) inits.push_back(v.initializer());
  return group(inits, name);
}

namespace {

// The values of a collection of Variables (std::bad_any_cast for anything else in it).
std::vector<Variable> variables_in(const std::vector<std::any>& collection) {
  std::vector<Variable> out;
  out.reserve(collection.size());
  for (auto& a : collection) out.push_back(std::any_cast<Variable>(a));
  return out;
}

}  // namespace

std::vector<Variable> Graph::global_variables() const {
  return variables_in(get_collection(kGlobalVariables));
}

std::vector<Variable> Graph::local_variables() const {
  return variables_in(get_collection(kLocalVariables));
}

Operation Graph::local_variables_initializer() {
  return variables_initializer(local_variables(), "init");
}

std::pair<std::int64_t, std::int64_t> Graph::get_seed(std::optional<std::int64_t> op_seed) {
  // tensorflow/python/framework/random_seed.py (TF 1.x).
  constexpr std::int64_t kMaxInt32 = (1LL << 31) - 1;
  constexpr std::int64_t kDefaultGraphSeed = 87654321;
  auto truncate = [](std::int64_t s) { return s % kMaxInt32; };
  std::pair<std::int64_t, std::int64_t> seeds{0, 0};
  if (seed_) {
    std::int64_t op = op_seed ? *op_seed : static_cast<std::int64_t>(nodes_.size());
    seeds = {truncate(*seed_), truncate(op)};
  } else if (op_seed) {
    seeds = {kDefaultGraphSeed, truncate(*op_seed)};
  } else {
    return {0, 0};
  }
  if (seeds.first == 0 && seeds.second == 0) return {0, kMaxInt32};
  return seeds;
}

void Graph::add_to_collection(const std::string& name, std::any value) {
  collections_[name].push_back(std::move(value));
}

const std::vector<std::any>& Graph::get_collection(const std::string& name) const {
  static const std::vector<std::any> empty;
  auto it = collections_.find(name);
  return it == collections_.end() ? empty : it->second;
}

std::vector<std::string> Graph::get_all_collection_keys() const {
  std::vector<std::string> keys;
  for (const auto& [name, values] : collections_)
    if (!values.empty()) keys.push_back(name);
  return keys;
}

GraphDef Graph::to_graph_def() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  GraphDef out;
  for (auto& n : nodes_) out.nodes.push_back(n->def());
  return out;
}

void Graph::import_graph_def(const GraphDef& def) {
  // A while loop's Merge comes before its NextIteration (`to_graph_def` lists nodes in
  // creation order): its other input stands in for the back edge until the NextIteration
  // exists, as the GraphDef importer does.
  struct BackEdge {
    std::string merge;
    int input;
    std::string source;
  };
  std::vector<BackEdge> back;
  for (NodeDef n : def.nodes) {
    if ((n.op == "Merge" || n.op == "RefMerge") && n.inputs.size() >= 2)
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        const std::string& in = n.inputs[k];
        if (in.empty() || in[0] == '^' || contains(in.substr(0, in.rfind(':')))) continue;
        back.push_back({n.name, static_cast<int>(k), in});
        n.inputs[k] = n.inputs[k == 0 ? 1 : 0];
      }
    add_node_def(n);
  }
  for (const auto& b : back) update_input(operation(b.merge), b.input, output(b.source));
}

// -- Variable ----------------------------------------------------------------------------------

namespace {

// A resource variable's update followed by a read of the new value (resource_variable_ops.py's
// assign with read_value=True), both colocated with the handle.
Output update_then_read(const Variable& v, Operation update) {
  Graph& g = v.graph();
  auto colocate = g.colocate_with(v.op());
  auto deps = g.control_dependencies({update});
  return read_variable_op(v.ref(), v.dtype());
}

}  // namespace

Output Variable::assign(const Output& value, std::string_view name) const {
  if (is_resource())
    return update_then_read(
        *this, assign_variable_op(ref_, value, name.empty() ? "AssignVariableOp" : name));
  return af::assign(ref_, value, name);
}
Output Variable::assign_add(const Output& delta, std::string_view name) const {
  if (is_resource()) return update_then_read(*this, assign_add_variable_op(ref_, delta, name));
  return af::assign_add(ref_, delta, name);
}
Output Variable::assign_sub(const Output& delta, std::string_view name) const {
  if (is_resource()) return update_then_read(*this, assign_sub_variable_op(ref_, delta, name));
  return af::assign_sub(ref_, delta, name);
}

}  // namespace af
