// MetaGraphDef files (`.meta`) and SavedModel files (`saved_model.pb`, a list of
// MetaGraphDefs): binary and text format through the generated code of formats/proto. Fields
// actorflow does not interpret travel as bytes.
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/meta_graph.hpp"
#include "actorflow/formats/saved_model.hpp"
#include "actorflow/tf/fingerprint.pb.h"
#include "actorflow/tf/meta_graph.pb.h"
#include "actorflow/tf/saved_model.pb.h"
#include "actorflow/tf/saver.pb.h"
#include "actorflow/tf/variable.pb.h"
#include "proto_io.hpp"
#include "tf_proto.hpp"

namespace af {

namespace {

TensorInfo from_message(const tensorflow::TensorInfo& t) {
  TensorInfo out;
  switch (t.encoding_case()) {
    case tensorflow::TensorInfo::kName:
      out.name = t.name();
      break;
    case tensorflow::TensorInfo::kCooSparse:
      out.coo_sparse = TensorInfo::CooSparse{t.coo_sparse().values_tensor_name(),
                                             t.coo_sparse().indices_tensor_name(),
                                             t.coo_sparse().dense_shape_tensor_name()};
      break;
    case tensorflow::TensorInfo::kCompositeTensor:
      out.composite_tensor = t.composite_tensor();
      break;
    case tensorflow::TensorInfo::ENCODING_NOT_SET:
      break;
  }
  // A dtype or shape actorflow cannot represent reads as unknown: the signature stays usable
  // for its other tensors.
  if (auto d = tfproto::from_proto(t.dtype(), "TensorInfo"); d.ok()) out.dtype = *d;
  if (t.has_tensor_shape())
    if (auto sh = tfproto::from_proto(t.tensor_shape(), "TensorInfo"); sh.ok()) out.shape = *sh;
  return out;
}

void to_message(const TensorInfo& t, tensorflow::TensorInfo* out) {
  if (t.coo_sparse) {
    auto* c = out->mutable_coo_sparse();
    c->set_values_tensor_name(t.coo_sparse->values_tensor_name);
    c->set_indices_tensor_name(t.coo_sparse->indices_tensor_name);
    c->set_dense_shape_tensor_name(t.coo_sparse->dense_shape_tensor_name);
  } else if (!t.composite_tensor.empty()) {
    out->set_composite_tensor(t.composite_tensor);
  } else if (!t.name.empty()) {
    out->set_name(t.name);
  }
  if (t.dtype != DType::invalid) out->set_dtype(tfproto::to_proto(t.dtype));
  // As TensorFlow writes them: always a shape (`unknown_rank` when unknown), an op's too.
  if (t.composite_tensor.empty()) tfproto::to_proto(t.shape, out->mutable_tensor_shape());
}

SignatureDef from_message(const tensorflow::SignatureDef& s, const std::string& where) {
  SignatureDef out;
  for (const auto& [key, t] : s.inputs()) out.inputs.emplace(key, from_message(t));
  for (const auto& [key, t] : s.outputs()) out.outputs.emplace(key, from_message(t));
  out.method_name = s.method_name();
  for (const auto& [key, t] : s.defaults()) {
    auto v = tfproto::from_proto(t, where + " default '" + key + "'");
    throw_if_error(v.status());
    out.defaults.emplace(key, std::move(*v));
  }
  return out;
}

void to_message(const SignatureDef& s, tensorflow::SignatureDef* out, const std::string& where) {
  for (const auto& [key, t] : s.inputs) to_message(t, &(*out->mutable_inputs())[key]);
  for (const auto& [key, t] : s.outputs) to_message(t, &(*out->mutable_outputs())[key]);
  out->set_method_name(s.method_name);
  for (const auto& [key, t] : s.defaults)
    throw_if_error(
        tfproto::to_proto(t, &(*out->mutable_defaults())[key], where + " default '" + key + "'"));
}

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
  for (const auto& [key, sig] : m.signature_def())
    out.signature_defs.emplace(
        key, from_message(sig, std::string(source) + ": signature '" + key + "'"));
  for (const auto& a : m.asset_file_def())
    out.asset_file_defs.push_back(AssetFileDef{from_message(a.tensor_info()), a.filename()});
  // The rest, unread, for a faithful rewrite.
  tensorflow::MetaGraphDef rest = m;
  rest.clear_graph_def();
  rest.clear_saver_def();
  rest.clear_collection_def();
  rest.clear_signature_def();
  rest.clear_asset_file_def();
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
  for (const auto& [key, sig] : m.signature_defs)
    to_message(sig, &(*out.mutable_signature_def())[key], "signature '" + key + "'");
  for (const auto& a : m.asset_file_defs) {
    auto* p = out.add_asset_file_def();
    to_message(a.tensor_info, p->mutable_tensor_info());
    p->set_filename(a.filename);
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

namespace {

SavedModel from_message(const tensorflow::SavedModel& m, std::string_view source) {
  SavedModel out;
  out.saved_model_schema_version = m.saved_model_schema_version();
  for (int i = 0; i < m.meta_graphs_size(); ++i)
    out.meta_graphs.push_back(from_message(
        m.meta_graphs(i), std::string(source) + ": meta_graphs[" + std::to_string(i) + "]"));
  return out;
}

tensorflow::SavedModel to_message(const SavedModel& m) {
  tensorflow::SavedModel out;
  out.set_saved_model_schema_version(m.saved_model_schema_version);
  for (const auto& g : m.meta_graphs) *out.add_meta_graphs() = to_message(g);
  return out;
}

}  // namespace

SavedModel parse_saved_model(std::string_view bytes, std::string_view source) {
  tensorflow::SavedModel m;
  detail::parse_binary_or_throw(bytes, source, "SavedModel", &m);
  return from_message(m, source);
}

SavedModel parse_saved_model_text(std::string_view text, std::string_view source) {
  tensorflow::SavedModel m;
  detail::parse_text_or_throw(text, source, &m);
  return from_message(m, source);
}

std::string serialize_saved_model(const SavedModel& m) {
  return detail::serialize_deterministic(to_message(m));
}

std::string saved_model_to_text(const SavedModel& m) { return detail::print_text(to_message(m)); }

SavedModel read_saved_model(const std::string& export_dir) {
  const std::string pb = export_dir + "/saved_model.pb";
  const std::string pbtxt = export_dir + "/saved_model.pbtxt";
  if (std::filesystem::exists(pb))
    return parse_saved_model(detail::read_whole_file(pb, "SavedModel"), pb);
  if (std::filesystem::exists(pbtxt))
    return parse_saved_model_text(detail::read_whole_file(pbtxt, "SavedModel"), pbtxt);
  throw NotFoundError(not_found("SavedModel file does not exist at: " + export_dir +
                                "/{saved_model.pbtxt|saved_model.pb}"));
}

std::string SavedModelFingerprint::singleprint() const {
  return std::to_string(graph_def_program_hash) + "/" + std::to_string(signature_def_hash) + "/" +
         std::to_string(saved_object_graph_hash) + "/" + std::to_string(checkpoint_hash);
}

SavedModelFingerprint read_fingerprint(const std::string& export_dir) {
  const std::string path = export_dir + "/fingerprint.pb";
  if (!std::filesystem::exists(path))
    throw NotFoundError(not_found("SavedModel Fingerprint Error: " + path + " not found"));
  const std::string bytes = detail::read_whole_file(path, "fingerprint");
  tensorflow::FingerprintDef f;
  if (!f.ParseFromString(bytes))
    throw DataLossError(data_loss(path + ": not a tensorflow.FingerprintDef"));
  return {f.saved_model_checksum(),
          f.graph_def_program_hash(),
          f.signature_def_hash(),
          f.saved_object_graph_hash(),
          f.checkpoint_hash(),
          f.version().producer(),
          f.uuid()};
}

void write_saved_model(const SavedModel& m, const std::string& path, bool as_text) {
  detail::write_file_atomically(path, as_text ? saved_model_to_text(m) : serialize_saved_model(m));
}

std::string pack_asset_file_def(const AssetFileDef& asset) {
  tensorflow::AssetFileDef a;
  a.mutable_tensor_info()->set_name(asset.tensor_info.name);  // as _add_asset_to_collection
  a.set_filename(asset.filename);
  google::protobuf::Any any;
  any.set_type_url("type.googleapis.com/tensorflow.AssetFileDef");
  any.set_value(detail::serialize_deterministic(a));
  return detail::serialize_deterministic(any);
}

AssetFileDef unpack_asset_file_def(std::string_view any_bytes, std::string_view where) {
  google::protobuf::Any any;
  tensorflow::AssetFileDef a;
  if (!any.ParseFromArray(any_bytes.data(), static_cast<int>(any_bytes.size())) ||
      !any.type_url().ends_with("/tensorflow.AssetFileDef") || !a.ParseFromString(any.value()))
    throw InvalidArgumentError(
        invalid_argument(std::string(where) + ": not an Any holding a tensorflow.AssetFileDef"));
  return AssetFileDef{from_message(a.tensor_info()), a.filename()};
}

}  // namespace af
