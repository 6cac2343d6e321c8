#include "wire.hpp"

#include <limits>

namespace af::net {

void WireWriter::tensor(const Tensor& t) {
  u8(static_cast<std::uint8_t>(t.dtype()));
  if (t.is_dead()) {
    u8(0xfd);  // a dead tensor (the untaken side of a Switch)
    return;
  }
  if (!t.is_initialized() || t.dtype() == DType::resource) {
    u8(0xff);  // no value
    return;
  }
  if (t.dtype() == DType::variant)  // tensor lists and optionals stay in their task
    throw UnimplementedError(af::unimplemented("a variant tensor (" + t.to_string() +
                                               ") cannot be sent to another task"));
  const auto& dims = t.shape().dims();
  u8(static_cast<std::uint8_t>(dims.size()));
  for (auto d : dims) i64(d);
  if (t.dtype() == DType::string) {
    for (const auto& s : t.flat<std::string>()) str(s);
  } else {
    if (t.on_device())  // devices copy to the host before a tensor leaves them
      throw InternalError(internal("a tensor in device memory cannot be serialised"));
    out_.append(static_cast<const char*>(t.raw_data()), t.total_bytes());
  }
}

void WireGather::seal() {
  if (fields_.size() == 0) return;
  sealed_bytes_ += fields_.size();
  owned_.push_back(fields_.take());
  fields_ = WireWriter();
  order_.push_back({owned_.size() - 1, nullptr, owned_.back().size()});
}

void WireGather::tensor(const Tensor& t) {
  if (!t.is_initialized() || t.dtype() == DType::resource || t.dtype() == DType::string ||
      t.on_device() || t.total_bytes() == 0)
    return fields_.tensor(t);
  fields_.u8(static_cast<std::uint8_t>(t.dtype()));
  const auto& dims = t.shape().dims();
  fields_.u8(static_cast<std::uint8_t>(dims.size()));
  for (auto d : dims) fields_.i64(d);
  seal();
  kept_.push_back(t);
  order_.push_back({0, static_cast<const char*>(t.raw_data()), t.total_bytes()});
  sealed_bytes_ += t.total_bytes();
}

std::size_t WireGather::size() const noexcept { return sealed_bytes_ + fields_.size(); }

std::vector<std::string_view> WireGather::pieces() {
  seal();
  std::vector<std::string_view> out;
  out.reserve(order_.size());
  for (const auto& p : order_)
    out.emplace_back(p.data ? std::string_view(p.data, p.size) : std::string_view(owned_[p.owned]));
  return out;
}

void WireWriter::bulk_ref(const Tensor& t, std::uint16_t port, std::uint64_t transfer_id) {
  u8(static_cast<std::uint8_t>(t.dtype()));
  u8(0xfe);
  const auto& dims = t.shape().dims();
  u8(static_cast<std::uint8_t>(dims.size()));
  for (auto d : dims) i64(d);
  u64(port);
  u64(transfer_id);
}

void WireWriter::stats(const std::vector<NodeExecStats>& stats) {
  u64(stats.size());
  for (const auto& s : stats) {
    str(s.node_name);
    str(s.op);
    str(s.device);
    u64(s.thread_id);
    i64(s.start_us);
    i64(s.end_us);
    u8(s.async ? 1 : 0);
    str(s.transfer);
  }
}

bool WireReader::stats(std::vector<NodeExecStats>* out) {
  std::uint64_t n = 0;
  if (!count(&n, 57)) return false;  // four empty strings, three integers and a flag
  for (std::uint64_t i = 0; i < n; ++i) {
    NodeExecStats s;
    std::uint8_t async = 0;
    if (!str(&s.node_name) || !str(&s.op) || !str(&s.device) || !u64(&s.thread_id) ||
        !i64(&s.start_us) || !i64(&s.end_us) || !u8(&async) || !str(&s.transfer))
      return false;
    s.async = async != 0;
    out->push_back(std::move(s));
  }
  return true;
}

bool WireReader::tensor(Tensor* t, BulkRef* bulk) {
  std::uint8_t dtype = 0, rank = 0;
  if (!u8(&dtype) || !u8(&rank)) return false;
  if (rank == 0xff) {  // no value: what WireWriter writes for an uninitialized or resource tensor
    if (dtype != static_cast<std::uint8_t>(DType::invalid) &&
        dtype != static_cast<std::uint8_t>(DType::resource))
      return fail("a tensor without a value has dtype code " + std::to_string(dtype));
    *t = Tensor();
    return true;
  }
  if (rank == 0xfd) {  // a dead tensor: what WireWriter writes for Tensor::dead()
    if (dtype != static_cast<std::uint8_t>(DType::invalid))
      return fail("a dead tensor has dtype code " + std::to_string(dtype));
    *t = Tensor::dead();
    return true;
  }
  auto type = static_cast<DType>(dtype);
  if (!is_value_dtype_code(dtype)) return fail("unknown dtype code " + std::to_string(dtype));
  if (rank == 0xfe) {
    if (!bulk) return fail("unexpected bulk tensor reference");
    if (type == DType::string) return fail("bulk reference to a string tensor");
    if (!u8(&rank)) return false;
    if (rank > 32) return fail("tensor rank " + std::to_string(rank) + " > 32");
    std::vector<std::int64_t> dims(rank);
    // The bytes are not in this message; bound the allocation by a sane total instead.
    constexpr std::uint64_t kMaxBulkBytes = std::uint64_t{1} << 40;
    std::uint64_t bytes = dtype_size(type);
    for (auto& d : dims) {
      if (!i64(&d)) return false;
      if (d < 0) return fail("negative dimension " + std::to_string(d));
      if (d > 0 && bytes > kMaxBulkBytes / static_cast<std::uint64_t>(d))
        return fail("bulk tensor too large");
      bytes *= static_cast<std::uint64_t>(d);
    }
    std::uint64_t port = 0, id = 0;
    if (!u64(&port) || !u64(&id)) return false;
    if (port == 0 || port > 65535) return fail("bad bulk port " + std::to_string(port));
    // The tensor is allocated by whoever reads the bytes, on its own thread (a fresh 4 MiB
    // buffer costs page faults: pay them where the bytes land).
    *t = Tensor();
    *bulk = BulkRef{true, static_cast<std::uint16_t>(port), id, type, Shape(std::move(dims))};
    return true;
  }
  if (rank > 32) return fail("tensor rank " + std::to_string(rank) + " > 32");
  std::vector<std::int64_t> dims(rank);
  std::uint64_t elements = 1;
  for (auto& d : dims) {
    if (!i64(&d)) return false;
    if (d < 0) return fail("negative dimension " + std::to_string(d));
    if (d > 0 && elements > left() / static_cast<std::uint64_t>(d))
      return fail("tensor larger than the message");
    elements *= static_cast<std::uint64_t>(d);
  }
  // Nothing is allocated before the message is known to hold it: a string takes at least
  // its 8-byte length, a number its element size.
  const std::uint64_t min_bytes = type == DType::string ? 8 : dtype_size(type);
  if (elements > left() / min_bytes) return fail("tensor larger than the message");
  Tensor out(type, Shape(std::move(dims)));
  if (type == DType::string) {
    auto* s = out.data<std::string>();
    for (std::uint64_t i = 0; i < elements; ++i)
      if (!str(&s[i])) return false;
  } else {
    const std::size_t bytes = out.total_bytes();
    std::memcpy(out.raw_data(), in_.data() + pos_, bytes);
    pos_ += bytes;
  }
  *t = std::move(out);
  return true;
}

}  // namespace af::net
