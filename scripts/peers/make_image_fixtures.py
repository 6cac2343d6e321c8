#!/usr/bin/env python3
"""Writes tests/data/tf_images/: small image files and what TensorFlow decodes from them.

Run with the TensorFlow venv: /root/.cache/af-tf/bin/python scripts/peers/make_image_fixtures.py

The JPEG and PNG files are TensorFlow's own encodes (tf.io.encode_jpeg, tf.io.encode_png) of
deterministic pixel arrays; the formats TensorFlow cannot write (palette, interlaced, 16-bit
and 1-bit PNG; BMP; multi-frame GIF) are written by hand here with zlib. reference.json holds
the source pixels, TensorFlow's decodes for each op and attr combination (shape, dtype,
values: uint8 as ints, float32 as floats), ExtractJpegShape's answers, and TensorFlow's error
messages for bad inputs and attrs (without the "\\n\\t [[{{node ...}}]]" suffix). The C++
side is tests/conformance/image_codec_test.cpp.
"""
import json
import re
import os
import struct
import zlib

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "tf_images")

H, W = 13, 17  # odd sizes: partial MCUs on both axes


def source_rgb():
    y, x = np.mgrid[0:H, 0:W]
    r = (x * 255 // (W - 1))
    g = (y * 255 // (H - 1))
    b = ((x * 7 + y * 13) % 32) * 8
    return np.stack([r, g, b], axis=-1).astype(np.uint8)


def source_gray():
    y, x = np.mgrid[0:H, 0:W]
    return ((x * 11 + y * 17) % 256).astype(np.uint8)[..., None]


def source_rgba():
    rgb = source_rgb()
    y, x = np.mgrid[0:H, 0:W]
    a = ((x + y) * 9 % 256).astype(np.uint8)[..., None]
    return np.concatenate([rgb, a], axis=-1)


# -- hand-written formats -------------------------------------------------------------------

def png_chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_file(width, height, bit_depth, color_type, rows, interlace=False, extra=b""):
    """rows(x0, dx, y0, dy) -> list of raw scanlines (bytes, no filter byte)."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0,
                       1 if interlace else 0)
    raw = b""
    if interlace:
        passes = [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4),
                  (1, 2, 0, 2), (0, 1, 1, 2)]
        for x0, dx, y0, dy in passes:
            if x0 >= width or y0 >= height:
                continue
            for line in rows(x0, dx, y0, dy):
                raw += b"\x00" + line
    else:
        for line in rows(0, 1, 0, 1):
            raw += b"\x00" + line
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra +
            png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def pixel_rows(pixels, pack):
    def rows(x0, dx, y0, dy):
        return [pack(pixels[y, x0::dx]) for y in range(y0, pixels.shape[0], dy)]
    return rows


def palette_png(with_trns):
    index = ((np.mgrid[0:H, 0:W][0] + np.mgrid[0:H, 0:W][1]) % 6).astype(np.uint8)
    plte = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0, 0, 255, 255, 40, 40, 40])
    extra = png_chunk(b"PLTE", plte)
    if with_trns:
        extra += png_chunk(b"tRNS", bytes([255, 128, 0, 200]))
    return png_file(W, H, 8, 3, pixel_rows(index, lambda r: r.tobytes()), extra=extra)


def gray1_png():
    bits = ((np.mgrid[0:H, 0:W][0] // 2 + np.mgrid[0:H, 0:W][1] // 3) % 2).astype(np.uint8)
    return png_file(W, H, 1, 0, pixel_rows(bits, lambda r: np.packbits(r).tobytes()))


def rgb16_png():
    rgb = source_rgb().astype(np.uint16) * 257 + np.arange(3, dtype=np.uint16)
    return png_file(W, H, 16, 2, pixel_rows(rgb, lambda r: r.astype(">u2").tobytes()))


def interlaced_png():
    rgb = source_rgb()
    return png_file(W, H, 8, 2, pixel_rows(rgb, lambda r: r.tobytes()), interlace=True)


def bmp_file(pixels, top_down):
    """BGR(A) or 8-bit BMP with a 40-byte info header (TF reads only the header fields)."""
    h, w, c = pixels.shape
    row = (c * w + 3) // 4 * 4
    body = b""
    order = range(h) if top_down else range(h - 1, -1, -1)
    for y in order:
        line = pixels[y][:, ::-1].tobytes() if c >= 3 else pixels[y].tobytes()
        if c == 4:
            bgra = pixels[y][:, [2, 1, 0, 3]]
            line = bgra.tobytes()
        body += line + b"\x00" * (row - c * w)
    header_size = 54
    file_header = b"BM" + struct.pack("<IHHI", header_size + len(body), 0, 0, header_size)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 8 * c, 0, len(body),
                       2835, 2835, 0, 0)
    return file_header + info + body


def gif_file(frames):
    """A 1x1 GIF of `frames` frames (each the smallest LZW image)."""
    out = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    for _ in range(frames):
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return out + b"\x3b"


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
            # Graph-mode errors lead with where the node was defined.
            return None, re.split(r"Node: '[^']*'\n", message)[-1]


def as_json(v):
    v = np.asarray(v)
    dtype = {np.dtype("uint8"): "uint8", np.dtype("float32"): "float32",
             np.dtype("int32"): "int32", np.dtype("int64"): "int64"}[v.dtype]
    values = v.reshape(-1).tolist()
    return {"shape": list(v.shape), "dtype": dtype, "values": values}


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}

    def put(name, data):
        files[name] = data
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)

    rgb, gray, rgba = source_rgb(), source_gray(), source_rgba()
    ga = np.concatenate([gray, rgba[..., 3:]], axis=-1)

    def enc(fn):
        value, err = run(fn)
        assert err is None, err
        return value

    # JPEGs: TensorFlow's encoder with several attrs (their bytes double as EncodeJpeg's
    # expected output).
    jpeg_encodes = [
        ("rgb420.jpg", "rgb", {"quality": 90}),
        ("rgb444.jpg", "rgb", {"quality": 90, "chroma_downsampling": False}),
        ("progressive.jpg", "rgb", {"quality": 75, "progressive": True, "optimize_size": True}),
        ("gray.jpg", "gray", {"quality": 85}),
        ("density_cm.jpg", "rgb", {"quality": 50, "density_unit": "cm", "x_density": 72,
                                   "y_density": 96, "xmp_metadata": "<x:xmpmeta/>"}),
        ("gray_as_rgb.jpg", "gray3", {"format": "grayscale", "quality": 95}),
    ]
    sources = {"rgb": rgb, "gray": gray, "rgba": rgba, "gray_alpha": ga}
    encodes = []
    for name, src, attrs in jpeg_encodes:
        pixels = gray if src in ("gray", "gray3") else rgb
        put(name, enc(lambda p=pixels, a=attrs: R.EncodeJpeg(image=p, **a)))
        encodes.append({"op": "EncodeJpeg", "source": "gray" if src != "rgb" else "rgb",
                        "attrs": attrs, "file": name})
    # Cut halfway through the entropy-coded data (after the SOS marker).
    sos = files["rgb420.jpg"].index(b"\xff\xda")
    put("truncated.jpg", files["rgb420.jpg"][: sos + (len(files["rgb420.jpg"]) - sos) // 2])

    # PNGs: TensorFlow's encoder for 1, 2, 3 and 4 channels; the rest written here.
    for name, src, comp in [("gray.png", "gray", -1), ("gray_alpha.png", "gray_alpha", 9),
                            ("rgb.png", "rgb", 0), ("rgba.png", "rgba", 6)]:
        put(name, enc(lambda p=sources[src], c=comp: R.EncodePng(image=p, compression=c)))
        encodes.append({"op": "EncodePng", "source": src, "attrs": {"compression": comp},
                        "file": name})
    put("palette.png", palette_png(False))
    put("palette_trns.png", palette_png(True))
    put("gray1.png", gray1_png())
    put("rgb16.png", rgb16_png())
    put("interlaced.png", interlaced_png())
    put("rgb24.bmp", bmp_file(rgb, top_down=False))
    put("rgba32_top_down.bmp", bmp_file(rgba, top_down=True))
    put("gray8.bmp", bmp_file(gray, top_down=False))
    put("animated.gif", gif_file(12))
    put("single.gif", gif_file(1))

    def contents(name):
        return tf1.constant(files[name], dtype=tf.string)

    decodes, errors = [], []

    def decode(op, name, attrs, crop=None, expect_error=False):
        def fn():
            kw = dict(attrs)
            if crop is not None:
                kw["crop_window"] = tf1.constant(crop, dtype=tf.int32)
            return getattr(R, op)(contents=contents(name), **kw)
        value, err = run(fn)
        entry = {"op": op, "file": name, "attrs": attrs}
        if crop is not None:
            entry["crop_window"] = crop
        if err is None:
            assert expect_error in (False, None), (op, name, attrs)
            entry.update(as_json(value))
            decodes.append(entry)
        else:
            assert expect_error in (True, None), (op, name, attrs, err)
            entry["message"] = err
            errors.append(entry)

    jpegs = ["rgb420.jpg", "rgb444.jpg", "progressive.jpg", "gray.jpg", "density_cm.jpg",
             "gray_as_rgb.jpg"]
    for name in jpegs:
        decode("DecodeJpeg", name, {})
        decode("DecodeJpeg", name, {"dct_method": "INTEGER_ACCURATE"})
    for ch in (1, 3):
        for name in ("rgb420.jpg", "gray.jpg", "progressive.jpg"):
            decode("DecodeJpeg", name, {"channels": ch})
    for ratio in (2, 4, 8):
        decode("DecodeJpeg", "rgb420.jpg", {"ratio": ratio})
        decode("DecodeJpeg", "rgb444.jpg", {"ratio": ratio, "dct_method": "INTEGER_ACCURATE"})
    decode("DecodeJpeg", "rgb420.jpg", {"fancy_upscaling": False})
    decode("DecodeJpeg", "rgb420.jpg", {"fancy_upscaling": False, "ratio": 2})
    decode("DecodeJpeg", "rgb420.jpg", {"dct_method": "INTEGER_FAST", "channels": 1})
    decode("DecodeJpeg", "truncated.jpg", {"try_recover_truncated": True,
                                           "acceptable_fraction": 0.1})
    # Whether these fail is TensorFlow's to say (None: record either).
    decode("DecodeJpeg", "truncated.jpg", {"try_recover_truncated": False,
                                           "acceptable_fraction": 0.1}, expect_error=None)
    decode("DecodeJpeg", "truncated.jpg", {}, expect_error=None)
    decode("DecodeJpeg", "truncated.jpg", {"try_recover_truncated": True}, expect_error=None)
    for name, crop in [("rgb420.jpg", [2, 3, 7, 9]), ("rgb444.jpg", [0, 0, 13, 17]),
                       ("rgb420.jpg", [5, 1, 8, 16]), ("gray.jpg", [1, 8, 4, 9])]:
        decode("DecodeAndCropJpeg", name, {}, crop=crop)
    decode("DecodeAndCropJpeg", "rgb420.jpg", {"channels": 1, "ratio": 1}, crop=[3, 4, 5, 6])
    decode("DecodeAndCropJpeg", "rgb420.jpg", {}, crop=[2, 3, 12, 9], expect_error=True)
    decode("DecodeAndCropJpeg", "rgb420.jpg", {}, crop=[0, 0, 0, 4], expect_error=True)
    decode("DecodeAndCropJpeg", "rgb.png", {}, crop=[0, 0, 2, 2], expect_error=True)
    decode("DecodeJpeg", "rgb.png", {})  # decode_jpeg reads PNG too

    pngs = ["gray.png", "gray_alpha.png", "rgb.png", "rgba.png", "palette.png",
            "palette_trns.png", "gray1.png", "rgb16.png", "interlaced.png"]
    for name in pngs:
        for ch in (0, 1, 3, 4):
            decode("DecodePng", name, {"channels": ch})
    decode("DecodePng", "rgb420.jpg", {})  # decode_png reads JPEG too
    for name in ["rgb24.bmp", "rgba32_top_down.bmp", "gray8.bmp"]:
        for ch in (0, 3, 4):
            decode("DecodeBmp", name, {"channels": ch})
    for name in ["rgb420.jpg", "gray.jpg", "rgb.png", "rgb16.png", "palette_trns.png",
                 "rgb24.bmp"]:
        decode("DecodeImage", name, {})
        decode("DecodeImage", name, {"dtype": tf.float32})
        decode("DecodeImage", name, {"channels": 3, "expand_animations": False})

    # Errors of bad contents and attrs.
    put("garbage.bin", b"not an image at all")
    put("bad_header.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 40)
    put("bad.png", files["rgb.png"][:40])
    put("short.bmp", b"BM" + b"\x00" * 20)
    put("bad_size.bmp", files["rgb24.bmp"][:-7])
    for op, name, attrs in [
            ("DecodeJpeg", "bad_header.jpg", {}),
            ("DecodeJpeg", "rgb420.jpg", {"ratio": 3}),
            ("DecodeJpeg", "rgb420.jpg", {"dct_method": "FLOAT"}),
            ("DecodeJpeg", "rgb420.jpg", {"channels": 2}),
            ("DecodeJpeg", "rgb420.jpg", {"channels": 4}),
            ("DecodeJpeg", "animated.gif", {}),
            ("DecodePng", "animated.gif", {}),
            ("DecodePng", "bad.png", {}),
            ("DecodePng", "rgb24.bmp", {}),
            ("DecodeBmp", "rgb420.jpg", {}),
            ("DecodeBmp", "rgb.png", {}),
            ("DecodeBmp", "rgb24.bmp", {"channels": 1}),
            ("DecodeBmp", "short.bmp", {}),
            ("DecodeBmp", "bad_size.bmp", {}),
            ("DecodeImage", "garbage.bin", {}),
            ("DecodeImage", "animated.gif", {"channels": 1}),
            ("DecodeImage", "rgb.png", {"channels": 5}),
            ("DecodeImage", "rgba.png", {"channels": 4, "dtype": tf.uint8}),
            ("ExtractJpegShape", "rgb.png", {}),
    ]:
        decode(op, name, attrs, expect_error=op != "DecodeImage" or name != "rgba.png")

    # An empty string.
    value, err = run(lambda: R.DecodeImage(contents=tf1.constant(b"", dtype=tf.string)))
    errors.append({"op": "DecodeImage", "file": "", "attrs": {}, "message": err})

    shapes = []
    for name in jpegs + ["truncated.jpg"]:
        for out in (tf.int32, tf.int64):
            value, err = run(lambda n=name, o=out: R.ExtractJpegShape(contents=contents(n),
                                                                     output_type=o))
            assert err is None, err
            shapes.append({"file": name, "output_type": out.name, "values": value.tolist()})

    # Encoder errors.
    enc_errors = []
    for label, fn in [
            ("EncodeJpeg 4 channels", lambda: R.EncodeJpeg(image=rgba)),
            ("EncodeJpeg format", lambda: R.EncodeJpeg(image=rgb, format="grayscale")),
            ("EncodeJpeg quality", lambda: R.EncodeJpeg(image=rgb, quality=101)),
            ("EncodePng 5 channels", lambda: R.EncodePng(image=np.zeros((2, 2, 5), np.uint8))),
            ("EncodePng compression", lambda: R.EncodePng(image=rgb, compression=10)),
            ("EncodePng rank 2", lambda: R.EncodePng(image=np.zeros((2, 2), np.uint8))),
    ]:
        value, err = run(fn)
        enc_errors.append({"case": label, "message": err})

    # Batched EncodePng: a [2, H, W, 3] batch gives a [2] vector of PNGs.
    batch = enc(lambda: R.EncodePng(image=np.stack([rgb, rgb[::-1]])))
    batch_shape = list(batch.shape)

    ref = {
        "sources": {k: as_json(v) for k, v in sources.items()},
        "encodes": encodes,
        "decodes": decodes,
        "errors": [e for e in errors if e is not None],
        "encode_errors": enc_errors,
        "jpeg_shapes": shapes,
        "batched_png_shape": batch_shape,
        "tensorflow": tf.__version__,
    }
    for e in ref["decodes"] + ref["errors"]:
        if "dtype" in e.get("attrs", {}):
            e["attrs"]["dtype"] = tf.as_dtype(e["attrs"]["dtype"]).name
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(ref, f, separators=(",", ":"))
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print("%d decodes, %d errors, %d files, %d bytes" % (len(decodes), len(errors), len(files),
                                                        total))
    for e in errors + enc_errors:
        print(" ", e.get("op", e.get("case")), e.get("file", ""), e.get("attrs", ""), "->",
              e["message"])


if __name__ == "__main__":
    main()
