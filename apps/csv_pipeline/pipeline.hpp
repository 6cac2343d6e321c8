#pragma once

// The chapter's Figure 12-9/12-10 pipeline, shared by apps/csv_pipeline and the CSV
// pipeline benchmarks (apps/bench): K TextLineReader actors take file names from a FIFOQueue,
// decode CSV lines (x1, x2, target) and enqueue them into a RandomShuffleQueue; a consumer dequeues
// mini-batches until the end of input.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace af::apps {

struct PipelineOptions {
  std::vector<std::string> files;
  int readers = 2;
  /// QueueRunner loops running each reader's read-and-enqueue op, as the chapter's
  /// `QueueRunner(instance_queue, [enqueue_instance] * 5)`: while one loop's batch goes
  /// into the queue and its next step comes back, the reader decodes the other loops'
  /// requests instead of waiting (2 loops: 18.6 M lines/s with 2 readers on 2 cores;
  /// 4: 20.7 M; 5: the chapter's count; 8: 21.6 M).
  int loops_per_reader = 5;
  /// Lines per read step (`read_up_to`); 1 = the chapter's one-record `read`.
  std::int64_t read_up_to = 1024;
  std::int64_t batch_size = 1024;
  std::int64_t capacity = 16384;
  std::int64_t min_after_dequeue = 1024;
  /// Called about twice a second with (records so far, queue fill).
  std::function<void(std::int64_t, std::int64_t)> progress;
};

struct PipelineResult {
  std::int64_t records = 0;
  double seconds = 0;
  double checksum = 0;  ///< sum of x1 + x2 + target over all records
};

/// Writes `files` CSV files of `lines` lines each ("x1,x2,target" header, then
/// "<float>,<float>,<int>") into `dir`; returns their paths.
std::vector<std::string> write_csv_shards(const std::string& dir, int files, std::int64_t lines);

/// Runs the pipeline once.
PipelineResult run_pipeline(const PipelineOptions& options);

/// The baseline: reads the same files and parses them with std::from_chars in one loop.
PipelineResult parse_files_directly(const std::vector<std::string>& files);

/// The pipeline's floor on this machine: its work done by plain threads with no runtime.
/// `options.readers` threads take the files in turn, parse them as parse_files_directly does
/// into batches of `read_up_to` rows and push them into one mutex-guarded shuffle buffer
/// (`capacity`, `min_after_dequeue`); the calling thread takes random batches of
/// `batch_size` rows (each row drawn at random, its place filled by the last, as
/// RandomShuffleQueue does) and sums them.
PipelineResult run_threads_directly(const PipelineOptions& options);

/// Peak resident set size of this process in KiB.
long peak_rss_kib();

}  // namespace af::apps
