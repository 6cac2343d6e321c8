#!/usr/bin/env python3
"""Writes tests/data/tf_audio/: small WAV and GIF files and what TensorFlow makes of them.

Run with the TensorFlow venv: /root/.cache/af-tf/bin/python scripts/peers/make_audio_gif_fixtures.py

The WAVs are TensorFlow's own encodes (tf.audio.encode_wav) of deterministic samples, and
hand-written variants TensorFlow's reader accepts (a JUNK chunk before "fmt ", an 18-byte
format chunk, a LIST chunk after the data) or refuses (each header check of wav_io.cc). The
GIFs are written here (TensorFlow cannot write GIF): literal-code LZW streams, with partial
and offset frames, transparency, disposal methods (which TensorFlow ignores), local colour
tables, interlacing, extension blocks, colour indices outside the table, missing colour
tables and truncations. reference.json holds the source samples, TensorFlow's encodes,
decodes (shape, dtype, values) for each op and attr combination and its error messages
(without the node suffix). The C++ side is tests/conformance/audio_ops_test.cpp; the ops on
tensors (EncodeWav -> DecodeWav, AudioSpectrogram, Mfcc) are in the op fixture
(scripts/peers/op_cases_audio.py).
"""
import json
import os
import re
import struct

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "tf_audio")


# -- TensorFlow ------------------------------------------------------------------------------

def run(fn):
    """(value, None) or (None, message) of fn() run in a tf.compat.v1 graph session."""
    g = tf.Graph()
    with g.as_default():
        try:
            y = fn()
        except ValueError as e:  # the shape function refused it while building
            return None, "build: " + str(e)
    with tf1.Session(graph=g) as sess:
        try:
            return sess.run(y), None
        except tf.errors.OpError as e:
            message = e.message.split("\n\t [[")[0]
            return None, re.split(r"Node: '[^']*'\n", message)[-1]


def as_json(v):
    v = np.asarray(v)
    dtype = {np.dtype("uint8"): "uint8", np.dtype("float32"): "float32",
             np.dtype("int32"): "int32"}[v.dtype]
    return {"shape": list(v.shape), "dtype": dtype, "values": v.reshape(-1).tolist()}


# -- WAV -------------------------------------------------------------------------------------

def chunk(kind, data):
    return kind + struct.pack("<I", len(data)) + data


def wav_file(samples, rate=8000, fmt_extra=b"", before_fmt=b"", after_data=b"", fmt=None):
    """A 16-bit PCM WAV of int16 `samples` [frames, channels]; `fmt` overrides the format
    chunk's fields (dict of audio_format, channels, rate, byte_rate, block_align, bits)."""
    frames, channels = samples.shape
    f = dict(audio_format=1, channels=channels, rate=rate, byte_rate=rate * 2 * channels,
             block_align=2 * channels, bits=16)
    f.update(fmt or {})
    fmt_body = struct.pack("<HHIIHH", f["audio_format"], f["channels"], f["rate"],
                           f["byte_rate"], f["block_align"], f["bits"]) + fmt_extra
    body = (b"WAVE" + before_fmt + chunk(b"fmt ", fmt_body) +
            chunk(b"data", samples.astype("<i2").tobytes()) + after_data)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def source_audio():
    t = np.arange(37)
    left = 0.8 * np.sin(2 * np.pi * t / 9.0)
    right = 0.5 * np.cos(2 * np.pi * t / 5.0) - 0.2
    return np.stack([left, right], axis=-1).astype(np.float32)


# -- GIF -------------------------------------------------------------------------------------

def lzw_literal(indices, min_code_size):
    """An LZW stream of literal codes only, with a Clear code often enough that the code
    width stays min_code_size + 1."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    width = min_code_size + 1
    run_length = (1 << min_code_size) - 2
    codes = []
    for k in range(0, len(indices), run_length):
        codes.append(clear)
        codes.extend(indices[k:k + run_length])
    codes.append(end)
    bits = nbits = 0
    packed = bytearray()
    for c in codes:
        bits |= c << nbits
        nbits += width
        while nbits >= 8:
            packed.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8
    if nbits:
        packed.append(bits & 0xFF)
    data = bytearray([min_code_size])
    for k in range(0, len(packed), 255):
        block = packed[k:k + 255]
        data.append(len(block))
        data += block
    data.append(0)
    return bytes(data)


def color_table(colors, bits):
    colors = (list(colors) + [(0, 0, 0)] * (1 << bits))[:1 << bits]
    return b"".join(bytes(c) for c in colors)


def gif_file(width, height, frames, global_colors=None, gbits=2, background=0,
             version=b"GIF89a", extensions=b""):
    """frames: dicts of left, top, w, h, indices (row-major), and optionally colors (a local
    table of lbits bits), transparent (an index), disposal (0 to 3), interlace, gce (raw
    extra Graphics Control Extension bytes put before the image)."""
    flags = 0
    if global_colors is not None:
        flags = 0x80 | ((gbits - 1) << 4) | (gbits - 1)
    out = version + struct.pack("<HHBBB", width, height, flags, background, 0)
    if global_colors is not None:
        out += color_table(global_colors, gbits)
    out += extensions
    for f in frames:
        out += f.get("gce", b"")
        if f.get("transparent") is not None or f.get("disposal"):
            packed = (f.get("disposal", 0) << 2) | (1 if f.get("transparent") is not None else 0)
            out += b"\x21\xf9\x04" + struct.pack("<BHB", packed, 10,
                                                 f.get("transparent") or 0) + b"\x00"
        lflags, local = 0, b""
        if f.get("colors") is not None:
            lbits = f.get("lbits", 2)
            lflags = 0x80 | (lbits - 1)
            local = color_table(f["colors"], lbits)
        indices = list(f["indices"])
        if f.get("interlace"):
            lflags |= 0x40
            rows = [indices[r * f["w"]:(r + 1) * f["w"]] for r in range(f["h"])]
            order = [r for start, step in ((0, 8), (4, 8), (2, 4), (1, 2))
                     for r in range(start, f["h"], step)]
            indices = [v for r in order for v in rows[r]]
        out += b"\x2c" + struct.pack("<HHHHB", f["left"], f["top"], f["w"], f["h"], lflags)
        out += local + lzw_literal(indices, max(2, f.get("lbits", gbits)))
    return out + b"\x3b"


PALETTE = [(10, 20, 30), (200, 0, 0), (0, 200, 0), (0, 0, 200)]
W, H = 4, 3


def pattern(k, w=W, h=H, colors=4):
    return [(i * 3 + k) % colors for i in range(w * h)]


def gifs():
    full = lambda k, **kw: dict(left=0, top=0, w=W, h=H, indices=pattern(k), **kw)  # noqa: E731
    g = {}
    g["single.gif"] = gif_file(W, H, [full(0)], PALETTE)
    g["gif87a.gif"] = gif_file(W, H, [full(2)], PALETTE, version=b"GIF87a")
    g["animated.gif"] = gif_file(W, H, [full(0), full(1), full(2)], PALETTE)
    g["partial_second.gif"] = gif_file(W, H, [full(0), dict(left=1, top=1, w=2, h=2,
                                                            indices=[1, 2, 3, 1])], PALETTE)
    g["partial_first.gif"] = gif_file(W, H, [dict(left=1, top=1, w=2, h=2, indices=[2] * 4),
                                             full(1, transparent=1)], PALETTE)
    g["transparent_first.gif"] = gif_file(W, H, [full(0, transparent=0)], PALETTE)
    g["disposal.gif"] = gif_file(
        W, H, [full(0, disposal=2), dict(left=1, top=0, w=2, h=1, indices=[3, 3], disposal=3),
               dict(left=0, top=2, w=1, h=1, indices=[2], disposal=1)], PALETTE, background=1)
    g["overflow.gif"] = gif_file(W, H, [dict(left=2, top=1, w=4, h=4, indices=[1] * 16)],
                                 PALETTE)
    g["larger_than_screen.gif"] = gif_file(2, 2, [dict(left=0, top=0, w=5, h=6,
                                                       indices=pattern(1, 5, 6))], PALETTE)
    g["local_colors.gif"] = gif_file(
        W, H, [full(0, colors=[(1, 2, 3), (4, 5, 6), (7, 8, 9), (9, 9, 9)]), full(1)], PALETTE)
    g["local_only.gif"] = gif_file(W, H, [full(3, colors=PALETTE, lbits=2)], None)
    g["eight_bit.gif"] = gif_file(
        6, 5, [dict(left=0, top=0, w=6, h=5, indices=[(i * 37) % 256 for i in range(30)])],
        [(i, 255 - i, (i * 7) % 256) for i in range(256)], gbits=8)
    g["interlaced.gif"] = gif_file(3, 11, [dict(left=0, top=0, w=3, h=11, interlace=True,
                                                indices=pattern(0, 3, 11))], PALETTE)
    comment = b"\x21\xfe\x05hello\x00"
    netscape = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    g["extensions.gif"] = gif_file(W, H, [full(0), full(2, transparent=2)], PALETTE,
                                   extensions=netscape + comment)
    # Two Graphics Control Extensions before one image: the first decides.
    g["two_gce.gif"] = gif_file(
        W, H, [full(0), full(1, transparent=3,
                            gce=b"\x21\xf9\x04\x01\x0a\x00\x01\x00")], PALETTE)
    g["index_out_of_map.gif"] = gif_file(W, H, [dict(left=0, top=0, w=W, h=H, indices=[0] * 12),
                                                full(0)], PALETTE, gbits=1)
    g["missing_color_map.gif"] = gif_file(W, H, [full(0, colors=PALETTE), full(1)], None)
    g["no_images.gif"] = gif_file(W, H, [], PALETTE)
    anim = g["partial_second.gif"]
    g["truncated_trailer.gif"] = anim[:-1]           # both images whole
    g["truncated_second.gif"] = anim[:-3]            # the second image cut short: dropped
    g["truncated_descriptor.gif"] = anim[:-10]       # inside the second descriptor
    g["truncated_first.gif"] = anim[:40]             # no whole image
    g["header_only.gif"] = anim[:13]
    return g


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        os.remove(os.path.join(OUT, name))
    files = {}

    def put(name, data):
        files[name] = data
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)

    def contents(name):
        return tf1.constant(files[name], dtype=tf.string)

    # WAVs: TensorFlow's encodes of stereo and mono samples (clipped beyond [-1, 1]).
    audio = source_audio()
    loud = np.array([[0.0], [1.0], [-1.0], [1.5], [-2.0], [0.49999], [-0.000015], [0.3]],
                    np.float32)
    encodes = []
    for name, samples, rate in [("stereo.wav", audio, 8000), ("mono_clipped.wav", loud, 16000),
                                ("empty.wav", np.zeros((0, 3), np.float32), 44100)]:
        value, err = run(lambda s=samples, r=rate: R.EncodeWav(audio=s, sample_rate=r))
        assert err is None, err
        put(name, value)
        encodes.append({"file": name, "sample_rate": rate, "audio": as_json(samples)})
    ints = np.round(audio * 32767).astype(np.int16)
    put("junk_before_fmt.wav", wav_file(ints, before_fmt=chunk(b"JUNK", b"\x00" * 6)))
    put("fmt18.wav", wav_file(ints[:, :1], rate=11025, fmt_extra=b"\x00\x00"))
    put("list_after_data.wav", wav_file(ints, after_data=chunk(b"LIST", b"INFOabcd")))
    stereo = files["stereo.wav"]
    bad = {
        "riff_mismatch.wav": b"RIFX" + stereo[4:],
        "wave_mismatch.wav": stereo[:8] + b"WAVF" + stereo[12:],
        "short_header.wav": stereo[:10],
        "unexpected_field.wav": stereo[:12] + b"LIST" + stereo[16:],
        "fmt_size.wav": stereo[:16] + struct.pack("<I", 20) + stereo[20:],
        "not_pcm.wav": wav_file(ints, fmt={"audio_format": 3}),
        "zero_channels.wav": wav_file(ints, fmt={"channels": 0}),
        "eight_bit.wav": wav_file(ints, fmt={"bits": 8}),
        "block_align.wav": wav_file(ints, fmt={"block_align": 3}),
        "byte_rate.wav": wav_file(ints, fmt={"byte_rate": 3}),
        "no_data.wav": stereo[:36],
        "renamed_data.wav": stereo[:36] + b"junk" + stereo[40:],
        "two_data.wav": stereo + stereo[36:],
        "huge_chunk.wav": stereo[:40] + struct.pack("<I", 0x90000000) + stereo[44:],
        "truncated_data.wav": stereo[:-6],
        "junk_too_long.wav": wav_file(ints, before_fmt=b"JUNK" + struct.pack("<I", 5000)),
        "data_size_odd.wav": stereo[:40] + struct.pack("<I", 7) + stereo[44:51],
    }
    for name, data in bad.items():
        put(name, data)

    decodes, errors = [], []

    def decode(op, name, attrs, expect_error=False):
        def fn():
            y = getattr(R, op)(contents=contents(name), **attrs)
            return list(y) if op == "DecodeWav" else y
        value, err = run(fn)
        entry = {"op": op, "file": name, "attrs": dict(attrs)}
        if "dtype" in attrs:
            entry["attrs"]["dtype"] = tf.as_dtype(attrs["dtype"]).name
        if err is None:
            assert expect_error in (False, None), (op, name, attrs)
            if op == "DecodeWav":
                entry["audio"] = as_json(value[0])
                entry["sample_rate"] = int(value[1])
            else:
                entry.update(as_json(value))
            decodes.append(entry)
        else:
            assert expect_error in (True, None), (op, name, attrs, err)
            entry["message"] = err
            errors.append(entry)

    for name in ["stereo.wav", "mono_clipped.wav", "empty.wav", "junk_before_fmt.wav",
                 "fmt18.wav", "list_after_data.wav"]:
        decode("DecodeWav", name, {})
    for channels, samples in [(1, -1), (3, -1), (0, -1), (-1, 5), (-1, 50), (-1, 0), (4, 40),
                              (1, 3)]:
        decode("DecodeWav", "stereo.wav", {"desired_channels": channels,
                                           "desired_samples": samples})
    decode("DecodeWav", "mono_clipped.wav", {"desired_channels": 2, "desired_samples": 10})
    decode("DecodeWav", "empty.wav", {"desired_samples": 4})
    for name in bad:
        decode("DecodeWav", name, {}, expect_error=True)
    decode("DecodeWav", "stereo.wav", {"desired_channels": -2}, expect_error=True)
    value, err = run(lambda: list(R.DecodeWav(contents=tf1.constant(b""))))
    errors.append({"op": "DecodeWav", "file": "", "attrs": {}, "message": err})

    # GIFs.
    for name, data in gifs().items():
        put(name, data)
    good = ["single.gif", "gif87a.gif", "animated.gif", "partial_second.gif",
            "partial_first.gif", "transparent_first.gif", "disposal.gif", "overflow.gif",
            "larger_than_screen.gif", "local_colors.gif", "local_only.gif", "eight_bit.gif",
            "interlaced.gif", "extensions.gif", "two_gce.gif", "truncated_trailer.gif",
            "truncated_second.gif", "truncated_descriptor.gif"]
    for name in good:
        decode("DecodeGif", name, {})
        decode("DecodeImage", name, {"expand_animations": False})
    for name in ["animated.gif", "partial_first.gif", "eight_bit.gif"]:
        decode("DecodeImage", name, {})
        decode("DecodeImage", name, {"dtype": tf.float32, "channels": 3})
    decode("DecodePng", "single.gif", {})
    decode("DecodeJpeg", "interlaced.gif", {"channels": 3})
    decode("DecodeImage", "index_out_of_map.gif", {"expand_animations": False})
    decode("DecodeImage", "missing_color_map.gif", {"expand_animations": False})
    for op, name, attrs in [("DecodeGif", "index_out_of_map.gif", {}),
                            ("DecodeGif", "missing_color_map.gif", {}),
                            ("DecodeGif", "no_images.gif", {}),
                            ("DecodeGif", "truncated_first.gif", {}),
                            ("DecodeGif", "header_only.gif", {}),
                            ("DecodeImage", "index_out_of_map.gif", {}),
                            ("DecodeImage", "header_only.gif", {"expand_animations": False}),
                            ("DecodeImage", "single.gif", {"channels": 1}),
                            ("DecodeJpeg", "animated.gif", {}),
                            ("DecodePng", "partial_second.gif", {}),
                            ("DecodeBmp", "single.gif", {}),
                            ("DecodeAndCropJpeg", "single.gif", {"crop_window": [0, 0, 1, 1]})]:
        if op == "DecodeAndCropJpeg":
            def fn(n=name):
                return R.DecodeAndCropJpeg(contents=contents(n), crop_window=[0, 0, 1, 1])
            value, err = run(fn)
            assert err is not None
            errors.append({"op": op, "file": name, "attrs": {}, "crop_window": [0, 0, 1, 1],
                           "message": err})
            continue
        decode(op, name, attrs, expect_error=True)
    # DecodeGif reads PNG and JPEG too (one frame), and fails on anything else.
    png, err = run(lambda: R.EncodePng(image=np.arange(18, dtype=np.uint8).reshape(2, 3, 3)))
    put("rgb.png", png)
    decode("DecodeGif", "rgb.png", {})
    put("garbage.bin", b"not a gif at all")
    decode("DecodeGif", "garbage.bin", {}, expect_error=True)

    ref = {
        "encodes": encodes,
        "decodes": decodes,
        "errors": errors,
        "tensorflow": tf.__version__,
    }
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(ref, f, separators=(",", ":"))
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print("%d decodes, %d errors, %d files, %d bytes" % (len(decodes), len(errors), len(files),
                                                        total))
    for e in errors:
        print(" ", e["op"], e["file"], e["attrs"], "->", e["message"])


if __name__ == "__main__":
    main()
