// csv_pipeline: the chapter's multi-reader input pipeline (Figures 12-9 and 12-10).
//
//   actorflow-csv-pipeline [--files N] [--lines L] [--readers K] [--loops J] [--read-up-to R]
//                          [--batch B] [--dir D] [FILE.csv ...]
//
// Writes N sharded CSV files (or takes the given ones), runs K TextLineReader actors that
// take file names from a FIFOQueue and push decoded (x1, x2, target) instances into a
// RandomShuffleQueue, and consumes mini-batches until the end of input, printing
// records/s and the queue fill as it goes and a summary at the end.
#include <actorflow/actorflow.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli.hpp"
#include "pipeline.hpp"

int main(int argc, char** argv) {
  int files = 8;
  std::int64_t lines = 250000;
  std::string dir = (std::filesystem::temp_directory_path() / "actorflow_csv_pipeline").string();
  af::apps::PipelineOptions options;
  af::apps::App app(
      "actorflow-csv-pipeline",
      "The chapter's multi-reader input pipeline (Figures 12-9 and 12-10): K TextLineReader "
      "actors\n"
      "take file names from a FIFOQueue and push decoded instances into a RandomShuffleQueue.");
  auto& cli = app.cli;
  using af::apps::integer_in;
  cli.add_option("--files", files, "CSV shards to write when no FILE is given")
      ->check(integer_in(1));
  cli.add_option("--lines", lines, "lines per written shard")->check(integer_in(1));
  cli.add_option("--readers", options.readers, "TextLineReader actors (K)")->check(integer_in(1));
  cli.add_option("--loops", options.loops_per_reader, "runner loops per reader (J)")
      ->check(integer_in(1));
  cli.add_option("--read-up-to", options.read_up_to, "records per read (1: read, more: read_up_to)")
      ->check(integer_in(1));
  cli.add_option("--batch", options.batch_size, "instances per dequeue_up_to")
      ->check(integer_in(1));
  cli.add_option("--dir", dir, "where the shards are written");
  cli.add_option("files", options.files, "CSV files to read instead of written shards")
      ->check(CLI::ExistingFile);
  if (auto code = app.parse(argc, argv)) return *code;
  if (options.files.empty()) {
    std::cout << "writing " << files << " CSV shards of " << lines << " lines to " << dir << "\n";
    options.files = af::apps::write_csv_shards(dir, files, lines);
  }
  auto start = std::chrono::steady_clock::now();
  options.progress = [&start](std::int64_t records, std::int64_t fill) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("\r  %12lld records  %10.0f records/s  instance queue fill %6lld   ",
                static_cast<long long>(records), s > 0 ? records / s : 0.0,
                static_cast<long long>(fill));
    std::fflush(stdout);
  };
  std::cout << "pipeline: " << options.files.size() << " files -> filename queue -> "
            << options.readers << " TextLineReader actors (" << options.loops_per_reader
            << " runner loops each, read_up_to " << options.read_up_to
            << ") -> decode_csv -> RandomShuffleQueue -> dequeue_up_to(" << options.batch_size
            << ")\n";
  try {
    start = std::chrono::steady_clock::now();
    auto r = af::apps::run_pipeline(options);
    std::printf(
        "\nsummary: %lld records in %.3f s = %.0f records/s, checksum %.3f, peak RSS %ld KiB\n",
        static_cast<long long>(r.records), r.seconds, r.records / r.seconds, r.checksum,
        af::apps::peak_rss_kib());
  } catch (const af::Error& e) {
    std::cerr << "\ncsv_pipeline failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
