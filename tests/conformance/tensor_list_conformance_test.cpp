// Variant tensors: TensorFlow's tensor lists and optionals, read from GraphDefs TensorFlow
// 2.21 wrote (tests/data/tf_graph/functional, scripts/peers/make_functional_fixtures.py).
// lists.pb runs each TensorList and Optional op to TensorFlow's value or error; train.pb
// trains a model through a v2 cond (its gradient takes the branch's intermediates in
// Optionals) and a v2 loop writing a tf.TensorArray (its gradient pops the forward values off
// TensorLists) to TensorFlow's losses, gradients and variables.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "matchers.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;
using af::test::contains;

const std::filesystem::path functional_dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "functional";

nlohmann::json reference(const char* file) {
  std::ifstream in(functional_dir / file);
  return nlohmann::json::parse(in);
}

std::vector<float> flat_floats(const nlohmann::json& v) {
  std::vector<float> out;
  if (v.is_array()) {
    for (const auto& e : v)
      for (float f : flat_floats(e)) out.push_back(f);
  } else {
    out.push_back(v.get<float>());
  }
  return out;
}

// The values of `t` as doubles, whatever its numeric dtype.
std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  af::visit_numeric_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (const auto& v : t.flat<T>()) {
      if constexpr (af::is_complex_v<T>) {
        out.push_back(static_cast<double>(v.real()));
        out.push_back(static_cast<double>(v.imag()));
      } else if constexpr (af::is_half_like_v<T>) {
        out.push_back(static_cast<float>(v));
      } else {
        out.push_back(static_cast<double>(v));
      }
    }
  });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_list_conformance_test)

// Each fetch of lists.pb: TensorFlow's dtype, shape and values, or its error message.
BOOST_AUTO_TEST_CASE(tensor_list_and_optional_ops_give_tensorflows_values_and_errors,
                     *boost::unit_test::timeout(60)) {
  const auto ref = reference("lists_reference.json");
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "lists.pb").string()), {.name = ""});
  af::Session sess(g);
  int errors = 0;
  for (const auto& [name, want] : ref["cases"].items()) {
    BOOST_TEST_CONTEXT(name) {
      const Output fetch = g.output(want["tensor"].get<std::string>());
      if (want.contains("error")) {
        ++errors;
        BOOST_TEST(want["error"].get<std::string>() == "InvalidArgumentError");
        const std::string message =
            af::test::error_of<af::InvalidArgumentError>([&] { sess.run(fetch); });
        BOOST_TEST(contains(message, want["message"].get<std::string>()), message);
        BOOST_TEST(contains(message, "[[{{node "), message);  // the node it failed in
        continue;
      }
      const Tensor got = sess.run(fetch);
      std::string dtype(af::dtype_name(got.dtype()));
      BOOST_TEST(dtype == want["dtype"].get<std::string>());
      const af::Shape shape(want["shape"].get<std::vector<std::int64_t>>());
      BOOST_TEST((got.shape() == shape), got.shape().to_string() << " vs " << shape.to_string());
      const auto values = want["values"];
      std::vector<double> expected;
      for (const auto& v : values)
        expected.push_back(v.is_boolean() ? v.get<bool>() : v.get<double>());
      BOOST_TEST(values_of(got) == expected, boost::test_tools::per_element());
    }
  }
  BOOST_TEST(errors == 9);
}

// Training through a v2 cond and a v2 loop with a TensorArray: TensorFlow's losses and
// gradients (which run the gradient If and While, Optionals and TensorLists in between) step
// by step, and its variables after four GradientDescent steps.
BOOST_AUTO_TEST_CASE(training_through_v2_cond_and_loop_gradients_matches_tensorflow,
                     *boost::unit_test::timeout(120)) {
  const auto ref = reference("train_reference.json");
  const auto ops = ref["ops"].get<std::vector<std::string>>();
  for (const char* op : {"StatelessIf", "StatelessWhile", "OptionalFromValue", "OptionalNone",
                         "OptionalGetValue", "EmptyTensorList", "TensorListPushBack",
                         "TensorListPopBack", "TensorListSetItem", "TensorListStack", "ZerosLike"})
    BOOST_TEST(std::count(ops.begin(), ops.end(), op) == 1, op);
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "train.pb").string()), {.name = ""});
  af::Session sess(g);
  sess.run({}, {}, {g.operation("init")});
  const Tensor x = Tensor::from_vector(flat_floats(ref["x"]), af::Shape{3, 3});
  const Tensor y = Tensor::from_vector(flat_floats(ref["y"]), af::Shape{3, 2});
  for (const auto& step : ref["steps"]) {
    BOOST_TEST_CONTEXT("p = " << step["p"] << ", n = " << step["n"]) {
      const std::vector<std::pair<Output, Tensor>> feeds{
          {g.output("x"), x},
          {g.output("y"), y},
          {g.output("p"), Tensor(step["p"].get<bool>())},
          {g.output("n"), Tensor(step["n"].get<std::int32_t>())}};
      const auto out = sess.run({g.output("loss_out"), g.output("grad_w"), g.output("grad_v"),
                                 g.output("steps_out"), g.output("mapped_out")},
                                feeds);
      af::test::check_close({out[0].scalar<float>()}, {step["loss"].get<float>()}, 1e-5f);
      af::test::check_close(out[1].to_vector<float>(), flat_floats(step["grad_w"]), 1e-5f);
      af::test::check_close(out[2].to_vector<float>(), flat_floats(step["grad_v"]), 1e-5f);
      BOOST_TEST(out[3].shape().dim(0) == step["n"].get<int>());
      af::test::check_close(out[3].to_vector<float>(), flat_floats(step["steps"]), 1e-5f);
      af::test::check_close(out[4].to_vector<float>(), flat_floats(step["mapped"]), 1e-5f);
      sess.run({}, feeds, {g.operation("train")});
    }
  }
  const Output w = af::read_variable_op(g.output("w"), af::float32, "read_w");
  const Output v = af::read_variable_op(g.output("v"), af::float32, "read_v");
  af::test::check_close(sess.run(w).to_vector<float>(), flat_floats(ref["final"]["w"]), 1e-5f);
  af::test::check_close(sess.run(v).to_vector<float>(), flat_floats(ref["final"]["v"]), 1e-5f);
}

// Lists are values: ops that pop from, resize or add a list other ops of the same step also
// read leave it as it was for them (a kernel changes a list in place only when nothing else
// holds it).
BOOST_AUTO_TEST_CASE(a_list_read_by_several_ops_of_a_step_is_not_changed_under_them,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "lists.pb").string()), {.name = ""});
  af::Session sess(g);
  // "stack" and "pop_length" share the two-element list: popping one from it in the same
  // step must not shorten what "stack" sees.
  const auto out =
      sess.run({g.output("stack"), g.output("pop_length"), g.output("pop_item"),
                g.output("resize_stack"), g.output("add_n"), g.output("concat_lists")});
  BOOST_TEST(out[0].to_vector<float>() == (std::vector<float>{1, 2, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(out[1].scalar<std::int32_t>() == 1);
  BOOST_TEST(out[2].to_vector<float>() == (std::vector<float>{3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST((out[3].shape() == af::Shape{4, 2}));
  BOOST_TEST(out[4].to_vector<float>() == (std::vector<float>{2, 4, 6, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(out[5].to_vector<float>() == (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 5, 6}),
             boost::test_tools::per_element());
}

// TensorListConcatV2 reads a hole's length from leading_dims; a negative one is refused with
// the node named (TensorFlow 2.21 aborts the process on a failed CHECK instead).
BOOST_AUTO_TEST_CASE(a_negative_leading_dim_for_a_hole_is_refused, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "lists.pb").string()), {.name = ""});
  // concat_leading_dims = Identity(TensorListConcatV2(list, element_shape, leading_dims)); the
  // list's element 1 is a hole.
  const auto& in = g.output("concat_leading_dims").node()->inputs()[0].node()->inputs();
  const Output negative = g.constant(Tensor::from_vector<std::int64_t>({2, -1}), "negative");
  const auto concat =
      g.create_op("TensorListConcatV2", {in[0], in[1], negative},
                  {{"element_dtype", af::float32}, {"shape_type", af::int32}}, "negative_concat");
  af::Session sess(g);
  const std::string err =
      af::test::error_of<af::InvalidArgumentError>([&] { sess.run(concat.output(0)); });
  BOOST_TEST(contains(err, "Dimension -1 must be >= 0"), err);
  BOOST_TEST(contains(err, "negative_concat"), err);
}

// A variant tensor prints as its value and has no TensorProto: a graph holding one as a
// constant cannot be written, and the error says why.
BOOST_AUTO_TEST_CASE(variant_tensors_print_as_their_value_and_have_no_tensor_proto,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((functional_dir / "lists.pb").string()), {.name = ""});
  af::Session sess(g);
  // stack = Identity(TensorListStack(list, element_shape))
  const Tensor list = sess.run(g.output("stack").node()->inputs()[0].node()->inputs()[0]);
  BOOST_TEST(list.dtype() == af::DType::variant);
  BOOST_TEST(list.to_string() == "TensorList");
  BOOST_TEST(af::dtype_name(list.dtype()) == "variant");
  BOOST_TEST(af::dtype_from_string("variant") == af::DType::variant);
  af::Graph h;
  h.constant(list, "c");
  const std::string err = af::test::error_of<af::InvalidArgumentError>(
      [&] { af::serialize_graph_def(af::export_graph_def(h)); });
  BOOST_TEST(contains(err, "variant"), err);
}

BOOST_AUTO_TEST_SUITE_END()
