// The audio ops and DecodeGif against TensorFlow: tests/data/tf_audio holds WAVs TensorFlow
// 2.21 encoded (tf.audio.encode_wav), hand-written WAVs with every header TensorFlow's reader
// accepts or refuses, hand-written GIFs (partial and offset frames, transparency, disposal,
// local colour tables, interlacing, truncations), and reference.json what TensorFlow decoded
// from each and its error messages (scripts/peers/make_audio_gif_fixtures.py). Decodes must
// equal TensorFlow's exactly; EncodeWav must write TensorFlow's bytes. AudioSpectrogram and
// Mfcc values are in the op fixture (scripts/peers/op_cases_audio.py); here their builders,
// static shapes and error messages.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/audio_ops.hpp>
#include <actorflow/ops/gif_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Tensor;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_audio";

const nlohmann::json& reference() {
  static const nlohmann::json ref = [] {
    std::ifstream in(dir / "reference.json");
    return nlohmann::json::parse(in);
  }();
  return ref;
}

std::string file_bytes(const std::string& name) {
  if (name.empty()) return {};
  std::ifstream in(dir / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// TensorFlow's defaults of each op's attrs, overridden by the case's.
af::AttrMap attrs_of(const std::string& op, const nlohmann::json& attrs) {
  af::AttrMap m;
  if (op == "DecodeWav") {
    m = {{"desired_channels", std::int64_t{-1}}, {"desired_samples", std::int64_t{-1}}};
  } else if (op == "DecodeImage") {
    m = {{"channels", std::int64_t{0}}, {"dtype", DType::uint8}, {"expand_animations", true}};
  } else if (op == "DecodePng") {
    m = {{"channels", std::int64_t{0}}, {"dtype", DType::uint8}};
  } else if (op == "DecodeJpeg" || op == "DecodeAndCropJpeg") {
    m = {{"channels", std::int64_t{0}}, {"ratio", std::int64_t{1}},
         {"fancy_upscaling", true},     {"try_recover_truncated", false},
         {"acceptable_fraction", 1.0f}, {"dct_method", std::string()}};
  } else if (op == "DecodeBmp") {
    m = {{"channels", std::int64_t{0}}};
  }
  for (const auto& [key, v] : attrs.items()) {
    if (v.is_boolean())
      m[key] = v.get<bool>();
    else if (v.is_number_integer())
      m[key] = v.get<std::int64_t>();
    else if (key == "dtype")
      m[key] = v.get<std::string>() == "float32" ? DType::float32 : DType::uint8;
  }
  return m;
}

// The decode op of case `c` on its file's bytes (all of DecodeWav's outputs).
std::vector<Output> build_decode(af::Graph& g, const nlohmann::json& c) {
  const std::string op = c["op"].get<std::string>();
  std::vector<Output> inputs = {g.constant(Tensor(file_bytes(c["file"].get<std::string>())))};
  if (c.contains("crop_window"))
    inputs.push_back(
        g.constant(Tensor::from_vector(c["crop_window"].get<std::vector<std::int32_t>>())));
  af::Operation decode = g.create_op(op, inputs, attrs_of(op, c["attrs"]), op);
  if (op == "DecodeWav") return {decode.output(0), decode.output(1)};
  return {decode.output(0)};
}

std::string describe(const nlohmann::json& c) {
  return c["op"].get<std::string>() + "(" + c["file"].get<std::string>() + ", " +
         c["attrs"].dump() + ")";
}

// `t` equals TensorFlow's `want` (shape, dtype, every value exactly).
void check_equal(const Tensor& t, const nlohmann::json& want) {
  BOOST_TEST(t.shape().dims() == want["shape"].get<std::vector<std::int64_t>>(),
             boost::test_tools::per_element());
  BOOST_TEST(std::string(af::dtype_name(t.dtype())) == want["dtype"].get<std::string>());
  const auto& values = want["values"];
  BOOST_REQUIRE_EQUAL(static_cast<std::size_t>(t.num_elements()), values.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    double got = 0;
    if (t.dtype() == DType::uint8)
      got = t.data<std::uint8_t>()[i];
    else if (t.dtype() == DType::float32)
      got = t.data<float>()[i];
    else
      got = t.data<std::int32_t>()[i];
    if (got != values[i].get<double>() && ++mismatches <= 5)
      BOOST_ERROR("element " << i << ": got " << got << ", TensorFlow " << values[i]);
  }
  BOOST_TEST(mismatches == 0u);
}

// The message of the af::Error running `ys` throws ("" when it succeeds).
std::string run_error(af::Graph& g, const std::vector<Output>& ys) {
  af::Session s(g);
  try {
    s.run(ys);
  } catch (const af::Error& e) {
    return e.what();
  }
  return {};
}

// The message of the InvalidArgumentError `build` throws ("" when it builds).
template <class F>
std::string build_error(F&& build) {
  try {
    build();
  } catch (const af::InvalidArgumentError& e) {
    return e.what();
  }
  return {};
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(audio_ops_test)

// WAVs (TensorFlow's encodes, a JUNK chunk before "fmt ", an 18-byte format chunk, a LIST
// chunk after the data; channels repeated or dropped, samples padded or cut) and GIFs decode
// to exactly TensorFlow's samples and pixels; DecodeImage's float32 GIFs are times 1/255.
BOOST_AUTO_TEST_CASE(decodes_equal_tensorflows_exactly, *boost::unit_test::timeout(120)) {
  std::size_t checked = 0;
  for (const auto& c : reference()["decodes"]) {
    BOOST_TEST_CONTEXT(describe(c)) {
      af::Graph g;
      const std::vector<Output> ys = build_decode(g, c);
      af::Session s(g);
      const std::vector<Tensor> out = s.run(ys);
      if (c["op"] == "DecodeWav") {
        check_equal(out[0], c["audio"]);
        BOOST_TEST(out[1].data<std::int32_t>()[0] == c["sample_rate"].get<std::int32_t>());
      } else {
        check_equal(out[0], c);
      }
      ++checked;
    }
  }
  BOOST_TEST(checked >= 60u);
}

// Bad WAV headers and GIF data fail with TensorFlow's InvalidArgument messages naming the
// node: "Header mismatch: Expected RIFF but found RIFX", "Bad format chunk size for WAV:
// Expected 16 or 18, but got20", "More than one data chunk found in WAV", "Invalid GIF data
// (size 62), found color index 3 outside of color map range 2", "Got 3 frames, but animated
// gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image", ...
BOOST_AUTO_TEST_CASE(bad_contents_fail_with_tensorflows_messages, *boost::unit_test::timeout(60)) {
  std::size_t checked = 0;
  for (const auto& c : reference()["errors"]) {
    BOOST_TEST_CONTEXT(describe(c)) {
      std::string want = c["message"].get<std::string>();
      af::Graph g;
      if (want.rfind("build: ", 0) == 0) {
        // TensorFlow's shape function refused it: "channels must be non-negative, got -2".
        want = want.substr(7, want.find(" for '") - 7);
        const std::string message = build_error([&] { build_decode(g, c); });
        BOOST_TEST(contains(message, want), message);
      } else {
        const std::vector<Output> ys = build_decode(g, c);
        const std::string message = run_error(g, ys);
        BOOST_TEST(contains(message, want), message);
        BOOST_TEST(contains(message, c["op"].get<std::string>()), message);
      }
      ++checked;
    }
  }
  BOOST_TEST(checked >= 30u);
}

// EncodeWav writes TensorFlow's bytes: the 44-byte header and roundf(x * 32768) clamped.
BOOST_AUTO_TEST_CASE(encode_wav_writes_tensorflows_bytes) {
  for (const auto& c : reference()["encodes"]) {
    BOOST_TEST_CONTEXT(c["file"]) {
      af::Graph g;
      const auto& a = c["audio"];
      const Output audio =
          g.constant(Tensor::from_vector(a["values"].get<std::vector<float>>(),
                                         af::Shape(a["shape"].get<std::vector<std::int64_t>>())));
      const Output wav = af::audio::encode_wav(audio, c["sample_rate"].get<std::int32_t>());
      BOOST_TEST(wav.shape() == PartialShape(std::vector<std::int64_t>{}));
      af::Session s(g);
      const std::string bytes = s.run(wav).data<std::string>()[0];
      BOOST_TEST((bytes == file_bytes(c["file"].get<std::string>())),
                 "EncodeWav wrote " << bytes.size() << " bytes");
    }
  }
}

// EncodeWav's run-time errors are TensorFlow's: no channels, a rate of 0 or below (shown as
// TensorFlow's size_t wrap), frames without channels.
BOOST_AUTO_TEST_CASE(encode_wav_refuses_what_tensorflow_refuses) {
  af::Graph g;
  auto zeros = [&](std::int64_t frames, std::int64_t channels) {
    return g.constant(
        Tensor::from_vector(std::vector<float>(static_cast<std::size_t>(frames * channels)),
                            af::Shape{frames, channels}));
  };
  BOOST_TEST(contains(run_error(g, {af::audio::encode_wav(zeros(2, 2), 0)}),
                      "sample_rate must be in (0, 2^32), got: 0"));
  BOOST_TEST(contains(run_error(g, {af::audio::encode_wav(zeros(2, 2), -1)}),
                      "sample_rate must be in (0, 2^32), got: 18446744073709551615"));
  BOOST_TEST(contains(run_error(g, {af::audio::encode_wav(zeros(0, 0), 100)}),
                      "num_channels must be in (0, 2^16), got: 0"));
  BOOST_TEST(contains(run_error(g, {af::audio::encode_wav(zeros(2, 0), 100)}), "audio is null"));
  BOOST_TEST(run_error(g, {af::audio::encode_wav(zeros(0, 2), 100)}).empty());
  BOOST_TEST(contains(build_error([&] {
                        af::audio::encode_wav(
                            g.constant(Tensor::from_vector(std::vector<float>(3))), 8000);
                      }),
                      "Shape must be rank 2 but is rank 1"));
}

// The builders name their ops as TensorFlow's Python and infer TensorFlow's static shapes;
// bad attrs and ranks fail at build time with the shape functions' messages.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output contents = g.constant(Tensor(file_bytes("stereo.wav")), "contents");
  const af::audio::DecodeWavOutputs wav = af::audio::decode_wav(contents, 2, 7);
  BOOST_TEST(wav.audio.name() == "DecodeWav:0");
  BOOST_TEST(wav.sample_rate.name() == "DecodeWav:1");
  BOOST_TEST(wav.audio.shape() == PartialShape({7, 2}));
  BOOST_TEST(wav.sample_rate.dtype() == DType::int32);
  BOOST_TEST(af::audio::decode_wav(contents).audio.shape() == PartialShape({-1, -1}));
  const Output encoded = af::audio::encode_wav(wav.audio, 16000);
  BOOST_TEST(encoded.name() == "EncodeWav:0");
  BOOST_TEST(g.operation("EncodeWav/sample_rate").type() == "Const");

  const Output audio =
      g.constant(Tensor::from_vector(std::vector<float>(200), af::Shape{100, 2}), "audio");
  const Output spectrogram = af::audio::audio_spectrogram(audio, 20, 7, true);
  BOOST_TEST(spectrogram.name() == "AudioSpectrogram:0");
  BOOST_TEST(spectrogram.shape() == PartialShape({2, 12, 17}));
  BOOST_TEST(af::audio::audio_spectrogram(audio, 200, 7).shape() == PartialShape({2, 0, 129}));
  const Output coefficients = af::audio::mfcc(spectrogram, 8000, {.dct_coefficient_count = 5});
  BOOST_TEST(coefficients.name() == "Mfcc:0");
  BOOST_TEST(g.operation("Mfcc/sample_rate").type() == "Const");
  BOOST_TEST(coefficients.shape() == PartialShape({2, 12, 5}));

  const Output gif = af::image::decode_gif(g.constant(Tensor(std::string("GIF89a"))));
  BOOST_TEST(gif.name() == "DecodeGif:0");
  BOOST_TEST(gif.shape() == PartialShape({-1, -1, -1, 3}));
  BOOST_TEST(gif.dtype() == DType::uint8);

  BOOST_TEST(contains(build_error([&] { af::audio::decode_wav(contents, -2); }),
                      "channels must be non-negative, got -2"));
  BOOST_TEST(contains(build_error([&] { af::audio::decode_wav(contents, -1, -3); }),
                      "samples must be non-negative, got -3"));
  BOOST_TEST(contains(build_error([&] { af::audio::audio_spectrogram(audio, 1, 7); }),
                      "window size must be > 1, got 1"));
  BOOST_TEST(contains(build_error([&] { af::audio::audio_spectrogram(audio, 4, 0); }),
                      "stride must be strictly positive, got 0"));
  BOOST_TEST(contains(build_error([&] { af::audio::mfcc(audio, 8000); }),
                      "Shape must be rank 3 but is rank 2"));
  BOOST_TEST(contains(
      build_error([&] {
        af::image::decode_gif(g.constant(Tensor::from_vector(std::vector<std::string>{"a", "b"})));
      }),
      "Shape must be rank 0 but is rank 1"));
}

// Mfcc fails when its filterbank cannot be set up, with TensorFlow's message naming the bins,
// rate and band count; an upper limit above half the rate gives zeros, as TensorFlow's.
BOOST_AUTO_TEST_CASE(mfcc_refuses_what_tensorflow_refuses) {
  af::Graph g;
  const Output spectrogram =
      g.constant(Tensor::from_vector(std::vector<float>(18, 1.0f), af::Shape{1, 2, 9}));
  // 40 bands over 9 bins: TensorFlow only logs "Missing 24 bands" and computes (its values).
  {
    const Output many = af::audio::mfcc(spectrogram, 8000);
    af::Session s(g);
    const Tensor t = s.run(many);
    BOOST_TEST(t.shape() == (af::Shape{1, 2, 13}));
    const std::vector<float> want = {-163.324921f, -33.7595444f,  -2.92128468f, -6.14675951f,
                                     -7.38002825f, -0.104428358f, 0.370735317f, 8.35058498f,
                                     2.87668753f,  14.472662f,    -4.36572886f, -21.3225021f,
                                     -15.255394f};
    const std::vector<float> got = t.to_vector<float>();
    for (std::size_t i = 0; i < want.size(); ++i)
      BOOST_TEST(got[i] == want[i], boost::test_tools::tolerance(1e-5f));
  }
  BOOST_TEST(contains(
      run_error(g, {af::audio::mfcc(spectrogram, 0,
                                    {.filterbank_channel_count = 4, .dct_coefficient_count = 2})}),
      "Mfcc initialization failed for channel count 9, sample rate 0"));
  const Output zeros = af::audio::mfcc(spectrogram, 6000,
                                       {.filterbank_channel_count = 4, .dct_coefficient_count = 2});
  af::Session s(g);
  const Tensor t = s.run(zeros);
  BOOST_TEST(t.to_vector<float>() == std::vector<float>(4, 0.0f), boost::test_tools::per_element());
}

// AudioSpectrogram's attrs are checked when the kernel is made, as TensorFlow's.
BOOST_AUTO_TEST_CASE(audio_spectrogram_refuses_a_rank_other_than_two_at_build) {
  af::Graph g;
  const Output audio = g.constant(Tensor::from_vector(std::vector<float>(8), af::Shape{2, 2, 2}));
  BOOST_TEST(contains(build_error([&] { af::audio::audio_spectrogram(audio, 4, 2); }),
                      "Shape must be rank 2 but is rank 3"));
}

// TensorFlow registers no gradient for the audio ops: differentiating through one fails.
BOOST_AUTO_TEST_CASE(audio_ops_have_no_gradient) {
  af::Graph g;
  const Output audio = g.constant(Tensor::from_vector(std::vector<float>(64), af::Shape{32, 2}));
  const Output spectrogram = af::audio::audio_spectrogram(audio, 8, 4, true);
  BOOST_CHECK_THROW(af::gradients({af::reduce_sum(spectrogram)}, {audio}), af::NotFoundError);
}

BOOST_AUTO_TEST_SUITE_END()
