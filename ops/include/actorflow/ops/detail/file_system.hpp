#pragma once

// TensorFlow's POSIX file system (tsl's path.cc, posix_file_system.cc and
// file_system_helper.cc) as actorflow's file kernels, the V1 checkpoint reader and RecordInput
// use it: paths may be plain or "file://" URIs, errors carry TensorFlow's texts
// ("x; No such file or directory").
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af::detail {

/// `io::Dirname`: everything before the last '/' ("" when there is none; "/" for "/x"), the
/// URI's "scheme://host" kept.
std::string dirname(std::string_view name);

/// `io::JoinPath` of two names: one '/' between them, none added to an empty side.
std::string join_path(std::string_view a, std::string_view b);

/// OK for a plain path or a "file://" URI; Unimplemented "File system scheme 's' not
/// implemented (file: 'name')" for any other scheme, as TensorFlow without that file system.
Status check_scheme(const std::string& name);

/// The local path of `name` (`FileSystem::TranslateName`): the URI's path cleaned ("/" for
/// "file://host"), a plain path as it is.
std::string local_path(const std::string& name);

/// Reads the whole file `name` into `*out` (`ReadFileToString`). Errors: those of
/// `check_scheme`; NotFound "name; No such file or directory" and the other errno errors
/// ("path; Is a directory").
Status read_entire_file(const std::string& name, std::string* out);

/// True when `name` exists (any kind of file).
bool file_exists(const std::string& name);

/// OK when `name` is a directory; FailedPrecondition "name is not a directory", or the
/// errno error of stat.
Status is_directory(const std::string& name);

/// Makes each missing directory of `dir`, mode 0755 (`RecursivelyCreateDir`).
/// FailedPrecondition when a part of it is a file.
Status recursively_create_dir(const std::string& dir);

/// Writes `contents` to `name`, created or truncated (`WriteStringToFile`).
Status write_string_to_file(const std::string& name, const std::string& contents);

/// Appends the paths matching the glob `pattern` to `results` (`GetMatchingPaths`: fnmatch
/// with FNM_PATHNAME, level by level; a pattern without globbing characters matches itself
/// when it exists; "" matches nothing), in the order the directory listings give them.
void matching_paths(const std::string& pattern, std::vector<std::string>* results);

}  // namespace af::detail
