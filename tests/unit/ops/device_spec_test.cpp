#include <boost/test/unit_test.hpp>

// clang-format off
#include <sstream>
#include <string>
#include <vector>

#include "actorflow/ops/device_spec.hpp"
#include "actorflow/ops/errors.hpp"
// clang-format on

namespace {

using af::DeviceSpec;

DeviceSpec parsed(std::string_view name) { return DeviceSpec::parse(name); }

// Parses `name`, expecting failure, and returns the status.
af::Status parse_error(std::string_view name) {
  DeviceSpec out;
  return DeviceSpec::parse(name, &out);
}

// DeviceNameUtilsTest's MergeDevNamesHelperImpl: merging is symmetric and gives `expected`.
void check_merge(std::string_view a, std::string_view b, std::string_view expected,
                 bool allow_soft_placement = false) {
  BOOST_TEST_CONTEXT("merging '" << a << "' and '" << b << "'") {
    DeviceSpec target_a = parsed(a);
    BOOST_TEST(target_a.merge_compatible(parsed(b), allow_soft_placement).ok());
    DeviceSpec target_b = parsed(b);
    BOOST_TEST(target_b.merge_compatible(parsed(a), allow_soft_placement).ok());
    BOOST_TEST(target_a == target_b);
    BOOST_TEST(target_a == parsed(expected));
  }
}

// DeviceNameUtilsTest's MergeDevNamesError.
void check_merge_error(std::string_view a, std::string_view b, std::string_view expected_substr) {
  BOOST_TEST_CONTEXT("merging '" << a << "' and '" << b << "'") {
    DeviceSpec target = parsed(a);
    af::Status status = target.merge_compatible(parsed(b));
    BOOST_TEST((status.code() == af::Code::invalid_argument));
    BOOST_TEST(status.message().find(expected_substr) != std::string::npos, status.message());
  }
}

bool is_specification(std::string_view pattern, std::string_view actual) {
  return parsed(pattern).matches(parsed(actual));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_spec_test)

// -- parsing ------------------------------------------------------------------

// DeviceNameUtilsTest.Basic ("/job:foo/replica:1/task:2/device:GPU:3").
BOOST_AUTO_TEST_CASE(parses_fully_specified_name) {
  DeviceSpec d = parsed("/job:ps/replica:0/task:0/device:CPU:0");
  BOOST_TEST(*d.job == "ps");
  BOOST_TEST(*d.replica == 0);
  BOOST_TEST(*d.task == 0);
  BOOST_TEST(*d.device_type == "CPU");
  BOOST_TEST(*d.device_index == 0);
  BOOST_TEST(d.fully_specified());
}

// DeviceNameUtilsTest.Basic ("/job:foo/replica:1/task:2/gpu:3" gives type "GPU").
BOOST_AUTO_TEST_CASE(parses_legacy_gpu_form_as_upper_case_type) {
  DeviceSpec d = parsed("/job:foo/replica:1/task:2/gpu:3");
  BOOST_TEST(*d.job == "foo");
  BOOST_TEST(*d.replica == 1);
  BOOST_TEST(*d.task == 2);
  BOOST_TEST(*d.device_type == "GPU");
  BOOST_TEST(*d.device_index == 3);
}

// device_spec_test.py test_to_from_string ("/replica:1/task:0/cpu:0").
BOOST_AUTO_TEST_CASE(parses_legacy_cpu_form) {
  DeviceSpec d = parsed("/cpu:0");
  BOOST_TEST(*d.device_type == "CPU");
  BOOST_TEST(*d.device_index == 0);
  BOOST_TEST(!d.job);
  BOOST_TEST(parsed("/gpu:1").to_string() == "/device:GPU:1");
  BOOST_TEST(parsed("/replica:1/task:0/cpu:0").to_string() == "/replica:1/task:0/device:CPU:0");
}

// device_name_utils.cc ParseFullName accepts "/CPU:" and "/GPU:" as well as lower case.
BOOST_AUTO_TEST_CASE(parses_upper_case_legacy_form) {
  BOOST_TEST(parsed("/CPU:0") == parsed("/device:CPU:0"));
  BOOST_TEST(parsed("/GPU:1") == parsed("/device:GPU:1"));
}

// DeviceNameUtilsTest.Basic ("Allow _ in job names").
BOOST_AUTO_TEST_CASE(allows_underscore_in_job_names) {
  BOOST_TEST(*parsed("/job:foo_bar/replica:1/task:2/gpu:3").job == "foo_bar");
  BOOST_TEST(*parsed("/job:foo_bar/replica:1/task:2/device:GPU:3").job == "foo_bar");
}

// DeviceNameUtilsTest.Basic ("/job:*/replica:4/gpu:*", "/job:*/replica:4/device:GPU:*").
BOOST_AUTO_TEST_CASE(wildcards_leave_fields_unset) {
  for (std::string_view name : {"/job:*/replica:4/gpu:*", "/job:*/replica:4/device:GPU:*"}) {
    BOOST_TEST_CONTEXT(name) {
      DeviceSpec d = parsed(name);
      BOOST_TEST(!d.job);
      BOOST_TEST(*d.replica == 4);
      BOOST_TEST(!d.task);
      BOOST_TEST(*d.device_type == "GPU");
      BOOST_TEST(!d.device_index);
    }
  }
  BOOST_TEST(parsed("/device:GPU:*").to_string() == "/device:GPU:*");
  BOOST_TEST(parsed("/replica:*/task:*").empty());
}

// DeviceNameUtilsTest.Basic ("/job:*/device:GPU/replica:4").
BOOST_AUTO_TEST_CASE(device_type_without_index_leaves_index_unset) {
  DeviceSpec d = parsed("/job:*/device:GPU/replica:4");
  BOOST_TEST(*d.device_type == "GPU");
  BOOST_TEST(!d.device_index);
  BOOST_TEST(*d.replica == 4);
}

// DeviceNameUtilsTest.Basic ("Same result if we reorder the components").
BOOST_AUTO_TEST_CASE(components_may_appear_in_any_order) {
  BOOST_TEST(parsed("/gpu:*/job:*/replica:4") == parsed("/job:*/replica:4/gpu:*"));
  BOOST_TEST(parsed("/job:foo/cpu:1/task:2/replica:1").to_string() ==
             "/job:foo/replica:1/task:2/device:CPU:1");
}

// DeviceNameUtilsTest.Basic ("/job:*/replica:4/device:myspecialdevice:13").
BOOST_AUTO_TEST_CASE(keeps_spelling_of_custom_device_types) {
  DeviceSpec d = parsed("/job:*/replica:4/device:myspecialdevice:13");
  BOOST_TEST(*d.device_type == "myspecialdevice");
  BOOST_TEST(*d.device_index == 13);
  BOOST_TEST(*parsed("/device:MyFunnyDevice:2").device_type == "MyFunnyDevice");
}

// device_spec.py _as_device_str_or_none: lower-case "cpu"/"gpu" become "CPU"/"GPU".
BOOST_AUTO_TEST_CASE(canonicalises_lower_case_cpu_and_gpu_device_types) {
  BOOST_TEST(*parsed("/device:cpu:0").device_type == "CPU");
  BOOST_TEST(*parsed("/device:gpu:1").device_type == "GPU");
}

// DeviceNameUtilsTest.Basic ("/") and device_spec_test.py test_empty ("").
BOOST_AUTO_TEST_CASE(slash_and_empty_string_parse_to_empty_spec) {
  BOOST_TEST(parsed("").empty());
  BOOST_TEST(parsed("/").empty());
  BOOST_TEST(parsed("").to_string() == "");
}

// device_spec_test.py test_parse_legacy ("/job:foo/replica:0") and
// DeviceNameUtilsTest.IsSpecification's partial names ("/task:2", "/replica:1").
BOOST_AUTO_TEST_CASE(parses_partial_specs) {
  DeviceSpec worker = parsed("/job:worker");
  BOOST_TEST(*worker.job == "worker");
  BOOST_TEST(!worker.replica);
  BOOST_TEST(!worker.task);
  BOOST_TEST(!worker.device_type);
  BOOST_TEST(!worker.device_index);

  DeviceSpec task = parsed("/task:1");
  BOOST_TEST(*task.task == 1);
  BOOST_TEST(!task.job);
  BOOST_TEST(!task.fully_specified());

  BOOST_TEST(parsed("/job:foo/replica:0").to_string() == "/job:foo/replica:0");
}

// DeviceNameUtilsTest.Basic (ParseLocalName("CPU:10")); CanonicalizeDeviceName tries the
// local form too.
BOOST_AUTO_TEST_CASE(parses_bare_local_names) {
  DeviceSpec upper = parsed("CPU:10");
  BOOST_TEST(*upper.device_type == "CPU");
  BOOST_TEST(*upper.device_index == 10);
  BOOST_TEST(!upper.job);
  BOOST_TEST(parsed("cpu:0") == parsed("/device:CPU:0"));
  BOOST_TEST(parsed("GPU:1").to_string() == "/device:GPU:1");
  BOOST_TEST(*parsed("myspecialdevice:3").device_type == "myspecialdevice");
}

// DeviceNameUtilsTest.Basic (ParseLocalName rejects "cpu:abc", "abc:", "abc", ...).
BOOST_AUTO_TEST_CASE(rejects_malformed_local_names) {
  for (std::string_view name : {"cpu:abc", "abc:", "abc", "myspecialdevice", "CPU:*", "CPU:0/"}) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST((parse_error(name).code() == af::Code::invalid_argument));
    }
  }
}

// DeviceNameUtilsTest.Basic (the EXPECT_FALSE(ParseFullName(...)) list) plus the spec errors
// Python's DeviceSpec.from_string raises on.
BOOST_AUTO_TEST_CASE(rejects_malformed_full_names) {
  const std::vector<std::string_view> names = {
      "foobar",
      "/job:123/replica:1/task:2/gpu:3",
      "/job:123/replica:1/task:2/gpu:",
      "/job:123/replica:1/task:2/device:gpu:",
      "/job:foo/replica:-1/task:2/gpu:3",
      "/job:foo/replica:1/task:-2/gpu:3",
      "/job:foo/replica:1/task:2/bar:3",
      "/job:foo/replica:1/task:2/gpu:3/extra",
      "/job:",
      "/task:x",
      "/foo:1",
      "/replica:-1",
      "/job:ps/",
      "/task:1x",
      "/job:a-b",
      "/device:GPU:0:1",
      "/cpu",
      "//",
  };
  for (std::string_view name : names) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST((parse_error(name).code() == af::Code::invalid_argument));
    }
  }
}

// Placer's "Malformed device specification" error names the spec it could not parse.
BOOST_AUTO_TEST_CASE(malformed_spec_error_names_the_spec) {
  af::Status status = parse_error("/task:x");
  BOOST_TEST((status.code() == af::Code::invalid_argument));
  BOOST_TEST(status.message() == "Malformed device specification '/task:x'");
  BOOST_CHECK_THROW(DeviceSpec::parse("/job:"), af::InvalidArgumentError);
  try {
    DeviceSpec::parse("/foo:1");
    BOOST_FAIL("expected InvalidArgumentError");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("'/foo:1'") != std::string::npos);
  }
}

// Actorflow-specific: a failed parse leaves the output untouched.
BOOST_AUTO_TEST_CASE(failed_parse_leaves_output_untouched) {
  DeviceSpec out = parsed("/job:ps/task:3");
  BOOST_TEST(!DeviceSpec::parse("/task:x", &out).ok());
  BOOST_TEST(out.to_string() == "/job:ps/task:3");
}

// device_spec_test.py test_parse_legacy ("Multiple device types are not allowed").
BOOST_AUTO_TEST_CASE(rejects_multiple_device_types) {
  af::Status status = parse_error("/job:muu/device:GPU:2/cpu:0");
  BOOST_TEST((status.code() == af::Code::invalid_argument));
  BOOST_TEST(status.message().find("multiple device types") != std::string::npos);
  BOOST_TEST(!parse_error("/cpu:0/gpu:0").ok());
}

// Actorflow-specific: TensorFlow truncates a uint64 to int; out-of-range numbers are refused.
BOOST_AUTO_TEST_CASE(rejects_numbers_beyond_int_range) {
  BOOST_TEST(!parse_error("/task:2147483648").ok());
  BOOST_TEST(*parsed("/task:2147483647").task == 2147483647);
}

// DeviceNameUtilsTest.Basic ("Test that all parts are round-tripped correctly").
BOOST_AUTO_TEST_CASE(round_trips_every_partial_combination) {
  struct Device {
    std::string written;   // after "/" (legacy) or "/device:" (explicit)
    bool explicit_device;  // written with "/device:"
    std::string expected;  // after "/device:"
  };
  // TensorFlow's C++ parser keeps "/device:cpu:3" as "cpu"; like Python's DeviceSpec we
  // canonicalise it to "CPU".
  const std::vector<Device> devices = {
      {"CPU:3", false, "CPU:3"}, {"GPU:3", false, "GPU:3"}, {"cpu:3", false, "CPU:3"},
      {"gpu:3", false, "GPU:3"}, {"CPU:3", true, "CPU:3"},  {"GPU:3", true, "GPU:3"},
      {"cpu:3", true, "CPU:3"},  {"gpu:3", true, "GPU:3"},  {"someDevice:3", true, "someDevice:3"},
  };
  for (const Device& device : devices) {
    for (int parts = 0; parts < 0x10; ++parts) {
      std::string original;
      std::string expected;
      if (parts & 0x1) {
        original += "/job:foo";
        expected += "/job:foo";
      }
      if (parts & 0x2) {
        original += "/replica:3";
        expected += "/replica:3";
      }
      if (parts & 0x4) {
        original += "/task:2";
        expected += "/task:2";
      }
      if (parts & 0x8) {
        original += (device.explicit_device ? "/device:" : "/") + device.written;
        expected += "/device:" + device.expected;
      }
      BOOST_TEST_CONTEXT(original) { BOOST_TEST(parsed(original).to_string() == expected); }
    }
  }
}

// -- printing -----------------------------------------------------------------

// device_spec_test.py testto_string.
BOOST_AUTO_TEST_CASE(to_string_prints_only_set_fields) {
  DeviceSpec d;
  d.job = "foo";
  BOOST_TEST(d.to_string() == "/job:foo");
  d.task = 3;
  BOOST_TEST(d.to_string() == "/job:foo/task:3");
  d.device_type = "CPU";
  d.device_index = 0;
  BOOST_TEST(d.to_string() == "/job:foo/task:3/device:CPU:0");
  d.task.reset();
  d.replica = 12;
  BOOST_TEST(d.to_string() == "/job:foo/replica:12/device:CPU:0");
  d.device_type.reset();
  d.device_index.reset();
  BOOST_TEST(d.to_string() == "/job:foo/replica:12");

  // "Test wildcard"
  DeviceSpec wildcard;
  wildcard.job = "foo";
  wildcard.replica = 12;
  wildcard.task = 3;
  wildcard.device_type = "GPU";
  BOOST_TEST(wildcard.to_string() == "/job:foo/replica:12/task:3/device:GPU:*");
}

// device_name_utils.cc LegacyName (GetNamesForDeviceMappings' second name).
BOOST_AUTO_TEST_CASE(to_legacy_string_uses_lower_case_type) {
  BOOST_TEST(parsed("/job:localhost/replica:0/task:0/device:CPU:0").to_legacy_string() ==
             "/job:localhost/replica:0/task:0/cpu:0");
  BOOST_TEST(parsed("/job:foo/replica:1/task:2/device:GPU:3").to_legacy_string() ==
             "/job:foo/replica:1/task:2/gpu:3");
  BOOST_TEST(parsed("/device:GPU:*").to_legacy_string() == "/gpu:*");
}

// DeviceNameUtilsTest.Basic (FullName("hello", 1, 2, "CPU", 3)).
BOOST_AUTO_TEST_CASE(full_device_name_formats_canonical_name) {
  BOOST_TEST(af::full_device_name("hello", 1, 2, "CPU", 3) ==
             "/job:hello/replica:1/task:2/device:CPU:3");
  BOOST_TEST(parsed(af::full_device_name("ps", 0, 0, "GPU", 1)).fully_specified());
}

// device_name_utils.cc operator<<(ostream, ParsedName) prints ParsedNameToString.
BOOST_AUTO_TEST_CASE(stream_operator_prints_canonical_form) {
  std::ostringstream os;
  os << parsed("/job:ps/gpu:1");
  BOOST_TEST(os.str() == "/job:ps/device:GPU:1");
}

// -- merge_from (Python override semantics) -------------------------------------

// device_spec_test.py test_merge_legacy.
BOOST_AUTO_TEST_CASE(merge_from_overrides_fields_set_in_other) {
  DeviceSpec d = parsed("/job:foo/replica:0");
  d.merge_from(parsed("/task:1/device:GPU:2"));
  BOOST_TEST(d.to_string() == "/job:foo/replica:0/task:1/device:GPU:2");

  d = DeviceSpec{};
  d.merge_from(parsed("/task:1/cpu:0"));
  BOOST_TEST(d.to_string() == "/task:1/device:CPU:0");
  d.merge_from(parsed("/job:boo/device:GPU:0"));
  BOOST_TEST(d.to_string() == "/job:boo/task:1/device:GPU:0");
  d.merge_from(parsed("/job:muu/cpu:2"));
  BOOST_TEST(d.to_string() == "/job:muu/task:1/device:CPU:2");
  d.merge_from(parsed("/job:muu/device:MyFunnyDevice:2"));
  BOOST_TEST(d.to_string() == "/job:muu/task:1/device:MyFunnyDevice:2");
}

// device_spec.py _get_combined_properties: each field is taken separately, so a type
// without an index keeps the old index.
BOOST_AUTO_TEST_CASE(merge_from_overrides_type_and_index_separately) {
  DeviceSpec d = parsed("/device:GPU:2");
  d.merge_from(parsed("/device:CPU:*"));
  BOOST_TEST(d.to_string() == "/device:CPU:2");
  d.merge_from(DeviceSpec{});
  BOOST_TEST(d.to_string() == "/device:CPU:2");
}

// -- merge_compatible (DeviceNameUtils::MergeDevNames) ------------------------------

// DeviceNameUtilsTest.MergeDevNames (idempotence, empty, disjoint, overlapping, wildcards).
BOOST_AUTO_TEST_CASE(merge_compatible_combines_compatible_names) {
  check_merge("", "", "");
  check_merge("/job:foo/replica:1/task:2/cpu:1", "/job:foo/replica:1/task:2/cpu:1",
              "/job:foo/replica:1/task:2/cpu:1");
  check_merge("", "/job:foo", "/job:foo");
  check_merge("", "/replica:2", "/replica:2");
  check_merge("", "/task:7", "/task:7");
  check_merge("/job:foo", "/task:7", "/job:foo/task:7");
  check_merge("/job:foo", "/gpu:1", "/job:foo/gpu:1");
  check_merge("/job:foo/replica:0", "/replica:0/task:1", "/job:foo/replica:0/task:1");
  check_merge("", "/gpu:*", "/gpu:*");
  check_merge("/gpu:*", "/gpu:*", "/gpu:*");
  check_merge("/gpu:1", "/gpu:*", "/gpu:1");
}

// DeviceNameUtilsTest.MergeDevNames ("Incompatible components").
BOOST_AUTO_TEST_CASE(merge_compatible_rejects_incompatible_components) {
  check_merge_error("/job:foo", "/job:bar", "incompatible jobs");
  check_merge_error("/replica:0", "/replica:1", "incompatible replicas");
  check_merge_error("/task:0", "/task:1", "incompatible tasks");
  check_merge_error("/gpu:*", "/cpu:*", "incompatible types");
  check_merge_error("/gpu:0", "/gpu:1", "incompatible ids");

  DeviceSpec a = parsed("/job:a");
  BOOST_TEST(a.merge_compatible(parsed("/job:b")).message() ==
             "Cannot merge devices with incompatible jobs: '/job:a' and '/job:b'");
}

// device_name_utils.cc MergeDevNamesImpl names the target as merged so far; actorflow leaves
// the spec itself unchanged on failure.
BOOST_AUTO_TEST_CASE(merge_compatible_failure_names_partial_merge_and_keeps_spec) {
  DeviceSpec d = parsed("/task:0");
  af::Status status = d.merge_compatible(parsed("/job:x/task:1"));
  BOOST_TEST(status.message() ==
             "Cannot merge devices with incompatible tasks: '/job:x/task:0' and '/job:x/task:1'");
  BOOST_TEST(d.to_string() == "/task:0");
}

// DeviceNameUtilsTest.MergeDevNamesAllowSoftPlacement.
BOOST_AUTO_TEST_CASE(merge_compatible_with_soft_placement_drops_conflicting_device) {
  check_merge("/gpu:*", "/cpu:1", "", /*allow_soft_placement=*/true);
  check_merge("/cpu:*", "/gpu:1", "", /*allow_soft_placement=*/true);
  check_merge("/gpu:1", "/gpu:2", "/gpu:*", /*allow_soft_placement=*/true);

  DeviceSpec d = parsed("/job:w/gpu:0");
  BOOST_TEST(d.merge_compatible(parsed("/task:1/cpu:0"), true).ok());
  BOOST_TEST(d.to_string() == "/job:w/task:1");
  // Soft placement does not excuse job, replica or task conflicts.
  BOOST_TEST(!d.merge_compatible(parsed("/job:v"), true).ok());
}

// -- matches (DeviceNameUtils::IsSpecification) ---------------------------------

// DeviceNameUtilsTest.IsSpecification.
BOOST_AUTO_TEST_CASE(matches_when_every_set_field_agrees) {
  BOOST_TEST(is_specification("/job:*", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/job:*", "/job:work/replica:1/gpu:3"));
  BOOST_TEST(is_specification("/job:*", "/job:work/replica:1"));
  BOOST_TEST(is_specification("/job:*", "/replica:1"));
  BOOST_TEST(is_specification("/job:*", "/job:work"));
  BOOST_TEST(is_specification("/job:*/replica:*", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/job:work/replica:1/gpu:*", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/job:work/replica:1/gpu:3", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/job:work/replica:1/task:2", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/job:work/replica:*/task:2", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/task:*", "/job:*/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/task:2", "/job:*/replica:1/task:2/gpu:3"));
  BOOST_TEST(is_specification("/cpu:*", "/job:*/replica:1/task:2/cpu:1"));
  BOOST_TEST(is_specification("/cpu:0", "/cpu:0"));
  BOOST_TEST(is_specification("/gpu:*", "/job:worker/replica:1/task:2/gpu:3"));
}

// DeviceNameUtilsTest.IsSpecification (the EXPECT_FALSE list).
BOOST_AUTO_TEST_CASE(does_not_match_when_a_set_field_differs_or_is_missing) {
  BOOST_TEST(!is_specification("/job:worker/replica:1/task:2/gpu:3", "/gpu:*"));
  BOOST_TEST(!is_specification("/cpu:*", "/job:*/replica:1/task:2"));
  BOOST_TEST(!is_specification("/cpu:*", "/job:*/replica:1/task:2/gpu:1"));
  BOOST_TEST(!is_specification("/cpu:*", "/job:worker/replica:1/task:2/gpu:3"));
  BOOST_TEST(!is_specification("/gpu:2", "/job:worker/replica:1/task:2/gpu:1"));
  BOOST_TEST(!is_specification("/job:work/replica:*/task:0", "/job:work/replica:1/task:2/gpu:3"));
  BOOST_TEST(!is_specification("/job:work/replica:0/task:2", "/job:work/replica:*/task:2/gpu:3"));
}

// -- observers ----------------------------------------------------------------

// DeviceNameUtils::CanonicalizeDeviceName's "should be fully specified" check.
BOOST_AUTO_TEST_CASE(fully_specified_needs_all_five_fields) {
  BOOST_TEST(parsed("/job:a/replica:0/task:0/cpu:0").fully_specified());
  BOOST_TEST(!parsed("/job:a/replica:0/task:0/cpu:*").fully_specified());
  BOOST_TEST(!parsed("/replica:0/task:0/cpu:0").fully_specified());
  BOOST_TEST(DeviceSpec{}.empty());
  BOOST_TEST(!parsed("/task:0").empty());
}

// DeviceNameUtils::ParsedName::operator== compares set flags and set values.
BOOST_AUTO_TEST_CASE(equality_compares_every_field) {
  BOOST_TEST(parsed("/job:a/gpu:0") == parsed("/gpu:0/job:a"));
  BOOST_TEST(!(parsed("/job:a/gpu:0") == parsed("/job:a/gpu:*")));
  BOOST_TEST(!(parsed("/job:a") == parsed("/job:b")));
}

BOOST_AUTO_TEST_SUITE_END()
