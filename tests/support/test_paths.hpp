#pragma once

// Where the tests find their data and the build's executables. The paths live in one
// generated source file (test_paths.cpp in the build directory), not in every test file's
// compile command: a checkout elsewhere (a fresh clone, CI) then compiles the same commands
// and hits the objects ccache keeps for this one.
#include <string>

namespace af::test {

/// The absolute path of tests/data in the checkout the tests were built from.
const std::string& data_dir();

/// The absolute path of the executable CMake target `target` (e.g. "actorflow-server") of
/// this build; throws std::runtime_error naming `target` when this build has none.
std::string built_binary(const std::string& target);

}  // namespace af::test

#define ACTORFLOW_TEST_DATA_DIR (::af::test::data_dir())
#define ACTORFLOW_SERVER_BINARY (::af::test::built_binary("actorflow-server"))
#define ACTORFLOW_TRAIN_BINARY (::af::test::built_binary("actorflow-train"))
#define ACTORFLOW_DIST_TRAIN_BINARY (::af::test::built_binary("actorflow-dist-train"))
#define ACTORFLOW_WIDE_DEEP_BINARY (::af::test::built_binary("actorflow-wide-deep"))
#define ACTORFLOW_IN_GRAPH_BINARY (::af::test::built_binary("actorflow-in-graph"))
#define ACTORFLOW_HPARAM_BINARY (::af::test::built_binary("actorflow-hparam"))
#define ACTORFLOW_GRAPH_BINARY (::af::test::built_binary("actorflow-graph"))
#define ACTORFLOW_ENSEMBLE_BINARY (::af::test::built_binary("actorflow-ensemble"))
#define ACTORFLOW_DEVICES_BINARY (::af::test::built_binary("actorflow-devices"))
