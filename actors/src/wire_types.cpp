#include "actorflow/actors/detail/wire_types.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <cstring>

#include "actorflow/ops/errors.hpp"

namespace af::detail {

namespace {
// The dtype code of a dead tensor (Tensor::dead()) on CAF's path: no DType has it.
constexpr std::uint8_t kDeadWireDType = 0xfd;
}  // namespace

WireTensor to_wire(const Tensor& t) {
  WireTensor w;
  w.dtype = t.is_dead() ? kDeadWireDType : static_cast<std::uint8_t>(t.dtype());
  w.dims = t.shape().dims();
  if (t.dtype() == DType::variant)  // tensor lists and optionals stay in their process
    throw UnimplementedError(af::unimplemented("a variant tensor (" + t.to_string() +
                                               ") cannot be sent to another process"));
  if (t.dtype() == DType::string) {
    auto s = t.flat<std::string>();
    w.strings.assign(s.begin(), s.end());
  } else if (t.is_initialized() && t.dtype() != DType::resource) {
    if (t.on_device())  // devices copy to the host before a tensor leaves them
      throw InternalError(internal("a tensor in device memory cannot be serialised"));
    const char* p = static_cast<const char*>(t.raw_data());
    w.bytes.assign(p, p + t.total_bytes());
  }
  return w;
}

Tensor from_wire(const WireTensor& w) {
  if (w.dtype == kDeadWireDType) return Tensor::dead();
  auto dtype = static_cast<DType>(w.dtype);
  if (dtype == DType::invalid || dtype == DType::resource) return Tensor();
  if (dtype == DType::variant)
    throw DataLossError(af::data_loss("wire tensor: a variant tensor cannot arrive from afar"));
  Tensor t(dtype, Shape{w.dims});
  if (dtype == DType::string) {
    if (static_cast<std::int64_t>(w.strings.size()) != t.num_elements())
      throw DataLossError(af::data_loss("wire tensor: string count does not match shape"));
    std::copy(w.strings.begin(), w.strings.end(), t.data<std::string>());
  } else {
    if (w.bytes.size() != t.total_bytes())
      throw DataLossError(af::data_loss("wire tensor: byte count does not match shape"));
    std::memcpy(t.raw_data(), w.bytes.data(), w.bytes.size());
  }
  return t;
}

WireStatus to_wire(const Status& s) { return {static_cast<std::uint8_t>(s.code()), s.message()}; }

Status from_wire(const WireStatus& w) {
  if (w.code == 0) return {};
  return Status(static_cast<Code>(w.code), w.message);
}

void add_wire_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<WireTensor>("af::WireTensor");
  cfg.add_message_type<WireStatus>("af::WireStatus");
}

namespace {

template <class T>
void round_trip(caf::actor_system& sys, T value, const char* name) {
  std::vector<char> buf;
  caf::binary_serializer sink(sys, buf);
  auto msg = caf::make_message(value);
  if (auto err = msg.save(sink); err || buf.empty())
    throw InternalError(
        af::internal(std::string("wire type ") + name + " does not serialise: is it registered?"));
  caf::binary_deserializer source(sys, buf);
  caf::message back;
  if (auto err = back.load(source); err || !back.match_element<T>(0))
    throw InternalError(af::internal(std::string("wire type ") + name + " does not deserialise"));
}

}  // namespace

void check_wire_types(caf::actor_system& sys) {
  round_trip(sys, to_wire(Tensor::from_vector<float>({1.0f, 2.0f})), "af::WireTensor");
  round_trip(sys, to_wire(af::invalid_argument("x")), "af::WireStatus");
}

caf::error to_error(const Status& s) {
  if (s.ok()) return caf::error{};
  return caf::error(static_cast<std::uint8_t>(s.code()), caf::atom("actorflow"),
                    caf::make_message(s.message()));
}

Status status_from_error(const caf::error& e, const std::string& context) {
  if (e.category() == caf::atom("actorflow")) {
    std::string message;
    if (e.context().match_elements<std::string>()) message = e.context().get_as<std::string>(0);
    return Status(static_cast<Code>(e.code()), message);
  }
  if (e == caf::sec::request_timeout) return deadline_exceeded("request timed out: " + context);
  if (e == caf::sec::request_receiver_down)
    return cancelled("the actor serving the request is gone: " + context);
  return unknown(context + ": " + to_string(e));
}

}  // namespace af::detail

namespace af {

caf::error to_caf_error(const Status& s) { return detail::to_error(s); }
Status status_from_caf_error(const caf::error& e, const std::string& context) {
  return detail::status_from_error(e, context);
}

}  // namespace af
