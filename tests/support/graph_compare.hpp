#pragma once

// Comparing a node built here with TensorFlow's node of the same name, shared by the tests
// that check actorflow's graphs against GraphDefs TensorFlow wrote.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "actorflow/ops/attr_value.hpp"

namespace af::test {

/// Checks that `ours` is TensorFlow's `theirs`: the op type (actorflow's `+` makes Add where
/// TensorFlow 2 makes AddV2), the data inputs in order (":0" or not), the set of control
/// inputs, and for an Enter its frame, constness and parallel_iterations.
inline void expect_same_node(const af::NodeDef& ours, const af::NodeDef& theirs) {
  BOOST_TEST(ours.op == (theirs.op == "AddV2" ? std::string("Add") : theirs.op));
  auto split = [](const af::NodeDef& n, std::vector<std::string>& data,
                  std::set<std::string>& control) {
    for (std::string in : n.inputs) {
      if (!in.empty() && in[0] == '^') {
        control.insert(in);
        continue;
      }
      if (in.size() > 2 && in.compare(in.size() - 2, 2, ":0") == 0) in.resize(in.size() - 2);
      data.push_back(in);
    }
  };
  std::vector<std::string> data_ours, data_theirs;
  std::set<std::string> control_ours, control_theirs;
  split(ours, data_ours, control_ours);
  split(theirs, data_theirs, control_theirs);
  BOOST_TEST(data_ours == data_theirs, boost::test_tools::per_element());
  BOOST_TEST(control_ours == control_theirs, boost::test_tools::per_element());
  if (theirs.op == "Enter" || theirs.op == "RefEnter") {
    BOOST_TEST(*ours.attr<std::string>("frame_name") == *theirs.attr<std::string>("frame_name"));
    BOOST_TEST(*ours.attr<bool>("is_constant") == *theirs.attr<bool>("is_constant"));
    BOOST_TEST(*ours.attr<std::int64_t>("parallel_iterations") ==
               *theirs.attr<std::int64_t>("parallel_iterations"));
  }
}

}  // namespace af::test
