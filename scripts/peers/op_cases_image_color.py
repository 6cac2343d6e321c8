"""Fixture cases of the image colour family for make_op_fixtures.py: RGBToHSV and HSVToRGB
(float32, float64, bfloat16; RGBToHSV's gradient, image_grad.py's _RGBToHSVGrad; HSVToRGB is
not differentiable), AdjustContrastv2, AdjustHue and AdjustSaturation (float32; TensorFlow
registers no gradient for them, so their cases take none), through the raw ops and the
tf.image wrappers (Const, the op, Identity)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def build_image_color(b):
    f32, f64, bf16 = tf.float32, tf.float64, tf.bfloat16
    u = lambda *shape: b.rng.uniform(0, 1, size=shape)  # noqa: E731

    # Pixels with ties and extremes: black, white, grays, two equal channels each way, pure
    # primaries and secondaries, and hues on either side of red (negative before the wrap).
    edges = np.array([[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [0.5, 0.5, 0.2], [0.2, 0.5, 0.5],
                      [0.5, 0.2, 0.5], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1],
                      [1, 0, 1], [0.9, 0.1, 0.3], [0.9, 0.3, 0.1], [0.25, 0.75, 0.5],
                      [0.1, 0.2, 0.9]], dtype=np.float64)

    # RGBToHSV: rank 1 to 4, edge pixels, float64, bfloat16 (rounded after every step), an
    # empty batch; the gradient for float32 and float64 (random pixels: no ties).
    b.case("RGBToHSV_rank1", lambda x: R.RGBToHSV(images=x), [(u(3), f32)])
    b.case("RGBToHSV_image", lambda x: tf1.image.rgb_to_hsv(x), [(u(4, 5, 3), f32)])
    b.case("RGBToHSV_batch", lambda x: R.RGBToHSV(images=x), [(u(2, 3, 2, 3), f32)])
    b.case("RGBToHSV_edges", lambda x: R.RGBToHSV(images=x), [(edges, f32)], grad=False)
    b.case("RGBToHSV_f64", lambda x: R.RGBToHSV(images=x), [(u(3, 4, 3), f64)])
    b.case("RGBToHSV_edges_f64", lambda x: R.RGBToHSV(images=x), [(edges, f64)],
           grad=False)
    b.case("RGBToHSV_bf16", lambda x: R.RGBToHSV(images=x), [(u(4, 3), bf16)], exact=True,
           grad=False)
    b.case("RGBToHSV_empty", lambda x: R.RGBToHSV(images=x), [(np.zeros((0, 3)), f32)])

    # HSVToRGB: hues across all six sectors and the wrap at 1, float64, bfloat16, a round
    # trip through RGBToHSV (its gradient: RGBToHSV's, HSVToRGB giving none).
    hsv = np.stack([np.linspace(0, 1, 13), np.linspace(0, 1, 13)[::-1],
                    np.linspace(0.2, 1, 13)], axis=-1)
    b.case("HSVToRGB_sectors", lambda x: R.HSVToRGB(images=x), [(hsv, f32)])
    b.case("HSVToRGB_image", lambda x: tf1.image.hsv_to_rgb(x), [(u(2, 4, 3), f32)])
    b.case("HSVToRGB_f64", lambda x: R.HSVToRGB(images=x), [(hsv, f64)])
    b.case("HSVToRGB_bf16", lambda x: R.HSVToRGB(images=x), [(u(5, 3), bf16)], exact=True,
           grad=False)
    b.case("RGBToHSV_round_trip", lambda x: R.HSVToRGB(images=R.RGBToHSV(images=x)),
           [(u(3, 3, 3), f32)])

    # AdjustContrastv2: one image, a batch, a 1x1 image, odd sizes (the halving sum's odd
    # remainders), factors below 1, above 1 and negative, an empty batch; tf.image's wrapper.
    for name, shape, factor in [("image", (4, 5, 3), 0.5), ("batch", (2, 3, 4, 2), 2.0),
                                ("one_pixel", (1, 1, 3), 1.5), ("odd", (3, 7, 2), -1.0),
                                ("rank5", (2, 1, 3, 5, 1), 0.25), ("empty", (0, 2, 2, 3), 2.0)]:
        b.case("AdjustContrastv2_" + name,
               lambda x, f=factor: R.AdjustContrastv2(images=x, contrast_factor=f),
               [(u(*shape), f32)], grad=False)
    b.case("adjust_contrast", lambda x: tf1.image.adjust_contrast(x, 1.7), [(u(3, 4, 3), f32)],
           grad=False)

    # AdjustHue: deltas either way, past a half turn, a whole turn; edge pixels; a batch.
    for name, delta in [("small", 0.2), ("negative", -0.7), ("half", 0.5), ("whole", 1.0)]:
        b.case("AdjustHue_" + name, lambda x, d=delta: R.AdjustHue(images=x, delta=d),
               [(u(2, 3, 3), f32)], grad=False)
    b.case("AdjustHue_edges", lambda x: R.AdjustHue(images=tf.reshape(x, [4, 4, 3]), delta=0.3),
           [(edges, f32)], grad=False)
    b.case("adjust_hue", lambda x: tf1.image.adjust_hue(x, -0.25), [(u(2, 2, 2, 3), f32)],
           grad=False)

    # AdjustSaturation: scales down, up (clamped at 1), to gray; edge pixels.
    for name, scale in [("half", 0.5), ("double", 2.0), ("zero", 0.0)]:
        b.case("AdjustSaturation_" + name,
               lambda x, s=scale: R.AdjustSaturation(images=x, scale=s), [(u(3, 2, 3), f32)],
               grad=False)
    b.case("AdjustSaturation_edges",
           lambda x: R.AdjustSaturation(images=tf.reshape(x, [2, 8, 3]), scale=1.5),
           [(edges, f32)], grad=False)
    b.case("adjust_saturation", lambda x: tf1.image.adjust_saturation(x, 0.3),
           [(u(2, 3, 3), f32)], grad=False)
