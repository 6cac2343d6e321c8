// The CPU-side logic of GPU devices: memory limits from gpu_options and the visible device
// list, with TensorFlow's rules and messages. Runs without a GPU.
#include "actorflow/devices/gpu_options.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

namespace {
constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;
}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_options_test)

BOOST_AUTO_TEST_CASE(by_default_a_device_takes_nearly_all_free_memory) {
  af::GPUOptions o;
  BOOST_TEST(af::gpu_memory_limit(o, 80 * kGiB, 79 * kGiB).value() ==
             79 * kGiB - static_cast<std::size_t>(static_cast<double>(79 * kGiB) * 0.06));
  BOOST_TEST(af::min_system_memory(1 * kGiB) == 225 * kMiB);
  BOOST_TEST(af::min_system_memory(3 * kGiB) == 300 * kMiB);
  BOOST_TEST(af::gpu_memory_limit(o, 1 * kGiB, 100 * kMiB).value() == 0u);
}

BOOST_AUTO_TEST_CASE(a_memory_fraction_caps_the_device_at_that_share_of_the_total) {
  af::GPUOptions o;
  o.per_process_gpu_memory_fraction = 0.4;
  BOOST_TEST(af::gpu_memory_limit(o, 10 * kGiB, 2 * kGiB).value() == 4 * kGiB);
  o.per_process_gpu_memory_fraction = 1.5;
  auto bad = af::gpu_memory_limit(o, 10 * kGiB, 10 * kGiB);
  BOOST_TEST(bad.status().code() == af::Code::invalid_argument);
  BOOST_TEST(bad.status().message().find("per_process_gpu_memory_fraction") != std::string::npos);
  o.per_process_gpu_memory_fraction = -0.1;
  BOOST_TEST(!af::gpu_memory_limit(o, 10 * kGiB, 10 * kGiB).ok());
}

// "3,2" style lists: the order is kept, so the first entry becomes GPU:0.
BOOST_AUTO_TEST_CASE(visible_device_list_renumbers_gpus_in_its_order) {
  BOOST_TEST(af::visible_gpu_ids("", 3).value() == (std::vector<int>{0, 1, 2}));
  BOOST_TEST(af::visible_gpu_ids("", 0).value().empty());
  BOOST_TEST(af::visible_gpu_ids("2,0", 3).value() == (std::vector<int>{2, 0}));
  BOOST_TEST(af::visible_gpu_ids("1", 2).value() == (std::vector<int>{1}));
}

BOOST_AUTO_TEST_CASE(bad_visible_device_lists_are_invalid_argument_with_tensorflows_messages) {
  auto out_of_range = af::visible_gpu_ids("0,5", 2);
  BOOST_TEST(out_of_range.status().code() == af::Code::invalid_argument);
  BOOST_TEST(out_of_range.status().message() ==
             "'visible_device_list' listed an invalid GPU id '5' but visible device count is 2");
  auto junk = af::visible_gpu_ids("0,x", 2);
  BOOST_TEST(junk.status().message() ==
             "Could not parse entry in 'visible_device_list': 'x'. visible_device_list = 0,x");
  BOOST_TEST(!af::visible_gpu_ids("0,", 2).ok());
  BOOST_TEST(!af::visible_gpu_ids("-1", 2).ok());
  auto dup = af::visible_gpu_ids("1,1", 2);
  BOOST_TEST(dup.status().message() == "visible_device_list contained a duplicate entry: 1,1");
}

BOOST_AUTO_TEST_CASE(bytes_render_for_people) {
  BOOST_TEST(af::format_bytes(300) == "300 B");
  BOOST_TEST(af::format_bytes(512 * kMiB) == "512.0 MiB");
  BOOST_TEST(af::format_bytes(80 * kGiB) == "80.0 GiB");
}

BOOST_AUTO_TEST_SUITE_END()
