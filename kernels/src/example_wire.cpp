// The wire format of tf.train.Example (field numbers from TensorFlow's example.proto and
// feature.proto): Example.features = 1; Features.feature = 1 (map<string, Feature>: entry
// key = 1, value = 2); Feature.bytes_list = 1, float_list = 2, int64_list = 3; each list's
// `value` = 1 (floats and int64s packed or not).
#include "example_wire.hpp"

#include <cstring>

#include "actorflow/tf/example.pb.h"

namespace af::detail {

namespace {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

/// A cursor over a message's bytes.
struct Reader {
  const char* p;
  const char* end;

  explicit Reader(std::string_view s) : p(s.data()), end(s.data() + s.size()) {}
  bool done() const { return p >= end; }

  bool varint(std::uint64_t* v) {
    std::uint64_t out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) return false;
      const auto b = static_cast<std::uint8_t>(*p++);
      out |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        *v = out;
        return true;
      }
    }
    return false;
  }
  bool tag(std::uint32_t* field, std::uint32_t* wire) {
    std::uint64_t t = 0;
    if (!varint(&t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) return false;
    *field = static_cast<std::uint32_t>(t >> 3);
    *wire = static_cast<std::uint32_t>(t & 7);
    return true;
  }
  bool bytes(std::size_t n, std::string_view* out) {
    if (static_cast<std::size_t>(end - p) < n) return false;
    if (out) *out = std::string_view(p, n);
    p += n;
    return true;
  }
  bool length_delimited(std::string_view* out) {
    std::uint64_t n = 0;
    return varint(&n) && n <= static_cast<std::uint64_t>(end - p) &&
           bytes(static_cast<std::size_t>(n), out);
  }
  /// Skips a field of wire type `wire` (groups are refused).
  bool skip(std::uint32_t wire) {
    std::uint64_t v = 0;
    switch (wire) {
      case kVarint:
        return varint(&v);
      case kFixed64:
        return bytes(8, nullptr);
      case kLength:
        return length_delimited(nullptr);
      case kFixed32:
        return bytes(4, nullptr);
      default:
        return false;
    }
  }
};

/// Counts (and checks) the values of one part of a list of `kind`.
bool count_values(DType kind, std::string_view list, std::int64_t* count) {
  Reader r(list);
  while (!r.done()) {
    std::uint32_t field = 0, wire = 0;
    if (!r.tag(&field, &wire)) return false;
    if (field != 1) {
      if (!r.skip(wire)) return false;
      continue;
    }
    std::string_view packed;
    if (kind == DType::string && wire == kLength) {
      if (!r.length_delimited(nullptr)) return false;
      ++*count;
    } else if (kind == DType::float32 && wire == kFixed32) {
      if (!r.bytes(4, nullptr)) return false;
      ++*count;
    } else if (kind == DType::float32 && wire == kLength) {
      if (!r.length_delimited(&packed) || packed.size() % 4 != 0) return false;
      *count += static_cast<std::int64_t>(packed.size() / 4);
    } else if (kind == DType::int64 && wire == kVarint) {
      std::uint64_t v = 0;
      if (!r.varint(&v)) return false;
      ++*count;
    } else if (kind == DType::int64 && wire == kLength) {
      if (!r.length_delimited(&packed)) return false;
      Reader values(packed);
      std::uint64_t v = 0;
      while (!values.done()) {
        if (!values.varint(&v)) return false;
        ++*count;
      }
    } else if (!r.skip(wire)) {  // field 1 of another wire type: an unknown field
      return false;
    }
  }
  return true;
}

/// Writes the values of one part of a list (already checked by count_values) from `at` on;
/// returns the next free element.
std::int64_t copy_values(DType kind, std::string_view list, Tensor& out, std::int64_t at) {
  Reader r(list);
  while (!r.done()) {
    std::uint32_t field = 0, wire = 0;
    r.tag(&field, &wire);
    if (field != 1) {
      r.skip(wire);
      continue;
    }
    std::string_view v;
    if (kind == DType::string && wire == kLength) {
      r.length_delimited(&v);
      out.data<std::string>()[at++].assign(v.data(), v.size());
    } else if (kind == DType::float32 && wire == kFixed32) {
      r.bytes(4, &v);
      std::memcpy(out.data<float>() + at++, v.data(), 4);
    } else if (kind == DType::float32 && wire == kLength) {
      r.length_delimited(&v);
      std::memcpy(out.data<float>() + at, v.data(), v.size());
      at += static_cast<std::int64_t>(v.size() / 4);
    } else if (kind == DType::int64 && wire == kVarint) {
      std::uint64_t x = 0;
      r.varint(&x);
      out.data<std::int64_t>()[at++] = static_cast<std::int64_t>(x);
    } else if (kind == DType::int64 && wire == kLength) {
      r.length_delimited(&v);
      Reader values(v);
      std::uint64_t x = 0;
      while (!values.done() && values.varint(&x))
        out.data<std::int64_t>()[at++] = static_cast<std::int64_t>(x);
    } else {
      r.skip(wire);
    }
  }
  return at;
}

/// Reads a Feature message into `f` (merging into what it holds).
bool parse_feature(std::string_view bytes, FeatureView* f) {
  Reader r(bytes);
  while (!r.done()) {
    std::uint32_t field = 0, wire = 0;
    if (!r.tag(&field, &wire)) return false;
    if (field < 1 || field > 3 || wire != kLength) {
      if (!r.skip(wire)) return false;
      continue;
    }
    std::string_view list;
    if (!r.length_delimited(&list)) return false;
    const DType kind = field == 1 ? DType::string : field == 2 ? DType::float32 : DType::int64;
    if (f->kind != kind) {  // the oneof's other member: replaced
      *f = FeatureView{};
      f->kind = kind;
      f->list = list;
    } else {
      f->more.push_back(list);  // the same member again: merged
    }
  }
  return true;
}

/// Reads one map entry of Features into (key, value).
bool parse_entry(std::string_view bytes, std::string_view* key, FeatureView* value) {
  Reader r(bytes);
  while (!r.done()) {
    std::uint32_t field = 0, wire = 0;
    if (!r.tag(&field, &wire)) return false;
    std::string_view sub;
    if (field == 1 && wire == kLength) {
      if (!r.length_delimited(key)) return false;
    } else if (field == 2 && wire == kLength) {
      if (!r.length_delimited(&sub) || !parse_feature(sub, value)) return false;
    } else if (!r.skip(wire)) {
      return false;
    }
  }
  if (value->kind == DType::invalid) return true;
  value->count = 0;
  if (!count_values(value->kind, value->list, &value->count)) return false;
  for (std::string_view part : value->more)
    if (!count_values(value->kind, part, &value->count)) return false;
  return true;
}

}  // namespace

void FeatureView::copy_to(Tensor& out, std::int64_t at) const {
  at = copy_values(kind, list, out, at);
  for (std::string_view part : more) at = copy_values(kind, part, out, at);
}

bool ExampleView::parse(std::string_view bytes) {
  features_.clear();
  Reader r(bytes);
  while (!r.done()) {
    std::uint32_t field = 0, wire = 0;
    if (!r.tag(&field, &wire)) return false;
    if (field != 1 || wire != kLength) {
      if (!r.skip(wire)) return false;
      continue;
    }
    std::string_view features;
    if (!r.length_delimited(&features)) return false;
    Reader f(features);
    while (!f.done()) {
      std::uint32_t ffield = 0, fwire = 0;
      if (!f.tag(&ffield, &fwire)) return false;
      if (ffield != 1 || fwire != kLength) {
        if (!f.skip(fwire)) return false;
        continue;
      }
      std::string_view entry;
      if (!f.length_delimited(&entry)) return false;
      std::pair<std::string_view, FeatureView> e;
      if (!parse_entry(entry, &e.first, &e.second)) return false;
      features_.push_back(std::move(e));
    }
  }
  return true;
}

const FeatureView* ExampleView::find(std::string_view key) const {
  // The last entry of a key is the map's value.
  for (auto it = features_.rbegin(); it != features_.rend(); ++it)
    if (it->first == key) return it->second.kind == DType::invalid ? nullptr : &it->second;
  return nullptr;
}

std::int64_t parse_examples(const Tensor& serialized, std::vector<ExampleView>* out,
                            std::deque<std::string>* storage) {
  const std::int64_t n = serialized.num_elements();
  out->resize(static_cast<std::size_t>(n));
  for (std::int64_t e = 0; e < n; ++e) {
    const std::string& bytes = serialized.data<std::string>()[e];
    auto& view = (*out)[static_cast<std::size_t>(e)];
    if (view.parse(bytes)) continue;
    tensorflow::Example example;
    if (!example.ParseFromString(bytes)) return e;
    example.DiscardUnknownFields();
    storage->push_back(example.SerializeAsString());
    if (!view.parse(storage->back())) return e;
  }
  return -1;
}

}  // namespace af::detail
