// The byte forms a master ships to workers: partition plans, indexed tensors and traced
// step stats round-trip; truncated, corrupted or out-of-range input is an error status,
// never a crash, a hang or an edge pointing outside the partition.
#include "../../../net/src/partition_codec.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <random>

#include "../../../net/src/wire.hpp"

namespace {

af::PartitionPlan sample_plan() {
  af::PartitionPlan plan;
  plan.device = "/job:ps/replica:0/task:0/device:CPU:0";
  af::ExecNode c;
  c.def.name = "c";
  c.def.op = "Const";
  c.def.attrs["value"] = af::Tensor(2.5f);
  c.def.attrs["dtype"] = af::DType::float32;
  c.output_types = {af::DType::float32};
  af::ExecNode id;
  id.def.name = "id";
  id.def.op = "Identity";
  id.def.attrs["T"] = af::DType::float32;
  id.inputs = {{0, 0}};
  id.control_inputs = {0};
  id.input_types = {af::DType::float32};
  id.output_types = {af::DType::float32};
  id.input_is_ref = {false};
  plan.nodes = {c, id};
  plan.fetches = {{0, 1, 0}};
  return plan;
}

/// What a decoded plan must satisfy whatever the input was: edges stay inside it.
bool edges_in_range(const af::PartitionPlan& plan) {
  const int n = static_cast<int>(plan.nodes.size());
  for (const auto& node : plan.nodes) {
    for (auto [producer, output] : node.inputs)
      if (producer < 0 || producer >= n || output < 0) return false;
    for (int producer : node.control_inputs)
      if (producer < 0 || producer >= n) return false;
  }
  for (const auto& f : plan.fetches)
    if (f.node < 0 || f.node >= n) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(partition_codec_test)

BOOST_AUTO_TEST_CASE(a_partition_plan_round_trips) {
  auto bytes = af::net::encode_partition(sample_plan());
  af::PartitionPlan out;
  auto s = af::net::decode_partition(bytes, &out);
  BOOST_TEST_REQUIRE(s.ok(), s.message());
  BOOST_TEST(out.device == "/job:ps/replica:0/task:0/device:CPU:0");
  BOOST_REQUIRE(out.nodes.size() == 2u);
  BOOST_TEST(out.nodes[1].def.name == "id");
  BOOST_TEST(out.nodes[1].def.op == "Identity");
  BOOST_TEST((out.nodes[1].inputs == std::vector<std::pair<int, int>>{{0, 0}}));
  BOOST_TEST(out.nodes[1].control_inputs == std::vector<int>{0});
  BOOST_REQUIRE(out.fetches.size() == 1u);
  BOOST_TEST(out.fetches[0].node == 1);
  BOOST_TEST(out.nodes[0].def.attr<af::Tensor>("value")->scalar<float>() == 2.5f);
}

BOOST_AUTO_TEST_CASE(every_truncation_of_a_plan_is_an_error) {
  auto bytes = af::net::encode_partition(sample_plan());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    af::PartitionPlan out;
    auto s = af::net::decode_partition(std::string_view(bytes).substr(0, n), &out);
    BOOST_TEST(!s.ok(), "a plan cut at byte " << n << " of " << bytes.size() << " decoded");
  }
}

BOOST_AUTO_TEST_CASE(corrupted_plans_decode_to_an_error_or_to_a_plan_with_edges_in_range) {
  auto bytes = af::net::encode_partition(sample_plan());
  std::mt19937 rng(7);
  int errors = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string corrupt = bytes;
    for (int flips = 0; flips < 3; ++flips)
      corrupt[rng() % corrupt.size()] = static_cast<char>(rng() & 0xff);
    af::PartitionPlan out;
    auto s = af::net::decode_partition(corrupt, &out);
    if (!s.ok()) {
      ++errors;
      BOOST_TEST((s.code() == af::Code::data_loss || s.code() == af::Code::invalid_argument),
                 s.message());
    } else {
      BOOST_TEST(edges_in_range(out));
    }
  }
  BOOST_TEST(errors > 0);
}

BOOST_AUTO_TEST_CASE(an_edge_outside_the_partition_is_invalid_argument) {
  auto plan = sample_plan();
  plan.nodes[1].inputs = {{5, 0}};
  af::PartitionPlan out;
  auto s = af::net::decode_partition(af::net::encode_partition(plan), &out);
  BOOST_TEST(!s.ok());
  plan = sample_plan();
  plan.fetches = {{0, 9, 0}};
  BOOST_TEST(!af::net::decode_partition(af::net::encode_partition(plan), &out).ok());
}

BOOST_AUTO_TEST_CASE(indexed_tensors_round_trip_and_truncations_are_data_loss) {
  std::vector<std::pair<int, af::Tensor>> values{{0, af::Tensor::from_vector<float>({1.0f, 2.0f})},
                                                 {3, af::Tensor(std::int64_t{7})}};
  auto bytes = af::net::encode_indexed_tensors(values);
  std::vector<std::pair<int, af::Tensor>> out;
  BOOST_TEST(af::net::decode_indexed_tensors(bytes, "feeds", &out).ok());
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST(out[1].first == 3);
  BOOST_TEST(out[1].second.scalar<std::int64_t>() == 7);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::vector<std::pair<int, af::Tensor>> partial;
    auto s =
        af::net::decode_indexed_tensors(std::string_view(bytes).substr(0, n), "feeds", &partial);
    BOOST_TEST(!s.ok(), "cut at " << n);
  }
}

BOOST_AUTO_TEST_CASE(step_stats_round_trip_and_truncations_fail) {
  std::vector<af::NodeExecStats> stats{
      {"a", "Const", "/job:ps/replica:0/task:0/device:CPU:0", 7, 100, 150, false, ""},
      {"_recv/a_0", "_Recv", "/job:w/replica:0/task:0/device:CPU:0", 8, 120, 160, true,
       "x;y;a:0;0"}};
  af::net::WireWriter w;
  w.stats(stats);
  auto bytes = w.take();
  std::vector<af::NodeExecStats> out;
  af::net::WireReader r(bytes, "stats");
  BOOST_REQUIRE(r.stats(&out));
  BOOST_TEST(r.at_end());
  BOOST_REQUIRE(out.size() == 2u);
  BOOST_TEST(out[1].transfer == "x;y;a:0;0");
  BOOST_TEST(out[1].async);
  BOOST_TEST(out[0].end_us == 150);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::vector<af::NodeExecStats> partial;
    af::net::WireReader cut(std::string_view(bytes).substr(0, n), "stats");
    BOOST_TEST(!cut.stats(&partial), "cut at " << n);
  }
}

BOOST_AUTO_TEST_SUITE_END()
