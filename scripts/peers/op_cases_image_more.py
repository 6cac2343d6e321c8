"""Fixture cases of the image_more family for make_op_fixtures.py: DrawBoundingBoxes and
DrawBoundingBoxesV2 (default and given colours, grayscale and RGBA, inverted, partial and
outside boxes), ExtractGlimpse and ExtractGlimpseV2 (normalized and centered offsets, windows
crossing the border filled with zero noise, windows inside under the default uniform noise),
ImageProjectiveTransformV2 and V3 (both interpolations, the four fill modes, per-image and
projective transforms, every dtype) with their gradient (the inverse transform),
ScaleAndTranslate (every kernel, with and without antialiasing, shrinking and growing,
translated) with its gradient ScaleAndTranslateGrad, CombinedNonMaxSuppression (q 1 and one
box per class, ties, pad_per_class, clip_boxes), NonMaxSuppressionWithOverlaps, and the
samplers SampleDistortedBoundingBox, SampleDistortedBoundingBoxV2 (fixed seed and seed2: the
first draw of TensorFlow's sequence) and StatelessSampleDistortedBoundingBox (exact for its
seed). AdjustContrast and RandomCrop are refused by TensorFlow in GraphDefs of version 2 and
8 onwards, so this graph cannot hold them: tests/conformance/image_more_ops_test.cpp checks
them against values TensorFlow computed in an old-version graph."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _wide(y):
    """uint8 results as int32 (the fixture's encoding has no uint8)."""
    return tf.cast(y, tf.int32)


def _draw_cases(b, f32):
    u = lambda *shape: b.rng.uniform(0, 1, size=shape)  # noqa: E731
    boxes = np.array([[[0.1, 0.2, 0.8, 0.7], [0.0, 0.0, 1.0, 1.0], [0.5, 0.5, 0.4, 0.9],
                       [-0.3, 0.4, 0.5, 1.6], [1.2, 0.1, 1.5, 0.3], [0.25, 0.25, 0.25, 0.75]],
                      [[0.3, 0.1, 0.6, 0.95], [0.9, 0.0, 1.0, 0.2], [0.0, 0.6, 0.2, 0.6],
                       [0.4, -0.5, 0.7, 0.05], [0.1, 0.1, 0.2, 0.2], [0.6, 0.3, 0.9, 0.5]]])
    b.case("DrawBoundingBoxes_rgb", lambda x, bx: tf1.image.draw_bounding_boxes(x, bx),
           [(u(2, 7, 9, 3), f32), (boxes, f32)], exact=True, grad=False)
    b.case("DrawBoundingBoxes_gray", lambda x, bx: tf1.image.draw_bounding_boxes(x, bx),
           [(u(2, 6, 5, 1), f32), (boxes, f32)], exact=True, grad=False)
    b.case("DrawBoundingBoxes_rgba_many",
           lambda x, bx: R.DrawBoundingBoxes(images=x, boxes=bx),
           [(u(1, 8, 8, 4), f32), (u(1, 13, 4) * 1.2 - 0.1, f32)], exact=True, grad=False)
    colors = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 0.5, 1.0, 0.2], [0.3, 0.3, 0.3, 0.0]])
    b.case("DrawBoundingBoxesV2_colors", lambda x, bx, c: tf.image.draw_bounding_boxes(x, bx, c),
           [(u(2, 7, 9, 3), f32), (boxes, f32), (colors, f32)], exact=True, grad=False)
    b.case("DrawBoundingBoxesV2_gray_colors",
           lambda x, bx, c: tf.image.draw_bounding_boxes(x, bx, c),
           [(u(2, 6, 5, 1), f32), (boxes, f32), (colors[:, :2], f32)], exact=True, grad=False)
    b.case("DrawBoundingBoxesV2_empty_colors",
           lambda x, bx, c: tf.image.draw_bounding_boxes(x, bx, c),
           [(u(2, 7, 9, 4), f32), (boxes, f32), (np.zeros((0, 4)), f32)], exact=True,
           grad=False)
    b.case("DrawBoundingBoxes_no_boxes", lambda x, bx: tf1.image.draw_bounding_boxes(x, bx),
           [(u(2, 3, 3, 3), f32), (np.zeros((2, 0, 4)), f32)], exact=True, grad=False)


def _glimpse_cases(b, f32):
    image = b.rng.uniform(1, 2, size=(3, 6, 8, 2))
    inside = np.array([[0.0, 0.0], [0.1, -0.2], [-0.3, 0.25]])
    for version, fn in ((1, R.ExtractGlimpse), (2, R.ExtractGlimpseV2)):
        for centered in (True, False):
            for normalized in (True, False):
                if normalized:
                    offsets = b.rng.uniform(-1.3, 1.3, size=(3, 2)) if centered else \
                        b.rng.uniform(-0.3, 1.3, size=(3, 2))
                else:
                    offsets = b.rng.uniform(-6, 6, size=(3, 2)) if centered else \
                        b.rng.uniform(-4, 10, size=(3, 2))
                for size in ([3, 4], [9, 11]):
                    name = "ExtractGlimpse%s_%s%s_%dx%d" % (
                        "" if version == 1 else "V2", "c" if centered else "",
                        "n" if normalized else "", size[0], size[1])
                    b.case(name,
                           lambda x, o, fn=fn, size=size, centered=centered,
                           normalized=normalized: fn(input=x, size=size, offsets=o,
                                                     centered=centered, normalized=normalized,
                                                     uniform_noise=False, noise="zero"),
                           [(image, f32), (offsets, f32)], exact=True, grad=False)
    # Windows wholly inside the image: the default uniform noise is overwritten.
    b.case("ExtractGlimpse_inside_uniform",
           lambda x, o: tf1.image.extract_glimpse(x, [2, 3], o),
           [(image, f32), (inside, f32)], exact=True, grad=False)
    b.case("ExtractGlimpseV2_inside_uniform",
           lambda x, o: tf.image.extract_glimpse(x, [2, 3], o),
           [(image, f32), (inside, f32)], exact=True, grad=False)
    b.case("ExtractGlimpseV2_pixels_inside",
           lambda x, o: tf.image.extract_glimpse(x, [3, 3], o, centered=False, normalized=False),
           [(image, f32), (np.array([[0.0, 0.0], [1.7, 4.2], [3.0, 5.0]]), f32)], exact=True,
           grad=False)
    b.case("ExtractGlimpse_empty_window",
           lambda x, o: R.ExtractGlimpse(input=x, size=[0, 3], offsets=o, noise="zero",
                                         uniform_noise=False),
           [(image, f32), (inside, f32)], exact=True, grad=False)


def _transform_cases(b, f32, f64, i32, i64, u8, bf16):
    image = b.rng.uniform(0, 1, size=(2, 5, 7, 2))
    ints = b.rng.randint(0, 200, size=(2, 5, 7, 2))
    # Transforms whose inverses are exact (the gradient inverts them with MatrixInverse).
    shift = np.array([[1, 0, -2.5, 0, 1, 1.5, 0, 0]])
    scale = np.array([[2, 0, 1, 0, 0.5, -1, 0, 0]])
    rot90 = np.array([[0, -1, 6, 1, 0, 0, 0, 0], [-1, 0, 6, 0, -1, 4, 0, 0]])
    projective = np.array([[0.8, -0.3, 1.2, 0.4, 1.1, -0.7, 0.01, -0.02]])
    rotate = np.array([[np.cos(0.5), -np.sin(0.5), 3, np.sin(0.5), np.cos(0.5), -1, 0, 0]])
    for interp in ("NEAREST", "BILINEAR"):
        for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
            for tname, t in (("shift", shift), ("scale", scale), ("rot90", rot90)):
                b.case("ImageProjectiveTransformV3_%s_%s_%s" % (interp, mode, tname),
                       lambda x, tr, interp=interp, mode=mode: R.ImageProjectiveTransformV3(
                           images=x, transforms=tr, output_shape=[5, 7], fill_value=-0.75,
                           interpolation=interp, fill_mode=mode),
                       [(image, f32), (t, f32)], exact=interp == "NEAREST")
            b.case("ImageProjectiveTransformV2_%s_%s_rotate" % (interp, mode),
                   lambda x, tr, interp=interp, mode=mode: R.ImageProjectiveTransformV2(
                       images=x, transforms=tr, output_shape=[6, 9], interpolation=interp,
                       fill_mode=mode),
                   [(image, f32), (rotate, f32)], exact=interp == "NEAREST", grad=False)
        b.case("ImageProjectiveTransformV2_%s_projective" % interp,
               lambda x, tr, interp=interp: R.ImageProjectiveTransformV2(
                   images=x, transforms=tr, output_shape=[4, 9], interpolation=interp,
                   fill_mode="CONSTANT"),
               [(image, f32), (projective, f32)], exact=interp == "NEAREST", tolerance=1e-5,
               grad=interp == "BILINEAR")
    b.case("ImageProjectiveTransformV2_f64",
           lambda x, tr: R.ImageProjectiveTransformV2(
               images=x, transforms=tr, output_shape=[5, 7], interpolation="BILINEAR",
               fill_mode="REFLECT"),
           [(image, f64), (shift, f32)], tolerance=1e-6)
    for dtype, wide in ((i32, False), (i64, False), (u8, True)):
        for interp in ("NEAREST", "BILINEAR"):
            b.case("ImageProjectiveTransformV3_%s_%s" % (dtype.name, interp),
                   lambda x, tr, interp=interp, wide=wide: (_wide if wide else tf.identity)(
                       R.ImageProjectiveTransformV3(images=x, transforms=tr, output_shape=[6, 8],
                                                    fill_value=3.0, interpolation=interp,
                                                    fill_mode="CONSTANT")),
                   [(ints, dtype), (rotate, f32)], exact=True, grad=False)
    b.case("ImageProjectiveTransformV3_bf16",
           lambda x, tr: R.ImageProjectiveTransformV3(
               images=x, transforms=tr, output_shape=[5, 7], fill_value=0.5,
               interpolation="BILINEAR", fill_mode="WRAP"),
           [(image, bf16), (rotate, f32)], exact=True, grad=False)
    b.case("ImageProjectiveTransformV2_zero_projection",
           lambda x, tr: R.ImageProjectiveTransformV2(
               images=x, transforms=tr, output_shape=[3, 4], interpolation="BILINEAR"),
           [(image, f32), (np.array([[1, 0, 0, 0, 1, 0, -0.5, 0]]), f32)], grad=False)


def _scale_cases(b, f32, f64, i32, u8):
    kernels = ("lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic",
               "mitchellcubic")
    shapes = [((5, 6), (8, 9), (1.6, 1.5), (0.0, 0.0)),
              ((8, 9), (3, 4), (0.375, 0.44), (0.2, -0.5)),
              ((7, 5), (10, 3), (1.3, 0.55), (-2.0, 1.0))]
    for kernel in kernels:
        for antialias in (True, False):
            for k, (insize, outsize, sc, tr) in enumerate(shapes):
                image = b.rng.uniform(-1, 1, size=(2,) + insize + (2,))
                b.case("ScaleAndTranslate_%s_%s%d" % (kernel, "aa" if antialias else "", k),
                       lambda x, s, t, outsize=outsize, kernel=kernel, antialias=antialias:
                       R.ScaleAndTranslate(images=x, size=list(outsize), scale=s, translation=t,
                                           kernel_type=kernel, antialias=antialias),
                       [(image, f32), (np.array(sc), f32), (np.array(tr), f32)], atol=1e-6)
    small = b.rng.randint(0, 255, size=(1, 6, 5, 3))
    b.case("ScaleAndTranslate_uint8",
           lambda x: R.ScaleAndTranslate(images=x, size=[4, 7], scale=[0.7, 1.4],
                                         translation=[0.1, 0.0], kernel_type="triangle"),
           [(small, u8)], atol=1e-4)
    b.case("ScaleAndTranslate_int32",
           lambda x: R.ScaleAndTranslate(images=x, size=[3, 3], scale=[0.5, 0.6],
                                         translation=[0.0, 0.0], kernel_type="KeysCubic"),
           [(small, i32)], atol=1e-4)
    b.case("ScaleAndTranslate_f64",
           lambda x: R.ScaleAndTranslate(images=x, size=[9, 4], scale=[1.5, 0.8],
                                         translation=[0.0, 0.3], kernel_type="mitchellcubic"),
           [(b.rng.uniform(-1, 1, size=(1, 6, 5, 2)), f64)], atol=1e-6, grad=False)
    b.case("ScaleAndTranslate_outside",
           lambda x: R.ScaleAndTranslate(images=x, size=[5, 5], scale=[1.0, 1.0],
                                         translation=[3.0, -2.5], kernel_type="box",
                                         antialias=False),
           [(b.rng.uniform(-1, 1, size=(1, 4, 4, 1)), f32)], atol=1e-6)
    b.case("ScaleAndTranslateGrad_raw",
           lambda g, x: R.ScaleAndTranslateGrad(grads=g, original_image=x, scale=[0.6, 1.7],
                                                translation=[0.5, -0.2],
                                                kernel_type="lanczos3"),
           [(b.rng.uniform(-1, 1, size=(2, 4, 9, 3)), f32),
            (b.rng.uniform(-1, 1, size=(2, 7, 5, 3)), f32)], atol=1e-6, grad=False)
    b.case("ScaleAndTranslate_resize_lanczos3",
           lambda x: tf.image.resize(x, [7, 3], method="lanczos3", antialias=True),
           [(b.rng.uniform(-1, 1, size=(1, 5, 6, 2)), f32)], atol=1e-6)


def _nms_cases(b, f32, i32):
    # CombinedNonMaxSuppression: [batch, num_boxes, q, 4] boxes, [batch, num_boxes, classes].
    boxes1 = np.array([[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0, -0.1, 1, 0.9]],
                       [[0, 10, 1, 11]], [[0, 10.1, 1, 11.1]], [[0, 100, 1, 101]],
                       [[-0.5, 0.2, 0.4, 1.3]], [[0.2, 0.2, 0.6, 0.6]]]) / 2.0
    boxes1 = np.stack([boxes1, boxes1[::-1] * 0.9])
    scores = np.array([[[0.9, 0.1, 0.75], [0.75, 0.2, 0.75], [0.6, 0.95, 0.1],
                        [0.95, 0.3, 0.5], [0.5, 0.3, 0.5], [0.3, 0.6, 0.6],
                        [0.7, 0.7, 0.05], [0.9, 0.4, 0.75]]])
    scores = np.concatenate([scores, scores[:, ::-1, ::-1]])
    cnms = tf.image.combined_non_max_suppression
    b.case("CombinedNonMaxSuppression_q1",
           lambda bx, s: list(cnms(bx, s, 3, 6, 0.5, 0.2)),
           [(boxes1, f32), (scores, f32)], exact=True, grad=False)
    b.case("CombinedNonMaxSuppression_q1_no_clip",
           lambda bx, s: list(cnms(bx, s, 4, 10, 0.4, 0.0, clip_boxes=False)),
           [(boxes1, f32), (scores, f32)], exact=True, grad=False)
    b.case("CombinedNonMaxSuppression_pad_per_class",
           lambda bx, s: list(cnms(bx, s, 2, 20, 0.5, 0.25, pad_per_class=True)),
           [(boxes1, f32), (scores, f32)], exact=True, grad=False)
    boxes_q = b.rng.uniform(0, 1, size=(2, 8, 3, 4))
    b.case("CombinedNonMaxSuppression_per_class_boxes",
           lambda bx, s: list(cnms(bx, s, 5, 7, 0.3, 0.1)),
           [(boxes_q, f32), (scores, f32)], exact=True, grad=False)
    many_boxes = b.rng.uniform(0, 1, size=(1, 40, 1, 4))
    tied = np.round(b.rng.uniform(0, 1, size=(1, 40, 4)), 1)  # many ties
    b.case("CombinedNonMaxSuppression_ties",
           lambda bx, s: list(cnms(bx, s, 12, 30, 0.45, 0.05)),
           [(many_boxes, f32), (tied, f32)], exact=True, grad=False)
    b.case("CombinedNonMaxSuppression_none_above",
           lambda bx, s: list(cnms(bx, s, 3, 4, 0.5, 0.99)),
           [(boxes1, f32), (scores, f32)], exact=True, grad=False)
    # NonMaxSuppressionWithOverlaps on an overlap matrix (not symmetric on purpose).
    overlaps = b.rng.uniform(0, 0.9, size=(8, 8)) ** 2
    ov_scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.1])
    nmso = tf.image.non_max_suppression_overlaps
    b.case("NonMaxSuppressionWithOverlaps",
           lambda o, s: nmso(o, s, 6, overlap_threshold=0.5),
           [(overlaps, f32), (ov_scores, f32)], exact=True, grad=False)
    b.case("NonMaxSuppressionWithOverlaps_score",
           lambda o, s: nmso(o, s, 10, overlap_threshold=0.7, score_threshold=0.4),
           [(overlaps, f32), (ov_scores, f32)], exact=True, grad=False)
    b.case("NonMaxSuppressionWithOverlaps_zero",
           lambda o, s: nmso(o, s, 0),
           [(overlaps, f32), (ov_scores, f32)], exact=True, grad=False)


def _sample_cases(b, f32, i32, i64, u8):
    boxes = np.array([[[0.1, 0.2, 0.5, 0.7], [0.3, 0.3, 0.35, 0.4]]])
    cases = [([40, 60, 3], 0.1, (0.75, 1.33), (0.05, 1.0), 100),
             ([100, 80, 3], 0.5, (0.5, 2.0), (0.1, 0.9), 50),
             ([7, 9, 1], 0.9, (0.75, 1.33), (0.5, 1.0), 10),
             ([300, 200, 3], 0.0, (1.0, 1.0), (0.01, 0.02), 100)]
    for k, (size, covered, ratio, area, attempts) in enumerate(cases):
        for seed in ((1, 2), (-5, 7), (123456789012, 3)):
            b.case("StatelessSampleDistortedBoundingBox_%d_%d" % (k, seed[0] & 0xffff),
                   lambda sz, bx, s, covered=covered, ratio=ratio, area=area,
                   attempts=attempts: list(tf.image.stateless_sample_distorted_bounding_box(
                       sz, bx, s, min_object_covered=covered, aspect_ratio_range=ratio,
                       area_range=area, max_attempts=attempts)),
                   [(np.array(size), i32), (boxes, f32), (np.array(seed), i64)], exact=True,
                   grad=False)
        b.case("SampleDistortedBoundingBoxV2_%d" % k,
               lambda sz, bx, covered=covered, ratio=ratio, area=area, attempts=attempts: list(
                   R.SampleDistortedBoundingBoxV2(
                       image_size=sz, bounding_boxes=bx, min_object_covered=covered, seed=3,
                       seed2=4 + k, aspect_ratio_range=ratio, area_range=area,
                       max_attempts=attempts)),
               [(np.array(size), i64), (boxes, f32)], exact=True, grad=False)
        b.case("SampleDistortedBoundingBox_%d" % k,
               lambda sz, bx, covered=covered, ratio=ratio, area=area, attempts=attempts: list(
                   R.SampleDistortedBoundingBox(
                       image_size=sz, bounding_boxes=bx, min_object_covered=covered, seed=7 + k,
                       seed2=0, aspect_ratio_range=ratio, area_range=area,
                       max_attempts=attempts)),
               [(np.array(size), i32), (boxes, f32)], exact=True, grad=False)
    b.case("StatelessSampleDistortedBoundingBox_uint8_use_image",
           lambda sz, bx, s: [_wide(y) if y.dtype == tf.uint8 else y
                              for y in tf.image.stateless_sample_distorted_bounding_box(
                                  sz, bx, s, use_image_if_no_bounding_boxes=True)],
           [(np.array([30, 20, 3]), u8), (np.zeros((1, 0, 4)), f32), (np.array([4, 5]), i32)],
           exact=True, grad=False)
    b.case("StatelessSampleDistortedBoundingBox_impossible",
           lambda sz, bx, s: list(tf.image.stateless_sample_distorted_bounding_box(
               sz, bx, s, min_object_covered=1.0, area_range=(0.01, 0.02), max_attempts=5)),
           [(np.array([50, 50, 3]), i32), (np.array([[[0.0, 0.0, 1.0, 1.0]]]), f32),
            (np.array([9, 9]), i64)], exact=True, grad=False)


def build_image_more(b):
    f32, f64, i32, i64, u8, bf16 = (tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8,
                                    tf.bfloat16)
    _draw_cases(b, f32)
    _glimpse_cases(b, f32)
    _transform_cases(b, f32, f64, i32, i64, u8, bf16)
    _scale_cases(b, f32, f64, i32, u8)
    _nms_cases(b, f32, i32)
    _sample_cases(b, f32, i32, i64, u8)
