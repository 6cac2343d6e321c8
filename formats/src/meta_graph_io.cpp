// MetaGraphDef files (`.meta`): binary and text format through the generated code of
// formats/proto. Fields actorflow does not interpret travel as bytes.
#include <google/protobuf/text_format.h>

#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/meta_graph.hpp"
#include "actorflow/tf/meta_graph.pb.h"
#include "actorflow/tf/saver.pb.h"
#include "actorflow/tf/variable.pb.h"
#include "proto_io.hpp"
#include "tf_proto.hpp"

namespace af {

namespace {

MetaGraphDef from_message(const tensorflow::MetaGraphDef& m, std::string_view source) {
  MetaGraphDef out;
  const auto& info = m.meta_info_def();
  out.meta_graph_version = info.meta_graph_version();
  out.tags.assign(info.tags().begin(), info.tags().end());
  out.tensorflow_version = info.tensorflow_version();
  out.tensorflow_git_version = info.tensorflow_git_version();
  out.stripped_default_attrs = info.stripped_default_attrs();
  if (info.has_stripped_op_list())
    out.stripped_op_list = info.stripped_op_list().SerializeAsString();
  auto graph = tfproto::from_proto(m.graph_def());
  if (!graph.ok())
    throw_if_error(
        Status(graph.status().code(), std::string(source) + ": " + graph.status().message()));
  out.graph_def = std::move(*graph);
  if (m.has_saver_def()) {
    const auto& s = m.saver_def();
    out.saver_def = SaverDef{s.filename_tensor_name(),
                             s.save_tensor_name(),
                             s.restore_op_name(),
                             s.max_to_keep(),
                             s.sharded(),
                             s.keep_checkpoint_every_n_hours(),
                             static_cast<int>(s.version())};
  }
  for (const auto& [name, c] : m.collection_def()) {
    CollectionDef d;
    switch (c.kind_case()) {
      case tensorflow::CollectionDef::kBytesList:
        d.kind = CollectionDef::Kind::bytes_list;
        d.bytes_list.assign(c.bytes_list().value().begin(), c.bytes_list().value().end());
        break;
      case tensorflow::CollectionDef::kInt64List:
        d.kind = CollectionDef::Kind::int64_list;
        d.int64_list.assign(c.int64_list().value().begin(), c.int64_list().value().end());
        break;
      case tensorflow::CollectionDef::kFloatList:
        d.kind = CollectionDef::Kind::float_list;
        d.float_list.assign(c.float_list().value().begin(), c.float_list().value().end());
        break;
      case tensorflow::CollectionDef::kAnyList:
        d.kind = CollectionDef::Kind::any_list;
        for (const auto& a : c.any_list().value()) d.any_list.push_back(a.SerializeAsString());
        break;
      case tensorflow::CollectionDef::kNodeList:
      case tensorflow::CollectionDef::KIND_NOT_SET:
        d.kind = CollectionDef::Kind::node_list;
        d.node_list.assign(c.node_list().value().begin(), c.node_list().value().end());
        break;
    }
    out.collections.emplace(name, std::move(d));
  }
  // The rest, unread, for a faithful rewrite.
  tensorflow::MetaGraphDef rest = m;
  rest.clear_graph_def();
  rest.clear_saver_def();
  rest.clear_collection_def();
  auto* rest_info = rest.mutable_meta_info_def();
  rest_info->clear_meta_graph_version();
  rest_info->clear_tags();
  rest_info->clear_tensorflow_version();
  rest_info->clear_tensorflow_git_version();
  rest_info->clear_stripped_default_attrs();
  rest_info->clear_stripped_op_list();
  if (rest_info->ByteSizeLong() == 0) rest.clear_meta_info_def();
  out.other_fields = detail::serialize_deterministic(rest);
  return out;
}

tensorflow::MetaGraphDef to_message(const MetaGraphDef& m) {
  tensorflow::MetaGraphDef out;
  if (!m.other_fields.empty() && !out.ParseFromString(m.other_fields))
    throw InvalidArgumentError(invalid_argument("MetaGraphDef: other_fields do not parse"));
  auto* info = out.mutable_meta_info_def();
  info->set_meta_graph_version(m.meta_graph_version);
  for (const auto& t : m.tags) info->add_tags(t);
  info->set_tensorflow_version(m.tensorflow_version);
  info->set_tensorflow_git_version(m.tensorflow_git_version);
  info->set_stripped_default_attrs(m.stripped_default_attrs);
  if (!m.stripped_op_list.empty() &&
      !info->mutable_stripped_op_list()->ParseFromString(m.stripped_op_list))
    throw InvalidArgumentError(invalid_argument("MetaGraphDef: stripped_op_list does not parse"));
  throw_if_error(tfproto::to_proto(m.graph_def, out.mutable_graph_def()));
  if (m.graph_def.version <= 1)
    out.mutable_graph_def()->mutable_versions()->set_producer(kGraphDefProducer);
  if (m.saver_def) {
    auto* s = out.mutable_saver_def();
    s->set_filename_tensor_name(m.saver_def->filename_tensor_name);
    s->set_save_tensor_name(m.saver_def->save_tensor_name);
    s->set_restore_op_name(m.saver_def->restore_op_name);
    s->set_max_to_keep(m.saver_def->max_to_keep);
    s->set_sharded(m.saver_def->sharded);
    s->set_keep_checkpoint_every_n_hours(m.saver_def->keep_checkpoint_every_n_hours);
    s->set_version(
        static_cast<tensorflow::SaverDef::CheckpointFormatVersion>(m.saver_def->version));
  }
  auto& collections = *out.mutable_collection_def();
  for (const auto& [name, d] : m.collections) {
    auto& c = collections[name];
    switch (d.kind) {
      case CollectionDef::Kind::node_list:
        for (const auto& v : d.node_list) c.mutable_node_list()->add_value(v);
        c.mutable_node_list();
        break;
      case CollectionDef::Kind::bytes_list:
        for (const auto& v : d.bytes_list) c.mutable_bytes_list()->add_value(v);
        c.mutable_bytes_list();
        break;
      case CollectionDef::Kind::int64_list:
        for (auto v : d.int64_list) c.mutable_int64_list()->add_value(v);
        c.mutable_int64_list();
        break;
      case CollectionDef::Kind::float_list:
        for (auto v : d.float_list) c.mutable_float_list()->add_value(v);
        c.mutable_float_list();
        break;
      case CollectionDef::Kind::any_list:
        for (const auto& v : d.any_list)
          if (!c.mutable_any_list()->add_value()->ParseFromString(v))
            throw InvalidArgumentError(
                invalid_argument("MetaGraphDef: collection '" + name + "' holds a bad Any"));
        c.mutable_any_list();
        break;
    }
  }
  return out;
}

}  // namespace

std::string serialize_variable_def(const VariableDef& v) {
  tensorflow::VariableDef p;
  p.set_variable_name(v.variable_name);
  p.set_initial_value_name(v.initial_value_name);
  p.set_initializer_name(v.initializer_name);
  p.set_snapshot_name(v.snapshot_name);
  p.set_is_resource(v.is_resource);
  p.set_trainable(v.trainable);
  if (v.save_slice_info) {
    auto* info = p.mutable_save_slice_info_def();
    info->set_full_name(v.save_slice_info->full_name);
    for (auto d : v.save_slice_info->full_shape) info->add_full_shape(d);
    for (auto d : v.save_slice_info->var_offset) info->add_var_offset(d);
    for (auto d : v.save_slice_info->var_shape) info->add_var_shape(d);
  }
  return detail::serialize_deterministic(p);
}

VariableDef parse_variable_def(std::string_view bytes, std::string_view where) {
  tensorflow::VariableDef p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InvalidArgumentError(invalid_argument(std::string(where) + ": not a VariableDef"));
  VariableDef v{p.variable_name(), p.initial_value_name(), p.initializer_name(), p.snapshot_name(),
                p.is_resource(),   p.trainable(),          std::nullopt};
  if (p.has_save_slice_info_def()) {
    const auto& info = p.save_slice_info_def();
    v.save_slice_info = SaveSliceInfo{info.full_name(),
                                      {info.full_shape().begin(), info.full_shape().end()},
                                      {info.var_offset().begin(), info.var_offset().end()},
                                      {info.var_shape().begin(), info.var_shape().end()}};
  }
  return v;
}

MetaGraphDef parse_meta_graph_def(std::string_view bytes, std::string_view source) {
  tensorflow::MetaGraphDef m;
  detail::parse_binary_or_throw(bytes, source, "MetaGraphDef", &m);
  return from_message(m, source);
}

MetaGraphDef parse_meta_graph_def_text(std::string_view text, std::string_view source) {
  tensorflow::MetaGraphDef m;
  detail::parse_text_or_throw(text, source, &m);
  return from_message(m, source);
}

std::string serialize_meta_graph_def(const MetaGraphDef& m) {
  return detail::serialize_deterministic(to_message(m));
}

std::string meta_graph_def_to_text(const MetaGraphDef& m) {
  return detail::print_text(to_message(m));
}

MetaGraphDef read_meta_graph_def(const std::string& path) {
  const std::string bytes = detail::read_whole_file(path, "MetaGraphDef");
  tensorflow::MetaGraphDef m;
  if (m.ParseFromString(bytes)) return from_message(m, path);
  try {
    return parse_meta_graph_def_text(bytes, path);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(invalid_argument(
        path + ": neither a binary nor a text MetaGraphDef (as text: " + std::string(e.what()) +
        ")"));
  }
}

void write_meta_graph_def(const MetaGraphDef& m, const std::string& path, bool as_text) {
  detail::write_file_atomically(path,
                                as_text ? meta_graph_def_to_text(m) : serialize_meta_graph_def(m));
}

}  // namespace af
