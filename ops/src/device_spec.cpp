#include "actorflow/ops/device_spec.hpp"

#include <cctype>
#include <climits>
#include <string>
#include <utility>

#include "actorflow/ops/errors.hpp"

namespace af {

namespace {

// -- lexical helpers (TensorFlow's device_name_utils.cc) ----------------------

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_alpha_num(char c) { return is_alpha(c) || (c >= '0' && c <= '9'); }

bool consume_prefix(std::string_view& in, std::string_view prefix) {
  if (!in.starts_with(prefix)) return false;
  in.remove_prefix(prefix.size());
  return true;
}

// A job name is a letter followed by letters, digits and '_', running up to the next '/'.
bool consume_job_name(std::string_view& in, std::string& job) {
  if (in.empty() || !is_alpha(in[0])) return false;
  std::size_t i = 1;
  for (; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '/') break;
    if (!(is_alpha_num(c) || c == '_')) return false;
  }
  job.assign(in.substr(0, i));
  in.remove_prefix(i);
  return true;
}

// A device type is like a job name but also stops at ':'.
bool consume_device_type(std::string_view& in, std::string& device_type) {
  if (in.empty() || !is_alpha(in[0])) return false;
  std::size_t i = 1;
  for (; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '/' || c == ':') break;
    if (!(is_alpha_num(c) || c == '_')) return false;
  }
  device_type.assign(in.substr(0, i));
  in.remove_prefix(i);
  return true;
}

// Leading decimal digits (no sign). TensorFlow reads a uint64 and truncates it to int; values
// beyond INT_MAX are rejected here instead of wrapping.
bool consume_number(std::string_view& in, int& value) {
  std::size_t i = 0;
  long long accumulated = 0;
  for (; i < in.size() && in[i] >= '0' && in[i] <= '9'; ++i) {
    accumulated = accumulated * 10 + (in[i] - '0');
    if (accumulated > INT_MAX) return false;
  }
  if (i == 0) return false;
  value = static_cast<int>(accumulated);
  in.remove_prefix(i);
  return true;
}

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Python's DeviceSpec turns the legacy lower-case "cpu"/"gpu" into "CPU"/"GPU"; other
// device types keep their spelling ("myspecialdevice", "MyFunnyDevice").
std::string canonical_device_type(std::string device_type) {
  if (device_type == "cpu") return "CPU";
  if (device_type == "gpu") return "GPU";
  return device_type;
}

// Consumes an optional "*" (unset) or a number after "/replica:", "/task:" or an index.
bool consume_number_or_wildcard(std::string_view& in, std::optional<int>& field) {
  if (consume_prefix(in, "*")) {
    field.reset();
    return true;
  }
  int value = 0;
  if (!consume_number(in, value)) return false;
  field = value;
  return true;
}

enum class ParseResult { ok, malformed, multiple_device_types };

// DeviceNameUtils::ParseFullName: a sequence of "/job:", "/replica:", "/task:", "/device:",
// "/cpu:" and "/gpu:" components in any order; "*" leaves a field unset.
ParseResult parse_full_name(std::string_view name, DeviceSpec& out) {
  out = DeviceSpec{};
  if (name == "/") return ParseResult::ok;
  int device_components = 0;
  while (!name.empty()) {
    bool progress = false;
    if (consume_prefix(name, "/job:")) {
      if (consume_prefix(name, "*")) {
        out.job.reset();
      } else {
        std::string job;
        if (!consume_job_name(name, job)) return ParseResult::malformed;
        out.job = std::move(job);
      }
      progress = true;
    }
    if (consume_prefix(name, "/replica:")) {
      if (!consume_number_or_wildcard(name, out.replica)) return ParseResult::malformed;
      progress = true;
    }
    if (consume_prefix(name, "/task:")) {
      if (!consume_number_or_wildcard(name, out.task)) return ParseResult::malformed;
      progress = true;
    }
    if (consume_prefix(name, "/device:")) {
      ++device_components;
      if (consume_prefix(name, "*")) {
        out.device_type.reset();
      } else {
        std::string device_type;
        if (!consume_device_type(name, device_type)) return ParseResult::malformed;
        out.device_type = canonical_device_type(std::move(device_type));
      }
      if (!consume_prefix(name, ":")) {
        out.device_index.reset();
      } else if (!consume_number_or_wildcard(name, out.device_index)) {
        return ParseResult::malformed;
      }
      progress = true;
    }
    // Legacy "/cpu:N" and "/gpu:N" (either case) mean "/device:CPU:N" and "/device:GPU:N".
    for (std::string_view type : {"CPU", "GPU"}) {
      const std::string upper_prefix = "/" + std::string(type) + ":";
      if (consume_prefix(name, lower_case(upper_prefix)) || consume_prefix(name, upper_prefix)) {
        ++device_components;
        out.device_type = std::string(type);
        if (!consume_number_or_wildcard(name, out.device_index)) return ParseResult::malformed;
        progress = true;
      }
    }
    if (!progress) return ParseResult::malformed;
  }
  // The C++ parser lets a later device component override an earlier one; Python's
  // DeviceSpec.from_string, which every tf.device() string passes through first, refuses it.
  if (device_components > 1) return ParseResult::multiple_device_types;
  return ParseResult::ok;
}

// DeviceNameUtils::ParseLocalName: "TYPE:N" with nothing around it.
bool parse_local_name(std::string_view name, DeviceSpec& out) {
  out = DeviceSpec{};
  std::string device_type;
  int index = 0;
  if (!consume_device_type(name, device_type) || !consume_prefix(name, ":") ||
      !consume_number(name, index) || !name.empty()) {
    return false;
  }
  out.device_type = canonical_device_type(std::move(device_type));
  out.device_index = index;
  return true;
}

}  // namespace

// -- parsing ------------------------------------------------------------------

Status DeviceSpec::parse(std::string_view name, DeviceSpec* out) {
  DeviceSpec parsed;
  switch (parse_full_name(name, parsed)) {
    case ParseResult::ok:
      *out = std::move(parsed);
      return ok_status();
    case ParseResult::multiple_device_types:
      return invalid_argument("Malformed device specification '" + std::string(name) +
                              "': cannot specify multiple device types");
    case ParseResult::malformed:
      break;
  }
  if (parse_local_name(name, parsed)) {
    *out = std::move(parsed);
    return ok_status();
  }
  return invalid_argument("Malformed device specification '" + std::string(name) + "'");
}

DeviceSpec DeviceSpec::parse(std::string_view name) {
  DeviceSpec out;
  if (Status status = parse(name, &out); !status.ok()) throw InvalidArgumentError(status);
  return out;
}

// -- merging ------------------------------------------------------------------

void DeviceSpec::merge_from(const DeviceSpec& other) {
  if (other.job) job = other.job;
  if (other.replica) replica = other.replica;
  if (other.task) task = other.task;
  if (other.device_type) device_type = other.device_type;
  if (other.device_index) device_index = other.device_index;
}

Status DeviceSpec::merge_compatible(const DeviceSpec& other, bool allow_soft_placement) {
  // TensorFlow merges field by field and names the partially merged target in its message;
  // the merge runs on a copy so that a failed merge leaves this spec as it was.
  DeviceSpec target = *this;
  auto incompatible = [&](std::string_view what) {
    return invalid_argument("Cannot merge devices with incompatible " + std::string(what) + ": '" +
                            target.to_string() + "' and '" + other.to_string() + "'");
  };
  if (other.job) {
    if (target.job && *target.job != *other.job) return incompatible("jobs");
    target.job = other.job;
  }
  if (other.replica) {
    if (target.replica && *target.replica != *other.replica) return incompatible("replicas");
    target.replica = other.replica;
  }
  if (other.task) {
    if (target.task && *target.task != *other.task) return incompatible("tasks");
    target.task = other.task;
  }
  if (other.device_type) {
    if (target.device_type && *target.device_type != *other.device_type) {
      if (!allow_soft_placement) return incompatible("types");
      // Soft placement: drop the device altogether and let the placer choose.
      target.device_type.reset();
      target.device_index.reset();
      *this = std::move(target);
      return ok_status();
    }
    target.device_type = other.device_type;
  }
  if (other.device_index) {
    if (target.device_index && *target.device_index != *other.device_index) {
      if (!allow_soft_placement) return incompatible("ids");
      target.device_index.reset();
      *this = std::move(target);
      return ok_status();
    }
    target.device_index = other.device_index;
  }
  *this = std::move(target);
  return ok_status();
}

// -- observers ----------------------------------------------------------------

bool DeviceSpec::matches(const DeviceSpec& device) const {
  // DeviceNameUtils::IsSpecification: a field set here must be set, and equal, there.
  if (job && job != device.job) return false;
  if (replica && replica != device.replica) return false;
  if (task && task != device.task) return false;
  if (device_type && device_type != device.device_type) return false;
  if (device_index && device_index != device.device_index) return false;
  return true;
}

bool DeviceSpec::fully_specified() const {
  return job && replica && task && device_type && device_index;
}

bool DeviceSpec::empty() const {
  return !job && !replica && !task && !device_type && !device_index;
}

std::string DeviceSpec::to_string() const {
  std::string out;
  if (job) out += "/job:" + *job;
  if (replica) out += "/replica:" + std::to_string(*replica);
  if (task) out += "/task:" + std::to_string(*task);
  if (device_type) {
    out += "/device:" + *device_type + ":";
    out += device_index ? std::to_string(*device_index) : std::string("*");
  }
  return out;
}

std::string DeviceSpec::to_legacy_string() const {
  std::string out;
  if (job) out += "/job:" + *job;
  if (replica) out += "/replica:" + std::to_string(*replica);
  if (task) out += "/task:" + std::to_string(*task);
  if (device_type) {
    out += "/" + lower_case(*device_type) + ":";
    out += device_index ? std::to_string(*device_index) : std::string("*");
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const DeviceSpec& s) { return os << s.to_string(); }

std::string full_device_name(std::string_view job, int replica, int task,
                             std::string_view device_type, int index) {
  std::string out = "/job:";
  out += job;
  out += "/replica:" + std::to_string(replica);
  out += "/task:" + std::to_string(task);
  out += "/device:";
  out += device_type;
  out += ":" + std::to_string(index);
  return out;
}

}  // namespace af
