// libFuzzer target for the events-file reader (formats/src/event_file.cpp) and MergeSummary
// (formats/src/summary.cpp): each input is read as an events file. Checked besides the
// sanitizers: reading ends at the end of the file or with DataLoss naming the file (never
// another error, never a crash), and merging the summaries read (or the raw input split in
// two) either succeeds with every value kept or fails with InvalidArgument.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/formats/event_file.hpp"
#include "actorflow/formats/summary.hpp"
#include "actorflow/ops/errors.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "event_file_fuzzer: %s (%s)\n", what, detail.c_str());
  std::abort();
}

const std::string& scratch_path() {
  static const std::string path =
      "/tmp/event_file_fuzzer." + std::to_string(::getpid()) + ".tfevents";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  {
    std::FILE* f = std::fopen(scratch_path().c_str(), "wb");
    if (!f) fail("cannot write the scratch file", scratch_path());
    if (size && std::fwrite(data, 1, size, f) != size) fail("short write", scratch_path());
    std::fclose(f);
  }
  std::vector<std::string> summaries;
  try {
    af::summary::EventFileReader reader(scratch_path());
    int events = 0;
    while (auto e = reader.next()) {
      if (++events > 1 << 16) fail("more events than the input could hold", std::to_string(events));
      if (e->has_summary)
        summaries.push_back(af::summary::scalar("n", static_cast<float>(e->summary.size())));
    }
  } catch (const af::DataLossError& e) {
    if (std::string(e.what()).find(scratch_path()) == std::string::npos)
      fail("DataLoss without the file", e.what());
  } catch (const af::Error& e) {
    fail("an error other than DataLoss", e.what());
  }
  const std::vector<std::string> halves = {input.substr(0, size / 2), input.substr(size / 2)};
  for (const std::vector<std::string>* parts : {&std::as_const(summaries), &halves}) {
    auto merged = af::summary::merge(*parts);
    if (!merged.ok() && merged.status().code() != af::Code::invalid_argument)
      fail("merge failed with another code", merged.status().message());
  }
  return 0;
}
