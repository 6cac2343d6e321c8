// Lookup table ops: definitions (shape functions, as lookup_ops.cc) and the builders of
// actorflow/ops/lookup_ops.hpp. The CPU kernels are in kernels/src/lookup_table_ops.cpp.
#include "actorflow/ops/lookup_ops.hpp"

#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/string_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// The op's V2 name: TensorFlow's first table ops (HashTable, InitializeTable,
// LookupTableFind, ...) take and give Ref(string) handles where the V2 ones use resources; here
// both forms are the same op.
std::string v2_op(const std::string& op) { return op.ends_with("V2") ? op : op + "V2"; }

Status check_handle(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::resource));
  return detail::with_rank(c.input_shapes[0], 0);
}

// The value shape a table op records as its handle's data (TensorFlow's MutableHashTableShape
// and MutableDenseHashTableShape; HashTableV2 records none).
PartialShape table_value_shape(InferenceContext& c) {
  const std::string op = v2_op(c.node.op);
  if (op == "HashTableV2") return PartialShape::unknown();
  if (op == "MutableDenseHashTableV2" &&
      !(c.input_shapes[0].rank_known() && c.input_shapes[0].rank() == 0))
    return PartialShape::unknown();  // vector keys: the value shape alone says too little
  PartialShape value_shape(Shape{});
  if (op != "MutableHashTableV2") c.get_attr("value_shape", &value_shape);
  return value_shape;
}

// HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2: -> handle, a resource scalar;
// MutableDenseHashTableV2(empty_key, deleted_key) likewise.
Status infer_table(InferenceContext& c) {
  DType key = DType::invalid, value = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("key_dtype", &key));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("value_dtype", &value));
  if (v2_op(c.node.op) == "MutableDenseHashTableV2") {
    ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, key));
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, key));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
  }
  c.add_output(DType::resource, PartialShape(Shape{}), !c.node.op.ends_with("V2"));
  c.output_handle_shapes = {table_value_shape(c)};
  return {};
}

// InitializeTableV2(handle, keys: Tkey, values: Tval): two vectors of one length.
Status infer_initialize(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[2], 1));
  const PartialShape& k = c.input_shapes[1];
  const PartialShape& v = c.input_shapes[2];
  if (k.rank_known() && v.rank_known() && k.dim(0) >= 0 && v.dim(0) >= 0 && k.dim(0) != v.dim(0))
    return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                            std::to_string(k.dim(0)) + " and " + std::to_string(v.dim(0)) +
                            ". Shapes are " + detail::inference_shape_string(k) + " and " +
                            detail::inference_shape_string(v) + ".");
  return {};
}

// InitializeTableFromTextFileV2(handle, filename: string scalar).
Status infer_text_file_init(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[1], 0));
  std::int64_t key_index = 0, value_index = 0, vocab_size = -1;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("key_index", &key_index));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("value_index", &value_index));
  c.get_attr("vocab_size", &vocab_size);
  auto at_least = [](const char* attr, std::int64_t v, std::int64_t min) -> Status {
    if (v >= min) return {};
    return invalid_argument("Value for attr '" + std::string(attr) + "' of " + std::to_string(v) +
                            " must be at least minimum " + std::to_string(min));
  };
  ACTORFLOW_RETURN_IF_ERROR(at_least("key_index", key_index, -2));
  ACTORFLOW_RETURN_IF_ERROR(at_least("value_index", value_index, -2));
  return at_least("vocab_size", vocab_size, -1);
}

// LookupTableFindV2(handle, keys: Tin, default_value: Tout) -> values: Tout, shaped keys +
// the value shape when the handle's data says it (scalar keys), unknown otherwise.
Status infer_find(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  DType out = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tout", &out));
  PartialShape shape = PartialShape::unknown();
  const PartialShape& value_shape =
      c.input_handle_shapes.empty() ? shape : c.input_handle_shapes[0];
  const PartialShape& keys = c.input_shapes[1];
  if (value_shape.rank_known() && keys.rank_known()) {
    std::vector<std::int64_t> dims;
    for (int i = 0; i < keys.rank(); ++i) dims.push_back(keys.dim(i));
    for (int i = 0; i < value_shape.rank(); ++i) dims.push_back(value_shape.dim(i));
    shape = PartialShape(dims);
  }
  c.add_output(out, shape);
  return {};
}

// LookupTableInsertV2 / LookupTableImportV2(handle, keys, values), LookupTableRemoveV2(handle,
// keys): no outputs.
Status infer_change(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(c.node.op == "LookupTableRemoveV2" ? 2 : 3));
  return check_handle(c);
}

Status infer_size(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  c.add_output(DType::int64, PartialShape(Shape{}));
  return {};
}

// LookupTableExportV2(handle) -> keys: Tkeys, values: Tvalues, of shapes the run decides.
Status infer_export(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_handle(c));
  DType keys = DType::invalid, values = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tkeys", &keys));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tvalues", &values));
  c.add_output(keys, PartialShape::unknown());
  c.add_output(values, PartialShape::unknown());
  return {};
}

Output table_op(Graph& g, const std::string& type, const std::vector<Output>& inputs, AttrMap attrs,
                const lookup::TableOptions& o, std::string_view name, const char* default_name) {
  attrs["container"] = o.container;
  attrs["shared_name"] = o.shared_name;
  attrs["use_node_name_sharing"] = o.use_node_name_sharing;
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? default_name : name).output(0);
}

// A mutable table's saveable (MutableHashTable.__init__ with checkpoint=True): its export op,
// colocated with it, and its entry in kSaveableObjects.
Output saveable(Output table, const lookup::TableOptions& o, std::string_view name,
                const char* default_name) {
  if (!o.checkpoint) return table;
  Graph& g = table.graph();
  const std::string base(name.empty() ? default_name : name);
  const DType key = *table.op().node_def().attr<DType>("key_dtype");
  const DType value = *table.op().node_def().attr<DType>("value_dtype");
  auto colocated = g.colocate_with(table.op());
  auto scope = g.name_scope(base + "_lookup_table_export_values");
  auto [keys, values] = lookup::lookup_table_export(table, key, value, "LookupTableExportV2");
  g.add_to_collection(lookup::kSaveableObjects, lookup::SaveableTable{base, table, keys, values});
  return table;
}

Operation initializer(Graph& g, Operation op) {
  g.add_to_collection(lookup::kTableInitializers, op);
  return op;
}

}  // namespace

namespace detail {

void register_lookup_ops(OpRegistry& r) {
  for (const char* op : {"HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
                         "MutableDenseHashTableV2"})
    r.add({op, infer_table, true});
  r.add({"InitializeTableV2", infer_initialize, true});
  r.add({"InitializeTableFromTextFileV2", infer_text_file_init, true});
  r.add({"LookupTableFindV2", infer_find, true});
  r.add({"LookupTableInsertV2", infer_change, true});
  r.add({"LookupTableImportV2", infer_change, true});
  r.add({"LookupTableRemoveV2", infer_change, true});
  r.add({"LookupTableSizeV2", infer_size, true});
  r.add({"LookupTableExportV2", infer_export, true});
  // The first forms (Ref(string) handles; MutableDenseHashTable's, which lacks deleted_key,
  // TensorFlow no longer runs).
  for (const char* op : {"HashTable", "MutableHashTable", "MutableHashTableOfTensors"})
    r.add({op, infer_table, true});
  r.add({"InitializeTable", infer_initialize, true, {0}});
  r.add({"InitializeTableFromTextFile", infer_text_file_init, true, {0}});
  r.add({"LookupTableFind", infer_find, true, {0}});
  r.add({"LookupTableInsert", infer_change, true, {0}});
  r.add({"LookupTableImport", infer_change, true, {0}});
  r.add({"LookupTableSize", infer_size, true, {0}});
  r.add({"LookupTableExport", infer_export, true, {0}});
}

}  // namespace detail

namespace lookup {

Output hash_table(Graph& g, DType key_dtype, DType value_dtype, const TableOptions& options,
                  std::string_view name) {
  return table_op(g, "HashTableV2", {}, {{"key_dtype", key_dtype}, {"value_dtype", value_dtype}},
                  options, name, "hash_table");
}

Output mutable_hash_table(Graph& g, DType key_dtype, DType value_dtype, const TableOptions& options,
                          std::string_view name) {
  return saveable(table_op(g, "MutableHashTableV2", {},
                           {{"key_dtype", key_dtype}, {"value_dtype", value_dtype}}, options, name,
                           "MutableHashTable"),
                  options, name, "MutableHashTable");
}

Output mutable_hash_table_of_tensors(Graph& g, DType key_dtype, DType value_dtype,
                                     const Shape& value_shape, const TableOptions& options,
                                     std::string_view name) {
  return saveable(table_op(g, "MutableHashTableOfTensorsV2", {},
                           {{"key_dtype", key_dtype},
                            {"value_dtype", value_dtype},
                            {"value_shape", PartialShape(value_shape)}},
                           options, name, "MutableHashTableOfTensors"),
                  options, name, "MutableHashTableOfTensors");
}

Output mutable_dense_hash_table(const Output& empty_key, const Output& deleted_key,
                                DType value_dtype, const DenseTableOptions& dense,
                                const TableOptions& options, std::string_view name) {
  return saveable(table_op(empty_key.graph(), "MutableDenseHashTableV2", {empty_key, deleted_key},
                           {{"key_dtype", empty_key.dtype()},
                            {"value_dtype", value_dtype},
                            {"value_shape", PartialShape(dense.value_shape)},
                            {"initial_num_buckets", dense.initial_num_buckets},
                            {"max_load_factor", dense.max_load_factor}},
                           options, name, "MutableDenseHashTable"),
                  options, name, "MutableDenseHashTable");
}

Operation initialize_table(const Output& table, const Output& keys, const Output& values,
                           std::string_view name) {
  Graph& g = table.graph();
  return initializer(g, g.create_op("InitializeTableV2", {table, keys, values},
                                    {{"Tkey", keys.dtype()}, {"Tval", values.dtype()}},
                                    name.empty() ? "table_init" : name));
}

Operation initialize_table_from_text_file(const Output& table, const Output& filename,
                                          std::int64_t key_index, std::int64_t value_index,
                                          std::int64_t vocab_size, const std::string& delimiter,
                                          std::int64_t offset, std::string_view name) {
  Graph& g = table.graph();
  return initializer(g, g.create_op("InitializeTableFromTextFileV2", {table, filename},
                                    {{"key_index", key_index},
                                     {"value_index", value_index},
                                     {"vocab_size", vocab_size},
                                     {"delimiter", delimiter},
                                     {"offset", offset}},
                                    name.empty() ? "text_file_init" : name));
}

Output lookup_table_find(const Output& table, const Output& keys, const Output& default_value,
                         std::string_view name) {
  return table.graph()
      .create_op("LookupTableFindV2", {table, keys, default_value},
                 {{"Tin", keys.dtype()}, {"Tout", default_value.dtype()}},
                 name.empty() ? "LookupTableFindV2" : name)
      .output(0);
}

Operation lookup_table_insert(const Output& table, const Output& keys, const Output& values,
                              std::string_view name) {
  return table.graph().create_op("LookupTableInsertV2", {table, keys, values},
                                 {{"Tin", keys.dtype()}, {"Tout", values.dtype()}},
                                 name.empty() ? "LookupTableInsertV2" : name);
}

Operation lookup_table_remove(const Output& table, const Output& keys, std::string_view name) {
  return table.graph().create_op("LookupTableRemoveV2", {table, keys}, {{"Tin", keys.dtype()}},
                                 name.empty() ? "LookupTableRemoveV2" : name);
}

Output lookup_table_size(const Output& table, std::string_view name) {
  return table.graph()
      .create_op("LookupTableSizeV2", {table}, {}, name.empty() ? "LookupTableSizeV2" : name)
      .output(0);
}

std::pair<Output, Output> lookup_table_export(const Output& table, DType key_dtype,
                                              DType value_dtype, std::string_view name) {
  Operation op = table.graph().create_op("LookupTableExportV2", {table},
                                         {{"Tkeys", key_dtype}, {"Tvalues", value_dtype}},
                                         name.empty() ? "LookupTableExportV2" : name);
  return {op.output(0), op.output(1)};
}

Operation lookup_table_import(const Output& table, const Output& keys, const Output& values,
                              std::string_view name) {
  return table.graph().create_op("LookupTableImportV2", {table, keys, values},
                                 {{"Tin", keys.dtype()}, {"Tout", values.dtype()}},
                                 name.empty() ? "LookupTableImportV2" : name);
}

Operation tables_initializer(Graph& g, std::string_view name) {
  std::vector<Operation> ops;
  for (const auto& v : g.get_collection(kTableInitializers))
    if (const auto* op = std::any_cast<Operation>(&v)) ops.push_back(*op);
  return ops.empty() ? g.no_op(name) : g.group(ops, name);
}

Output StaticTable::lookup(const Output& keys, std::string_view name) const {
  Graph& g = handle.graph();
  auto scope = g.name_scope(name.empty() ? "hash_table_Lookup" : name);
  Output ids = lookup_table_find(handle, keys, default_value);
  g.set_shape(ids, keys.shape());
  if (num_oov_buckets == 0) return ids;
  const Output text = keys.dtype() == DType::string ? keys : as_string(keys);
  Output buckets = add(string_to_hash_bucket_fast(text, num_oov_buckets), lookup_table_size(handle),
                       "hash_bucket");
  return select(not_equal(ids, default_value), ids, buckets);
}

Output StaticTable::size(std::string_view name) const {
  Graph& g = handle.graph();
  Output n = lookup_table_size(handle, name);
  if (num_oov_buckets == 0) return n;
  return add(n, g.constant(Tensor(num_oov_buckets), "num_oov_buckets"));
}

namespace {

StaticTable static_table(const Output& handle, Operation init, Output default_value,
                         std::int64_t num_oov_buckets) {
  return {handle, std::move(init), std::move(default_value), num_oov_buckets};
}

// index_table_from_tensor / index_to_string_table_from_tensor: positions of `vocabulary`.
StaticTable table_of_positions(const Output& vocabulary, bool to_index, Tensor default_value,
                               std::int64_t num_oov_buckets, std::string_view name,
                               const char* default_scope) {
  Graph& g = vocabulary.graph();
  auto scope = g.name_scope(name.empty() ? default_scope : name);
  Output positions = cast(range(size(vocabulary, DType::int32)), DType::int64);
  Output handle = to_index ? hash_table(g, vocabulary.dtype(), DType::int64)
                           : hash_table(g, DType::int64, DType::string);
  Operation init = to_index ? initialize_table(handle, vocabulary, positions)
                            : initialize_table(handle, positions, vocabulary);
  return static_table(handle, init, g.constant(default_value, "Const"), num_oov_buckets);
}

// index_table_from_file / index_to_string_table_from_file.
StaticTable table_of_lines(Graph& g, const std::string& file, bool to_index, DType key_dtype,
                           std::int64_t vocab_size, Tensor default_value,
                           std::int64_t num_oov_buckets, std::string_view name,
                           const char* default_scope) {
  auto scope = g.name_scope(name.empty() ? default_scope : name);
  const std::int64_t key_index = to_index ? kWholeLine : kLineNumber;
  const std::int64_t value_index = to_index ? kLineNumber : kWholeLine;
  TableOptions shared;
  shared.shared_name = "hash_table_" + file + "_" + std::to_string(vocab_size) + "_" +
                       std::to_string(key_index) + "_" + std::to_string(value_index);
  Output handle = to_index ? hash_table(g, key_dtype, DType::int64, shared)
                           : hash_table(g, DType::int64, DType::string, shared);
  // TextFileInitializer: a constant file name is an asset a SavedModel carries along.
  const Output filename = g.constant(Tensor(file), "asset_filepath");
  g.add_to_collection("asset_filepaths", filename);
  Operation init =
      initialize_table_from_text_file(handle, filename, key_index, value_index, vocab_size);
  return static_table(handle, init, g.constant(default_value, "Const"), num_oov_buckets);
}

}  // namespace

StaticTable index_table_from_tensor(const Output& vocabulary_list, std::int64_t num_oov_buckets,
                                    std::int64_t default_value, std::string_view name) {
  return table_of_positions(vocabulary_list, true, Tensor(default_value), num_oov_buckets, name,
                            "string_to_index");
}

StaticTable index_table_from_file(Graph& g, const std::string& vocabulary_file,
                                  std::int64_t num_oov_buckets, std::int64_t vocab_size,
                                  std::int64_t default_value, DType key_dtype,
                                  std::string_view name) {
  // Integer keys are read as int64, as TensorFlow's initializer does.
  const DType keys = key_dtype == DType::string ? DType::string : DType::int64;
  return table_of_lines(g, vocabulary_file, true, keys, vocab_size, Tensor(default_value),
                        num_oov_buckets, name, "string_to_index");
}

StaticTable index_to_string_table_from_tensor(const Output& vocabulary_list,
                                              const std::string& default_value,
                                              std::string_view name) {
  return table_of_positions(vocabulary_list, false, Tensor(default_value), 0, name,
                            "index_to_string");
}

StaticTable index_to_string_table_from_file(Graph& g, const std::string& vocabulary_file,
                                            std::int64_t vocab_size,
                                            const std::string& default_value,
                                            std::string_view name) {
  return table_of_lines(g, vocabulary_file, false, DType::int64, vocab_size, Tensor(default_value),
                        0, name, "index_to_string");
}

}  // namespace lookup

}  // namespace af
