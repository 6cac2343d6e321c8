// GRAPH: importing a large GraphDef, the work of `tf.import_graph_def` on a frozen or exported
// model: 100,000 nodes (blocks of Const, AddV2, Relu and Identity after one Placeholder) read
// from their binary form, parsed into actorflow's GraphDef and imported into a Graph (shape
// inference included). Its TensorFlow baseline, `tf.import_graph_def` of the same file, is
// measured by scripts/peers/graph_import_peers.py in the same run (interleaved).
//
// EVENTS: events written per second by `af::summary::FileWriter`: 20,000 steps, each one
// `add_summary` of a serialized Summary with two scalars (the loss and the accuracy), then
// `close` (flushed to the file). Baseline, interleaved in pairs: the same records
// (TFRecord-framed Events, built once beforehand) written with fwrite and fclose, the floor
// of any events writer. TensorFlow's FileWriter on the same work: scripts/peers/events_peers.py.
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace af::bench {

namespace {

using Clock = std::chrono::steady_clock;

GraphDef bench_graph(int nodes) {
  Graph g;
  Output h = g.placeholder(DType::float32, PartialShape{-1, 16}, "x");
  for (int k = 0; 4 * k + 1 < nodes; ++k) {
    const std::string p = "block" + std::to_string(k);
    Output c = g.constant(Tensor(0.5f + static_cast<float>(k % 7)), p + "/c");
    Output sum = g.create_op("AddV2", {h, c}, {{"T", DType::float32}}, p + "/add").output(0);
    Output relu = g.create_op("Relu", {sum}, {{"T", DType::float32}}, p + "/relu").output(0);
    h = g.create_op("Identity", {relu}, {{"T", DType::float32}}, p + "/out").output(0);
  }
  return export_graph_def(g);
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

void write_bench_graph(const std::string& path, int nodes) {
  const GraphDef def = bench_graph(nodes);
  const std::string bytes = serialize_graph_def(def);
  std::ofstream(path, std::ios::binary) << bytes;
  std::printf("wrote %s: %zu nodes, %zu bytes\n", path.c_str(), def.nodes.size(), bytes.size());
}

void bench_graph_import(bool quick, const std::string& file, int nodes) {
  std::string bytes;
  if (file.empty()) {
    bytes = serialize_graph_def(bench_graph(nodes));
  } else {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    bytes = ss.str();
  }
  const int reps = quick ? 3 : 7;
  std::vector<double> parse_ms, import_ms, total_ms;
  std::size_t count = 0;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t0 = Clock::now();
    GraphDef def = parse_graph_def(bytes, "bench graph");
    const double parsed = ms_since(t0);
    Graph g;
    const auto t1 = Clock::now();
    import_graph_def(g, def);
    const double imported = ms_since(t1);
    count = def.nodes.size();
    if (r == 0) continue;  // warm-up
    parse_ms.push_back(parsed);
    import_ms.push_back(imported);
    total_ms.push_back(parsed + imported);
  }
  std::printf(
      "GRAPH import of a %zu-node GraphDef (%zu bytes): median %.1f ms (%s): parse %.1f ms + "
      "import %.1f ms; "
      "%.2f M nodes/s\n",
      count, bytes.size(), median_of(total_ms), spread(total_ms).c_str(), median_of(parse_ms),
      median_of(import_ms), static_cast<double>(count) / median_of(total_ms) / 1e3);
  std::fflush(stdout);
}

void bench_events(bool quick) {
  const int steps = quick ? 2000 : 20000;
  const int pairs = quick ? 3 : 7;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("actorflow-bench-events-" + std::to_string(::getpid()));
  std::vector<std::string> summaries;
  for (int i = 0; i < steps; ++i) {
    const std::string loss = summary::scalar("loss", 1.0f / static_cast<float>(i + 1));
    const std::string accuracy =
        summary::scalar("accuracy", static_cast<float>(i) / static_cast<float>(steps));
    summaries.push_back(summary::merge(std::vector<std::string>{loss, accuracy}).value());
  }
  // The baseline's bytes: what the writer put in its file, read back once.
  std::string framed;
  {
    std::filesystem::remove_all(dir);
    summary::FileWriter w((dir / "probe").string());
    for (int i = 0; i < steps; ++i) w.add_summary(summaries[static_cast<std::size_t>(i)], i);
    w.close();
    const auto files = summary::event_files((dir / "probe").string());
    std::ifstream in(files.at(0), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    framed = ss.str();
  }
  std::vector<double> writer_rate, raw_rate, ratio;
  for (int r = 0; r < pairs + 1; ++r) {
    std::filesystem::remove_all(dir);
    auto t0 = Clock::now();
    {
      summary::FileWriter w((dir / "writer").string());
      for (int i = 0; i < steps; ++i) w.add_summary(summaries[static_cast<std::size_t>(i)], i);
      w.close();
    }
    const double writer_ms = ms_since(t0);
    std::filesystem::create_directories(dir / "raw");
    t0 = Clock::now();
    {
      std::FILE* f = std::fopen((dir / "raw" / "events.out.tfevents.raw").c_str(), "wb");
      if (f == nullptr) throw std::runtime_error("EVENTS: cannot write to " + dir.string());
      std::fwrite(framed.data(), 1, framed.size(), f);
      std::fclose(f);
    }
    const double raw_ms = ms_since(t0);
    if (r == 0) continue;  // warm-up
    writer_rate.push_back(steps / writer_ms * 1e3);
    raw_rate.push_back(steps / raw_ms * 1e3);
    ratio.push_back(raw_ms / writer_ms);
  }
  std::filesystem::remove_all(dir);
  std::printf(
      "EVENTS %d steps of 2 scalars: FileWriter median %.0f events/s (%s); fwrite of the same "
      "records %.0f "
      "events/s; ratio median %.2f (%s)\n",
      steps, median_of(writer_rate), spread(writer_rate).c_str(), median_of(raw_rate),
      median_of(ratio), spread(ratio).c_str());
  std::fflush(stdout);
}

}  // namespace af::bench
