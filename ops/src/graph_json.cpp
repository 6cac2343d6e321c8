#include "actorflow/ops/graph_json.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"

namespace af {

namespace {

// Keeps fields in the order they are written (TensorFlow's field order), so exports read
// like MessageToJson output and are deterministic.
using Json = nlohmann::ordered_json;

// tensorContent is defined as little-endian bytes; the buffers are copied as they are.
static_assert(std::endian::native == std::endian::little,
              "graph JSON tensor content assumes a little-endian host");

constexpr std::uint32_t kCanonicalNaNBits = 0x7fc00000u;

[[noreturn]] void fail(std::string_view where, std::string_view what) {
  throw InvalidArgumentError(invalid_argument(std::string(where) + ": " + std::string(what)));
}

std::string single_quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// -- base64 (RFC 4648, as proto JSON encodes `bytes`) ----------------------------------------

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) |
                      std::uint32_t{bytes[i + 2]};
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += kBase64Alphabet[(v >> 6) & 63];
    out += kBase64Alphabet[v & 63];
  }
  if (std::size_t rest = size - i; rest > 0) {
    std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    if (rest == 2) v |= std::uint32_t{bytes[i + 1]} << 8;
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_encode(std::string_view s) { return base64_encode(s.data(), s.size()); }

int base64_digit(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  // '+' '/' of the standard alphabet, '-' '_' of the URL-safe one (proto JSON accepts both).
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Decodes standard or URL-safe base64, padded or not.
std::string base64_decode(std::string_view text, std::string_view where) {
  std::string_view body = text;
  int padding = 0;
  while (!body.empty() && body.back() == '=' && padding < 2) {
    body.remove_suffix(1);
    ++padding;
  }
  if (body.size() % 4 == 1 || (padding > 0 && (body.size() + padding) % 4 != 0))
    fail(where, "invalid base64 length in " + single_quoted(text));
  std::string out;
  out.reserve(body.size() / 4 * 3 + 2);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : body) {
    int d = base64_digit(c);
    if (d < 0) fail(where, "invalid base64 character in " + single_quoted(text));
    acc = (acc << 6) | static_cast<std::uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xffu);
    }
  }
  return out;
}

// -- UTF-8 ----------------------------------------------------------------------------------

// JSON text must be UTF-8; names, ops, inputs and devices travel as JSON strings.
bool valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra;
    std::uint32_t cp;
    std::uint32_t min;
    if ((c & 0xe0) == 0xc0) {
      extra = 1, cp = c & 0x1fu, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2, cp = c & 0x0fu, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3, cp = c & 0x07u, min = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i <= static_cast<std::size_t>(extra)) return false;  // truncated
    for (int k = 1; k <= extra; ++k) {
      auto cc = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

Json text_json(const std::string& s, std::string_view where) {
  if (!valid_utf8(s)) fail(where, "is not valid UTF-8");
  return s;
}

// -- scalars ----------------------------------------------------------------------------------

struct DTypeName {
  DType dtype;
  std::string_view name;
};

constexpr std::array<DTypeName, 11> kDTypeNames{{
    {DType::invalid, "DT_INVALID"},
    {DType::float32, "DT_FLOAT"},
    {DType::float64, "DT_DOUBLE"},
    {DType::int32, "DT_INT32"},
    {DType::int64, "DT_INT64"},
    {DType::uint8, "DT_UINT8"},
    {DType::boolean, "DT_BOOL"},
    {DType::string, "DT_STRING"},
    {DType::bfloat16, "DT_BFLOAT16"},
    {DType::resource, "DT_RESOURCE"},
    {DType::variant, "DT_VARIANT"},
}};

std::string_view dtype_json_name(DType t) {
  for (const auto& entry : kDTypeNames)
    if (entry.dtype == t) return entry.name;
  return "DT_INVALID";
}

Json int64_json(std::int64_t v) { return std::to_string(v); }

Json float_json(float f) {
  if (std::isnan(f)) {
    auto bits = std::bit_cast<std::uint32_t>(f);
    if (bits == kCanonicalNaNBits) return "NaN";
    char buf[24];
    std::snprintf(buf, sizeof buf, "NaN(0x%08x)", static_cast<unsigned>(bits));
    return std::string(buf);
  }
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  // Write the shortest decimal that reads back as `f` ("0.1", not 0.10000000149011612); the
  // double nearest to it is what the JSON number holds. Should double rounding ever map it to
  // another float, fall back to the exact double value of `f`.
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, f);
  double d = 0;
  auto back = std::from_chars(buf, res.ptr, d);
  if (back.ec != std::errc{} ||
      std::bit_cast<std::uint32_t>(static_cast<float>(d)) != std::bit_cast<std::uint32_t>(f))
    d = static_cast<double>(f);
  return d;
}

const Json& expect(const Json& j, bool ok, std::string_view where, std::string_view what) {
  if (!ok) fail(where, "expected " + std::string(what) + ", got " + j.dump());
  return j;
}

const std::string& get_string(const Json& j, std::string_view where) {
  return expect(j, j.is_string(), where, "a string").get_ref<const std::string&>();
}

const Json::array_t& get_array(const Json& j, std::string_view where) {
  return expect(j, j.is_array(), where, "an array").get_ref<const Json::array_t&>();
}

void expect_object(const Json& j, std::string_view where) {
  expect(j, j.is_object(), where, "an object");
}

bool get_bool(const Json& j, std::string_view where) {
  return expect(j, j.is_boolean(), where, "true or false").get<bool>();
}

std::int64_t get_int64(const Json& j, std::string_view where) {
  if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<std::int64_t>();
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(where, "integer " + j.dump() + " is out of range for int64");
    return static_cast<std::int64_t>(u);
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    std::int64_t v = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec == std::errc::result_out_of_range)
      fail(where, "integer " + single_quoted(s) + " is out of range for int64");
    if (s.empty() || res.ec != std::errc{} || res.ptr != s.data() + s.size())
      fail(where, "invalid integer " + single_quoted(s));
    return v;
  }
  fail(where, "expected an int64 (decimal string or integer), got " + j.dump());
}

float get_float(const Json& j, std::string_view where) {
  if (j.is_number()) {
    double d = j.get<double>();
    float f = static_cast<float>(d);
    if (!std::isfinite(d) || std::isinf(f))
      fail(where, "number " + j.dump() + " is out of range for float");
    return f;
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::bit_cast<float>(kCanonicalNaNBits);
    if (s == "Infinity") return std::numeric_limits<float>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<float>::infinity();
    // "NaN(0x7fa00001)": a NaN with its exact bits.
    if (s.size() == 15 && s.starts_with("NaN(0x") && s.ends_with(")")) {
      std::uint32_t bits = 0;
      auto res = std::from_chars(s.data() + 6, s.data() + 14, bits, 16);
      if (res.ec == std::errc{} && res.ptr == s.data() + 14 &&
          std::isnan(std::bit_cast<float>(bits)))
        return std::bit_cast<float>(bits);
    }
    fail(where, "invalid float " + single_quoted(s));
  }
  fail(where, "expected a float (number, \"NaN\", \"Infinity\" or \"-Infinity\"), got " + j.dump());
}

DType get_dtype(const Json& j, std::string_view where) {
  const auto& s = get_string(j, where);
  for (const auto& entry : kDTypeNames)
    if (entry.name == s) return entry.dtype;
  fail(where, "unknown dtype " + single_quoted(s));
}

// Calls `on_field(key, value)` for each member of object `j`; fails on keys not in `allowed`.
template <class F>
void for_each_field(const Json& j, std::string_view where,
                    std::initializer_list<std::string_view> allowed, F&& on_field) {
  expect_object(j, where);
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (auto a : allowed) known = known || a == it.key();
    if (!known) fail(where, "unknown field " + single_quoted(it.key()));
    on_field(it.key(), it.value());
  }
}

std::string sub(std::string_view where, std::string_view field) {
  return std::string(where) + ": " + std::string(field);
}

// -- shapes -----------------------------------------------------------------------------------

Json dims_json(const std::vector<std::int64_t>& dims) {
  Json out = Json::object();
  if (dims.empty()) return out;
  Json list = Json::array();
  for (auto d : dims) list.push_back(Json{{"size", int64_json(d)}});
  out["dim"] = std::move(list);
  return out;
}

Json shape_json(const PartialShape& s) {
  if (!s.rank_known()) return Json{{"unknownRank", true}};
  return dims_json(s.dims());
}

PartialShape shape_from_json(const Json& j, std::string_view where) {
  bool unknown_rank = false;
  std::vector<std::int64_t> dims;
  for_each_field(j, where, {"dim", "unknownRank"}, [&](const std::string& key, const Json& v) {
    if (key == "unknownRank") {
      unknown_rank = get_bool(v, sub(where, "unknownRank"));
      return;
    }
    const auto& list = get_array(v, sub(where, "dim"));
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string dim_where = sub(where, "dim " + std::to_string(i));
      std::int64_t size = 0;  // proto3 leaves a zero size out
      for_each_field(list[i], dim_where, {"size"}, [&](const std::string&, const Json& sv) {
        size = get_int64(sv, sub(dim_where, "size"));
      });
      if (size < -1) fail(dim_where, "invalid dimension size " + std::to_string(size));
      dims.push_back(size);
    }
  });
  if (unknown_rank) {
    if (!dims.empty()) fail(where, "an unknownRank shape must not list dims");
    return PartialShape::unknown();
  }
  return PartialShape(std::move(dims));
}

// -- tensors ----------------------------------------------------------------------------------

Json tensor_json(const Tensor& t, std::string_view where) {
  Json out = Json::object();
  if (!t.is_initialized()) return out;
  if (t.dtype() == DType::resource || t.dtype() == DType::variant)
    fail(where, "cannot serialise a " + std::string(dtype_name(t.dtype())) + " tensor");
  out["dtype"] = std::string(dtype_json_name(t.dtype()));
  out["tensorShape"] = dims_json(t.shape().dims());
  if (t.dtype() == DType::string) {
    auto values = t.flat<std::string>();
    if (values.empty()) return out;
    Json list = Json::array();
    for (const auto& s : values) list.push_back(base64_encode(s));
    out["stringVal"] = std::move(list);
  } else if (t.total_bytes() > 0) {
    out["tensorContent"] = base64_encode(t.raw_data(), t.total_bytes());
  }
  return out;
}

Tensor tensor_from_json(const Json& j, std::string_view where) {
  DType dtype = DType::invalid;
  const Json* shape_field = nullptr;
  const Json* content_field = nullptr;
  const Json* strings_field = nullptr;
  for_each_field(j, where, {"dtype", "tensorShape", "tensorContent", "stringVal"},
                 [&](const std::string& key, const Json& v) {
                   if (key == "dtype") dtype = get_dtype(v, sub(where, "dtype"));
                   if (key == "tensorShape") shape_field = &v;
                   if (key == "tensorContent") content_field = &v;
                   if (key == "stringVal") strings_field = &v;
                 });
  if (dtype == DType::invalid) {
    if (shape_field || content_field || strings_field)
      fail(where, "a tensor without a dtype must be empty");
    return Tensor();
  }
  if (dtype == DType::resource || dtype == DType::variant)
    fail(where, std::string(dtype_name(dtype)) + " tensors cannot be deserialised");
  if (dtype == DType::string && content_field)
    fail(where, "a DT_STRING tensor takes stringVal, not tensorContent");
  if (dtype != DType::string && strings_field) fail(where, "only DT_STRING tensors take stringVal");

  // An absent tensorShape is a scalar, as in proto3.
  PartialShape partial = shape_field ? shape_from_json(*shape_field, sub(where, "tensorShape"))
                                     : PartialShape(std::vector<std::int64_t>{});
  if (!partial.fully_defined())
    fail(where, "tensorShape must be fully defined, got " + partial.to_string());
  // Count elements with an overflow check before allocating anything.
  std::int64_t count = 1;
  for (auto d : partial.dims())
    if (__builtin_mul_overflow(count, d, &count))
      fail(where, "tensorShape " + partial.to_string() + " has too many elements");
  Shape shape(partial.dims());

  if (dtype == DType::string) {
    static const Json::array_t kNone;
    const auto& list = strings_field ? get_array(*strings_field, sub(where, "stringVal")) : kNone;
    if (static_cast<std::int64_t>(list.size()) != count)
      fail(where, "stringVal has " + std::to_string(list.size()) + " values, shape " +
                      shape.to_string() + " needs " + std::to_string(count));
    Tensor t(DType::string, shape);
    auto* out = t.data<std::string>();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string item_where = sub(where, "stringVal " + std::to_string(i));
      out[i] = base64_decode(get_string(list[i], item_where), item_where);
    }
    return t;
  }

  std::string bytes;
  if (content_field) {
    std::string content_where = sub(where, "tensorContent");
    bytes = base64_decode(get_string(*content_field, content_where), content_where);
  }
  std::int64_t expected = 0;
  if (__builtin_mul_overflow(count, static_cast<std::int64_t>(dtype_size(dtype)), &expected) ||
      static_cast<std::int64_t>(bytes.size()) != expected)
    fail(where, "tensorContent has " + std::to_string(bytes.size()) + " bytes, shape " +
                    shape.to_string() + " of " + std::string(dtype_json_name(dtype)) + " needs " +
                    std::to_string(count) + " * " + std::to_string(dtype_size(dtype)));
  if (dtype == DType::boolean)
    for (std::size_t i = 0; i < bytes.size(); ++i)
      if (bytes[i] != 0 && bytes[i] != 1)
        fail(where, "tensorContent byte " + std::to_string(i) + " of a DT_BOOL tensor is " +
                        std::to_string(static_cast<unsigned char>(bytes[i])) + ", not 0 or 1");
  Tensor t(dtype, shape);
  if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

// -- attribute values -------------------------------------------------------------------------

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

template <class T, class Encode>
Json list_json(std::string_view kind, const std::vector<T>& values, Encode encode) {
  Json list = Json::array();
  for (const auto& v : values) list.push_back(encode(v));
  return Json{{"list", Json{{std::string(kind), std::move(list)}}}};
}

Json attr_json(const AttrValue& value, std::string_view where) {
  auto dtype_value = [](DType t) { return Json(std::string(dtype_json_name(t))); };
  auto string_value = [](const std::string& s) { return Json(base64_encode(s)); };
  return std::visit(
      Overloaded{
          [](std::monostate) { return Json::object(); },
          [](std::int64_t v) {
            return Json{{"i", int64_json(v)}};
          },
          [](float v) {
            return Json{{"f", float_json(v)}};
          },
          [](bool v) {
            return Json{{"b", v}};
          },
          [&](const std::string& v) {
            return Json{{"s", string_value(v)}};
          },
          [&](DType v) {
            return Json{{"type", dtype_value(v)}};
          },
          [](const PartialShape& v) {
            return Json{{"shape", shape_json(v)}};
          },
          [&](const Tensor& v) {
            return Json{{"tensor", tensor_json(v, sub(where, "tensor"))}};
          },
          [](const std::vector<std::int64_t>& v) { return list_json("i", v, int64_json); },
          [](const std::vector<float>& v) { return list_json("f", v, float_json); },
          [&](const std::vector<DType>& v) { return list_json("type", v, dtype_value); },
          [](const std::vector<PartialShape>& v) { return list_json("shape", v, shape_json); },
          [&](const std::vector<std::string>& v) { return list_json("s", v, string_value); },
          [&](const FunctionAttr& v) {
            Json f{{"name", text_json(v.name, sub(where, "func name"))}};
            if (!v.library.empty()) f["library"] = string_value(v.library);
            if (!v.attrs.empty()) f["attrs"] = string_value(v.attrs);
            return Json{{"func", std::move(f)}};
          },
      },
      value);
}

template <class T, class Decode>
std::vector<T> list_from_json(const Json& j, std::string_view where, Decode decode) {
  const auto& items = get_array(j, where);
  std::vector<T> out;
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(decode(items[i], sub(where, "element " + std::to_string(i))));
  return out;
}

std::string string_from_json(const Json& j, std::string_view where) {
  return base64_decode(get_string(j, where), where);
}

AttrValue list_attr_from_json(const Json& j, std::string_view where) {
  expect_object(j, where);
  if (j.size() != 1)
    fail(where,
         "expected exactly one of i, f, type, shape, s (an empty list still names its "
         "kind, e.g. {\"type\": []}), got " +
             j.dump());
  const auto& kind = j.begin().key();
  const auto& items = j.begin().value();
  std::string items_where = sub(where, kind);
  if (kind == "i") return list_from_json<std::int64_t>(items, items_where, get_int64);
  if (kind == "f") return list_from_json<float>(items, items_where, get_float);
  if (kind == "type") return list_from_json<DType>(items, items_where, get_dtype);
  if (kind == "shape") return list_from_json<PartialShape>(items, items_where, shape_from_json);
  if (kind == "s") return list_from_json<std::string>(items, items_where, string_from_json);
  fail(where, "unsupported list kind " + single_quoted(kind));
}

AttrValue attr_from_json(const Json& j, std::string_view where) {
  expect_object(j, where);
  if (j.empty()) return AttrValue(std::in_place_type<std::monostate>);
  if (j.size() != 1)
    fail(where,
         "expected exactly one of i, f, b, s, type, shape, tensor, list, func, got " + j.dump());
  const auto& kind = j.begin().key();
  const auto& v = j.begin().value();
  // in_place_type pins the alternative; no converting-constructor guesswork.
  if (kind == "i")
    return AttrValue(std::in_place_type<std::int64_t>, get_int64(v, sub(where, "i")));
  if (kind == "f") return AttrValue(std::in_place_type<float>, get_float(v, sub(where, "f")));
  if (kind == "b") return AttrValue(std::in_place_type<bool>, get_bool(v, sub(where, "b")));
  if (kind == "s")
    return AttrValue(std::in_place_type<std::string>, string_from_json(v, sub(where, "s")));
  // An unknown dtype reads "node 'mul': attr 'T': unknown dtype 'floatx'".
  if (kind == "type") return AttrValue(std::in_place_type<DType>, get_dtype(v, where));
  if (kind == "shape")
    return AttrValue(std::in_place_type<PartialShape>, shape_from_json(v, sub(where, "shape")));
  if (kind == "tensor")
    return AttrValue(std::in_place_type<Tensor>, tensor_from_json(v, sub(where, "tensor")));
  if (kind == "list") return list_attr_from_json(v, sub(where, "list"));
  if (kind == "func") {
    const std::string func_where = sub(where, "func");
    expect_object(v, func_where);
    FunctionAttr f;
    const auto name = v.find("name");
    if (name == v.end()) fail(func_where, "missing field 'name'");
    f.name = get_string(*name, sub(func_where, "name"));
    if (auto it = v.find("library"); it != v.end())
      f.library = string_from_json(*it, sub(func_where, "library"));
    if (auto it = v.find("attrs"); it != v.end())
      f.attrs = string_from_json(*it, sub(func_where, "attrs"));
    return AttrValue(std::in_place_type<FunctionAttr>, std::move(f));
  }
  fail(where, "unsupported attr value kind " + single_quoted(kind));
}

// -- nodes and graphs -------------------------------------------------------------------------

std::string node_where(std::string_view prefix, std::size_t index, const std::string* name) {
  if (name && valid_utf8(*name)) return std::string(prefix) + ": node " + single_quoted(*name);
  return std::string(prefix) + ": node #" + std::to_string(index);
}

Json node_json(const NodeDef& node, std::size_t index) {
  std::string where = node_where("graph JSON", index, &node.name);
  Json out = Json::object();
  out["name"] = text_json(node.name, sub(where, "field 'name'"));
  out["op"] = text_json(node.op, sub(where, "field 'op'"));
  if (!node.inputs.empty()) {
    Json inputs = Json::array();
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
      inputs.push_back(text_json(node.inputs[i], sub(where, "input " + std::to_string(i))));
    out["input"] = std::move(inputs);
  }
  if (!node.device.empty()) out["device"] = text_json(node.device, sub(where, "field 'device'"));
  if (!node.attrs.empty()) {
    Json attrs = Json::object();
    for (const auto& [name, value] : node.attrs) {
      if (!valid_utf8(name)) fail(where, "an attr name is not valid UTF-8");
      attrs[name] = attr_json(value, sub(where, "attr " + single_quoted(name)));
    }
    out["attr"] = std::move(attrs);
  }
  return out;
}

NodeDef node_from_json(const Json& j, std::size_t index) {
  std::string where = node_where("graph JSON", index, nullptr);
  expect_object(j, where);
  auto name_it = j.find("name");
  if (name_it == j.end()) fail(where, "missing field 'name'");
  NodeDef node;
  node.name = get_string(*name_it, sub(where, "field 'name'"));
  where = node_where("graph JSON", index, &node.name);
  bool has_op = false;
  for_each_field(
      j, where, {"name", "op", "input", "device", "attr"},
      [&](const std::string& key, const Json& v) {
        if (key == "op") {
          node.op = get_string(v, sub(where, "field 'op'"));
          has_op = true;
        } else if (key == "input") {
          const auto& list = get_array(v, sub(where, "field 'input'"));
          for (std::size_t i = 0; i < list.size(); ++i)
            node.inputs.push_back(get_string(list[i], sub(where, "input " + std::to_string(i))));
        } else if (key == "device") {
          node.device = get_string(v, sub(where, "field 'device'"));
        } else if (key == "attr") {
          expect_object(v, sub(where, "field 'attr'"));
          for (auto it = v.begin(); it != v.end(); ++it)
            node.attrs[it.key()] =
                attr_from_json(it.value(), sub(where, "attr " + single_quoted(it.key())));
        }
      });
  if (!has_op) fail(where, "missing field 'op'");
  return node;
}

Json graph_json(const GraphDef& def) {
  Json out = Json::object();
  out["versions"] = Json{{"producer", def.version}};
  Json nodes = Json::array();
  for (std::size_t i = 0; i < def.nodes.size(); ++i) nodes.push_back(node_json(def.nodes[i], i));
  out["node"] = std::move(nodes);
  return out;
}

GraphDef graph_from_json(const Json& j) {
  constexpr std::string_view where = "graph JSON";
  GraphDef def;
  def.version = 0;  // proto3: an absent producer is 0
  for_each_field(j, where, {"versions", "node"}, [&](const std::string& key, const Json& v) {
    if (key == "versions") {
      std::string versions_where = sub(where, "versions");
      for_each_field(v, versions_where, {"producer"}, [&](const std::string&, const Json& p) {
        std::string producer_where = sub(versions_where, "producer");
        std::int64_t producer = get_int64(p, producer_where);
        if (producer < std::numeric_limits<int>::min() ||
            producer > std::numeric_limits<int>::max())
          fail(producer_where, "out of range for int32");
        def.version = static_cast<int>(producer);
      });
    } else {
      const auto& list = get_array(v, sub(where, "node"));
      def.nodes.reserve(list.size());
      for (std::size_t i = 0; i < list.size(); ++i) def.nodes.push_back(node_from_json(list[i], i));
    }
  });
  return def;
}

Json parse(std::string_view text, std::string_view where) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " tag; keep its line/column detail.
    std::string_view detail = e.what();
    if (auto close = detail.find("] "); detail.starts_with("[") && close != detail.npos)
      detail.remove_prefix(close + 2);
    fail(where,
         "malformed JSON at byte " + std::to_string(e.byte) + " (" + std::string(detail) + ")");
  }
}

std::string dump(const Json& j, int indent, std::string_view where) {
  try {
    return j.dump(indent < 0 ? -1 : indent);
  } catch (const Json::exception& e) {
    // Unreachable once strings are checked for UTF-8; kept so no nlohmann exception escapes.
    fail(where, e.what());
  }
}

}  // namespace

std::string graph_def_to_json(const GraphDef& def, int indent) {
  return dump(graph_json(def), indent, "graph JSON");
}

GraphDef graph_def_from_json(std::string_view json) {
  return graph_from_json(parse(json, "graph JSON"));
}

std::string tensor_to_json(const Tensor& tensor, int indent) {
  return dump(tensor_json(tensor, "tensor JSON"), indent, "tensor JSON");
}

Tensor tensor_from_json(std::string_view json) {
  return tensor_from_json(parse(json, "tensor JSON"), "tensor JSON");
}

std::string attr_value_to_json(const AttrValue& value, int indent) {
  return dump(attr_json(value, "attr JSON"), indent, "attr JSON");
}

AttrValue attr_value_from_json(std::string_view json) {
  return attr_from_json(parse(json, "attr JSON"), "attr JSON");
}

std::string export_graph_json(const Graph& g, int indent) {
  return graph_def_to_json(g.to_graph_def(), indent);
}

void import_graph_json(Graph& g, std::string_view json) {
  g.import_graph_def(graph_def_from_json(json));
}

}  // namespace af
