// tf.train.Saver for V2 and V1 checkpoints (saver.py: BaseSaverBuilder, Saver) and
// checkpoint_management.py (the `checkpoint` state file, latest_checkpoint).
#include "actorflow/train/saver.hpp"

#include <unistd.h>

#include <algorithm>
#include <any>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "actorflow/formats/checkpoint_state.hpp"
#include "actorflow/ops/detail/file_system.hpp"
#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/io_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "actorflow/ops/tensor_bundle.hpp"
#include "actorflow/ops/tensor_slice_checkpoint.hpp"
#include "actorflow/train/meta_graph.hpp"

namespace af::train {

namespace fs = std::filesystem;

// -- the state file -------------------------------------------------------------------------------

namespace {

std::string state_filename(const std::string& dir, const std::string& latest_filename) {
  return (fs::path(dir) / latest_filename).string();
}

std::string relative_to(const std::string& path, const std::string& dir) {
  if (fs::path(path).is_absolute()) return path;
  auto rel = fs::path(path).lexically_normal().lexically_relative(fs::path(dir).lexically_normal());
  return rel.empty() ? path : rel.string();
}

std::string join_if_relative(const std::string& dir, const std::string& path) {
  if (fs::path(path).is_absolute()) return path;
  return (fs::path(dir) / path).string();
}

}  // namespace

std::optional<CheckpointState> get_checkpoint_state(const std::string& checkpoint_dir,
                                                    const std::string& latest_filename) {
  const std::string file = state_filename(checkpoint_dir, latest_filename);
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const CheckpointStatePaths paths = parse_checkpoint_state_text(text.str(), file);
  CheckpointState state;
  if (!paths.model_checkpoint_path.empty())
    state.model_checkpoint_path = join_if_relative(checkpoint_dir, paths.model_checkpoint_path);
  for (const auto& p : paths.all_model_checkpoint_paths)
    state.all_model_checkpoint_paths.push_back(join_if_relative(checkpoint_dir, p));
  return state;
}

void update_checkpoint_state(const std::string& save_dir, const std::string& model_checkpoint_path,
                             std::vector<std::string> all_paths,
                             const std::string& latest_filename) {
  std::string model = model_checkpoint_path;
  if (all_paths.empty() || all_paths.back() != model) all_paths.push_back(model);
  if (!fs::path(save_dir).is_absolute()) {
    // generate_checkpoint_state_proto: relative paths become relative to the save dir.
    model = relative_to(model, save_dir);
    for (auto& p : all_paths) p = relative_to(p, save_dir);
  }
  const std::string text = checkpoint_state_to_text({model, all_paths});
  const std::string file = state_filename(save_dir.empty() ? "." : save_dir, latest_filename);
  const std::string tmp = file + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw UnavailableError(unavailable("cannot write " + tmp));
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UnavailableError(unavailable("cannot write " + file + ": " + ec.message()));
  }
}

bool checkpoint_exists(const std::string& prefix) {
  std::error_code ec;
  return fs::exists(bundle_index_filename(prefix), ec) || is_v1_checkpoint(prefix);
}

namespace {

// meta_graph_filename: the checkpoint's name without a V1 shard pattern's
// "-?????-of-0000N", then ".meta".
std::string meta_graph_filename(const std::string& checkpoint) {
  static const std::regex shard_suffix("-[\\d\\?]+-of-\\d+$");
  return std::regex_replace(checkpoint, shard_suffix, "") + ".meta";
}

}  // namespace

std::optional<std::string> latest_checkpoint(const std::string& checkpoint_dir,
                                             const std::string& latest_filename) {
  auto state = get_checkpoint_state(checkpoint_dir, latest_filename);
  if (!state || state->model_checkpoint_path.empty()) return std::nullopt;
  if (!checkpoint_exists(state->model_checkpoint_path)) return std::nullopt;
  return state->model_checkpoint_path;
}

std::vector<std::pair<std::string, Shape>> list_variables(const std::string& prefix) {
  std::vector<BundleEntryInfo> entries;
  if (is_v1_checkpoint(prefix)) {
    TensorSliceReader reader(prefix);
    throw_if_error(reader.status());
    entries = reader.entries();
  } else {
    BundleReader reader(prefix);
    throw_if_error(reader.status());
    entries = reader.entries();
  }
  std::vector<std::pair<std::string, Shape>> out;
  for (auto& e : entries) out.emplace_back(e.name, e.shape);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return out;
}

// -- Saver
// ------------------------------------------------------------------------------------------

// op_list_to_dict and saveable_objects_for_op: a variable under its op name; the parts of
// a partitioned variable under the full variable's name, each with its slice spec, in the
// order given.
std::vector<Saver::Saveable> Saver::saveables_of(const std::vector<Variable>& vars) {
  std::vector<Saveable> out;
  std::map<std::string, bool> sliced;  // name -> saved in slices
  for (const Variable& v : vars) {
    if (const SaveSliceInfo* info = v.save_slice_info()) {
      auto it = sliced.find(info->full_name);
      if (it != sliced.end() && !it->second)
        throw InvalidArgumentError(invalid_argument(
            "Mixing slices and non-slices with the same name: " + info->full_name));
      sliced[info->full_name] = true;
      out.push_back({info->full_name, v, info->spec()});
    } else {
      if (sliced.count(v.name()))
        throw InvalidArgumentError(
            invalid_argument("At least two variables have the same name: " + v.name()));
      sliced[v.name()] = false;
      out.push_back({v.name(), v, std::string()});
    }
  }
  return out;
}

namespace {

// set_cpu0: the CPU of the device's task.
std::string cpu_of(const std::string& device) {
  if (device.empty()) return "";
  DeviceSpec spec = DeviceSpec::parse(device);
  spec.device_type = "CPU";
  spec.device_index = 0;
  return spec.to_string();
}

}  // namespace

std::unique_ptr<Saver> Saver::from_saver_def(Graph& g, const SaverDef& def) {
  std::unique_ptr<Saver> saver(new Saver());
  saver->graph_ = &g;
  saver->adopt(def);
  return saver;
}

void Saver::adopt(const SaverDef& def) {
  Graph& g = *graph_;
  options_.max_to_keep = def.max_to_keep;
  options_.keep_checkpoint_every_n_hours = def.keep_checkpoint_every_n_hours;
  options_.sharded = def.sharded;
  // LEGACY (0) graphs save as V1 does.
  if (def.version < 0 || def.version > 2)
    throw InvalidArgumentError(invalid_argument("SaverDef: checkpoint format version " +
                                                std::to_string(def.version) +
                                                " is neither V1 nor V2"));
  options_.write_version = def.version == 2 ? 2 : 1;
  filename_ = g.output(def.filename_tensor_name);
  filename_name_ = filename_.name();
  save_tensor_ = g.output(def.save_tensor_name);
  save_op_ = save_tensor_.op();
  restore_op_ = g.operation(def.restore_op_name);
  const std::string scope = def.restore_op_name.substr(0, def.restore_op_name.rfind('/') + 1);
  options_.name = scope.empty() ? std::string() : scope.substr(0, scope.size() - 1);
  // An older actorflow sharded saver fed each shard's temporary prefix to a placeholder
  // `<scope>ShardedFilename[_k]`; TensorFlow's and the current one compute them in the graph
  // (nothing to feed).
  if (def.sharded) {
    for (int k = 0;; ++k) {
      const std::string name =
          scope + "ShardedFilename" + (k == 0 ? std::string() : "_" + std::to_string(k));
      if (!g.contains(name) || g.operation(name).type() != "Placeholder") break;
      shard_prefix_inputs_.push_back(g.output(name));
    }
    num_shards_ = std::max<int>(1, static_cast<int>(shard_prefix_inputs_.size()));
  }
  next_keep_time_ =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         options_.keep_checkpoint_every_n_hours * 3600.0));
}

SaverDef Saver::saver_def() const {
  SaverDef def;
  if (!empty_) {
    def.filename_tensor_name = filename_.name();
    def.save_tensor_name = save_tensor_.name();
    def.restore_op_name = restore_op_.name();
  }
  def.max_to_keep = options_.max_to_keep;
  def.sharded = options_.sharded;
  def.keep_checkpoint_every_n_hours = static_cast<float>(options_.keep_checkpoint_every_n_hours);
  def.version = options_.write_version;
  return def;
}

void Saver::add_tables(std::vector<Saveable>& out,
                       const std::vector<lookup::SaveableTable>& tables) {
  for (const auto& t : tables) out.push_back({t.name, Variable(), std::string(), t});
}

Saver::Saver(Graph& g, SaverOptions options) : options_(std::move(options)) {
  std::vector<Variable> vars = g.global_variables();
  std::vector<Saveable> named = saveables_of(vars);
  std::vector<lookup::SaveableTable> tables;
  for (const auto& v : g.get_collection(lookup::kSaveableObjects))
    if (const auto* t = std::any_cast<lookup::SaveableTable>(&v)) tables.push_back(*t);
  add_tables(named, tables);
  build(g, std::move(named));
}

Saver::Saver(const std::vector<Variable>& var_list,
             const std::vector<lookup::SaveableTable>& tables, SaverOptions options)
    : options_(std::move(options)) {
  std::vector<Saveable> named = saveables_of(var_list);
  add_tables(named, tables);
  if (named.empty()) {
    if (!options_.allow_empty) throw InvalidArgumentError(invalid_argument("No variables to save"));
    empty_ = true;
    return;
  }
  Graph& g = named[0].table ? named[0].table->table.graph() : named[0].var.graph();
  build(g, std::move(named));
}

Saver::Saver(const std::vector<Variable>& var_list, SaverOptions options)
    : options_(std::move(options)) {
  if (var_list.empty()) {
    if (!options_.allow_empty) throw InvalidArgumentError(invalid_argument("No variables to save"));
    empty_ = true;
    return;
  }
  build(var_list[0].graph(), saveables_of(var_list));
}

Saver::Saver(const std::map<std::string, Variable>& var_map, SaverOptions options)
    : options_(std::move(options)) {
  std::vector<Saveable> named;
  for (const auto& [name, var] : var_map) named.push_back({name, var, std::string()});
  if (named.empty()) {
    if (!options_.allow_empty) throw InvalidArgumentError(invalid_argument("No variables to save"));
    empty_ = true;
    return;
  }
  // The graph first: the arguments' order of evaluation is unspecified (GCC moves `named`
  // out before evaluating `named[0]`).
  Graph& g = named[0].var.graph();
  build(g, std::move(named));
}

void Saver::build(Graph& g, std::vector<Saveable> named) {
  graph_ = &g;
  next_keep_time_ =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         options_.keep_checkpoint_every_n_hours * 3600.0));
  if (named.empty()) {
    if (!options_.allow_empty) throw InvalidArgumentError(invalid_argument("No variables to save"));
    empty_ = true;
    return;
  }
  // By name; a partitioned variable's slices stay in their order.
  std::stable_sort(named.begin(), named.end(), [](auto& a, auto& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < named.size(); ++i)
    if (named[i].name == named[i - 1].name && (named[i].spec.empty() || named[i - 1].spec.empty() ||
                                               named[i].table || named[i - 1].table))
      throw InvalidArgumentError(
          invalid_argument("At least two variables have the same name: " + named[i].name));
  const std::string scope_name = g.unique_name(options_.name.empty() ? "save" : options_.name);
  auto scope = g.name_scope(scope_name + "/");
  filename_ = g.placeholder(DType::string, PartialShape{}, "Const");
  filename_name_ = filename_.name();

  // Groups of variables by device (one group when not sharded), sorted by device name.
  std::map<std::string, std::vector<Saveable>> groups;
  for (auto& nv : named)
    groups[!options_.sharded ? std::string()
           : nv.table        ? nv.table->table.op().device()
                             : nv.var.op().device()]
        .push_back(nv);
  num_shards_ = static_cast<int>(groups.size());

  std::vector<Operation> assigns;
  auto restore_group = [&](const std::vector<Saveable>& group) {
    std::vector<std::string> names, specs;
    std::vector<DType> dtypes;
    for (auto& [n, v, spec, table] : group) {
      if (table) {
        names.insert(names.end(), {n + "-keys", n + "-values"});
        specs.insert(specs.end(), {"", ""});
        dtypes.insert(dtypes.end(), {table->keys.dtype(), table->values.dtype()});
        continue;
      }
      names.push_back(n);
      specs.push_back(spec);
      dtypes.push_back(v.dtype());
    }
    std::vector<Output> restored = restore_v2(filename_, names, dtypes, "RestoreV2", specs);
    std::size_t k = 0;
    for (const Saveable& s : group) {
      if (s.table) {
        // MutableHashTable._Saveable.restore: the import, colocated with the table.
        auto colocated = g.colocate_with(s.table->table.op());
        auto in_scope = g.name_scope(s.name + "_table_restore");
        assigns.push_back(lookup::lookup_table_import(s.table->table, restored[k], restored[k + 1],
                                                      "LookupTableImportV2"));
        k += 2;
        continue;
      }
      const Variable& v = s.var;
      assigns.push_back(v.is_resource()
                            ? assign_variable_op(v.ref(), restored[k], "AssignVariableOp")
                            : Operation(assign(v.ref(), restored[k], "Assign")));
      ++k;
    }
  };
  // BaseSaverBuilder.sharded_filename: ShardedFilename(base, shard, num_shards), the shard
  // number a Const `<op>/shard`.
  auto sharded_filename = [&](const Output& base, std::int32_t shard, const Output& num_shards) {
    const std::string op_scope = g.unique_name("ShardedFilename");
    Output index;
    {
      auto in_scope = g.name_scope(op_scope + "/");
      index = g.constant(Tensor(shard), "shard");
    }
    return g.create_op("ShardedFilename", {base, index, num_shards}, {}, op_scope + "/").output(0);
  };
  const bool v1 = options_.write_version != 2;
  if (v1 && options_.write_version != 1)
    throw InvalidArgumentError(invalid_argument("Saver: write_version " +
                                                std::to_string(options_.write_version) +
                                                " is neither 1 (V1) nor 2 (V2)"));
  auto save_group = [&](const Output& prefix, const std::vector<Saveable>& group) {
    std::vector<std::string> names, specs;
    std::vector<Output> tensors;
    for (auto& [n, v, spec, table] : group) {
      if (table) {
        names.insert(names.end(), {n + "-keys", n + "-values"});
        specs.insert(specs.end(), {"", ""});
        tensors.insert(tensors.end(), {table->keys, table->values});
        continue;
      }
      names.push_back(n);
      specs.push_back(spec);
      tensors.push_back(v.is_resource() ? v.value() : v.ref());
    }
    return v1 ? save_slices(prefix, names, specs, tensors, "save")
              : save_v2(prefix, names, tensors, "SaveV2", specs);
  };

  if (!options_.sharded) {
    Operation save = save_group(filename_, groups.begin()->second);
    {
      auto deps = g.control_dependencies({save});
      save_tensor_ = identity(filename_, "control_dependency");
    }
    restore_group(groups.begin()->second);
  } else if (v1) {
    // _AddShardedSaveOps: each device's CPU writes `<prefix>-0000k-of-0000N`; the save
    // returns the pattern of them all.
    const Output num_shards =
        g.constant(Tensor(static_cast<std::int32_t>(groups.size())), "num_shards");
    std::vector<Operation> shard_saves;
    std::int32_t shard = 0;
    for (auto& [device, group] : groups) {
      auto on_device = g.device(cpu_of(device));
      const Output shard_file = sharded_filename(filename_, shard++, num_shards);
      const Operation save = save_group(shard_file, group);
      auto deps = g.control_dependencies({save});
      shard_saves.push_back(identity(shard_file, "control_dependency").op());
    }
    {
      auto deps = g.control_dependencies(shard_saves);
      save_tensor_ = sharded_filespec(filename_, num_shards, "ShardedFilespec");
    }
    for (auto& [device, group] : groups) {
      auto on_device = g.device(cpu_of(device));
      restore_group(group);
    }
  } else {
    // _AddShardedSaveOpsForV2, node for node: each shard's prefix is computed in the graph
    // from the one fed filename (`<prefix>_temp/part-0000k-of-0000N`; `.part` for s3://), each
    // device's CPU writes its shard, and the last device merges the indexes into `<prefix>`.
    // TensorFlow's Saver of an exported .meta feeds only the filename.
    const Output is_s3 = g.create_op("StaticRegexFullMatch", {filename_},
                                     {{"pattern", std::string("^s3://.*")}}, "StaticRegexFullMatch")
                             .output(0);
    const Output part = g.constant(Tensor(std::string(".part")), "Const");
    const Output temp = g.constant(Tensor(std::string("_temp/part")), "Const");
    const Output temp_prefix =
        g.create_op("StringJoin", {filename_, select(is_s3, part, temp, "Select")},
                    {{"N", std::int64_t{2}}, {"separator", std::string()}}, "StringJoin")
            .output(0);
    const Output num_shards =
        g.constant(Tensor(static_cast<std::int32_t>(groups.size())), "num_shards");
    std::vector<Output> prefixes;
    std::vector<Operation> shard_saves;
    std::string last_device;
    std::int32_t shard = 0;
    for (auto& [device, group] : groups) {
      last_device = cpu_of(device);
      auto on_device = g.device(last_device);
      const Output shard_prefix = sharded_filename(temp_prefix, shard++, num_shards);
      prefixes.push_back(shard_prefix);
      const Operation save = save_group(shard_prefix, group);
      auto deps = g.control_dependencies({save});
      shard_saves.push_back(identity(shard_prefix, "control_dependency").op());
    }
    {
      auto deps = g.control_dependencies(shard_saves);
      auto on_device = g.device(last_device);
      const std::string op_scope = g.unique_name("MergeV2Checkpoints");
      Output all;
      {
        auto in_scope = g.name_scope(op_scope + "/");
        all = stack(prefixes, 0, "checkpoint_prefixes");
      }
      const Operation merge = g.create_op("MergeV2Checkpoints", {all, filename_},
                                          {{"delete_old_dirs", true}}, op_scope + "/");
      auto after = g.control_dependencies({merge});
      save_tensor_ = identity(filename_, "Identity");
    }
    for (auto& [device, group] : groups) {
      auto on_device = g.device(cpu_of(device));
      restore_group(group);
    }
  }
  save_op_ = save_tensor_.op();
  restore_op_ = g.group(assigns, "restore_all");
}

std::string Saver::save(Session& sess, const std::string& save_path,
                        std::optional<std::int64_t> global_step, const std::string& latest_filename,
                        bool write_state, bool write_meta_graph) {
  std::string checkpoint_file = save_path;
  if (global_step) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), options_.pad_step_number ? "%08lld" : "%lld",
                  static_cast<long long>(*global_step));
    checkpoint_file = save_path + "-" + buf;
  } else if (fs::path(save_path).filename() == latest_filename && !options_.sharded) {
    throw InvalidArgumentError(invalid_argument("'latest_filename' collides with 'save_path': '" +
                                                latest_filename + "' and '" + save_path + "'"));
  }
  const std::string parent = fs::path(save_path).parent_path().string();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw InvalidArgumentError(
        invalid_argument("Parent directory of " + save_path + " doesn't exist, can't save."));
  if (empty_) return checkpoint_file;
  FeedDict feeds{{filename_, Tensor(checkpoint_file)}};
  for (int k = 0; k < static_cast<int>(shard_prefix_inputs_.size()); ++k) {
    char part[64];
    std::snprintf(part, sizeof(part), "_temp/part-%05d-of-%05d", k, num_shards_);
    feeds.push_back(
        {shard_prefix_inputs_[static_cast<std::size_t>(k)], Tensor(checkpoint_file + part)});
  }
  Tensor written = sess.run(save_tensor_, feeds);
  const std::string model_path = written.scalar<std::string>();
  if (write_state) {
    record_and_prune(model_path);
    update_checkpoint_state(parent.empty() ? std::string(".") : parent, model_path,
                            last_checkpoints(), latest_filename);
  }
  if (write_meta_graph && graph_)
    export_meta_graph(*graph_, meta_graph_filename(model_path), {.saver = this});
  return model_path;
}

std::string Saver::save(Session& sess, const std::string& save_path, const Variable& global_step,
                        const std::string& latest_filename, bool write_state,
                        bool write_meta_graph) {
  Tensor step = sess.run(global_step.value());
  std::int64_t value = step.dtype() == DType::int64
                           ? step.scalar<std::int64_t>()
                           : static_cast<std::int64_t>(step.scalar<std::int32_t>());
  return save(sess, save_path, value, latest_filename, write_state, write_meta_graph);
}

void Saver::record_and_prune(const std::string& path) {
  if (options_.max_to_keep <= 0) return;
  last_checkpoints_.erase(std::remove_if(last_checkpoints_.begin(), last_checkpoints_.end(),
                                         [&](auto& p) { return p.first == path; }),
                          last_checkpoints_.end());
  last_checkpoints_.emplace_back(path, Clock::now());
  while (static_cast<int>(last_checkpoints_.size()) > options_.max_to_keep) {
    auto [old, written_at] = last_checkpoints_.front();
    last_checkpoints_.erase(last_checkpoints_.begin());
    if (written_at > next_keep_time_) {
      // keep_checkpoint_every_n_hours: this one stays on disk.
      next_keep_time_ += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(options_.keep_checkpoint_every_n_hours * 3600.0));
      continue;
    }
    // remove_checkpoint: the index, every data shard and the meta graph; a V1 checkpoint's
    // files (all that its pattern matches) and meta graph.
    std::error_code ec;
    fs::remove(meta_graph_filename(old), ec);
    if (is_v1_checkpoint(old)) {
      std::vector<std::string> files;
      detail::matching_paths(old, &files);
      for (const std::string& f : files) fs::remove(f, ec);
      continue;
    }
    fs::remove(bundle_index_filename(old), ec);
    const fs::path dir =
        fs::path(old).parent_path().empty() ? fs::path(".") : fs::path(old).parent_path();
    const std::string data_prefix = fs::path(old).filename().string() + ".data-";
    for (auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().filename().string().rfind(data_prefix, 0) == 0) fs::remove(entry.path(), ec);
  }
}

void Saver::restore(Session& sess, const std::string& save_path) {
  if (save_path.empty())
    throw InvalidArgumentError(invalid_argument("Can't load save_path when it is None."));
  if (!checkpoint_exists(save_path))
    throw InvalidArgumentError(
        invalid_argument("The passed save_path is not a valid checkpoint: " + save_path));
  if (empty_) return;
  try {
    sess.run(restore_op_, {{filename_, Tensor(save_path)}});
  } catch (const NotFoundError& e) {
    throw NotFoundError(
        not_found("Restoring from checkpoint failed. This is most likely due to a Variable name or "
                  "other graph key that is "
                  "missing from the checkpoint. Please ensure that you have not altered the graph "
                  "expected based on the "
                  "checkpoint. Original error:\n\n" +
                  std::string(e.what())));
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(
        invalid_argument("Restoring from checkpoint failed. This is most likely due to a mismatch "
                         "between the current graph and the "
                         "graph from the checkpoint. Please ensure that you have not altered the "
                         "graph expected based on the "
                         "checkpoint. Original error:\n\n" +
                         std::string(e.what())));
  }
}

std::vector<std::string> Saver::last_checkpoints() const {
  std::vector<std::string> out;
  for (auto& [p, t] : last_checkpoints_) out.push_back(p);
  return out;
}

void Saver::recover_last_checkpoints(const std::vector<std::string>& paths) {
  for (auto& p : paths)
    if (checkpoint_exists(p)) record_and_prune(p);
}

}  // namespace af::train
