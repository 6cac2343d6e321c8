// libFuzzer target for the GraphDef and MetaGraphDef readers (formats/src/graph_def_io.cpp,
// meta_graph_io.cpp, tf_proto.cpp): each input is parsed as a binary and as a text
// GraphDef and MetaGraphDef. Checked besides the sanitizers: a parse either succeeds or
// throws InvalidArgumentError (never another error, never a crash), and what parses comes
// back unchanged through the binary form.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/meta_graph.hpp"
#include "actorflow/ops/errors.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "graph_def_fuzzer: %s (%s)\n", what, detail.c_str());
  std::abort();
}

template <class Parse, class Check>
void try_parse(const char* what, Parse parse, Check check) {
  try {
    check(parse());
  } catch (const af::InvalidArgumentError&) {
    // a refusal naming the place: fine
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  auto graph_round_trip = [](const af::GraphDef& def) {
    // A NaN in a tensor compares unequal to itself: compare the bytes instead.
    const std::string once = af::serialize_graph_def(def);
    if (af::serialize_graph_def(af::parse_graph_def(once)) != once) fail("GraphDef round trip", "");
  };
  try_parse(
      "binary GraphDef", [&] { return af::parse_graph_def(input, "fuzz"); }, graph_round_trip);
  try_parse(
      "text GraphDef", [&] { return af::parse_graph_def_text(input, "fuzz"); }, graph_round_trip);
  auto meta_round_trip = [](const af::MetaGraphDef& m) {
    const std::string once = af::serialize_meta_graph_def(m);
    if (af::serialize_meta_graph_def(af::parse_meta_graph_def(once)) != once)
      fail("MetaGraphDef round trip", "");
  };
  try_parse(
      "binary MetaGraphDef", [&] { return af::parse_meta_graph_def(input, "fuzz"); },
      meta_round_trip);
  try_parse(
      "text MetaGraphDef", [&] { return af::parse_meta_graph_def_text(input, "fuzz"); },
      meta_round_trip);
  return 0;
}
