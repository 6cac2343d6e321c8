// The definition of DecodeGif (TensorFlow's ops/image_ops.cc: a scalar string to uint8
// [?, ?, ?, 3]) and its builder tf.io.decode_gif. The kernel is the image decode kernel of
// kernels/src/image_codec_ops.cpp (one kernel for every decode op, as TensorFlow's
// DecodeImageV2Op), the GIF reader kernels/src/gif_codec.cpp.
#include "actorflow/ops/gif_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

Status infer_decode_gif(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 0));
  c.add_output(DType::uint8, PartialShape{-1, -1, -1, 3});
  return {};
}

}  // namespace

namespace detail {

void register_gif_ops(OpRegistry& r) { r.add({"DecodeGif", infer_decode_gif}); }

}  // namespace detail

namespace image {

Output decode_gif(const Output& contents, std::string_view name) {
  return contents.graph()
      .create_op("DecodeGif", {contents}, {}, std::string(name.empty() ? "DecodeGif" : name))
      .output(0);
}

}  // namespace image

}  // namespace af
