// GraphDef files and tf.import_graph_def's semantics: binary and text round trips,
// TensorProto reading rules, prefixes, input_map, return_elements, renaming, colocation,
// default attributes and the errors that leave the graph untouched.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "temp_dir.hpp"

namespace {

// y = x * w + 1, with x a placeholder, w a variable.
af::GraphDef small_graph() {
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{-1, 2}, "x");
  auto w = g.variable(af::Tensor::from_vector<float>({1, 2, 3, 4}, af::Shape{2, 2}), {.name = "w"});
  auto y = af::matmul(x, w.value()) + g.constant(1.0f, "one");
  (void)y;
  return af::export_graph_def(g);
}

bool message_has(const std::exception& e, const std::string& part) {
  const bool found = std::string(e.what()).find(part) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message was: " << e.what());
  return found;
}

template <class E>
auto has(const std::string& part) {
  return [part](const E& e) { return message_has(e, part); };
}

const char* kConstText = R"pb(
  node {
    name: "c"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 3 } }
          float_val: 1.5
        }
      }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "sum"
    op: "AddV2"
    input: "c"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "_output_shapes"
      value { list { shape { dim { size: 3 } } } }
    }
  }
  versions { producer: 2474 }
)pb";

}  // namespace

BOOST_AUTO_TEST_SUITE(graph_def_test)

BOOST_AUTO_TEST_CASE(binary_and_text_round_trips_keep_every_node, *boost::unit_test::timeout(30)) {
  const af::GraphDef def = small_graph();
  BOOST_TEST(def.version == af::kGraphDefProducer);
  BOOST_TEST((af::parse_graph_def(af::serialize_graph_def(def)) == def));
  const std::string text = af::graph_def_to_text(def);
  BOOST_TEST(text.find("node {\n  name: \"x\"\n  op: \"Placeholder\"") == 0);
  BOOST_TEST(text.ends_with("versions {\n  producer: 2474\n}\n"));
  BOOST_TEST((af::parse_graph_def_text(text) == def));
  // Deterministic: the same bytes every time.
  BOOST_TEST(af::serialize_graph_def(def) ==
             af::serialize_graph_def(af::parse_graph_def(af::serialize_graph_def(def))));
}

BOOST_AUTO_TEST_CASE(text_floats_are_written_as_pythons_text_format_writes_them,
                     *boost::unit_test::timeout(30)) {
  // Python's str() of the shortest float32 digits: what tf.io.write_graph writes.
  const std::vector<std::pair<float, std::string>> cases = {{1.0f, "1.0"},
                                                            {0.0f, "0.0"},
                                                            {-0.5f, "-0.5"},
                                                            {1e-08f, "1e-08"},
                                                            {0.0001f, "0.0001"},
                                                            {0.01f, "0.01"},
                                                            {0.70710677f, "0.70710677"},
                                                            {123456.0f, "123456.0"},
                                                            {1e16f, "1e+16"},
                                                            {3.0e-05f, "3e-05"},
                                                            {-2.5e20f, "-2.5e+20"}};
  for (const auto& [value, text] : cases) {
    af::Graph g;
    g.constant(value, "c");
    const std::string printed = af::graph_def_to_text(af::export_graph_def(g));
    BOOST_TEST(printed.find("float_val: " + text + "\n") != std::string::npos, text << " in\n"
                                                                                    << printed);
    BOOST_TEST(*af::parse_graph_def_text(printed).nodes[0].attr<af::Tensor>("value") ==
               af::Tensor(value));
  }
}

BOOST_AUTO_TEST_CASE(files_are_read_as_binary_or_text_and_written_atomically,
                     *boost::unit_test::timeout(30)) {
  af::test::TempDir dir;
  const af::GraphDef def = small_graph();
  const std::string text_path = af::write_graph(def, (dir.path / "graphs").string(), "g.pbtxt");
  const std::string binary_path =
      af::write_graph(def, (dir.path / "graphs").string(), "g.pb", false);
  BOOST_TEST((af::read_graph_def(text_path) == def));
  BOOST_TEST((af::read_graph_def(binary_path) == def));
  // A text graph under a binary-looking name is still read (binary first, then text).
  BOOST_TEST((af::read_graph_def(dir.write("text.pb", af::graph_def_to_text(def))) == def));
  BOOST_CHECK_EXCEPTION(af::read_graph_def((dir.path / "missing.pb").string()), af::NotFoundError,
                        has<af::NotFoundError>("missing.pb"));
  // A directory opens as a file and reads as nothing: refused rather than an empty graph.
  std::filesystem::create_directories(dir.path / "a_dir");
  BOOST_CHECK_EXCEPTION(
      af::read_graph_def((dir.path / "a_dir").string()), af::InvalidArgumentError,
      has<af::InvalidArgumentError>("a_dir: is a directory, not a GraphDef file"));
  BOOST_CHECK_EXCEPTION(
      af::read_graph_def(dir.write("bad.pbtxt", "node { name: \"a\"\n  op: 3 3 }")),
      af::InvalidArgumentError, has<af::InvalidArgumentError>("bad.pbtxt:2:"));
  BOOST_CHECK_EXCEPTION(af::parse_graph_def(std::string("\xff\xff\xff", 3), "blob"),
                        af::InvalidArgumentError,
                        has<af::InvalidArgumentError>("blob: not a binary GraphDef"));
}

BOOST_AUTO_TEST_CASE(tensor_protos_follow_tensorflows_reading_rules,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto out = af::import_graph_def(g, af::parse_graph_def_text(kConstText),
                                  {.return_elements = {"sum:0", "x:0", "c"}});
  BOOST_REQUIRE(out.size() == 3u);
  const af::Output sum = std::get<af::Output>(out[0]);
  BOOST_TEST(sum.name() == "import/sum:0");
  BOOST_TEST(std::get<af::Operation>(out[2]).name() == "import/c");
  // One float_val for three elements: the last value repeats.
  af::Session sess(g);
  auto v =
      sess.run(sum, {{std::get<af::Output>(out[1]), af::Tensor::from_vector<float>({1, 2, 3})}});
  BOOST_TEST(v.to_vector<float>() == (std::vector<float>{2.5f, 3.5f, 4.5f}),
             boost::test_tools::per_element());
  // _output_shapes is dropped on import.
  BOOST_TEST(!g.operation("import/sum").node()->def().attrs.count("_output_shapes"));
  // More values than elements, and raw bytes of the wrong size, are errors naming the node.
  std::string too_many = kConstText;
  too_many.replace(too_many.find("float_val: 1.5"), 14, "float_val: [1, 2, 3, 4]");
  BOOST_CHECK_EXCEPTION(
      af::parse_graph_def_text(too_many), af::InvalidArgumentError,
      has<af::InvalidArgumentError>("node 'c': attr 'value': the tensor proto holds 4 values"));
  std::string short_content = kConstText;
  short_content.replace(short_content.find("float_val: 1.5"), 14, "tensor_content: \"\\000\\000\"");
  BOOST_CHECK_EXCEPTION(af::parse_graph_def_text(short_content), af::InvalidArgumentError,
                        has<af::InvalidArgumentError>("tensor_content holds 2 bytes"));
  std::string quantized = kConstText;
  quantized.replace(quantized.find("type: DT_FLOAT"), 14, "type: DT_QINT8");
  BOOST_CHECK_EXCEPTION(af::parse_graph_def_text(quantized), af::InvalidArgumentError,
                        has<af::InvalidArgumentError>(
                            "node 'c': attr 'dtype': DT_QINT8 is not supported by actorflow"));
}

// float16 in half_val, int8 and uint16 in int_val, uint32 and uint64 in their own fields,
// complex numbers as (real, imag) pairs in scomplex_val and dcomplex_val; the last value
// repeats; written back, each is one typed value (a splat) or raw bytes.
BOOST_AUTO_TEST_CASE(protos_of_the_newer_dtypes_read_and_write_as_tensorflows,
                     *boost::unit_test::timeout(30)) {
  auto node = [](const char* name, const char* dtype, const char* values) {
    return std::string("node { name: \"") + name + "\" op: \"Const\" attr { key: \"dtype\" " +
           "value { type: " + dtype +
           " } } attr { key: \"value\" value { tensor { dtype: " + dtype +
           " tensor_shape { dim { size: 3 } } " + values + " } } } }\n";
  };
  const std::string text = node("h", "DT_HALF", "half_val: [ 15360, 48128 ]") +  // 1.0, -1.0
                           node("i8", "DT_INT8", "int_val: [ -128, 127 ]") +
                           node("u16", "DT_UINT16", "int_val: [ 65535 ]") +
                           node("u32", "DT_UINT32", "uint32_val: [ 4294967295, 7 ]") +
                           node("u64", "DT_UINT64", "uint64_val: [ 18446744073709551615 ]") +
                           node("c64", "DT_COMPLEX64", "scomplex_val: [ 1, 2, -3, 4 ]") +
                           node("c128", "DT_COMPLEX128", "dcomplex_val: [ 0.5, -0.25 ]");
  const af::GraphDef def = af::parse_graph_def_text(text);
  auto value = [&](std::size_t i) { return *def.nodes[i].attr<af::Tensor>("value"); };
  BOOST_TEST(static_cast<float>(value(0).data<af::half_t>()[2]) == -1.0f);
  BOOST_TEST(value(1).to_vector<std::int8_t>() == (std::vector<std::int8_t>{-128, 127, 127}),
             boost::test_tools::per_element());
  BOOST_TEST(value(2).data<std::uint16_t>()[1] == 65535);
  BOOST_TEST(value(3).data<std::uint32_t>()[0] == 4294967295u);
  BOOST_TEST(value(4).data<std::uint64_t>()[2] == ~std::uint64_t{0});
  BOOST_TEST(value(5).data<af::complex64_t>()[2] == af::complex64_t(-3, 4));
  BOOST_TEST(value(6).data<af::complex128_t>()[1] == af::complex128_t(0.5, -0.25));
  // Written back and read again: the same tensors.
  const af::GraphDef back = af::parse_graph_def(af::serialize_graph_def(def));
  for (std::size_t i = 0; i < def.nodes.size(); ++i)
    BOOST_TEST(*back.nodes[i].attr<af::Tensor>("value") == value(i), def.nodes[i].name);
}

BOOST_AUTO_TEST_CASE(bfloat16_and_string_protos_repeat_their_last_value_too,
                     *boost::unit_test::timeout(30)) {
  const char* text = R"pb(
    node {
      name: "h"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_BFLOAT16 }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_BFLOAT16
            tensor_shape { dim { size: 3 } }
            half_val: [ 16256, 16384 ]
          }
        }
      }
    }
    node {
      name: "s"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_STRING }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_STRING
            tensor_shape { dim { size: 3 } }
            string_val: "a"
          }
        }
      }
    }
  )pb";
  const af::GraphDef def = af::parse_graph_def_text(text);
  const af::Tensor h = *def.nodes[0].attr<af::Tensor>("value");
  BOOST_REQUIRE(h.num_elements() == 3);
  BOOST_TEST(h.data<af::bfloat16_t>()[0].bits == 16256);  // 1.0
  BOOST_TEST(h.data<af::bfloat16_t>()[1].bits == 16384);  // 2.0
  BOOST_TEST(h.data<af::bfloat16_t>()[2].bits == 16384);
  BOOST_TEST(def.nodes[1].attr<af::Tensor>("value")->to_vector<std::string>() ==
                 (std::vector<std::string>{"a", "a", "a"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(prefixes_are_made_unique_and_return_elements_come_back,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  const af::GraphDef def = small_graph();
  af::import_graph_def(g, def);
  auto second = af::import_graph_def(g, def, {.return_elements = {"w", "w/read:0"}});
  BOOST_TEST(g.contains("import/w"));
  BOOST_TEST(g.contains("import_1/w"));
  BOOST_TEST(std::get<af::Operation>(second[0]).name() == "import_1/w");
  BOOST_TEST(std::get<af::Output>(second[1]).name() == "import_1/w/read:0");
  // Inputs and colocation entries carry the prefix.
  auto assign = g.operation("import_1/w/Assign").node()->def();
  BOOST_TEST(assign.inputs.at(0) == "import_1/w");
  af::import_graph_def(g, def, {.name = "model"});
  BOOST_TEST(g.contains("model/MatMul"));
  {
    auto scope = g.name_scope("outer");
    af::import_graph_def(g, def, {.name = "model"});
  }
  BOOST_TEST(g.contains("outer/model/MatMul"));
}

BOOST_AUTO_TEST_CASE(input_map_replaces_tensors_and_control_inputs,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto fed = g.constant(af::Tensor::from_vector<float>({1, 0, 0, 1}, af::Shape{2, 2}), "fed");
  auto out = af::import_graph_def(
      g, small_graph(), {.input_map = {{"x:0", fed}}, .return_elements = {"add:0", "w/Assign"}});
  af::Session sess(g);
  sess.run(std::get<af::Operation>(out[1]));
  // [[1,0],[0,1]] x [[1,2],[3,4]] + 1
  BOOST_TEST(
      sess.run(std::get<af::Output>(out[0])).to_vector<float>() == (std::vector<float>{2, 3, 4, 5}),
      boost::test_tools::per_element());
  // A mapped tensor of another dtype is refused, naming the node and both types.
  af::Graph h;
  auto ints = h.constant(af::Tensor::from_vector<std::int32_t>({1, 2}), "ints");
  BOOST_CHECK_EXCEPTION(af::import_graph_def(h, small_graph(), {.input_map = {{"x", ints}}}),
                        af::InvalidArgumentError,
                        has<af::InvalidArgumentError>(
                            "was passed int32 from ints:0 incompatible with expected float"));
}

BOOST_AUTO_TEST_CASE(an_empty_name_keeps_names_and_renames_collisions,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  g.constant(2.0f, "one");
  af::import_graph_def(g, small_graph(), {.name = ""});
  BOOST_TEST(g.contains("x"));
  BOOST_TEST(g.contains("one_1"));
  BOOST_TEST(g.operation("add").node()->def().inputs.at(1) == "one_1");
}

BOOST_AUTO_TEST_CASE(defaults_are_filled_and_colocated_nodes_take_the_device,
                     *boost::unit_test::timeout(30)) {
  const char* text = R"pb(
    node {
      name: "in"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "f"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      device: "/job:ps/task:0"
    }
    node {
      name: "conv"
      op: "Conv2D"
      input: "in"
      input: "f"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "strides"
        value { list { i: [ 1, 1, 1, 1 ] } }
      }
      attr {
        key: "padding"
        value { s: "SAME" }
      }
    }
    node {
      name: "f_read"
      op: "Identity"
      input: "f"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "_class"
        value { list { s: "loc:@f" } }
      }
    }
  )pb";
  af::Graph g;
  af::import_graph_def(g, af::parse_graph_def_text(text), {.name = "m"});
  const auto conv = g.operation("m/conv").node()->def();
  BOOST_TEST(*conv.attr<std::string>("data_format") == "NHWC");
  BOOST_TEST(*conv.attr<bool>("use_cudnn_on_gpu") == true);
  BOOST_TEST(*conv.attr<std::vector<std::int64_t>>("dilations") ==
             (std::vector<std::int64_t>{1, 1, 1, 1}));
  const auto read = g.operation("m/f_read").node()->def();
  BOOST_TEST(read.device == "/job:ps/task:0");
  BOOST_TEST(*read.attr<std::vector<std::string>>("_class") ==
             (std::vector<std::string>{"loc:@m/f"}));
}

BOOST_AUTO_TEST_CASE(invalid_graph_defs_are_refused_before_any_node_is_added,
                     *boost::unit_test::timeout(30)) {
  auto node = [](std::string name, std::string op, std::vector<std::string> inputs = {}) {
    af::NodeDef n;
    n.name = std::move(name);
    n.op = std::move(op);
    n.inputs = std::move(inputs);
    n.attrs["dtype"] = af::DType::float32;
    n.attrs["T"] = af::DType::float32;
    return n;
  };
  af::Graph g;
  g.constant(1.0f, "existing");
  const std::size_t before = g.nodes().size();
  auto refused = [&](const af::GraphDef& def, const std::string& part,
                     af::ImportGraphDefOptions options = {}) {
    BOOST_CHECK_EXCEPTION(af::import_graph_def(g, def, options), af::InvalidArgumentError,
                          has<af::InvalidArgumentError>(part));
    BOOST_TEST(g.nodes().size() == before);
  };
  af::GraphDef def;
  def.nodes = {node("p", "Placeholder"), node("a", "Foo", {"p"}), node("b", "Bar"),
               node("c", "Foo")};
  refused(def, "Op type not registered in actorflow: 'Bar' (node 'b'), 'Foo' (node 'a')");
  def.nodes = {node("p", "Placeholder"), node("p", "Placeholder")};
  refused(def, "Node 'p' is not unique");
  def.nodes = {node("p", "Placeholder"), node("q", "Identity", {"^p", "p"})};
  refused(def, "Node 'q': Control dependencies must come after regular dependencies");
  def.nodes = {node("q", "Identity", {"nowhere:1"})};
  refused(def, "Node 'q': Unknown input node 'nowhere:1'");
  def.nodes = {node("p", "Placeholder"), node("q", "Identity", {"p"})};
  def.nodes[1].attrs["_class"] = std::vector<std::string>{"loc:@ghost"};
  refused(def, "Node 'q' expects to be colocated with unknown node 'ghost'");
  def.nodes = {node("p", "Placeholder")};
  refused(def, "Attempted to map inputs that were not found in graph_def: [y:0]",
          {.input_map = {{"y:0", g.output("existing:0")}}});
  refused(def, "Requested return tensor 'ghost:3' not found", {.return_elements = {"ghost:3"}});
  refused(def, "Requested return node 'ghost' not found", {.return_elements = {"ghost"}});
  def.nodes = {node("a", "Identity", {"b"}), node("b", "Identity", {"a"})};
  refused(def, "2 nodes in a cycle");
}

BOOST_AUTO_TEST_CASE(an_exported_graph_carries_output_shapes_when_asked,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = g.placeholder(af::float32, af::PartialShape{-1, 3}, "x");
  af::reduce_sum(x, std::vector<std::int64_t>{1});
  const af::GraphDef plain = af::export_graph_def(g);
  const af::GraphDef shaped = af::export_graph_def(g, true);
  BOOST_TEST(!plain.nodes[0].attrs.count("_output_shapes"));
  const auto* shapes = shaped.nodes[0].attr<std::vector<af::PartialShape>>("_output_shapes");
  BOOST_REQUIRE(shapes != nullptr);
  BOOST_TEST((shapes->at(0) == af::PartialShape{-1, 3}));
  // Imported again, the shapes are dropped; defaults are filled in (Sum's keep_dims).
  af::Graph h;
  af::import_graph_def(h, shaped, {.name = ""});
  const af::GraphDef again = af::export_graph_def(h);
  BOOST_REQUIRE(again.nodes.size() == plain.nodes.size());
  for (std::size_t i = 0; i < plain.nodes.size(); ++i) {
    BOOST_TEST(again.nodes[i].name == plain.nodes[i].name);
    BOOST_TEST(again.nodes[i].inputs == plain.nodes[i].inputs, boost::test_tools::per_element());
    BOOST_TEST(!again.nodes[i].attrs.count("_output_shapes"));
    for (const auto& [key, value] : plain.nodes[i].attrs)
      BOOST_TEST((again.nodes[i].attrs.at(key) == value));
  }
}

BOOST_AUTO_TEST_SUITE_END()
