// TensorFlow's POSIX file system as the file kernels, the V1 checkpoint reader and RecordInput
// use it (tsl's path.cc, posix_file_system.cc and file_system_helper.cc's GetMatchingPaths),
// with its messages ("x; No such file or directory"). Paths may be plain or "file://" URIs;
// other schemes are Unimplemented, as in a TensorFlow build without that file system.
#include "actorflow/ops/detail/file_system.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/detail/errno_status.hpp"

namespace af::detail {

// -- paths (tsl/platform/path.cc) ------------------------------------------------------------

// io::ParseURI: "scheme://host/path" with a scheme of [a-zA-Z][0-9a-zA-Z.]+; without one the
// whole name is the path.
struct Uri {
  std::string_view scheme, host, path;
};

static Uri parse_uri(std::string_view name) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  auto letter_digit_dot = [&](char c) { return letter(c) || (c >= '0' && c <= '9') || c == '.'; };
  std::size_t i = 0;
  if (name.empty() || !letter(name[0])) return {{}, {}, name};
  for (i = 1; i < name.size() && letter_digit_dot(name[i]); ++i) {
  }
  if (i < 2 || name.substr(i, 3) != "://") return {{}, {}, name};
  const std::string_view rest = name.substr(i + 3);
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {name.substr(0, i), rest, {}};
  return {name.substr(0, i), rest.substr(0, slash), rest.substr(slash)};
}

// The length of `name`'s "scheme://host" part.
static std::size_t uri_prefix_length(std::string_view name) {
  return name.size() - parse_uri(name).path.size();
}

// io::SplitPath: (dirname, basename) of a name (its URI prefix kept in the dirname).
static std::pair<std::string, std::string> split_path(std::string_view name) {
  const std::size_t prefix = uri_prefix_length(name);
  const std::string_view path = name.substr(prefix);
  const std::size_t pos = path.rfind('/');
  if (pos == std::string_view::npos)
    return {std::string(name.substr(0, prefix)), std::string(path)};
  if (pos == 0) return {std::string(name.substr(0, prefix + 1)), std::string(path.substr(1))};
  return {std::string(name.substr(0, prefix + pos)), std::string(path.substr(pos + 1))};
}

std::string dirname(std::string_view name) { return split_path(name).first; }

// io::JoinPath of two names.
std::string join_path(std::string_view a, std::string_view b) {
  if (b.empty()) return std::string(a);
  if (a.empty()) return std::string(b);
  if (b.front() == '/') b.remove_prefix(1);
  std::string out(a);
  if (out.back() != '/') out += '/';
  out += b;
  return out;
}

// io::CleanPath: "." and ".." resolved lexically, repeated and trailing '/' dropped, "." for
// an empty result.
static std::string clean_path(std::string_view in) {
  auto at = [&](std::size_t i) { return i < in.size() ? in[i] : '\0'; };
  std::string out;
  std::size_t src = 0;
  const bool absolute = at(0) == '/';
  if (absolute) {
    out += '/';
    ++src;
    while (at(src) == '/') ++src;
  }
  std::size_t limit = out.size();  // ".." never backtracks past here
  while (at(src)) {
    bool parsed = false;
    if (at(src) == '.') {
      if (at(src + 1) == '/' || !at(src + 1)) {
        if (at(++src)) ++src;
        parsed = true;
      } else if (at(src + 1) == '.' && (at(src + 2) == '/' || !at(src + 2))) {
        src += 2;
        if (out.size() != limit) {
          std::size_t d = out.size() - 1;
          while (d != limit && out[d - 1] != '/') --d;
          out.resize(d);
        } else if (!absolute) {
          // Nothing to take back: keep the "../".
          src -= 2;
          out += in[src++];
          out += in[src++];
          if (at(src)) out += at(src);
          limit = out.size();
        }
        if (at(src)) ++src;
        parsed = true;
      }
    }
    if (!parsed) {
      while (at(src) && at(src) != '/') out += in[src++];
      if (at(src)) out += in[src++];
    }
    while (at(src) == '/') ++src;
  }
  if (out.empty()) return ".";
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// Env::GetFileSystemForFile: the local file system serves plain paths and "file://".
Status check_scheme(const std::string& name) {
  const std::string_view scheme = parse_uri(name).scheme;
  if (scheme.empty() || scheme == "file") return {};
  return unimplemented("File system scheme '" + std::string(scheme) + "' not implemented (file: '" +
                       name + "')");
}

// FileSystem::TranslateName: the local path of a name ("/" for "file://host").
std::string local_path(const std::string& name) {
  if (name.empty()) return name;
  const Uri uri = parse_uri(name);
  if (uri.path.empty()) return "/";
  return clean_path(uri.path);
}

// -- the POSIX file system -------------------------------------------------------------------

// ReadEntireFile through NewRandomAccessFile: open's error names the file as given, read's
// its local path ("/tmp/d; Is a directory").
Status read_entire_file(const std::string& name, std::string* out) {
  ACTORFLOW_RETURN_IF_ERROR(check_scheme(name));
  const std::string path = local_path(name);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status(name, errno);
  out->clear();
  std::vector<char> buffer(std::size_t{1} << 20);  // BufferedInputStream's 1 MiB
  Status status;
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got > 0) {
      out->append(buffer.data(), static_cast<std::size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR && errno != EAGAIN) {
      status = errno_status(path, errno);
      break;
    }
  }
  ::close(fd);
  return status;
}

bool file_exists(const std::string& name) { return ::access(local_path(name).c_str(), F_OK) == 0; }

// FileSystem::IsDirectory: OK, or FailedPrecondition "<name> is not a directory".
Status is_directory(const std::string& name) {
  struct stat info {};
  if (::stat(local_path(name).c_str(), &info) != 0) return errno_status(name, errno);
  if (!S_ISDIR(info.st_mode)) return failed_precondition(name + " is not a directory");
  return {};
}

// FileSystem::RecursivelyCreateDir: each missing directory of `dir` made, 0755.
Status recursively_create_dir(const std::string& dir) {
  const std::size_t prefix_length = uri_prefix_length(dir);
  const std::string prefix = dir.substr(0, prefix_length);
  std::string remaining = dir.substr(prefix_length);
  std::vector<std::string> missing;
  while (!remaining.empty()) {
    const std::string current = prefix + remaining;
    if (file_exists(current)) {
      const Status s = is_directory(current);
      if (s.ok()) break;
      if (s.code() == Code::failed_precondition) return s;
      return failed_precondition("Path " + current + " is neither a file nor a directory");
    }
    if (remaining.back() != '/') missing.push_back(split_path(remaining).second);
    const std::string parent = dirname(remaining);
    if (parent == remaining) break;
    remaining = parent;
  }
  std::string built = remaining;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    built = join_path(built, *it);
    const std::string name = prefix + built;
    const std::string path = local_path(name);
    if (path.empty()) continue;
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return errno_status(name, errno);
  }
  return {};
}

// WriteStringToFile through NewWritableFile ("w": created or truncated).
Status write_string_to_file(const std::string& name, const std::string& contents) {
  ACTORFLOW_RETURN_IF_ERROR(check_scheme(name));
  const std::string path = local_path(name);
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return errno_status(name, errno);
  Status status;
  if (!contents.empty() &&
      std::fwrite(contents.data(), 1, contents.size(), file) != contents.size())
    status = errno_status(path, errno);
  if (std::fclose(file) != 0 && status.ok()) status = errno_status(path, errno);
  return status;
}

// -- GetMatchingPaths ------------------------------------------------------------------------

static constexpr char kGlobbingChars[] = "*?[\\";

static bool is_globbing_pattern(std::string_view s) {
  return s.find_first_of(kGlobbingChars) != std::string_view::npos;
}

// The names below `dir` (not "." and ".."); none when it cannot be read.
static std::vector<std::string> children_of(const std::string& dir) {
  std::vector<std::string> children;
  DIR* d = ::opendir(local_path(dir).c_str());
  if (d == nullptr) return children;
  while (const dirent* entry = ::readdir(d)) {
    const std::string_view base = entry->d_name;
    if (base != "." && base != "..") children.emplace_back(base);
  }
  ::closedir(d);
  return children;
}

// The directory prefixes of a pattern, parent first: "./a*/b" gives ".", "./a*", "./a*/b".
// A pattern whose fixed part names no directory is taken as "./<pattern>"; a trailing '/' is
// dropped.
static std::vector<std::string> all_directory_prefixes(const std::string& pattern) {
  const std::string fixed = pattern.substr(0, pattern.find_first_of(kGlobbingChars));
  std::string dir = dirname(fixed).empty() ? join_path(".", pattern) : pattern;
  if (pattern.back() == '/') dir = dirname(dir);
  std::vector<std::string> dirs;
  while (!dir.empty()) {
    dirs.push_back(dir);
    std::string parent = dirname(dir);
    if (parent == dir) break;
    dir = std::move(parent);
  }
  std::reverse(dirs.begin(), dirs.end());
  return dirs;
}

// internal::GetMatchingPaths: the paths matching `pattern` (fnmatch with FNM_PATHNAME, level
// by level; a pattern without globbing characters matches itself when it exists; "" nothing).
void matching_paths(const std::string& pattern, std::vector<std::string>* results) {
  if (pattern.empty()) return;
  const std::vector<std::string> dirs = all_directory_prefixes(pattern);
  std::size_t matching = 0;
  while (matching < dirs.size() && !is_globbing_pattern(dirs[matching])) ++matching;
  if (matching == dirs.size()) {
    if (file_exists(pattern)) results->push_back(pattern);
    return;
  }
  if (matching == 0) return;  // only a bare glob could start here, and patching prevents it
  std::deque<std::pair<std::string, std::size_t>> queue{{dirs[matching - 1], matching - 1}};
  while (!queue.empty()) {
    auto [parent, level] = std::move(queue.front());
    queue.pop_front();
    const std::size_t index = level + 1;
    const std::string& match_pattern = dirs[index];
    for (const std::string& child : children_of(parent)) {
      const std::string path = join_path(parent, child);
      if (::fnmatch(match_pattern.c_str(), path.c_str(), FNM_PATHNAME) != 0) continue;
      if (index == dirs.size() - 1)
        results->push_back(path);
      else if (is_directory(path).ok())
        queue.emplace_back(path, index);
    }
  }
}

}  // namespace af::detail
