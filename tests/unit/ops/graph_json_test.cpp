// GraphDef <-> JSON: every AttrValue alternative survives a round trip exactly (bit for bit
// for floats, byte for byte for strings and tensor content), canonical JSON re-exports to
// the same text, and bad input fails with InvalidArgumentError naming where it went wrong.
#include "actorflow/ops/graph_json.hpp"

#include <bit>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/resource.hpp"

using namespace af;
using namespace std::string_literals;

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr float kInff = std::numeric_limits<float>::infinity();

float float_from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }

NodeDef node(std::string name, std::string op, std::vector<std::string> inputs = {},
             std::string device = {}, AttrMap attrs = {}) {
  return NodeDef{std::move(name), std::move(op), std::move(inputs), std::move(device),
                 std::move(attrs)};
}

// One tensor of every serialisable dtype, plus the edge cases of shape and content.
AttrMap tensor_attrs() {
  Tensor strings(DType::string, Shape{2, 2});
  auto* s = strings.data<std::string>();
  s[0] = "";
  s[1] = "a\0b"s;
  s[2] = "\xff\xfe binary";
  s[3] = "plain";
  Tensor bf16 = Tensor::from_vector(
      std::vector<bfloat16_t>{bfloat16_t(1.5f), bfloat16_t(-0.0f), bfloat16_t(3e38f)});
  return {
      {"t_float",
       Tensor::from_vector(std::vector<float>{1.5f, -0.0f, 1e-45f, kInff, 0.1f}, Shape{5})},
      {"t_double", Tensor::from_vector(std::vector<double>{0.1, -1e308, 5e-324}, Shape{3, 1})},
      {"t_int32", Tensor::from_vector(std::vector<std::int32_t>{INT32_MIN, -1, 0, INT32_MAX})},
      {"t_int64", Tensor::from_vector(std::vector<std::int64_t>{kInt64Min, kInt64Max})},
      {"t_uint8", Tensor::from_vector(std::vector<std::uint8_t>{0, 127, 255})},
      {"t_bool", Tensor::from_vector(std::vector<bool>{true, false, true}, Shape{1, 3})},
      {"t_string", strings},
      {"t_string_scalar", Tensor("x\0y"s)},
      {"t_bfloat16", bf16},
      {"t_scalar", Tensor(std::int64_t{42})},
      {"t_empty_float", Tensor(DType::float32, Shape{0, 3})},
      {"t_empty_string", Tensor(DType::string, Shape{0})},
      {"t_uninitialized", Tensor()},
  };
}

// A GraphDef holding every AttrValue alternative and the edge cases of each (NaN aside,
// since NaN != NaN under operator==; see the bit-for-bit case).
GraphDef every_attr_graph() {
  GraphDef def;
  def.version = 27;
  def.nodes.push_back(node("x", "Placeholder", {}, "/job:worker/replica:0/task:1/device:CPU:0",
                           {{"dtype", DType::float32}, {"shape", PartialShape{-1, 3}}}));
  def.nodes.push_back(node("init", "NoOp"));
  def.nodes.push_back(node(
      "mul", "Mul", {"x", "x:0", "^init"}, "/gpu:0",
      {
          {"none", std::monostate{}},
          {"i", std::int64_t{3}},
          {"i_max", kInt64Max},
          {"i_min", kInt64Min},
          {"f", 1.5f},
          {"f_tenth", 0.1f},
          {"f_neg_zero", -0.0f},
          {"f_denormal", float_from_bits(1)},
          {"f_max", std::numeric_limits<float>::max()},
          {"f_inf", kInff},
          {"f_neg_inf", -kInff},
          {"b_true", true},
          {"b_false", false},
          {"s", "hello"s},
          {"s_empty", ""s},
          {"s_nul", "\0a\0"s},
          {"s_binary", "\x80\xff\xc3("s},
          {"type", DType::bfloat16},
          {"type_resource", DType::resource},
          {"type_invalid", DType::invalid},
          {"shape_unknown", PartialShape::unknown()},
          {"shape_scalar", PartialShape{}},
          {"shape_partial", PartialShape{-1, 0, kInt64Max}},
          {"tensor", Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2})},
          {"list_i", std::vector<std::int64_t>{kInt64Min, 0, kInt64Max}},
          {"list_f", std::vector<float>{0.5f, -kInff, 3e-39f}},
          {"list_type", std::vector<DType>{DType::float32, DType::string, DType::resource}},
          {"list_shape",
           std::vector<PartialShape>{PartialShape::unknown(), PartialShape{}, PartialShape{2, -1}}},
          {"list_s", std::vector<std::string>{"", "\0"s, "caf\xc3\xa9"}},
          {"empty_list_i", std::vector<std::int64_t>{}},
          {"empty_list_f", std::vector<float>{}},
          {"empty_list_type", std::vector<DType>{}},
          {"empty_list_shape", std::vector<PartialShape>{}},
          {"empty_list_s", std::vector<std::string>{}},
          {"func", af::FunctionAttr{"map_fn", "\x0a\x03lib\0"s, ""}},
          {"func_bare", af::FunctionAttr{"f", "", "\x12\x00"s}},
      }));
  def.nodes.push_back(node("tensors", "Const", {"^mul", "^x"}, "", tensor_attrs()));
  def.nodes.push_back(node("unicode/na\xc3\xafve", "Identity", {"mul:0"}, "/device:CPU:0"));
  return def;
}

template <class Fn>
void check_invalid_argument(Fn&& fn, const std::string& expected_substring) {
  try {
    fn();
    BOOST_ERROR("expected InvalidArgumentError containing: " << expected_substring);
  } catch (const InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find(expected_substring) != std::string::npos,
               "message '" << e.what() << "' lacks '" << expected_substring << "'");
  }
}

void check_bad_graph(const std::string& json, const std::string& expected_substring) {
  BOOST_TEST_CONTEXT("input: " << json) {
    check_invalid_argument([&] { graph_def_from_json(json); }, expected_substring);
  }
}

std::string one_attr_graph(const std::string& attr_json) {
  return R"({"node": [{"name": "mul", "op": "Mul", "attr": {"T": )" + attr_json + "}}]}";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(graph_json_test)

BOOST_AUTO_TEST_CASE(a_graph_def_with_every_attr_alternative_round_trips_exactly) {
  GraphDef def = every_attr_graph();
  for (int indent : {-1, 0, 1, 2}) {
    BOOST_TEST_CONTEXT("indent " << indent) {
      GraphDef back = graph_def_from_json(graph_def_to_json(def, indent));
      BOOST_TEST((back == def));
      // operator== on the variant already compares the alternative; spell it out once.
      const auto& attrs = back.nodes.at(2).attrs;
      for (const auto& [name, value] : def.nodes.at(2).attrs)
        BOOST_TEST(attrs.at(name).index() == value.index(), "attr " << name);
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_lists_keep_their_alternative) {
  const std::vector<AttrValue> empties{std::vector<std::int64_t>{}, std::vector<float>{},
                                       std::vector<DType>{}, std::vector<PartialShape>{},
                                       std::vector<std::string>{}};
  for (const auto& value : empties) {
    std::string json = attr_value_to_json(value);
    AttrValue back = attr_value_from_json(json);
    BOOST_TEST(back.index() == value.index(), json);
    BOOST_TEST((back == value));
  }
  BOOST_TEST(attr_value_to_json(std::vector<DType>{}) == R"({"list":{"type":[]}})");
  BOOST_TEST(attr_value_to_json(std::vector<std::string>{}) == R"({"list":{"s":[]}})");
}

BOOST_AUTO_TEST_CASE(floats_round_trip_bit_for_bit_including_nan_payloads) {
  const std::vector<std::uint32_t> patterns{
      0x7fc00000u,  // the canonical quiet NaN
      0xffc00000u,  // -NaN, what x86 produces for 0 * inf
      0x7fa00001u,  // a signalling NaN with a payload
      0xffffffffu,  // all ones
      0x7f800000u,  // +inf
      0xff800000u,  // -inf
      0x80000000u,  // -0
      0x00000001u,  // the smallest denormal
      0x7f7fffffu,  // FLT_MAX
      0x3dcccccdu,  // 0.1f
      0x4b800001u,  // 16777218, needs all digits
  };
  std::vector<float> values;
  AttrMap attrs;
  for (auto p : patterns) {
    values.push_back(float_from_bits(p));
    attrs["f_" + std::to_string(p)] = float_from_bits(p);
  }
  attrs["list_f"] = values;
  attrs["tensor"] = Tensor::from_vector(values);
  GraphDef def;
  def.nodes.push_back(node("n", "Const", {}, "", attrs));

  std::string json = graph_def_to_json(def);
  GraphDef back = graph_def_from_json(json);
  const NodeDef& n = back.nodes.at(0);
  for (auto p : patterns) {
    const float* f = n.attr<float>("f_" + std::to_string(p));
    BOOST_REQUIRE(f);
    BOOST_TEST(bits_of(*f) == p, std::hex << "0x" << p);
  }
  const auto* list = n.attr<std::vector<float>>("list_f");
  BOOST_REQUIRE(list);
  BOOST_REQUIRE(list->size() == patterns.size());
  for (std::size_t i = 0; i < patterns.size(); ++i) BOOST_TEST(bits_of((*list)[i]) == patterns[i]);
  const auto* tensor = n.attr<Tensor>("tensor");
  BOOST_REQUIRE(tensor);
  BOOST_REQUIRE(tensor->num_elements() == static_cast<std::int64_t>(patterns.size()));
  BOOST_TEST(std::memcmp(tensor->raw_data(), values.data(), values.size() * sizeof(float)) == 0);

  // Non-finite values use proto JSON's spellings; other NaNs carry their bits.
  BOOST_TEST(attr_value_to_json(float_from_bits(0x7fc00000u)) == R"({"f":"NaN"})");
  BOOST_TEST(attr_value_to_json(float_from_bits(0xffc00000u)) == R"j({"f":"NaN(0xffc00000)"})j");
  BOOST_TEST(attr_value_to_json(kInff) == R"({"f":"Infinity"})");
  BOOST_TEST(attr_value_to_json(-kInff) == R"({"f":"-Infinity"})");
  // Finite floats print as their shortest decimal, not the float's exact double value.
  BOOST_TEST(attr_value_to_json(0.1f) == R"({"f":0.1})");
  BOOST_TEST(attr_value_to_json(-0.0f) == R"({"f":-0.0})");
}

BOOST_AUTO_TEST_CASE(strings_round_trip_arbitrary_bytes_as_base64) {
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes += static_cast<char>(c);
  for (const std::string& s : {""s, "\0"s, "a\0b"s, "ab"s, "abc"s, all_bytes}) {
    AttrValue back = attr_value_from_json(attr_value_to_json(s));
    BOOST_REQUIRE(std::holds_alternative<std::string>(back));
    BOOST_TEST((std::get<std::string>(back) == s));
  }
  BOOST_TEST(attr_value_to_json("hello"s) == R"({"s":"aGVsbG8="})");
  BOOST_TEST(attr_value_to_json(""s) == R"({"s":""})");
  // Proto JSON also accepts URL-safe and unpadded base64.
  BOOST_TEST((attr_value_from_json(R"({"s":"aGVsbG8"})") == AttrValue("hello"s)));
  BOOST_TEST((attr_value_from_json(R"({"s":"-_8"})") == AttrValue("\xfb\xff"s)));
}

BOOST_AUTO_TEST_CASE(int64_extremes_are_written_as_decimal_strings) {
  BOOST_TEST(attr_value_to_json(kInt64Max) == R"({"i":"9223372036854775807"})");
  BOOST_TEST(attr_value_to_json(kInt64Min) == R"({"i":"-9223372036854775808"})");
  BOOST_TEST(attr_value_to_json(std::vector<std::int64_t>{kInt64Min, kInt64Max}) ==
             R"({"list":{"i":["-9223372036854775808","9223372036854775807"]}})");
  // JSON integers are accepted too, as proto JSON accepts them.
  BOOST_TEST((attr_value_from_json(R"({"i":-9223372036854775808})") == AttrValue(kInt64Min)));
  BOOST_TEST((attr_value_from_json(R"({"i":9223372036854775807})") == AttrValue(kInt64Max)));
}

BOOST_AUTO_TEST_CASE(tensors_of_every_dtype_round_trip) {
  for (const auto& [name, value] : tensor_attrs()) {
    const auto& tensor = std::get<Tensor>(value);
    Tensor back = tensor_from_json(tensor_to_json(tensor));
    BOOST_TEST((back == tensor), name);
    BOOST_TEST((back.dtype() == tensor.dtype()), name);
    BOOST_TEST((back.shape() == tensor.shape()), name);
    if (tensor.is_initialized() && tensor.dtype() != DType::string)
      BOOST_TEST(std::memcmp(back.raw_data(), tensor.raw_data(), tensor.total_bytes()) == 0, name);
  }
  // bfloat16 keeps its raw bits (-0 and +0 compare equal under operator==).
  Tensor bf16 = Tensor::from_vector(std::vector<bfloat16_t>{bfloat16_t(-0.0f)});
  BOOST_TEST(tensor_from_json(tensor_to_json(bf16)).flat<bfloat16_t>()[0].bits == 0x8000);
  // A view serialises only the elements it shows.
  Tensor matrix = Tensor::from_vector(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, Shape{3, 2});
  BOOST_TEST((tensor_from_json(tensor_to_json(matrix.slice(1))) ==
              Tensor::from_vector(std::vector<std::int32_t>{3, 4})));
}

BOOST_AUTO_TEST_CASE(tensors_use_tensor_proto_field_names) {
  BOOST_TEST(tensor_to_json(Tensor(1.5f)) ==
             R"({"dtype":"DT_FLOAT","tensorShape":{},"tensorContent":"AADAPw=="})");
  BOOST_TEST(
      tensor_to_json(Tensor::from_vector(std::vector<std::string>{"a", ""})) ==
      R"({"dtype":"DT_STRING","tensorShape":{"dim":[{"size":"2"}]},"stringVal":["YQ==",""]})");
  BOOST_TEST(tensor_to_json(Tensor(DType::int32, Shape{0})) ==
             R"({"dtype":"DT_INT32","tensorShape":{"dim":[{"size":"0"}]}})");
  BOOST_TEST(tensor_to_json(Tensor()) == "{}");
}

BOOST_AUTO_TEST_CASE(canonical_json_reexports_to_identical_text) {
  // Includes NaNs, which the GraphDef comparison cannot check.
  GraphDef def = every_attr_graph();
  def.nodes.at(2).attrs["f_nan"] = float_from_bits(0x7fc00000u);
  def.nodes.at(2).attrs["f_neg_nan"] = float_from_bits(0xffc00000u);
  for (int indent : {-1, 1, 4}) {
    std::string json = graph_def_to_json(def, indent);
    BOOST_TEST(graph_def_to_json(graph_def_from_json(json), indent) == json);
  }
  const std::string text = R"({
 "versions": {
  "producer": 1
 },
 "node": [
  {
   "name": "c",
   "op": "Const",
   "device": "/cpu:0",
   "attr": {
    "dtype": {
     "type": "DT_INT32"
    },
    "value": {
     "tensor": {
      "dtype": "DT_INT32",
      "tensorShape": {},
      "tensorContent": "BwAAAA=="
     }
    }
   }
  },
  {
   "name": "id",
   "op": "Identity",
   "input": [
    "c",
    "^c"
   ],
   "attr": {
    "T": {
     "type": "DT_INT32"
    }
   }
  }
 ]
})";
  GraphDef parsed = graph_def_from_json(text);
  GraphDef expected;
  expected.nodes.push_back(node("c", "Const", {}, "/cpu:0",
                                {{"dtype", DType::int32}, {"value", Tensor(std::int32_t{7})}}));
  expected.nodes.push_back(node("id", "Identity", {"c", "^c"}, "", {{"T", DType::int32}}));
  BOOST_TEST((parsed == expected));
  BOOST_TEST(graph_def_to_json(parsed) == text);
}

BOOST_AUTO_TEST_CASE(control_inputs_devices_and_versions_round_trip) {
  GraphDef def;
  def.version = -5;
  def.nodes.push_back(node("a", "NoOp", {}, "/job:ps/task:0"));
  def.nodes.push_back(node("b", "NoOp", {"^a"}, "/job:worker/replica:0/task:3/device:GPU:1"));
  def.nodes.push_back(node("c", "NoOp", {"^a", "^b"}));
  BOOST_TEST((graph_def_from_json(graph_def_to_json(def)) == def));
  BOOST_TEST((graph_def_from_json(graph_def_to_json(GraphDef{})) == GraphDef{}));
  BOOST_TEST(graph_def_to_json(GraphDef{}, -1) == R"({"versions":{"producer":1},"node":[]})");
  // Absent fields take proto3's defaults.
  GraphDef minimal = graph_def_from_json(R"({"node": [{"name": "n", "op": "NoOp"}]})");
  BOOST_TEST(minimal.version == 0);
  BOOST_TEST((minimal.nodes.at(0) == node("n", "NoOp")));
}

BOOST_AUTO_TEST_CASE(malformed_json_names_the_byte_offset) {
  // Bytes count from 1, as the parser counts them: the stray '}' is the 11th byte.
  check_bad_graph(R"({"node": [}")", "graph JSON: malformed JSON at byte 11 (");
  check_bad_graph(R"({"node": [}")", "unexpected '}'");
  check_bad_graph("", "malformed JSON at byte 1 (");
  check_bad_graph("{\n \"node\": []\n} trailing", "malformed JSON at byte 19 (");
  check_bad_graph("{\"node\": [{\"name\": \"\xff\"}]}", "malformed JSON at byte 21 (");
  check_invalid_argument([] { tensor_from_json("{"); }, "tensor JSON: malformed JSON at byte 2 (");
  check_invalid_argument([] { attr_value_from_json("[1,"); },
                         "attr JSON: malformed JSON at byte 4 (");
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_node_and_field) {
  check_bad_graph(one_attr_graph(R"({"type": "floatx"})"),
                  "graph JSON: node 'mul': attr 'T': unknown dtype 'floatx'");
  check_bad_graph(one_attr_graph(R"({"type": "float32"})"), "unknown dtype 'float32'");
  check_bad_graph(one_attr_graph(R"({"i": "12x"})"),
                  "node 'mul': attr 'T': i: invalid integer '12x'");
  check_bad_graph(one_attr_graph(R"({"i": "9223372036854775808"})"), "out of range for int64");
  check_bad_graph(one_attr_graph(R"({"i": 1.5})"), "expected an int64");
  check_bad_graph(one_attr_graph(R"({"f": "nan"})"), "invalid float 'nan'");
  check_bad_graph(one_attr_graph(R"({"f": 1e39})"), "out of range for float");
  check_bad_graph(one_attr_graph(R"({"b": 1})"), "attr 'T': b: expected true or false");
  check_bad_graph(one_attr_graph(R"({"s": "a*=="})"), "invalid base64");
  check_bad_graph(one_attr_graph(R"({"s": "a"})"), "invalid base64 length");
  check_bad_graph(one_attr_graph(R"({"i": "1", "f": 2})"), "expected exactly one of");
  check_bad_graph(one_attr_graph(R"({"func": {}})"), "attr 'T': func: missing field 'name'");
  check_bad_graph(one_attr_graph(R"({"func": {"name": "f", "library": "a"}})"),
                  "invalid base64 length");
  check_bad_graph(one_attr_graph(R"({"kind": {}})"), "unsupported attr value kind 'kind'");
  check_bad_graph(one_attr_graph(R"({"list": {}})"), "an empty list still names its kind");
  check_bad_graph(one_attr_graph(R"({"list": {"b": []}})"), "unsupported list kind 'b'");
  check_bad_graph(one_attr_graph(R"({"list": {"i": ["1", "x"]}})"),
                  "attr 'T': list: i: element 1: invalid integer 'x'");
  check_bad_graph(one_attr_graph(R"({"shape": {"dim": [{"size": "-2"}]}})"),
                  "invalid dimension size -2");
  check_bad_graph(one_attr_graph(R"({"shape": {"unknownRank": true, "dim": [{"size": "1"}]}})"),
                  "must not list dims");
  check_bad_graph(one_attr_graph(R"({"shape": {"dim": [{"size": "1", "name": "x"}]}})"),
                  "unknown field 'name'");
  check_bad_graph(one_attr_graph(R"({"tensor": {"dtype": "DT_INT32", "tensorContent": "AAA="}})"),
                  "attr 'T': tensor: tensorContent has 2 bytes");
  check_bad_graph(
      one_attr_graph(R"({"tensor": {"dtype": "DT_BOOL", "tensorShape": {"dim": [{"size": "1"}]}, )"
                     R"("tensorContent": "Ag=="}})"),
      "not 0 or 1");
  check_bad_graph(
      one_attr_graph(
          R"({"tensor": {"dtype": "DT_STRING", "tensorShape": {"dim": [{"size": "2"}]}, )"
          R"("stringVal": ["YQ=="]}})"),
      "stringVal has 1 values");
  check_bad_graph(
      one_attr_graph(R"({"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"unknownRank": true}}})"),
      "tensorShape must be fully defined");
  check_bad_graph(one_attr_graph(R"({"tensor": {"dtype": "DT_FLOAT", "tensorShape": )"
                                 R"({"dim": [{"size": "4294967296"}, {"size": "4294967296"}]}}})"),
                  "too many elements");
  check_bad_graph(one_attr_graph(R"({"tensor": {"dtype": "DT_RESOURCE"}})"),
                  "resource tensors cannot be deserialised");
  check_bad_graph(one_attr_graph(R"({"tensor": {"floatVal": [1]}})"), "unknown field 'floatVal'");
  check_bad_graph(R"({"node": [{"name": "n", "op": "NoOp", "inputs": []}]})",
                  "graph JSON: node 'n': unknown field 'inputs'");
  check_bad_graph(R"({"node": [{"name": "n", "op": "NoOp", "input": ["a", 3]}]})",
                  "node 'n': input 1: expected a string, got 3");
  check_bad_graph(R"({"node": [{"name": "n"}]})", "node 'n': missing field 'op'");
  check_bad_graph(R"({"node": [{"op": "NoOp"}, {"op": "NoOp"}]})", "node #0: missing field 'name'");
  check_bad_graph(R"({"node": [{"name": 7, "op": "NoOp"}]})",
                  "node #0: field 'name': expected a string");
  check_bad_graph(R"({"node": {}})", "graph JSON: node: expected an array");
  check_bad_graph(R"({"library": {}})", "graph JSON: unknown field 'library'");
  check_bad_graph(R"({"versions": {"producer": "4294967296"}})", "out of range for int32");
  check_bad_graph("[]", "graph JSON: expected an object");
}

BOOST_AUTO_TEST_CASE(values_without_a_json_form_are_rejected_on_export) {
  GraphDef def;
  def.nodes.push_back(node("v", "Const", {}, "", {{"value", Tensor::from_resource(nullptr)}}));
  check_invalid_argument(
      [&] { graph_def_to_json(def); },
      "graph JSON: node 'v': attr 'value': tensor: cannot serialise a resource tensor");
  def.nodes.at(0) = node("bad\xff", "NoOp");
  check_invalid_argument([&] { graph_def_to_json(def); },
                         "node #0: field 'name': is not valid UTF-8");
  def.nodes.at(0) = node("n", "NoOp", {"x\xc0\x80"});  // an overlong NUL
  check_invalid_argument([&] { graph_def_to_json(def); }, "node 'n': input 0: is not valid UTF-8");
}

BOOST_AUTO_TEST_CASE(a_built_graph_round_trips_through_import_into_a_fresh_graph) {
  Graph g;
  g.constant(Tensor::from_vector(std::vector<float>{1.5f, -2.0f}, Shape{2}), "c");
  g.placeholder(DType::float32, PartialShape{-1, 2}, "x");
  g.placeholder(DType::string, PartialShape::unknown(), "names");
  g.constant(Tensor("bytes\0here"s));
  {
    auto device = g.device("/job:worker/task:0/device:CPU:0");
    g.constant(Tensor(std::int64_t{kInt64Min}), "big");
  }
  GraphDef def = g.to_graph_def();
  std::string json = export_graph_json(g);

  Graph fresh;
  import_graph_json(fresh, json);
  BOOST_TEST((fresh.to_graph_def() == def));
  BOOST_TEST(export_graph_json(fresh) == json);
  BOOST_TEST(fresh.operation("big").device() == g.operation("big").device());
  BOOST_TEST((fresh.output("x").dtype() == DType::float32));
}

// As Python's as_graph_element: "op" and "op:N" name a node's outputs; an index that is not
// a number is InvalidArgument, a node or index that does not exist NotFound.
BOOST_AUTO_TEST_CASE(tensor_names_resolve_to_outputs_or_say_what_is_wrong) {
  Graph g;
  auto x = g.placeholder(DType::float32, PartialShape{2}, "x");
  BOOST_TEST(g.output("x").node() == x.node());
  BOOST_TEST(g.output("x:0").index() == 0);
  BOOST_TEST(g.output("x:0").node() == x.node());
  BOOST_CHECK_THROW(g.output("x:1"), NotFoundError);
  BOOST_CHECK_THROW(g.output("x:-1"), NotFoundError);
  BOOST_CHECK_THROW(g.output("nope:0"), NotFoundError);
  BOOST_CHECK_THROW(g.output("nope"), NotFoundError);
  for (const char* bad : {"x:", "x:a", "x:0a", "x: 0"}) {
    try {
      g.output(bad);
      BOOST_ERROR("no error for " << bad);
    } catch (const InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find("looks like a Tensor name") != std::string::npos);
    }
  }
  BOOST_TEST(g.contains("x"));
  BOOST_TEST(!g.contains("x:0"));
}

BOOST_AUTO_TEST_SUITE_END()
