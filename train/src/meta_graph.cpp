// tf.train.export_meta_graph / import_meta_graph (tensorflow/python/framework/meta_graph.py):
// collections by the type of their values, the Saver by its SaverDef.
#include "actorflow/train/meta_graph.hpp"

#include <any>
#include <cstdint>
#include <optional>
#include <set>

#include "actorflow/ops/control_flow_defs.hpp"

namespace af::train {

namespace {

/// Collections whose bytes are VariableDefs (meta_graph.py's proto-function table).
bool holds_variables(const std::string& name) {
  static const std::set<std::string> names = {
      kGlobalVariables,         kLocalVariables,
      kTrainableVariables,      "global_step",
      "model_variables",        "moving_average_variables",
      "concatenated_variables", "trainable_resource_variables",
      "metric_variables"};
  return names.count(name) > 0;
}

/// The CollectionDef kind of one value; nullopt for a type TensorFlow would skip.
std::optional<CollectionDef::Kind> kind_of(const std::any& v) {
  if (v.type() == typeid(Variable) || v.type() == typeid(std::string) ||
      v.type() == typeid(std::shared_ptr<const WhileContext>) ||
      v.type() == typeid(std::shared_ptr<const CondBranch>))
    return CollectionDef::Kind::bytes_list;
  if (v.type() == typeid(Operation) || v.type() == typeid(Output))
    return CollectionDef::Kind::node_list;
  if (v.type() == typeid(std::int64_t) || v.type() == typeid(int))
    return CollectionDef::Kind::int64_list;
  if (v.type() == typeid(float) || v.type() == typeid(double))
    return CollectionDef::Kind::float_list;
  return std::nullopt;
}

VariableDef variable_def(const Variable& v, const std::set<std::string>& trainable) {
  VariableDef d;
  d.variable_name = v.ref().name();
  d.initializer_name = v.initializer().valid() ? v.initializer().name() : std::string();
  d.snapshot_name = v.value().name();
  d.initial_value_name = v.initial_value().valid() ? v.initial_value().name() : std::string();
  d.is_resource = v.is_resource();
  d.trainable = trainable.count(d.variable_name) > 0;
  if (const SaveSliceInfo* info = v.save_slice_info()) d.save_slice_info = *info;
  return d;
}

/// `contexts` is made on the first loop or branch met (a graph without any is not walked).
CollectionDef collection_def(const Graph& g, const std::vector<std::any>& values,
                             const std::set<std::string>& trainable,
                             std::optional<ControlFlowContextWriter>& contexts) {
  auto writer = [&]() -> const ControlFlowContextWriter& {
    if (!contexts) contexts.emplace(g);
    return *contexts;
  };
  CollectionDef d;
  std::optional<CollectionDef::Kind> kind;
  for (const auto& v : values) {
    auto k = kind_of(v);
    if (!k || (kind && *k != *kind)) continue;  // TensorFlow logs and skips such values
    kind = k;
    d.kind = *k;
    if (const auto* var = std::any_cast<Variable>(&v))
      d.bytes_list.push_back(serialize_variable_def(variable_def(*var, trainable)));
    else if (const auto* s = std::any_cast<std::string>(&v))
      d.bytes_list.push_back(*s);
    else if (const auto* loop = std::any_cast<std::shared_ptr<const WhileContext>>(&v))
      d.bytes_list.push_back(writer().while_context(**loop));
    else if (const auto* branch = std::any_cast<std::shared_ptr<const CondBranch>>(&v))
      d.bytes_list.push_back(writer().cond_context(**branch));
    else if (const auto* op = std::any_cast<Operation>(&v))
      d.node_list.push_back(op->name());
    else if (const auto* out = std::any_cast<Output>(&v))
      d.node_list.push_back(out->name());
    else if (const auto* i = std::any_cast<std::int64_t>(&v))
      d.int64_list.push_back(*i);
    else if (const auto* i32 = std::any_cast<int>(&v))
      d.int64_list.push_back(*i32);
    else if (const auto* f = std::any_cast<float>(&v))
      d.float_list.push_back(*f);
    else if (const auto* f64 = std::any_cast<double>(&v))
      d.float_list.push_back(static_cast<float>(*f64));
  }
  return d;
}

std::string scoped(const std::string& scope, const std::string& name) {
  return scope.empty() ? name : scope + "/" + name;
}

}  // namespace

MetaGraphDef export_meta_graph(const Graph& g, const std::string& filename,
                               const ExportMetaGraphOptions& options) {
  MetaGraphDef meta;
  // TensorFlow's import_meta_graph parses the version (packaging.version): the TensorFlow
  // release whose op semantics actorflow follows, and actorflow named as the git version.
  meta.tensorflow_version = "2.21.0";
  meta.tensorflow_git_version = "actorflow";
  meta.graph_def = export_graph_def(g, true);
  if (options.clear_devices)
    for (auto& n : meta.graph_def.nodes) n.device.clear();
  if (options.strip_default_attrs) {
    strip_default_attrs(meta.graph_def);
    meta.stripped_default_attrs = true;
  }
  if (options.saver) meta.saver_def = options.saver->saver_def();
  const std::vector<std::string> keys =
      options.collection_list.empty() ? g.get_all_collection_keys() : options.collection_list;
  std::set<std::string> trainable;  // variable tensor names, for VariableDef.trainable
  for (const auto& t : g.get_collection(kTrainableVariables))
    if (const auto* v = std::any_cast<Variable>(&t)) trainable.insert(v->ref().name());
  std::optional<ControlFlowContextWriter> contexts;
  for (const auto& key : keys) {
    const auto& values = g.get_collection(key);
    if (values.empty()) continue;
    CollectionDef d = collection_def(g, values, trainable, contexts);
    if (d.bytes_list.empty() && d.node_list.empty() && d.int64_list.empty() && d.float_list.empty())
      continue;
    meta.collections.emplace(key, std::move(d));
  }
  if (!filename.empty()) write_meta_graph_def(meta, filename, options.as_text);
  return meta;
}

std::unique_ptr<Saver> import_meta_graph(Graph& g, const MetaGraphDef& meta,
                                         const ImportMetaGraphOptions& options) {
  GraphDef def = meta.graph_def;
  if (options.clear_devices)
    for (auto& n : def.nodes) n.device.clear();
  // meta_graph.py's scope_to_prepend_to_names: the scope made unique, not yet taken.
  const std::string scope =
      options.import_scope.empty() ? std::string() : g.unique_name(options.import_scope, false);
  import_graph_def(g, def, {.input_map = options.input_map, .name = options.import_scope});
  for (const auto& [key, c] : meta.collections) {
    switch (c.kind) {
      case CollectionDef::Kind::bytes_list:
        for (const auto& bytes : c.bytes_list) {
          // control_flow_ops.py's from_proto: the contexts of the imported loops and branches.
          if (key == "while_context") {
            g.add_to_collection(key,
                                import_while_context(g, bytes, scope, "collection '" + key + "'"));
            continue;
          }
          if (key == "cond_context") {
            g.add_to_collection(key,
                                import_cond_context(g, bytes, scope, "collection '" + key + "'"));
            continue;
          }
          if (!holds_variables(key)) {
            g.add_to_collection(key, bytes);
            continue;
          }
          const VariableDef v = parse_variable_def(bytes, "collection '" + key + "'");
          Variable var(g.output(scoped(scope, v.variable_name)),
                       v.initializer_name.empty() ? Operation()
                                                  : g.operation(scoped(scope, v.initializer_name)),
                       g.output(scoped(scope, v.snapshot_name)),
                       v.initial_value_name.empty()
                           ? Output()
                           : g.output(scoped(scope, v.initial_value_name)));
          if (v.save_slice_info) {
            // SaveSliceInfo._from_proto: the full name joins the import scope too.
            SaveSliceInfo info = *v.save_slice_info;
            info.full_name = scoped(scope, info.full_name);
            var.set_save_slice_info(std::move(info));
          }
          g.add_to_collection(key, var);
        }
        break;
      case CollectionDef::Kind::node_list:
        for (const auto& name : c.node_list) {
          if (name.find(':') != std::string::npos)
            g.add_to_collection(key, g.output(scoped(scope, name)));
          else
            g.add_to_collection(key, g.operation(scoped(scope, name)));
        }
        break;
      case CollectionDef::Kind::int64_list:
        for (auto v : c.int64_list) g.add_to_collection(key, v);
        break;
      case CollectionDef::Kind::float_list:
        for (auto v : c.float_list) g.add_to_collection(key, v);
        break;
      case CollectionDef::Kind::any_list:
        for (const auto& v : c.any_list) g.add_to_collection(key, v);
        break;
    }
  }
  if (meta.saver_def && !meta.saver_def->restore_op_name.empty()) {
    SaverDef def = *meta.saver_def;
    def.filename_tensor_name = scoped(scope, def.filename_tensor_name);
    def.save_tensor_name = scoped(scope, def.save_tensor_name);
    def.restore_op_name = scoped(scope, def.restore_op_name);
    return Saver::from_saver_def(g, def);
  }
  if (g.global_variables().empty()) return nullptr;
  return std::make_unique<Saver>(g);
}

std::unique_ptr<Saver> import_meta_graph(Graph& g, const std::string& path,
                                         const ImportMetaGraphOptions& options) {
  return import_meta_graph(g, read_meta_graph_def(path), options);
}

}  // namespace af::train
