"""Fixture cases of the audio family for make_op_fixtures.py: EncodeWav -> DecodeWav round
trips (mono, stereo, samples beyond [-1, 1] clipped, desired_channels and desired_samples
padding and truncation, no frames), EncodeWav's bytes (through DecodeRaw as uint8, cast to
int32), AudioSpectrogram (power-of-two and other window sizes, strides below, at and above
the window, magnitude or squared magnitude, several channels, audio shorter than a window)
and Mfcc of squared-magnitude spectrograms (TensorFlow's defaults, other limits, band and
coefficient counts, an upper limit above half the sample rate, which gives zeros). TensorFlow
registers no gradient for these ops, so no case takes one. The file-based cases (hand-written
WAV headers, GIFs) are in scripts/peers/make_audio_gif_fixtures.py."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def build_audio(b):
    f32, i32 = tf.float32, tf.int32
    audio = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731

    def round_trip(channels=-1, samples=-1, rate=16000):
        def fn(x):
            wav = tf.audio.encode_wav(x, rate)
            decoded = tf.audio.decode_wav(wav, desired_channels=channels, desired_samples=samples)
            return [decoded.audio, decoded.sample_rate]
        return fn

    # EncodeWav -> DecodeWav: the samples come back quantised to int16 / 32768.
    b.case("wav_round_trip_stereo", round_trip(), [(audio(25, 2), f32)], grad=False)
    b.case("wav_round_trip_mono", round_trip(rate=8000), [(audio(17, 1), f32)], grad=False)
    b.case("wav_round_trip_clipped", round_trip(rate=44100),
           [(np.array([[0.0], [1.0], [-1.0], [1.5], [-2.0], [0.49999], [-1.5e-5], [3e-5]]), f32)],
           grad=False)
    b.case("wav_round_trip_more_channels", round_trip(channels=4), [(audio(6, 2), f32)],
           grad=False)
    b.case("wav_round_trip_fewer_channels", round_trip(channels=1), [(audio(6, 3), f32)],
           grad=False)
    b.case("wav_round_trip_padded", round_trip(samples=12), [(audio(5, 2), f32)], grad=False)
    b.case("wav_round_trip_truncated", round_trip(channels=3, samples=4), [(audio(9, 2), f32)],
           grad=False)
    b.case("wav_round_trip_no_channels", round_trip(channels=0), [(audio(3, 2), f32)],
           grad=False)
    b.case("wav_round_trip_empty", round_trip(samples=3), [(np.zeros((0, 2)), f32)], grad=False)
    b.case("wav_round_trip_rate_input",
           lambda x, r: list(R.DecodeWav(contents=R.EncodeWav(audio=x, sample_rate=r))),
           [(audio(4, 1), f32), (22050, i32)], grad=False)

    # EncodeWav's bytes: header and little-endian int16 samples, as uint8 cast to int32.
    def wav_bytes(x):
        return tf.cast(tf.io.decode_raw(tf.audio.encode_wav(x, 8000), tf.uint8), tf.int32)
    b.case("EncodeWav_bytes", wav_bytes, [(audio(5, 2), f32)], exact=True, grad=False)
    b.case("EncodeWav_bytes_clipped", wav_bytes,
           [(np.array([[1.0, -1.0, 2.0], [0.5, -0.5, -3.0]]), f32)], exact=True, grad=False)

    # AudioSpectrogram: window sizes that are and are not powers of two.
    for name, shape, window, stride, squared in [
            ("pow2", (64, 1), 16, 8, False), ("pow2_squared", (64, 1), 16, 8, True),
            ("odd_window", (100, 1), 25, 10, False), ("odd_window_squared", (100, 2), 25, 10, True),
            ("stride_above_window", (90, 1), 12, 20, True), ("stride_one", (20, 1), 5, 1, False),
            ("window_two", (9, 3), 2, 3, True), ("long", (1000, 1), 256, 128, True),
            ("one_window", (30, 2), 30, 7, False), ("short", (10, 2), 16, 4, False),
            ("no_channels", (40, 0), 16, 8, True)]:
        b.case("AudioSpectrogram_" + name,
               lambda x, w=window, s=stride, q=squared: R.AudioSpectrogram(
                   input=x, window_size=w, stride=s, magnitude_squared=q),
               [(audio(*shape), f32)], grad=False, atol=1e-6)

    # Mfcc of squared-magnitude spectrograms (the spectrogram computed in the graph).
    def mfcc_case(name, shape, window, stride, rate, **attrs):
        def fn(x):
            spectrogram = R.AudioSpectrogram(input=x, window_size=window, stride=stride,
                                             magnitude_squared=True)
            return R.Mfcc(spectrogram=spectrogram, sample_rate=rate, **attrs)
        b.case("Mfcc_" + name, fn, [(audio(*shape), f32)], grad=False, atol=2e-5)

    mfcc_case("defaults", (1000, 1), 480, 160, 16000)
    mfcc_case("stereo_8k", (600, 2), 256, 100, 8000)
    mfcc_case("limits", (800, 1), 200, 80, 22050, upper_frequency_limit=7600.0,
              lower_frequency_limit=300.0, filterbank_channel_count=20, dct_coefficient_count=20)
    mfcc_case("one_coefficient", (300, 1), 64, 32, 16000, filterbank_channel_count=13,
              dct_coefficient_count=1)
    mfcc_case("zero_lower", (300, 1), 100, 50, 11025, lower_frequency_limit=0.0,
              upper_frequency_limit=5000.0, filterbank_channel_count=30)
    mfcc_case("upper_above_nyquist", (400, 1), 128, 64, 6000)  # all zeros, as TensorFlow
    mfcc_case("few_bins", (50, 1), 7, 3, 16000, filterbank_channel_count=4,
              dct_coefficient_count=3)
    b.case("Mfcc_raw_spectrogram",
           lambda s, r: R.Mfcc(spectrogram=s, sample_rate=r, dct_coefficient_count=5),
           [(b.rng.uniform(0, 4, size=(2, 3, 65)), f32), (16000, i32)], grad=False, atol=2e-5)
    b.case("Mfcc_no_windows", lambda s: R.Mfcc(spectrogram=s, sample_rate=16000),
           [(np.zeros((1, 0, 33)), f32)], grad=False)
