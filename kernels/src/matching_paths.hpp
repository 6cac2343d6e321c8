#pragma once

// TensorFlow's GetMatchingPaths over the POSIX file system, as the MatchingFiles kernel
// (serialize_io_file_ops.cpp) and RecordInput's readers (queues/src/record_input.cpp) use it.
#include <string>
#include <vector>

namespace af::detail {

/// Appends the paths matching the glob `pattern` (fnmatch with FNM_PATHNAME, level by level;
/// a pattern without globbing characters matches itself when it exists; "" matches nothing)
/// to `results`, in the order the directory listings give them.
void matching_paths(const std::string& pattern, std::vector<std::string>* results);

}  // namespace af::detail
