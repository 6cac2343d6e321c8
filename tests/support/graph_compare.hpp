#pragma once

// Comparing a node built here with TensorFlow's node of the same name, shared by the tests
// that check actorflow's graphs against GraphDefs TensorFlow wrote.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "actorflow/ops/attr_value.hpp"

namespace af::test {

/// Checks that `ours` is TensorFlow's `theirs`: the op type (actorflow's `+` makes Add where
/// TensorFlow 2 makes AddV2), the data inputs in order (":0" or not), the set of control
/// inputs, for an Enter its frame, constness and parallel_iterations, and for a TensorArray
/// op its dtype, names, flags and element shapes.
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
  if (theirs.op.rfind("TensorArray", 0) == 0) {
    // The array's dtype, name, source, flags and element shapes.
    for (const char* attr : {"dtype", "T"})
      if (theirs.attr<af::DType>(attr))
        BOOST_TEST((ours.attr<af::DType>(attr) &&
                    *ours.attr<af::DType>(attr) == *theirs.attr<af::DType>(attr)),
                   attr);
    for (const char* attr : {"source", "tensor_array_name"})
      if (theirs.attr<std::string>(attr))
        BOOST_TEST((ours.attr<std::string>(attr) &&
                    *ours.attr<std::string>(attr) == *theirs.attr<std::string>(attr)),
                   attr);
    for (const char* attr : {"dynamic_size", "clear_after_read", "identical_element_shapes"})
      if (theirs.attr<bool>(attr))
        BOOST_TEST((ours.attr<bool>(attr) && *ours.attr<bool>(attr) == *theirs.attr<bool>(attr)),
                   attr);
    for (const char* attr : {"element_shape", "element_shape_except0"})
      if (theirs.attr<af::PartialShape>(attr))
        BOOST_TEST((ours.attr<af::PartialShape>(attr) &&
                    *ours.attr<af::PartialShape>(attr) == *theirs.attr<af::PartialShape>(attr)),
                   attr);
  }
  if (theirs.op == "Enter" || theirs.op == "RefEnter") {
    BOOST_TEST(*ours.attr<std::string>("frame_name") == *theirs.attr<std::string>("frame_name"));
    BOOST_TEST(*ours.attr<bool>("is_constant") == *theirs.attr<bool>("is_constant"));
    BOOST_TEST(*ours.attr<std::int64_t>("parallel_iterations") ==
               *theirs.attr<std::int64_t>("parallel_iterations"));
  }
}

/// Checks that `ours` holds exactly the nodes of TensorFlow's `theirs`, each as
/// `expect_same_node` compares them: every node of theirs is in ours, none more.
inline void expect_tensorflows_nodes(const af::GraphDef& ours, const af::GraphDef& theirs) {
  std::map<std::string, const af::NodeDef*> mine;
  for (const auto& n : ours.nodes) mine[n.name] = &n;
  std::set<std::string> seen;
  for (const auto& t : theirs.nodes) {
    BOOST_TEST_CONTEXT("node " << t.name) {
      auto it = mine.find(t.name);
      BOOST_TEST((it != mine.end()), "missing");
      if (it == mine.end()) continue;
      seen.insert(t.name);
      af::test::expect_same_node(*it->second, t);
    }
  }
  for (const auto& n : ours.nodes) BOOST_TEST(seen.count(n.name) == 1u, "extra node " << n.name);
}

}  // namespace af::test
