// actorflow-graph: info names what actorflow cannot run, convert goes between the four
// formats without losing a node, run feeds and fetches a frozen graph.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

const char* kGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "w"
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
          tensor_shape {
            dim { size: 2 }
            dim { size: 1 }
          }
          float_val: [ 1, 2 ]
        }
      }
    }
  }
  node {
    name: "y"
    op: "MatMul"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 2474 }
)pb";

// Runs actorflow-graph with `args`; returns (exit code, output).
std::pair<int, std::string> graph_cli(const af::test::TempDir& dir, std::vector<std::string> args) {
  static int runs = 0;
  args.insert(args.begin(), ACTORFLOW_GRAPH_BINARY);
  af::test::ProcessGroup group;
  auto p = group.spawn(args, (dir.path / ("run" + std::to_string(runs++) + ".log")).string());
  const int status = group.wait(p, std::chrono::seconds(60));
  BOOST_REQUIRE(status != -1);
  return {WEXITSTATUS(status), group.log(p)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(graph_cli_process_test)

BOOST_AUTO_TEST_CASE(info_convert_and_run_work_on_a_frozen_graph, *boost::unit_test::timeout(120)) {
  af::test::TempDir dir;
  const std::string text = dir.write("g.pbtxt", kGraph);
  auto [code, out] = graph_cli(dir, {"info", text});
  BOOST_TEST(code == 0, out);
  BOOST_TEST(out.find("3 nodes, 3 op types") != std::string::npos, out);
  BOOST_TEST(out.find("actorflow has every op type of this graph") != std::string::npos, out);
  const std::string pb = (dir.path / "g.pb").string(), json = (dir.path / "g.json").string(),
                    meta = (dir.path / "g.meta").string();
  BOOST_TEST(graph_cli(dir, {"convert", text, pb}).first == 0);
  BOOST_TEST(graph_cli(dir, {"convert", pb, json}).first == 0);
  BOOST_TEST(graph_cli(dir, {"convert", json, meta}).first == 0);
  BOOST_TEST((af::read_meta_graph_def(meta).graph_def == af::read_graph_def(text)));
  auto [run_code, run_out] =
      graph_cli(dir, {"run", meta, "--feed", "x=1,1,2,2@2x2", "--fetch", "y:0"});
  BOOST_TEST(run_code == 0, run_out);
  BOOST_TEST(run_out.find("y:0 = Tensor<float32, [2,1]>: [[3.]\n [6.]]") != std::string::npos,
             run_out);
}

BOOST_AUTO_TEST_CASE(info_lists_every_op_type_actorflow_lacks_and_errors_name_the_place,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir dir;
  std::string with_unknown = kGraph;
  with_unknown.insert(
      with_unknown.find("versions"),
      "node { name: \"z\" op: \"Foo\" input: \"y\" }\nnode { name: \"q\" op: \"Bar\" }\n");
  const std::string path = dir.write("unknown.pbtxt", with_unknown);
  auto [code, out] = graph_cli(dir, {"info", path});
  BOOST_TEST(code == 3);
  BOOST_TEST(out.find("Bar (1 nodes, e.g. 'q')") != std::string::npos, out);
  BOOST_TEST(out.find("Foo (1 nodes, e.g. 'z')") != std::string::npos, out);
  auto [run_code, run_out] = graph_cli(dir, {"run", path, "--fetch", "y"});
  BOOST_TEST(run_code == 1);
  BOOST_TEST(
      run_out.find("Op type not registered in actorflow: 'Bar' (node 'q'), 'Foo' (node 'z')") !=
          std::string::npos,
      run_out);
  auto [bad_code, bad_out] = graph_cli(dir, {"info", dir.write("bad.pbtxt", "node { name: 1 2 }")});
  BOOST_TEST(bad_code == 1);
  BOOST_TEST(bad_out.find("bad.pbtxt:1:") != std::string::npos, bad_out);
  BOOST_TEST(graph_cli(dir, {"convert", path, (dir.path / "x.zip").string()}).first == 2);
}

BOOST_AUTO_TEST_SUITE_END()
