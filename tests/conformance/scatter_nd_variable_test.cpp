// The N-d updates of a variable against TensorFlow 2.21 (tf.compat.v1, graph mode):
// ScatterNd{Update,Add,Sub,Max,Min} on reference variables and ResourceScatterNd* on resource
// variables (scatter_nd_op.cc), with ScatterNdNonAliasingAdd and the sparse segment
// reductions with num_segments' errors (their values are in the op fixtures,
// scripts/peers/op_cases_scatter_nd_var.py). The numbers and messages come from
// scripts/peers/make_scatter_nd_values.py.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/resource_variable_ops.hpp>
#include <actorflow/ops/scatter_nd_variable_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Operation;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::check_close;
using af::test::contains;
using af::test::error_of;

// make_scatter_nd_values.py's variable: arange(12).reshape(4, 3) / 4 - 1.
const std::vector<float> kInit = {-1,   -0.75f, -0.5f, -0.25f, 0,    0.25f,
                                  0.5f, 0.75f,  1,     1.25f,  1.5f, 1.75f};

Tensor init_value() { return Tensor::from_vector(kInit, Shape{4, 3}); }

Output ints(af::Graph& g, std::vector<std::int32_t> values, Shape shape) {
  return g.constant(Tensor::from_vector(values, shape));
}

Output floats(af::Graph& g, std::vector<float> values, Shape shape) {
  return g.constant(Tensor::from_vector(values, shape));
}

Output ref_update(const std::string& kind, const Output& ref, const Output& indices,
                  const Output& updates) {
  if (kind == "Update") return af::scatter_nd_update(ref, indices, updates);
  if (kind == "Add") return af::scatter_nd_add(ref, indices, updates);
  if (kind == "Sub") return af::scatter_nd_sub(ref, indices, updates);
  if (kind == "Max") return af::scatter_nd_max(ref, indices, updates);
  return af::scatter_nd_min(ref, indices, updates);
}

Operation resource_update(const std::string& kind, const Output& handle, const Output& indices,
                          const Output& updates) {
  if (kind == "Update") return af::resource_scatter_nd_update(handle, indices, updates);
  if (kind == "Add") return af::resource_scatter_nd_add(handle, indices, updates);
  if (kind == "Sub") return af::resource_scatter_nd_sub(handle, indices, updates);
  if (kind == "Max") return af::resource_scatter_nd_max(handle, indices, updates);
  return af::resource_scatter_nd_min(handle, indices, updates);
}

// A resource variable of `value`: its handle, its initializer and a read.
struct ResourceVar {
  Output handle;
  Operation init;
  Output read;
};

ResourceVar resource_var(af::Graph& g, const Tensor& value, const std::string& name) {
  ResourceVar v;
  v.handle = af::var_handle_op(g, value.dtype(), PartialShape(value.shape().dims()), name, name);
  v.init = af::assign_variable_op(v.handle, g.constant(value), name + "_init");
  v.read = af::read_variable_op(v.handle, value.dtype(), name + "_read");
  return v;
}

struct KindValues {
  std::string kind;
  std::vector<float> after_rows;      // rows [[3], [1], [3]] of kRowUpdates
  std::vector<float> after_elements;  // then elements [[0, 2], [2, 1], [0, 2]] of kElemUpdates
};

const std::vector<float> kRowUpdates = {2, -1, 4, 0.5f, 3, 3, -2, 8, 1};
const std::vector<float> kElemUpdates = {1.5f, -3, 0.25f};

const std::vector<KindValues> kKinds = {
    {"Update",
     {-1.0, -0.75, -0.5, 0.5, 3.0, 3.0, 0.5, 0.75, 1.0, -2.0, 8.0, 1.0},
     {-1.0, -0.75, 0.25, 0.5, 3.0, 3.0, 0.5, -3.0, 1.0, -2.0, 8.0, 1.0}},
    {"Add",
     {-1.0, -0.75, -0.5, 0.25, 3.0, 3.25, 0.5, 0.75, 1.0, 1.25, 8.5, 6.75},
     {-1.0, -0.75, 1.25, 0.25, 3.0, 3.25, 0.5, -2.25, 1.0, 1.25, 8.5, 6.75}},
    {"Sub",
     {-1.0, -0.75, -0.5, -0.75, -3.0, -2.75, 0.5, 0.75, 1.0, 1.25, -5.5, -3.25},
     {-1.0, -0.75, -2.25, -0.75, -3.0, -2.75, 0.5, 3.75, 1.0, 1.25, -5.5, -3.25}},
    {"Max",
     {-1.0, -0.75, -0.5, 0.5, 3.0, 3.0, 0.5, 0.75, 1.0, 2.0, 8.0, 4.0},
     {-1.0, -0.75, 1.5, 0.5, 3.0, 3.0, 0.5, 0.75, 1.0, 2.0, 8.0, 4.0}},
    {"Min",
     {-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, -2.0, -1.0, 1.0},
     {-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, -3.0, 1.0, -2.0, -1.0, 1.0}},
};

// A failing or odd update fed through placeholders (shapes unknown while building): the
// message TensorFlow gives ("" for none) and the variable after it.
struct FedCase {
  std::string name;
  std::string kind;
  std::vector<std::int32_t> indices;
  Shape indices_shape;
  std::vector<float> updates;
  Shape updates_shape;
  std::string policy;
  std::string message;
  std::vector<float> after;
};

const std::vector<FedCase> kFedCases = {
    // Rows out of range are skipped, the others written; the last bad row is reported.
    {"bad rows",
     "Update",
     {0, 4, 1},
     Shape{3, 1},
     std::vector<float>(9, 9),
     Shape{3, 3},
     "",
     "indices[1] = [4] does not index into shape [4,3]",
     {9, 9, 9, 9, 9, 9, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75}},
    {"two bad rows",
     "Add",
     {5, 0, 4, 1},
     Shape{4, 1},
     std::vector<float>(12, 1),
     Shape{4, 3},
     "",
     "indices[2] = [4] does not index into shape [4,3]",
     {0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75}},
    {"bad element",
     "Sub",
     {0, 1, 1, 3},
     Shape{2, 2},
     {1, 1},
     Shape{2},
     "",
     "indices[1] = [1, 3] does not index into shape [4,3]",
     {-1.0, -1.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75}},
    {"negative",
     "Max",
     {-1, 0, 2, 2},
     Shape{2, 2},
     {100, 100},
     Shape{2},
     "",
     "indices[0] = [-1, 0] does not index into shape [4,3]",
     {-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 100.0, 1.25, 1.5, 1.75}},
    {"ignore",
     "Add",
     {0, 4, 1},
     Shape{3, 1},
     std::vector<float>(9, 1),
     Shape{3, 3},
     "IGNORE",
     "",
     {0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75}},
    // Shapes are checked before anything is written.
    {"outer mismatch",
     "Update",
     {0, 1},
     Shape{2, 1},
     std::vector<float>(9, 1),
     Shape{3, 3},
     "",
     "Dimensions [0,1) of indices[shape=[2,1]] = 2 must match dimensions [0,1) of "
     "updates[shape=[3,3]] = 3",
     kInit},
    {"inner mismatch",
     "Update",
     {0, 1},
     Shape{2, 1},
     std::vector<float>(4, 1),
     Shape{2, 2},
     "",
     "Dimensions [1,2) of input[shape=[4,3]] must match dimensions [1,2) of "
     "updates[shape=[2,2]]",
     kInit},
    {"batch prefix",
     "Update",
     {0},
     Shape{1, 1, 1},
     std::vector<float>(3, 1),
     Shape{1, 3},
     "",
     "Dimensions [1,2) of input[shape=[4,3]] must match dimensions [1,2) of "
     "updates[shape=[1,3]]",
     kInit},
    {"too deep",
     "Add",
     {0, 1, 0},
     Shape{1, 3},
     {1},
     Shape{1},
     "",
     "Dimensions [3,2) of input[shape=[4,3]] must match dimensions [3,1) of updates[shape=[1]]",
     kInit},
    {"empty updates", "Add", {}, Shape{0, 1}, {}, Shape{0, 3}, "", "", kInit},
    // A vector of indices: TensorFlow's functor reads one row, the first index, with the
    // first row of updates.
    {"vector indices",
     "Add",
     {2, 0},
     Shape{2},
     std::vector<float>(6, 1),
     Shape{2, 3},
     "",
     "",
     {-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 1.5, 1.75, 2.0, 1.25, 1.5, 1.75}},
    {"vector indices bad",
     "Add",
     {7, 0},
     Shape{2},
     std::vector<float>(6, 1),
     Shape{2, 3},
     "",
     "indices = [7] does not index into shape [4,3]",
     kInit},
};

// The op of `c` on `target` (a ref, or a handle when `resource`), with its policy attr.
Operation fed_update(af::Graph& g, const FedCase& c, const Output& target, bool resource,
                     const Output& indices, const Output& updates) {
  af::AttrMap attrs = {{"T", DType::float32}, {"Tindices", DType::int32}};
  attrs["use_locking"] = resource;
  if (!c.policy.empty()) attrs["bad_indices_policy"] = c.policy;
  const std::string type = (resource ? "ResourceScatterNd" : "ScatterNd") + c.kind;
  return g.create_op(type, {target, indices, updates}, attrs, type);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scatter_nd_variable_test)

BOOST_AUTO_TEST_CASE(each_kind_updates_rows_and_elements_in_order_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  for (const KindValues& k : kKinds) {
    BOOST_TEST_CONTEXT(k.kind) {
      af::Graph g;
      af::Variable v = g.variable(init_value(), {.name = "v"});
      const ResourceVar r = resource_var(g, init_value(), "r");
      const Output row_idx = ints(g, {3, 1, 3}, Shape{3, 1});
      const Output row_upd = floats(g, kRowUpdates, Shape{3, 3});
      const Output elem_idx = ints(g, {0, 2, 2, 1, 0, 2}, Shape{3, 2});
      const Output elem_upd = floats(g, kElemUpdates, Shape{3});
      const Output rows = ref_update(k.kind, v.ref(), row_idx, row_upd);
      const Output elements = ref_update(k.kind, v.ref(), elem_idx, elem_upd);
      BOOST_TEST(rows.op().type() == "ScatterNd" + k.kind);
      BOOST_TEST(rows.shape().to_string() == "(4, 3)");
      const Operation res_rows = resource_update(k.kind, r.handle, row_idx, row_upd);
      const Operation res_elements = resource_update(k.kind, r.handle, elem_idx, elem_upd);
      BOOST_TEST(res_rows.type() == "ResourceScatterNd" + k.kind);
      af::Session sess(g);
      sess.run(v.initializer());
      sess.run(r.init);
      // The ref output is the variable, updated.
      check_close(sess.run(rows).to_vector<float>(), k.after_rows);
      check_close(sess.run(elements).to_vector<float>(), k.after_elements);
      sess.run(res_rows);
      check_close(sess.run(r.read).to_vector<float>(), k.after_rows);
      sess.run(res_elements);
      check_close(sess.run(r.read).to_vector<float>(), k.after_elements);
    }
  }
}

BOOST_AUTO_TEST_CASE(integer_bool_and_string_variables_update_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Tensor int_init = Tensor::from_vector(std::vector<std::int32_t>{7, -7, 9, 20}, Shape{2, 2});
  af::Variable a = g.variable(int_init, {.name = "a"});
  af::Variable b =
      g.variable(Tensor::from_vector(std::vector<std::uint8_t>{250, 1, 2}), {.name = "b"});
  af::Variable c =
      g.variable(Tensor::from_vector(std::vector<bool>{true, false, true}), {.name = "c"});
  af::Variable d =
      g.variable(Tensor::from_vector(std::vector<std::string>{"x", "y", "z"}), {.name = "d"});
  const ResourceVar e = resource_var(g, int_init, "e");
  const Output wide =
      g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, 1, 0, 0, 1, 1}, Shape{3, 2}));
  const Output max = af::scatter_nd_max(
      a.ref(), wide, g.constant(Tensor::from_vector(std::vector<std::int32_t>{30, -9, 4})));
  const Output min =
      af::scatter_nd_min(a.ref(), ints(g, {0, 1, 1, 0}, Shape{2, 2}),
                         g.constant(Tensor::from_vector(std::vector<std::int32_t>{-8, 12})));
  const Output add =
      af::scatter_nd_add(b.ref(), ints(g, {0, 2}, Shape{2, 1}),
                         g.constant(Tensor::from_vector(std::vector<std::uint8_t>{10, 3})));
  const Output sub =
      af::scatter_nd_sub(b.ref(), ints(g, {1}, Shape{1, 1}),
                         g.constant(Tensor::from_vector(std::vector<std::uint8_t>{3})));
  const Output flags =
      af::scatter_nd_update(c.ref(), ints(g, {1, 0}, Shape{2, 1}),
                            g.constant(Tensor::from_vector(std::vector<bool>{true, false})));
  const Output words =
      af::scatter_nd_update(d.ref(), ints(g, {2, 2}, Shape{2, 1}),
                            g.constant(Tensor::from_vector(std::vector<std::string>{"p", "q"})));
  const Operation res_add = af::resource_scatter_nd_add(
      e.handle, wide, g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 2, 3})));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run(e.init);
  using I = std::vector<std::int32_t>;
  BOOST_TEST(sess.run(max).to_vector<std::int32_t>() == (I{7, -7, 9, 30}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(min).to_vector<std::int32_t>() == (I{7, -8, 9, 30}),
             boost::test_tools::per_element());
  using U = std::vector<std::uint8_t>;
  BOOST_TEST(sess.run(add).to_vector<std::uint8_t>() == (U{4, 1, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(sub).to_vector<std::uint8_t>() == (U{4, 254, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(flags).to_vector<bool>() == (std::vector<bool>{false, true, true}),
             boost::test_tools::per_element());
  // A slice named twice: the last update wins.
  BOOST_TEST(sess.run(words).to_vector<std::string>() == (std::vector<std::string>{"x", "y", "q"}),
             boost::test_tools::per_element());
  sess.run(res_add);
  BOOST_TEST(sess.run(e.read).to_vector<std::int32_t>() == (I{9, -7, 9, 24}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rows_out_of_range_and_shape_mismatches_fail_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  for (const FedCase& c : kFedCases) {
    for (bool resource : {false, true}) {
      BOOST_TEST_CONTEXT(c.name << (resource ? " (resource)" : " (ref)")) {
        af::Graph g;
        af::Variable v = g.variable(init_value(), {.name = "v"});
        const ResourceVar r = resource_var(g, init_value(), "r");
        const Output indices = g.placeholder(DType::int32);
        const Output updates = g.placeholder(DType::float32);
        const Operation op =
            fed_update(g, c, resource ? r.handle : v.ref(), resource, indices, updates);
        af::Session sess(g);
        sess.run(v.initializer());
        sess.run(r.init);
        const af::FeedDict feeds = {{indices, Tensor::from_vector(c.indices, c.indices_shape)},
                                    {updates, Tensor::from_vector(c.updates, c.updates_shape)}};
        const std::string e = error_of<af::InvalidArgumentError>(
            [&] { sess.run(std::vector<Output>{}, feeds, {op}); });
        if (c.message.empty())
          BOOST_TEST(e == "<no error>");
        else
          BOOST_TEST(contains(e, c.message), e);
        check_close(sess.run(resource ? r.read : v.value()).to_vector<float>(), c.after);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(scalar_empty_and_too_deep_variables_are_refused_at_run_time,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable scalar = g.variable(Tensor(5.0f), {.name = "s"});
  af::Variable empty = g.variable(Tensor(DType::float32, Shape{0, 2}), {.name = "empty"});
  af::Variable deep =
      g.variable(Tensor(DType::float32, Shape{1, 1, 1, 1, 1, 1, 1, 1}), {.name = "deep"});
  const Output any_indices = g.placeholder(DType::int32);
  const Output any_updates = g.placeholder(DType::float32);
  const Output on_scalar = af::scatter_nd_add(scalar.ref(), any_indices, any_updates);
  const Output on_empty = af::scatter_nd_add(empty.ref(), any_indices, any_updates);
  const Output on_deep = af::scatter_nd_add(deep.ref(), any_indices, any_updates);
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  auto run = [&](const Output& op, Tensor i, Tensor u) {
    return error_of<af::InvalidArgumentError>([&] {
      sess.run(op, {{any_indices, std::move(i)}, {any_updates, std::move(u)}});
    });
  };
  const Tensor one_row = Tensor::from_vector(std::vector<std::int32_t>{0}, Shape{1, 1});
  std::string e = run(on_scalar, one_row, Tensor::from_vector(std::vector<float>{1}));
  BOOST_TEST(contains(e, "Output must be at least 1-D, got shape: []"), e);
  e = run(on_empty, one_row, Tensor(DType::float32, Shape{1, 2}));
  BOOST_TEST(contains(e, "Indices and updates specified for empty output.  indices shape: [1,1]"),
             e);
  e = run(on_deep, Tensor(DType::int32, Shape{1, 8}), Tensor::from_vector(std::vector<float>{1}));
  BOOST_TEST(contains(e,
                      "Only indices.shape[-1] values between 1 and 5 are currently "
                      "supported.  Requested rank: 8"),
             e);
  check_close(sess.run(scalar.value()).to_vector<float>(), {5});
}

BOOST_AUTO_TEST_CASE(uninitialized_and_mistyped_variables_fail_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable w =
      g.variable(Tensor::from_vector(std::vector<float>{1, 2}, Shape{1, 2}), {.name = "w"});
  const ResourceVar r =
      resource_var(g, Tensor::from_vector(std::vector<float>{1, 2}, Shape{1, 2}), "r");
  const Output row = ints(g, {0}, Shape{1, 1});
  const Output ref_add = af::scatter_nd_add(w.ref(), row, floats(g, {1, 1}, Shape{1, 2}));
  const Operation res_add =
      af::resource_scatter_nd_add(r.handle, row, floats(g, {1, 1}, Shape{1, 2}));
  const Operation as_int = af::resource_scatter_nd_update(
      r.handle, row, g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 1}, Shape{1, 2})));
  af::Session sess(g);
  std::string e = error_of<af::FailedPreconditionError>([&] { sess.run(ref_add); });
  BOOST_TEST(contains(e, "Attempting to use uninitialized value w"), e);
  e = error_of<af::NotFoundError>([&] { sess.run(res_add); });
  BOOST_TEST(contains(e, "Resource localhost/r/N10tensorflow3VarE does not exist."), e);
  sess.run(r.init);
  // TensorFlow's kernel aborts the process here (a CHECK on the dtype).
  e = error_of<af::InvalidArgumentError>([&] { sess.run(as_int); });
  BOOST_TEST(contains(e, "Trying to access resource r as int32 but it holds float"), e);
}

BOOST_AUTO_TEST_CASE(shapes_known_while_building_are_checked_then, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable v = g.variable(init_value(), {.name = "v"});
  const ResourceVar r = resource_var(g, init_value(), "r");
  std::string e = af::test::construction_error([&] {
    af::scatter_nd_update(v.ref(), ints(g, {0, 1}, Shape{2, 1}),
                          floats(g, std::vector<float>(9, 1), Shape{3, 3}));
  });
  BOOST_TEST(contains(e,
                      "Dimensions [0,1) of indices[shape=[2,1]] = [2] must match dimensions "
                      "[0,1) of updates[shape=[3,3]] = [3]: Dimension 0 in both shapes must "
                      "be equal, but are 2 and 3. Shapes are [2] and [3]."),
             e);
  e = af::test::construction_error([&] {
    af::resource_scatter_nd_add(r.handle, ints(g, {0, 1}, Shape{2, 1}),
                                floats(g, std::vector<float>(4, 1), Shape{2, 2}));
  });
  BOOST_TEST(contains(e,
                      "Dimensions [1,2) of input[shape=[4,3]] = [3] must match dimensions "
                      "[1,2) of updates[shape=[2,2]] = [2]"),
             e);
  e = af::test::construction_error([&] {
    af::scatter_nd_add(v.ref(), ints(g, {0}, Shape{1, 1}), g.constant(Tensor(1.0f)));
  });
  BOOST_TEST(contains(e, "Shape must be at least rank 1 but is rank 0"), e);
  e = af::test::construction_error([&] {
    af::scatter_nd_add(
        v.ref(), ints(g, {0}, Shape{1, 1}),
        g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 1, 1}, Shape{1, 3})));
  });
  BOOST_TEST(contains(e,
                      "Input 'updates' of 'ScatterNdAdd' Op has type int32 that does not "
                      "match type float of argument 'ref'."),
             e);
  // An index row longer than the variable's rank passes (TensorFlow's Subshape clamps) and
  // fails when it runs.
  const Output deep =
      af::scatter_nd_add(v.ref(), ints(g, {0, 1, 0}, Shape{1, 3}), floats(g, {1}, Shape{1}));
  af::Session sess(g);
  sess.run(v.initializer());
  e = error_of<af::InvalidArgumentError>([&] { sess.run(deep); });
  BOOST_TEST(contains(e,
                      "Dimensions [3,2) of input[shape=[4,3]] must match dimensions [3,1) "
                      "of updates[shape=[1]]"),
             e);
}

BOOST_AUTO_TEST_CASE(a_value_read_before_an_nd_scatter_keeps_what_it_read,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable v = g.variable(init_value(), {.name = "v"});
  const Output add =
      af::scatter_nd_add(v.ref(), ints(g, {2, 0}, Shape{1, 2}), floats(g, {10}, Shape{1}));
  af::Session sess(g);
  sess.run(v.initializer());
  const Tensor before = sess.run(v.value());
  sess.run(add);
  check_close(before.to_vector<float>(), kInit);
  std::vector<float> want = kInit;
  want[6] += 10;
  check_close(sess.run(v.value()).to_vector<float>(), want);
}

BOOST_AUTO_TEST_CASE(non_aliasing_add_leaves_its_input_and_fails_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = floats(g, {1, 2, 3, 4, 5, 6}, Shape{3, 2});
  const Output out = af::scatter_nd_non_aliasing_add(x, ints(g, {1, 1}, Shape{2, 1}),
                                                     floats(g, {1, 1, 2, 2}, Shape{2, 2}));
  BOOST_TEST(out.op().type() == "ScatterNdNonAliasingAdd");
  const Output bad = af::scatter_nd_non_aliasing_add(
      x, ints(g, {5, 0, 4, 1}, Shape{4, 1}), floats(g, std::vector<float>(8, 1), Shape{4, 2}));
  const Output flags = af::scatter_nd_non_aliasing_add(
      g.constant(Tensor::from_vector(std::vector<bool>{true, false})), ints(g, {1, 0}, Shape{2, 1}),
      g.constant(Tensor::from_vector(std::vector<bool>{true, false})));
  af::Session sess(g);
  check_close(sess.run(out).to_vector<float>(), {1, 2, 6, 7, 5, 6});
  check_close(sess.run(x).to_vector<float>(), {1, 2, 3, 4, 5, 6});
  const std::string e = error_of<af::InvalidArgumentError>([&] { sess.run(bad); });
  BOOST_TEST(contains(e, "indices[2] = [4] does not index into shape [3,2]"), e);
  BOOST_TEST(sess.run(flags).to_vector<bool>() == (std::vector<bool>{true, true}),
             boost::test_tools::per_element());
  const std::string s = af::test::construction_error([&] {
    af::scatter_nd_non_aliasing_add(x, ints(g, {1, 2}, Shape{2, 1}),
                                    floats(g, std::vector<float>(6, 1), Shape{2, 3}));
  });
  BOOST_TEST(contains(s,
                      "Dimensions [1,2) of input[shape=[3,2]] = [2] must match dimensions "
                      "[1,2) of updates[shape=[2,3]] = [3]"),
             s);
}

BOOST_AUTO_TEST_CASE(sparse_segment_reductions_with_num_segments_fail_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  std::vector<float> values(12);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const Output data = floats(g, values, Shape{4, 3});
  const Output sum = af::sparse_segment_sum_with_num_segments(data, ints(g, {0, 1, 3}, Shape{3}),
                                                              ints(g, {0, 0, 2}, Shape{3}), 5);
  BOOST_TEST(sum.op().type() == "SparseSegmentSumWithNumSegments");
  BOOST_TEST(sum.shape().to_string() == "(5, 3)");
  BOOST_TEST(sum.op().node_def().inputs.at(3) == "SparseSegmentSumWithNumSegments/num_segments");
  const Output i = g.placeholder(DType::int32), s = g.placeholder(DType::int32),
               n = g.placeholder(DType::int32);
  const Output fed = af::sparse_segment_mean_with_num_segments(data, i, s, n);
  af::Session sess(g);
  check_close(sess.run(sum).to_vector<float>(), {3, 5, 7, 0, 0, 0, 9, 10, 11, 0, 0, 0, 0, 0, 0});
  auto run = [&](std::vector<std::int32_t> idx, std::vector<std::int32_t> ids, Tensor num) {
    return error_of<af::InvalidArgumentError>([&] {
      sess.run(fed, {{i, Tensor::from_vector(idx)}, {s, Tensor::from_vector(ids)}, {n, num}});
    });
  };
  const Tensor three(std::int32_t{3});
  BOOST_TEST(contains(run({0}, {0}, Tensor::from_vector(std::vector<std::int32_t>{3})),
                      "num_segments should be a scalar, not shape [1]"));
  BOOST_TEST(contains(run({0}, {0}, Tensor(std::int32_t{-1})), "segment ids must be >= 0"));
  BOOST_TEST(contains(run({0, 1}, {0, 3}, three), "segment ids must be < num_segments"));
  BOOST_TEST(
      contains(run({0}, {0}, Tensor(std::int32_t{0})), "segment ids must be < num_segments"));
  BOOST_TEST(contains(run({0, 1, 2}, {1, 0, 2}, three), "segment ids are not increasing"));
  BOOST_TEST(contains(run({0, 1}, {-1, 0}, three),
                      "Segment id -1 out of range [0, 3), possibly because 'segment_ids' input "
                      "is not sorted."));
  BOOST_TEST(contains(run({0, 4}, {0, 1}, three), "Bad: indices[1] == 4 out of range [0, 4)"));
  BOOST_TEST(contains(run({0, 1}, {0}, three), "segment_ids and indices should have same size."));
  const std::string negative = af::test::construction_error([&] {
    af::sparse_segment_sqrt_n_with_num_segments(data, ints(g, {0}, Shape{1}),
                                                ints(g, {0}, Shape{1}), -1);
  });
  BOOST_TEST(contains(negative, "Cannot specify a negative value for num_segments"), negative);
  const std::string t = af::test::construction_error([&] {
    af::sparse_segment_mean_with_num_segments(
        g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 2})), ints(g, {0}, Shape{1}),
        ints(g, {0}, Shape{1}), 2);
  });
  BOOST_TEST(contains(t,
                      "Value for attr 'T' of int32 is not in the list of allowed values: "
                      "bfloat16, half, float, double"),
             t);
}

BOOST_AUTO_TEST_CASE(only_the_tensor_ops_of_the_family_have_gradients,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output data = floats(g, {1, 2, 3, 4, 5, 6}, Shape{3, 2});
  const Output mean = af::sparse_segment_mean_with_num_segments(data, ints(g, {0, 1, 1}, Shape{3}),
                                                                ints(g, {0, 0, 2}, Shape{3}), 4);
  const Output updates = floats(g, {1, 1}, Shape{1, 2});
  const Output added = af::scatter_nd_non_aliasing_add(data, ints(g, {1}, Shape{1, 1}), updates);
  const std::vector<Output> grads = af::gradients({mean, added}, {data, updates});
  BOOST_REQUIRE_EQUAL(grads.size(), 2u);
  af::Session sess(g);
  // TensorFlow 2.21: mean's gradient [[.5,.5],[1.5,1.5],[0,0]] plus the sum's ones.
  check_close(sess.run(grads[0]).to_vector<float>(), {1.5f, 1.5f, 2.5f, 2.5f, 1, 1});
  check_close(sess.run(grads[1]).to_vector<float>(), {1, 1});
  // state_grad.py: ScatterNdUpdate is not differentiable, so nothing flows to its updates.
  af::Variable v = g.variable(init_value(), {.name = "v"});
  const Output row = af::identity(floats(g, {1, 2, 3}, Shape{1, 3}), "row");
  const Output scattered = af::scatter_nd_update(v.ref(), ints(g, {0}, Shape{1, 1}), row);
  const std::vector<Output> none = af::gradients({scattered}, {row});
  BOOST_REQUIRE_EQUAL(none.size(), 1u);
  BOOST_TEST(!none[0].valid());
}

BOOST_AUTO_TEST_SUITE_END()
