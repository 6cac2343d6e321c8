// Lookup table ops: HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2 and
// MutableDenseHashTableV2 make (or find) a table in the session's resources;
// InitializeTableV2 and InitializeTableFromTextFileV2 fill a HashTable; LookupTableFindV2,
// LookupTableInsertV2, LookupTableRemoveV2, LookupTableSizeV2, LookupTableExportV2 and
// LookupTableImportV2 use any table. CPU kernels as TensorFlow's lookup_table_op.cc and
// lookup_table_init_op.cc; the tables are in lookup_table.cpp, the definitions in
// ops/src/defs/lookup_ops.cpp.
#include <initializer_list>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "lookup_table.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::LookupTable;
using detail::StatusKernel;

std::string type_name(DType t) { return std::string(data_type_string(t)); }

// The table behind input 0.
Status table_of(OpKernelContext& ctx, LookupTable** out) {
  *out = ctx.input(0).dtype() == DType::resource
             ? dynamic_cast<LookupTable*>(ctx.input(0).resource().get())
             : nullptr;
  if (*out == nullptr)
    return invalid_argument("Input 0 of " + ctx.node_name() + " is not a lookup table");
  return {};
}

// OpKernelContext::MatchSignature: the inputs after the handle must be of the table's types.
Status match_signature(OpKernelContext& ctx, const std::vector<DType>& expected_inputs,
                       const std::vector<DType>& have_outputs,
                       const std::vector<DType>& expected_outputs) {
  std::vector<DType> have_inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) have_inputs.push_back(ctx.input(i).dtype());
  if (have_inputs == expected_inputs && have_outputs == expected_outputs) return {};
  auto list = [](const std::vector<DType>& ins, const std::vector<DType>& outs) {
    std::string s;
    for (std::size_t i = 0; i < ins.size(); ++i) s += (i ? ", " : "") + type_name(ins[i]);
    s += "->";
    for (std::size_t i = 0; i < outs.size(); ++i) s += (i ? ", " : "") + type_name(outs[i]);
    return s;
  };
  return invalid_argument("Signature mismatch, have: " + list(have_inputs, have_outputs) +
                          " expected: " + list(expected_inputs, expected_outputs));
}

// GetInitializableLookupTable.
Status initializable_table_of(OpKernelContext& ctx, LookupTable** out) {
  ACTORFLOW_RETURN_IF_ERROR(table_of(ctx, out));
  if (!(*out)->initializable())
    return invalid_argument("Table " + (*out)->debug_string() + " is not initializable");
  return {};
}

// A table's dtype in a kernel's signature.
enum class TableDType { key, value };

// The table behind input 0 (with `initializable`, one an initializer may fill) into `*out`,
// then MatchSignature: the inputs the handle and then `inputs`, the outputs `have_outputs`
// those of `outputs`, in the table's key and value dtypes.
Status table_with_signature(OpKernelContext& ctx, std::initializer_list<TableDType> inputs,
                            const std::vector<DType>& have_outputs,
                            std::initializer_list<TableDType> outputs, LookupTable** out,
                            bool initializable = false) {
  ACTORFLOW_RETURN_IF_ERROR(initializable ? initializable_table_of(ctx, out) : table_of(ctx, out));
  const LookupTable& t = **out;
  auto dtypes = [&t](std::initializer_list<TableDType> which, std::vector<DType> list) {
    for (TableDType d : which)
      list.push_back(d == TableDType::key ? t.key_dtype() : t.value_dtype());
    return list;
  };
  return match_signature(ctx, dtypes(inputs, {DType::resource}), have_outputs, dtypes(outputs, {}));
}

// HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2, MutableDenseHashTableV2.
class TableOp : public StatusKernel {
 public:
  TableOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    // The first forms (HashTable, ...: Ref(string) handles) make the V2 ones' tables.
    spec_.op = c.def.op.ends_with("V2") ? c.def.op : c.def.op + "V2";
    *s = c.get_attr("key_dtype", &spec_.key_dtype);
    if (s->ok()) *s = c.get_attr("value_dtype", &spec_.value_dtype);
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    bool node_name_sharing = false;
    c.get_attr("use_node_name_sharing", &node_name_sharing);
    PartialShape value_shape;
    if (c.get_attr("value_shape", &value_shape).ok() && value_shape.fully_defined())
      spec_.value_shape = *value_shape.to_shape();
    c.get_attr("initial_num_buckets", &spec_.initial_num_buckets);
    c.get_attr("max_load_factor", &spec_.max_load_factor);
    // As ContainerInfo::Init: without a shared_name, the node's name when sharing by node
    // name, else a name private to this node.
    if (shared_name_.empty()) shared_name_ = node_name_sharing ? c.def.name : "_" + c.def.name;
    spec_.name = shared_name_;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    if (!ctx.resource_mgr) return internal("no resource manager for " + name());
    detail::TableSpec spec = spec_;
    if (spec.op == "MutableDenseHashTableV2") {
      spec.empty_key = ctx.input(0);
      spec.deleted_key = ctx.input(1);
    }
    std::shared_ptr<LookupTable> table;
    ACTORFLOW_RETURN_IF_ERROR(ctx.resource_mgr->lookup_or_create<LookupTable>(
        container_, shared_name_, &table,
        [&](std::shared_ptr<LookupTable>* out) { return detail::make_lookup_table(spec, out); }));
    if (table->key_dtype() != spec.key_dtype || table->value_dtype() != spec.value_dtype)
      return invalid_argument("Conflicting key/value dtypes " + type_name(spec.key_dtype) + "->" +
                              type_name(spec.value_dtype) + " with " +
                              type_name(table->key_dtype()) + "-" +
                              type_name(table->value_dtype()) + " for table " + shared_name_);
    ctx.set_output(0, Tensor::from_resource(table));
    return {};
  }

 private:
  detail::TableSpec spec_;
  std::string container_;
  std::string shared_name_;
};

class FindOp : public StatusKernel {
 public:
  FindOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) { *s = c.get_attr("Tout", &out_); }

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(table_with_signature(ctx, {TableDType::key, TableDType::value},
                                                   {out_}, {TableDType::value}, &t));
    Tensor values;
    ACTORFLOW_RETURN_IF_ERROR(t->find(ctx.input(1), ctx.input(2), &values));
    ctx.set_output(0, std::move(values));
    return {};
  }

 private:
  DType out_ = DType::invalid;
};

// LookupTableInsertV2 (Import = false) and LookupTableImportV2.
template <bool Import>
class InsertOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(
        table_with_signature(ctx, {TableDType::key, TableDType::value}, {}, {}, &t));
    return Import ? t->import_values(ctx.input(1), ctx.input(2))
                  : t->insert(ctx.input(1), ctx.input(2));
  }
};

class RemoveOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(table_with_signature(ctx, {TableDType::key}, {}, {}, &t));
    return t->remove(ctx.input(1));
  }
};

class SizeOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(table_of(ctx, &t));
    ctx.set_output(0, Tensor(t->size()));
    return {};
  }
};

class ExportOp : public StatusKernel {
 public:
  ExportOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("Tkeys", &keys_);
    if (s->ok()) *s = c.get_attr("Tvalues", &values_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(
        table_with_signature(ctx, {}, {keys_, values_}, {TableDType::key, TableDType::value}, &t));
    Tensor keys, values;
    ACTORFLOW_RETURN_IF_ERROR(t->export_values(&keys, &values));
    ctx.set_output(0, std::move(keys));
    ctx.set_output(1, std::move(values));
    return {};
  }

 private:
  DType keys_ = DType::invalid;
  DType values_ = DType::invalid;
};

class InitializeTableOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(table_with_signature(ctx, {TableDType::key, TableDType::value}, {},
                                                   {}, &t, /*initializable=*/true));
    const Tensor& keys = ctx.input(1);
    const Tensor& values = ctx.input(2);
    if (keys.rank() != 1)
      return invalid_argument("Keys must be a vector, but received shape" +
                              keys.shape().to_string());
    if (keys.num_elements() != values.num_elements())
      return invalid_argument("Keys and values must have the same size " +
                              std::to_string(keys.num_elements()) + " vs " +
                              std::to_string(values.num_elements()));
    return t->initialize(keys, values, keys.num_elements());
  }
};

class InitializeTableFromTextFileOp : public StatusKernel {
 public:
  InitializeTableFromTextFileOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("key_index", &key_index_);
    if (s->ok()) *s = c.get_attr("value_index", &value_index_);
    c.get_attr("vocab_size", &vocab_size_);
    c.get_attr("offset", &offset_);
    std::string delimiter = "\t";
    c.get_attr("delimiter", &delimiter);
    if (s->ok() && delimiter.size() != 1) *s = invalid_argument("delimiter should be only 1 char");
    if (!delimiter.empty()) delimiter_ = delimiter[0];
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    LookupTable* t = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(initializable_table_of(ctx, &t));
    const Tensor& filename = ctx.input(1);
    if (filename.dtype() != DType::string || filename.rank() != 0)
      return invalid_argument("filename should be a single string, but got " +
                              filename.shape().to_string());
    const std::string& path = filename.scalar<std::string>();
    if (path.empty()) return invalid_argument("filename cannot be empty.");
    return detail::initialize_table_from_text_file(*t, path, vocab_size_, delimiter_, key_index_,
                                                   value_index_, offset_);
  }

 private:
  std::int64_t key_index_ = 0;
  std::int64_t value_index_ = 0;
  std::int64_t vocab_size_ = -1;
  std::int64_t offset_ = 0;
  char delimiter_ = '\t';
};

}  // namespace

namespace detail {

void register_lookup_table_kernels(KernelRegistry& r) {
  for (const char* op : {"HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
                         "MutableDenseHashTableV2"})
    r.add(make_kernel_def<TableOp>(op, "CPU"));
  r.add(make_kernel_def<FindOp>("LookupTableFindV2", "CPU"));
  r.add(make_kernel_def<InsertOp<false>>("LookupTableInsertV2", "CPU"));
  r.add(make_kernel_def<InsertOp<true>>("LookupTableImportV2", "CPU"));
  r.add(make_kernel_def<RemoveOp>("LookupTableRemoveV2", "CPU"));
  r.add(make_kernel_def<SizeOp>("LookupTableSizeV2", "CPU"));
  r.add(make_kernel_def<ExportOp>("LookupTableExportV2", "CPU"));
  r.add(make_kernel_def<InitializeTableOp>("InitializeTableV2", "CPU"));
  r.add(make_kernel_def<InitializeTableFromTextFileOp>("InitializeTableFromTextFileV2", "CPU"));
  // The first forms, whose handles are Ref(string): the same kernels.
  for (const char* op : {"HashTable", "MutableHashTable", "MutableHashTableOfTensors"})
    r.add(make_kernel_def<TableOp>(op, "CPU"));
  r.add(make_kernel_def<FindOp>("LookupTableFind", "CPU"));
  r.add(make_kernel_def<InsertOp<false>>("LookupTableInsert", "CPU"));
  r.add(make_kernel_def<InsertOp<true>>("LookupTableImport", "CPU"));
  r.add(make_kernel_def<SizeOp>("LookupTableSize", "CPU"));
  r.add(make_kernel_def<ExportOp>("LookupTableExport", "CPU"));
  r.add(make_kernel_def<InitializeTableOp>("InitializeTable", "CPU"));
  r.add(make_kernel_def<InitializeTableFromTextFileOp>("InitializeTableFromTextFile", "CPU"));
}

}  // namespace detail

}  // namespace af
