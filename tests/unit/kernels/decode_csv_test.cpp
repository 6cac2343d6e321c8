// White-box tests of DecodeCSV: TensorFlow's decode_csv_op_test.py cases run through the
// graph builder and the CPU kernel (constructed and run directly), shape inference and
// naming, the actorflow "file:line" keys, and the splitter and number parsers of
// csv_parse.hpp on their own.
#include <boost/test/unit_test.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../../../kernels/src/csv_parse.hpp"
#include "actorflow/kernels/cpu_kernels.hpp"
#include "actorflow/kernels/csv_decoder.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "matchers.hpp"

namespace {

using af::DType;
using af::Graph;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using Strings = std::vector<std::string>;

const std::string kNodeSuffix = "\n\t [[{{node DecodeCSV}}]]";

struct KernelResult {
  af::Status status;
  std::vector<Tensor> outputs;

  const Tensor& out(std::size_t i) const { return outputs.at(i); }
  // The message without the node suffix the kernel appends.
  std::string error() const {
    const std::string& m = status.message();
    return m.substr(0, m.find("\n\t [["));
  }
};

// Constructs the CPU kernel of `op` and runs it once: inputs produced by Const nodes take the
// constant's value, the others take `fed` in order. A construction error is the result.
KernelResult run_kernel(const af::Operation& op, std::vector<Tensor> fed) {
  const af::Node* n = op.node();
  const af::NodeDef& def = n->def();
  std::vector<Tensor> inputs;
  std::size_t next = 0;
  for (auto& in : n->inputs()) {
    const af::Node* producer = in.node();
    if (producer->type() == "Const") {
      inputs.push_back(*producer->def().attr<Tensor>("value"));
    } else {
      BOOST_REQUIRE_LT(next, fed.size());
      inputs.push_back(fed[next++]);
    }
  }
  std::vector<DType> input_types;
  for (auto& in : n->inputs()) input_types.push_back(in.dtype());
  af::OpKernelConstruction c{def, input_types, n->output_types(), "CPU",
                             "/job:localhost/replica:0/task:0/device:CPU:0"};
  std::unique_ptr<af::OpKernel> kernel;
  af::Status created = af::KernelRegistry::global().create(c, &kernel);
  if (!created.ok()) return {created, {}};
  af::OpKernelContext ctx(def, std::move(inputs));
  ctx.set_num_outputs(n->num_outputs());
  kernel->compute(ctx);
  return {ctx.status(), ctx.outputs()};
}

Tensor strings(const Strings& values) { return Tensor::from_vector(values); }
Tensor strings(const Strings& values, Shape shape) { return Tensor::from_vector(values, shape); }

// An empty default: the column is required.
Tensor required(DType t) { return Tensor(t, Shape{0}); }

// tf.decode_csv(records, record_defaults, **options) evaluated on `records`, fed to a
// placeholder of unknown shape.
KernelResult decode(const Tensor& records, const std::vector<Tensor>& defaults,
                    const af::DecodeCSVOptions& options = {}) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  auto columns = af::decode_csv(in, defaults, options);
  BOOST_REQUIRE(!columns.empty());
  return run_kernel(columns[0].op(), {records});
}

template <class T>
std::vector<T> values(const KernelResult& r, std::size_t column) {
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.to_string());
  return r.out(column).to_vector<T>();
}

using af::test::construction_error;
using af::test::starts_with;

}  // namespace

BOOST_AUTO_TEST_SUITE(decode_csv_test)

// -- decode_csv_op_test.py ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(simple_records_parse_into_one_int32_column) {
  auto r = decode(strings({"1", "2", "\"3\""}), {Tensor(1)});
  BOOST_TEST(values<std::int32_t>(r, 0) == std::vector<std::int32_t>({1, 2, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(scalar_defaults_give_one_column_each) {
  auto r = decode(strings({"1,4", "2,5", "3,6"}), {Tensor(1), Tensor(2)});
  BOOST_TEST(values<std::int32_t>(r, 0) == std::vector<std::int32_t>({1, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({4, 5, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(two_dimensional_defaults_fail_shape_inference) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  std::string msg = construction_error([&] {
    af::decode_csv(in, {Tensor::from_vector<std::int32_t>({0}, Shape{1, 1})});
  });
  BOOST_TEST(msg ==
             "Shape must be at most rank 1 but is rank 2 for 'DecodeCSV' (op: 'DecodeCSV') "
             "with input shapes: ?, [1,1].");
  msg = construction_error([&] {
    af::decode_csv(in, {Tensor::from_vector<std::int32_t>({1, 2})});
  });
  BOOST_TEST(
      starts_with(msg, "Shape of a default must be a length-0 or length-1 vector, or a scalar."));
}

BOOST_AUTO_TEST_CASE(quotes_are_ordinary_bytes_without_use_quote_delim) {
  auto r = decode(strings({"1", "2", "\"3\""}), {Tensor("")}, {.use_quote_delim = false});
  BOOST_TEST(values<std::string>(r, 0) == Strings({"1", "2", "\"3\""}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_scalar_record_gives_scalar_columns) {
  auto r = decode(Tensor("1,\"\""),
                  {Tensor::from_vector<std::int32_t>({3}), Tensor::from_vector<std::int32_t>({4})});
  BOOST_REQUIRE(r.status.ok());
  BOOST_TEST(r.out(0).shape() == Shape{});
  BOOST_TEST(r.out(0).scalar<std::int32_t>() == 1);
  BOOST_TEST(r.out(1).scalar<std::int32_t>() == 4);
}

BOOST_AUTO_TEST_CASE(two_dimensional_records_keep_their_shape) {
  auto r = decode(strings({"1", "2", "\"\"", "4"}, Shape{2, 2}), {Tensor(5)});
  BOOST_REQUIRE(r.status.ok());
  BOOST_TEST(r.out(0).shape() == Shape({2, 2}));
  BOOST_TEST(values<std::int32_t>(r, 0) == std::vector<std::int32_t>({1, 2, 5, 4}),
             boost::test_tools::per_element());
  auto raw = decode(strings({"1", "2", "\"\"", "\""}, Shape{2, 2}), {Tensor("")},
                    {.use_quote_delim = false});
  BOOST_TEST(values<std::string>(raw, 0) == Strings({"1", "2", "\"\"", "\""}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(doubles_parse_up_to_the_limits_of_their_range) {
  auto r = decode(strings({"1.0", "-1.79e+308", "\"1.79e+308\""}), {required(af::float64)});
  BOOST_TEST(values<double>(r, 0) == std::vector<double>({1.0, -1.79e+308, 1.79e+308}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(int64_fields_hold_values_beyond_int32) {
  auto r = decode(strings({"1", "2", "\"2147483648\""}), {required(af::int64)});
  BOOST_TEST(values<std::int64_t>(r, 0) == std::vector<std::int64_t>({1, 2, 2147483648LL}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(quoted_strings_keep_delimiters_newlines_and_escaped_quotes) {
  auto r = decode(strings({"\"1.0\"", "\"ab , c\"", "\"a\nbc\"", "\"ab\"\"c\"", " abc "}),
                  {Tensor("1")});
  BOOST_TEST(values<std::string>(r, 0) == Strings({"1.0", "ab , c", "a\nbc", "ab\"c", " abc "}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(multiple_records_fill_a_column_per_type) {
  auto r =
      decode(strings({"1.0,4,aa", "0.2,5,bb", "3,6,cc"}), {Tensor(1.0f), Tensor(1), Tensor("aa")});
  BOOST_TEST(values<float>(r, 0) == std::vector<float>({1.0f, 0.2f, 3.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::string>(r, 2) == Strings({"aa", "bb", "cc"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(na_value_fields_take_the_default) {
  auto r = decode(strings({"2.0,NA,aa", "NA,5,bb", "3,6,NA"}),
                  {Tensor(0.0f), Tensor(0), Tensor("")}, {.na_value = "NA"});
  BOOST_TEST(values<float>(r, 0) == std::vector<float>({2.0f, 0.0f, 3.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({0, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::string>(r, 2) == Strings({"aa", "bb", ""}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(empty_fields_take_the_default) {
  auto r = decode(strings({",1,", "0.2,3,bcd", "3.0,,"}), {Tensor(1.0f), Tensor(0), Tensor("a")});
  BOOST_TEST(values<float>(r, 0) == std::vector<float>({1.0f, 0.2f, 3.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({1, 3, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::string>(r, 2) == Strings({"a", "bcd", "a"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(empty_fields_take_the_default_without_use_quote_delim) {
  auto r = decode(strings({",1,", "0.2,3,bcd", "3.0,,\""}), {Tensor(1.0f), Tensor(0), Tensor("a")},
                  {.use_quote_delim = false});
  BOOST_TEST(values<float>(r, 0) == std::vector<float>({1.0f, 0.2f, 3.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({1, 3, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::string>(r, 2) == Strings({"a", "bcd", "\""}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_tab_delimiter_splits_fields) {
  auto r = decode(strings({"1\t1", "0.2\t3", "3.0\t"}), {Tensor(1.0f), Tensor(0)},
                  {.field_delim = "\t"});
  BOOST_TEST(values<float>(r, 0) == std::vector<float>({1.0f, 0.2f, 3.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({1, 3, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_missing_required_field_fails) {
  auto r = decode(strings({",1", "0.2,3", "3.0,"}), {Tensor(1.0f), required(af::int32)});
  BOOST_TEST((r.status.code() == af::Code::invalid_argument));
  BOOST_TEST(r.status.message() == "Field 1 is required but missing in record 2!" + kNodeSuffix);
  auto first = decode(strings({",1"}), {required(af::float32), Tensor(0)});
  BOOST_TEST(first.error() == "Field 0 is required but missing in record 0!");
}

BOOST_AUTO_TEST_CASE(a_malformed_int32_field_fails) {
  auto r = decode(strings({",1", "0.2,234a", "3.0,2"}), {Tensor(1.0f), required(af::int32)});
  BOOST_TEST(r.error() == "Field 1 in record 1 is not a valid int32: 234a");
}

BOOST_AUTO_TEST_CASE(int32_overflow_fails) {
  auto r = decode(strings({"1", "9999999999999999999999999", "3"}), {Tensor(1)});
  BOOST_TEST(r.error() == "Field 0 in record 1 is not a valid int32: 9999999999999999999999999");
  BOOST_TEST(decode(strings({"2147483648"}), {Tensor(1)}).error() ==
             "Field 0 in record 0 is not a valid int32: 2147483648");
  BOOST_TEST(values<std::int32_t>(decode(strings({"2147483647", "-2147483648"}), {Tensor(1)}), 0) ==
                 std::vector<std::int32_t>({2147483647, std::numeric_limits<std::int32_t>::min()}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(int64_overflow_fails) {
  const Tensor fallback(std::int64_t{0});
  BOOST_TEST(decode(strings({"9223372036854775808"}), {fallback}).error() ==
             "Field 0 in record 0 is not a valid int64: 9223372036854775808");
  BOOST_TEST(decode(strings({"1", "-9223372036854775809"}), {fallback}).error() ==
             "Field 0 in record 1 is not a valid int64: -9223372036854775809");
  BOOST_TEST(values<std::int64_t>(
                 decode(strings({"9223372036854775807", "-9223372036854775808"}), {fallback}), 0) ==
                 std::vector<std::int64_t>({std::numeric_limits<std::int64_t>::max(),
                                            std::numeric_limits<std::int64_t>::min()}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_malformed_float_field_fails) {
  auto r = decode(strings({",1", "0.2,2", "3.0adf,3"}), {Tensor(1.0f), required(af::int32)});
  BOOST_TEST(r.error() == "Field 0 in record 2 is not a valid float: 3.0adf");
  auto abc = decode(strings({"1,abc,2"}), {Tensor(0), Tensor(0.0f), Tensor(0)});
  BOOST_TEST(abc.error() == "Field 1 in record 0 is not a valid float: abc");
  auto dbl = decode(strings({"1..5"}), {Tensor(0.0)});
  BOOST_TEST(dbl.error() == "Field 0 in record 0 is not a valid double: 1..5");
}

BOOST_AUTO_TEST_CASE(quotes_inside_an_unquoted_field_fail) {
  auto r = decode(strings({"\"1,a,\"", "0.22", "a\"bc"}), {Tensor("a")});
  BOOST_TEST(r.error() == "Unquoted fields cannot have quotes/CRLFs inside");
  BOOST_TEST(decode(strings({"1,2\n"}), {Tensor(0), Tensor(0)}).error() ==
             "Unquoted fields cannot have quotes/CRLFs inside");
}

BOOST_AUTO_TEST_CASE(a_wrong_number_of_fields_fails) {
  auto r = decode(strings({",1", "0.2,2", "3.0adf,3"}), {Tensor(1.0f)});
  BOOST_TEST(r.error() == "Expect 1 fields but have 2 in record 0");
  auto three = decode(strings({"1,2,3", "4,5"}), {Tensor(0), Tensor(0), Tensor(0)});
  BOOST_TEST(three.status.message() == "Expect 3 fields but have 2 in record 1" + kNodeSuffix);
}

BOOST_AUTO_TEST_CASE(a_lone_quote_is_an_unterminated_quoted_field) {
  auto r = decode(strings({"\""}), {Tensor("default")});
  BOOST_TEST(r.error() == "Quoted field has to end with quote followed by delim or end");
}

BOOST_AUTO_TEST_CASE(an_undoubled_quote_inside_a_quoted_field_fails) {
  auto r = decode(strings({"\"a\"b\""}), {Tensor("")});
  BOOST_TEST(r.error() == "Quote inside a string has to be escaped by another quote");
}

BOOST_AUTO_TEST_CASE(select_cols_parses_only_the_selected_columns) {
  auto r = decode(strings({",,", "4,5,6"}), {Tensor(1), Tensor(2)}, {.select_cols = {0, 1}});
  BOOST_TEST(values<std::int32_t>(r, 0) == std::vector<std::int32_t>({1, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({2, 5}),
             boost::test_tools::per_element());
  auto skip = decode(strings({"x,1,y,2,\"z\"\"\"", "a,3,b,4,c"}), {Tensor(0), Tensor(0)},
                     {.select_cols = {1, 3}});
  BOOST_TEST(values<std::int32_t>(skip, 0) == std::vector<std::int32_t>({1, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(skip, 1) == std::vector<std::int32_t>({2, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(select_cols_may_include_an_empty_last_column) {
  auto r = decode(strings({",,", "4,5,6"}), {Tensor(0), Tensor(1), Tensor(2)},
                  {.select_cols = {0, 1, 2}});
  BOOST_TEST(values<std::int32_t>(r, 0) == std::vector<std::int32_t>({0, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 1) == std::vector<std::int32_t>({1, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 2) == std::vector<std::int32_t>({2, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(select_cols_beyond_the_record_miss_fields) {
  auto last = decode(strings({",,", "4,5,6"}), {Tensor(0), Tensor(1), Tensor(2)},
                     {.select_cols = {0, 1, 3}});
  BOOST_TEST(last.error() == "Expect 3 fields but have 2 in record 0");
  auto high = decode(strings({"1,2,3"}), {Tensor(0), Tensor(1)}, {.select_cols = {0, 3}});
  BOOST_TEST(high.error() == "Expect 2 fields but have 1 in record 0");
}

BOOST_AUTO_TEST_CASE(malformed_select_cols_fail_before_the_op_is_created) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  BOOST_TEST(construction_error([&] {
               af::decode_csv(in, {Tensor(0), Tensor(0), Tensor(0)}, {.select_cols = {0}});
             }) == "Length of select_cols and record_defaults do not match.");
  BOOST_TEST(construction_error([&] {
               af::decode_csv(in, {Tensor(0), Tensor(1)}, {.select_cols = {1, 0}});
             }) == "select_cols is not strictly increasing.");
  BOOST_TEST(construction_error([&] {
               af::decode_csv(in, {Tensor(0), Tensor(1)}, {.select_cols = {-1, 0}});
             }) == "select_cols contains negative values.");
  BOOST_TEST(g.num_nodes() == 1, "no Const or DecodeCSV node was added");
}

// -- the kernel's own checks --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_kernel_rejects_bad_attributes_when_it_is_created) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  auto d0 = g.constant(Tensor(0));
  auto d1 = g.constant(Tensor(0));
  auto create = [&](af::AttrMap extra) {
    af::AttrMap attrs = {{"OUT_TYPE", std::vector<DType>{af::int32, af::int32}}};
    for (auto& [k, v] : extra) attrs[k] = v;
    return g.create_op("DecodeCSV", {in, d0, d1}, attrs);
  };
  auto error = [&](af::AttrMap extra) {
    return run_kernel(create(std::move(extra)), {strings({"1,2"})}).status.message();
  };
  BOOST_TEST(starts_with(error({{"field_delim", std::string("::")}}),
                         "field_delim should be only 1 char"));
  BOOST_TEST(
      starts_with(error({{"field_delim", std::string()}}), "field_delim should be only 1 char"));
  BOOST_TEST(starts_with(error({{"select_cols", std::vector<std::int64_t>{0}}}),
                         "select_cols should match output size"));
  BOOST_TEST(starts_with(error({{"select_cols", std::vector<std::int64_t>{1, 1}}}),
                         "select_cols should be strictly increasing indices"));
  BOOST_TEST(starts_with(error({{"select_cols", std::vector<std::int64_t>{-1, 0}}}),
                         "select_cols should be non-negative indices"));
  // Attributes left out take the op's defaults.
  auto ok = run_kernel(create({}), {strings({"1,2"})});
  BOOST_TEST(values<std::int32_t>(ok, 1) == std::vector<std::int32_t>({2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_kernel_rejects_defaults_of_more_than_one_element) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  auto fallback =
      g.placeholder(af::int32, {}, "fallback");  // unknown shape: inference lets it pass
  auto op = g.create_op("DecodeCSV", {in, fallback}, {{"OUT_TYPE", std::vector<DType>{af::int32}}});
  auto two = run_kernel(op, {strings({"1"}), Tensor::from_vector<std::int32_t>({1, 2})});
  BOOST_TEST(two.error() == "There should only be 1 default per field but field 0 has 2");
  auto matrix =
      run_kernel(op, {strings({"1"}), Tensor::from_vector<std::int32_t>({1}, Shape{1, 1})});
  BOOST_TEST(matrix.error() == "Each record default should be at most rank 1");
}

// -- TensorFlow's number syntax -----------------------------------------------------------

BOOST_AUTO_TEST_CASE(numbers_may_have_leading_and_trailing_spaces) {
  auto r =
      decode(strings({"1. , 2. , 0", " 3.5\t,-4 , 7 "}), {Tensor(0.0f), Tensor(0.0f), Tensor(0)});
  BOOST_TEST(values<float>(r, 0) == std::vector<float>({1.0f, 3.5f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r, 1) == std::vector<float>({2.0f, -4.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r, 2) == std::vector<std::int32_t>({0, 7}),
             boost::test_tools::per_element());
  // A field of spaces is not empty: TensorFlow's float parser reads it as 0, the integer
  // parser rejects it.
  BOOST_TEST(values<float>(decode(strings({" "}), {Tensor(9.0f)}), 0) == std::vector<float>({0.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(decode(strings({" "}), {Tensor(9)}).error() ==
             "Field 0 in record 0 is not a valid int32:  ");
}

BOOST_AUTO_TEST_CASE(floats_accept_inf_nan_hex_and_saturate_out_of_range) {
  auto r = decode(strings({"inf", "-INF", "NaN", "0x1A", "-0x10", "1e39", "-1e39", "1e-50", "+2.5",
                           ".5", "1e-40"}),
                  {Tensor(0.0f)});
  std::vector<float> v = values<float>(r, 0);
  BOOST_REQUIRE_EQUAL(v.size(), 11u);
  BOOST_TEST(v[0] == std::numeric_limits<float>::infinity());
  BOOST_TEST(v[1] == -std::numeric_limits<float>::infinity());
  BOOST_TEST(std::isnan(v[2]));
  BOOST_TEST(v[3] == 26.0f);
  BOOST_TEST(v[4] == -16.0f);
  BOOST_TEST(v[5] == std::numeric_limits<float>::infinity());
  BOOST_TEST(v[6] == -std::numeric_limits<float>::infinity());
  BOOST_TEST(v[7] == 0.0f);
  BOOST_TEST(v[8] == 2.5f);
  BOOST_TEST(v[9] == 0.5f);
  BOOST_TEST(v[10] == 1e-40f);  // subnormal, correctly rounded
  for (std::string bad :
       {"infinity", "nan(1)", "0x", "0x1p3", "1e", ".", "- 1", "1 2", "e5", "0x1.8"})
    BOOST_TEST(decode(strings({bad}), {Tensor(0.0f)}).error() ==
                   "Field 0 in record 0 is not a valid float: " + bad,
               bad);
  // safe_strtof's 32-byte buffer: 31 bytes parse, 32 do not.
  const std::string ok31 = "0." + std::string(28, '0') + "5";
  const std::string bad32 = "0." + std::string(29, '0') + "5";
  BOOST_TEST(values<double>(decode(strings({ok31}), {Tensor(0.0)}), 0)[0] == 5e-29);
  BOOST_TEST(decode(strings({bad32}), {Tensor(0.0)}).error() ==
             "Field 0 in record 0 is not a valid double: " + bad32);
}

BOOST_AUTO_TEST_CASE(integers_take_neither_plus_nor_hex) {
  for (std::string bad : {"+5", "0x10", "1.0", "1e3", "- 5", "5 5"})
    BOOST_TEST(decode(strings({bad}), {Tensor(0)}).error() ==
                   "Field 0 in record 0 is not a valid int32: " + bad,
               bad);
  BOOST_TEST(values<std::int32_t>(decode(strings({"007", " -12\t"}), {Tensor(0)}), 0) ==
                 std::vector<std::int32_t>({7, -12}),
             boost::test_tools::per_element());
}

// -- graph building -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(decode_csv_names_its_defaults_as_the_python_api_does) {
  Graph g;
  auto in = g.placeholder(af::string, {-1}, "records");
  auto cols = af::decode_csv(in, {Tensor(-1.0f), Tensor(-1.0f), Tensor(-1)});
  BOOST_REQUIRE_EQUAL(cols.size(), 3u);
  BOOST_TEST(cols[0].op().name() == "DecodeCSV");
  BOOST_TEST(cols[2].name() == "DecodeCSV:2");
  BOOST_TEST(cols[0].op().node_def().inputs ==
                 Strings({"records", "DecodeCSV/record_defaults_0", "DecodeCSV/record_defaults_1",
                          "DecodeCSV/record_defaults_2"}),
             boost::test_tools::per_element());
  BOOST_TEST((cols[0].dtype() == af::float32 && cols[1].dtype() == af::float32 &&
              cols[2].dtype() == af::int32));
  for (auto& c : cols) BOOST_TEST(c.shape() == PartialShape({-1}));
  const af::NodeDef& def = cols[0].op().node_def();
  BOOST_TEST(*def.attr<std::string>("field_delim") == ",");
  BOOST_TEST(*def.attr<bool>("use_quote_delim") == true);
  BOOST_TEST(*def.attr<std::string>("na_value") == "");
  BOOST_TEST(def.attr<std::vector<std::int64_t>>("select_cols")->empty());
  BOOST_TEST(def.attr<bool>("has_keys") == nullptr, "no keys unless a reader produced the records");
  auto named = af::decode_csv(in, {Tensor("")}, {.name = "parse"});
  BOOST_TEST(named[0].op().name() == "parse");
  BOOST_TEST(named[0].op().node_def().inputs[1] == "parse/record_defaults_0");
  BOOST_TEST(af::decode_csv(in, {Tensor("")})[0].op().name() == "DecodeCSV_1");
}

BOOST_AUTO_TEST_CASE(decode_csv_takes_defaults_as_graph_outputs) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  auto d = g.constant(required(af::float64), "d");
  auto cols = af::decode_csv(in, std::vector<Output>{d, g.constant(Tensor(std::int64_t{7}), "e")});
  BOOST_TEST(cols[0].op().node_def().inputs == Strings({"records", "d", "e"}),
             boost::test_tools::per_element());
  auto r = run_kernel(cols[0].op(), {strings({"1.5,", "2.5,8"})});
  BOOST_TEST(values<double>(r, 0) == std::vector<double>({1.5, 2.5}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int64_t>(r, 1) == std::vector<std::int64_t>({7, 8}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(decode_csv_rejects_records_that_are_not_strings_and_unsupported_types) {
  Graph g;
  auto floats = g.placeholder(af::float32, {}, "floats");
  BOOST_TEST(starts_with(construction_error([&] { af::decode_csv(floats, {Tensor(0)}); }),
                         "Input 'records' of 'DecodeCSV' Op has type float32 that does not match "
                         "expected type of string."));
  auto in = g.placeholder(af::string, {}, "records");
  BOOST_TEST(starts_with(construction_error([&] { af::decode_csv(in, {Tensor(true)}); }),
                         "Value for attr 'OUT_TYPE' of bool is not in the list of allowed values: "
                         "float, double, int32, int64, string"));
}

// -- keys: the actorflow extension --------------------------------------------------------

BOOST_AUTO_TEST_CASE(errors_name_the_key_of_the_record) {
  Graph g;
  auto in = g.placeholder(af::string, {}, "records");
  auto keys = g.placeholder(af::string, {}, "keys");
  std::vector<Output> inputs = {in, g.constant(Tensor(0.0f)), g.constant(Tensor(0.0f)),
                                g.constant(required(af::int32)), keys};
  auto op = g.create_op(
      "DecodeCSV", inputs,
      {{"OUT_TYPE", std::vector<DType>{af::float32, af::float32, af::int32}}, {"has_keys", true}});
  BOOST_TEST(op.output(0).shape() == PartialShape::unknown());
  const Tensor names = strings({"data.csv:1", "data.csv:2", "data.csv:3"});
  auto run = [&](const Strings& records) { return run_kernel(op, {strings(records), names}); };
  BOOST_TEST(run({"1,2,3", "4,5,6", "7,8"}).status.message() ==
             "Expect 3 fields but have 2 in record 2 (data.csv:3)" + kNodeSuffix);
  BOOST_TEST(run({"1,2,3", "4,abc,6", "7,8,9"}).error() ==
             "Field 1 in record 1 is not a valid float: abc (data.csv:2)");
  BOOST_TEST(run({"1,2,", "4,5,6", "7,8,9"}).error() ==
             "Field 2 is required but missing in record 0! (data.csv:1)");
  BOOST_TEST(run({"1,2,3", "\"4,5,6", "7,8,9"}).error() ==
             "Quoted field has to end with quote followed by delim or end (data.csv:2)");
  auto ok = run({"1,2,3", "4,5,6", "7,8,9"});
  BOOST_TEST(values<std::int32_t>(ok, 2) == std::vector<std::int32_t>({3, 6, 9}),
             boost::test_tools::per_element());
  auto mismatched = run_kernel(op, {strings({"1,2,3"}), names});
  BOOST_TEST(starts_with(mismatched.status.message(), "keys must have one element per record"));
}

BOOST_AUTO_TEST_CASE(decode_csv_passes_a_readers_key_along) {
  af::OpRegistry& registry = af::OpRegistry::global();
  if (registry.find("ReaderReadV2") == nullptr) {
    // A stand-in with the real op's outputs (key, value) until the reader ops exist.
    registry.add({"ReaderReadV2", [](af::InferenceContext& c) {
                    c.add_output(af::string, PartialShape{});
                    c.add_output(af::string, PartialShape{});
                    return af::Status{};
                  }});
  } else {
    BOOST_TEST_MESSAGE("ReaderReadV2 is registered; its inputs are not known here, case skipped");
    return;
  }
  Graph g;
  auto read = g.create_op("ReaderReadV2", {}, {}, "ReaderReadV2");
  auto cols = af::decode_csv(read.output(1), {Tensor(0), Tensor(0)});
  const af::NodeDef& def = cols[0].op().node_def();
  BOOST_TEST(def.inputs == Strings({"ReaderReadV2:1", "DecodeCSV/record_defaults_0",
                                    "DecodeCSV/record_defaults_1", "ReaderReadV2"}),
             boost::test_tools::per_element());
  BOOST_TEST(*def.attr<bool>("has_keys") == true);
  BOOST_TEST(cols.size() == 2u);
  auto r = run_kernel(cols[0].op(), {Tensor("1,x"), Tensor("train.csv:7")});
  BOOST_TEST(r.error() == "Field 1 in record 0 is not a valid int32: x (train.csv:7)");
  // The key output itself is no record source.
  auto keyed = af::decode_csv(read.output(0), {Tensor("")});
  BOOST_TEST(keyed[0].op().node_def().inputs.size() == 2u);
}

// -- csv_parse.hpp ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_splitter_reproduces_tensorflows_quirks) {
  af::csv::RecordSplitter splitter(af::csv::SplitOptions{});
  af::csv::SplitBuffers buffers;
  auto split = [&](std::string_view record) {
    BOOST_REQUIRE(splitter.split(record, buffers) == af::csv::SplitError::none);
    return Strings(buffers.fields.begin(), buffers.fields.end());
  };
  BOOST_TEST(split("").empty());
  BOOST_TEST(split(",") == Strings({"", ""}), boost::test_tools::per_element());
  // CR and LF at the start of a field are skipped, so a trailing "\r\n" drops nothing but
  // also adds no field.
  BOOST_TEST(split("1,\r\n2") == Strings({"1", "2"}), boost::test_tools::per_element());
  BOOST_TEST(split("1,2,\r\n") == Strings({"1", "2"}), boost::test_tools::per_element());
  BOOST_TEST(split("\"a\"\"b\",\"\",c") == Strings({"a\"b", "", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST((splitter.split("\"a\"\"\"", buffers) == af::csv::SplitError::none));
  BOOST_TEST(buffers.fields.at(0) == "a\"");
  BOOST_TEST(
      (splitter.split("\"a\"\"", buffers) == af::csv::SplitError::unterminated_quoted_field));
  BOOST_TEST(af::csv::split_error_message(af::csv::SplitError::unescaped_quote) ==
             "Quote inside a string has to be escaped by another quote");
}

BOOST_AUTO_TEST_CASE(the_number_parsers_follow_tensorflows_safe_strto) {
  float f = 1;
  double d = 1;
  std::int32_t i = 1;
  std::int64_t l = 1;
  BOOST_TEST(af::csv::parse_float("  -0 ", &f));
  BOOST_TEST((f == 0.0f && std::signbit(f)));
  BOOST_TEST(af::csv::parse_double("0e999999", &d));
  BOOST_TEST(d == 0.0);
  BOOST_TEST(af::csv::parse_double("1e999999", &d));
  BOOST_TEST(d == std::numeric_limits<double>::infinity());
  BOOST_TEST(af::csv::parse_double("-0x7fffffffffffffff", &d));
  BOOST_TEST(d == -9223372036854775807.0);
  BOOST_TEST(!af::csv::parse_float("", &f));
  BOOST_TEST(!af::csv::parse_float(std::string_view("1\0", 2), &f));
  BOOST_TEST(!af::csv::parse_int32("", &i));
  BOOST_TEST(!af::csv::parse_int32("-", &i));
  BOOST_TEST(af::csv::parse_int64(" 00000000000000000000000000000000000042 ", &l));
  BOOST_TEST(l == 42);
}

// The one-pass path's number parser takes a fast path for short decimals; it must give
// std::from_chars's exact bits and stop where it stops, for every length and precision.
template <class T>
void expect_plain_matches_from_chars(const std::string& text) {
  const char* const end = text.data() + text.size();
  const char* p = text.data();
  T value{}, expected{};
  const bool ok = af::csv::parse_plain_number(p, end, &value);
  auto [ptr, ec] = std::from_chars(text.data(), end, expected);
  BOOST_REQUIRE_MESSAGE(ok == (ec == std::errc()), text);
  if (!ok) return;
  BOOST_REQUIRE_MESSAGE(p == ptr, text);
  BOOST_REQUIRE_MESSAGE(std::memcmp(&value, &expected, sizeof(T)) == 0, text);
}

BOOST_AUTO_TEST_CASE(the_plain_number_parser_gives_from_chars_bits) {
  std::mt19937_64 rng(99);
  for (int k = 0; k < 400000; ++k) {
    std::string text;
    if (rng() % 3 == 0) text += '-';
    const int int_digits = static_cast<int>(rng() % 21);
    for (int i = 0; i < int_digits; ++i) text += static_cast<char>('0' + rng() % 10);
    if (rng() % 2) {
      text += '.';
      const int fraction = static_cast<int>(rng() % 26);
      for (int i = 0; i < fraction; ++i) text += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 8 == 0) text += "e" + std::to_string(static_cast<int>(rng() % 90) - 45);
    if (rng() % 4 == 0) text += ",7";
    expect_plain_matches_from_chars<float>(text);
    expect_plain_matches_from_chars<double>(text);
    expect_plain_matches_from_chars<std::int32_t>(text);
    expect_plain_matches_from_chars<std::int64_t>(text);
  }
  // Edges: the limits of the exact mantissas and powers, the integer ranges, signed zeros.
  for (const char* text : {"16777216.5",
                           "16777217",
                           "1.6777217",
                           "0.0000000001",
                           "0.00000000001",
                           "9007199254740993",
                           "9007199254740992.0",
                           "0.1234567890123456789012",
                           "-0",
                           "-0.0",
                           "0",
                           "2147483647",
                           "2147483648",
                           "-2147483648",
                           "-2147483649",
                           "9223372036854775807",
                           "9223372036854775808",
                           "-9223372036854775808",
                           "999999999999999999",
                           "-999999999999999999",
                           "1.",
                           "-",
                           "-.5",
                           "x",
                           "",
                           "340282356779733661637539395458142568448",
                           "1e39",
                           "4.9e-324"}) {
    expect_plain_matches_from_chars<float>(text);
    expect_plain_matches_from_chars<double>(text);
    expect_plain_matches_from_chars<std::int32_t>(text);
    expect_plain_matches_from_chars<std::int64_t>(text);
  }
}

// CsvBatch parses records of plain numbers in one pass; anything else goes through the
// splitter and TensorFlow's parsers. A decoder with a never-seen na_value takes the slow
// path for every record with the same semantics: both must agree on every value and error.
BOOST_AUTO_TEST_CASE(the_one_pass_number_path_agrees_with_the_splitter_path) {
  std::mt19937 rng(1234);
  const std::vector<std::string> pieces = {
      "0",           "1",    "7",    "9",  "12", "-",  "+",
      ".",           "e",    "E",    "e-", "e+", " ",  "x",
      "0x1f",        "inf",  "nan",  "\"", ",",  "\r", "123456789012345678901234567890",
      "99999999999", "1e39", "1e-50"};
  auto make = [&](const std::string& na) {
    af::NodeDef def;
    def.name = "decode";
    def.op = "DecodeCSV";
    def.attrs["OUT_TYPE"] = std::vector<af::DType>{af::float32, af::int32, af::float64, af::int64};
    def.attrs["na_value"] = na;
    std::shared_ptr<const af::CsvDecoder> d;
    BOOST_REQUIRE(af::CsvDecoder::create(def, &d).ok());
    return d;
  };
  auto fast = make(""), slow = make("\x01never");
  std::vector<af::Tensor> defaults{af::Tensor(-1.0f), af::Tensor(-2), af::Tensor(-3.0),
                                   af::Tensor(std::int64_t{-4})};
  af::CsvBatch a, b;
  int plain_records = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string record;
    const int fields = 3 + static_cast<int>(rng() % 3);  // 3 to 5: wrong counts too
    bool plain = true;
    for (int f = 0; f < fields; ++f) {
      if (f) record += ',';
      if (rng() % 3 == 0) {
        // a token soup: mostly invalid or tricky
        const int n = static_cast<int>(rng() % 4);
        for (int t = 0; t < n; ++t) record += pieces[rng() % pieces.size()];
        plain = false;
      } else {
        // a plain number, sometimes negative, fractional or with an exponent
        if (rng() % 4 == 0) record += '-';
        record += std::to_string(rng() % 100000);
        if (f % 2 == 0 && rng() % 2) record += "." + std::to_string(rng() % 1000);
        if (f % 2 == 0 && rng() % 5 == 0)
          record += "e" + std::to_string(static_cast<int>(rng() % 20) - 10);
      }
    }
    plain_records += plain && fields == 4;
    BOOST_REQUIRE(a.start(*fast, defaults, af::Shape{}).ok());
    BOOST_REQUIRE(b.start(*slow, defaults, af::Shape{}).ok());
    af::Status sa = a.decode(record, 0), sb = b.decode(record, 0);
    BOOST_TEST(sa.ok() == sb.ok(), record);
    BOOST_TEST(sa.message() == sb.message(), record);
    if (!sa.ok() || !sb.ok()) continue;
    for (std::size_t c = 0; c < 4; ++c) {
      const auto& x = a.columns()[c];
      const auto& y = b.columns()[c];
      BOOST_TEST(std::memcmp(x.raw_data(), y.raw_data(), af::dtype_size(x.dtype())) == 0,
                 record << " column " << c);
    }
  }
  BOOST_TEST(plain_records > 1000);
}

BOOST_AUTO_TEST_SUITE_END()
