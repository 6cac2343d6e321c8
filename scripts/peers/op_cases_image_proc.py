"""Fixture cases of the image_proc family for make_op_fixtures.py: ResizeBicubic (legacy
a = -0.75, Keys' a = -0.5 with half_pixel_centers, align_corners) and its gradient
ResizeBicubicGrad, ResizeArea (no gradient in TensorFlow), CropAndResize (bilinear and
nearest, extrapolation, flipped and out-of-image boxes, 1x1 crops) with its gradients
CropAndResizeGradImage and CropAndResizeGradBoxes, and NonMaxSuppression V1 to V5 (ties,
corners in either order, score thresholds, padding, Soft NMS)."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
R = tf.raw_ops


def _wide(y):
    """uint8 results as int32 (the fixture's encoding has no uint8)."""
    return tf.cast(y, tf.int32)


def build_image_proc(b):
    f32, f64, i32, i64, bf16, u8 = (tf.float32, tf.float64, tf.int32, tf.int64, tf.bfloat16,
                                    tf.uint8)
    u = lambda *shape: b.rng.uniform(-1, 1, size=shape)  # noqa: E731
    ints = lambda *shape: b.rng.randint(0, 200, size=shape)  # noqa: E731
    bicubic, area = tf1.image.resize_bicubic, tf1.image.resize_area

    # ResizeBicubic: up and down in each mode, 3 channels (TensorFlow's unrolled path), 1x1
    # inputs and outputs, a no-op size; every input dtype the kernel takes.
    b.case("ResizeBicubic_up", lambda x: bicubic(x, [7, 9]), [(u(2, 4, 5, 2), f32)])
    b.case("ResizeBicubic_down", lambda x: bicubic(x, [3, 2]), [(u(1, 7, 6, 2), f32)])
    b.case("ResizeBicubic_align", lambda x: bicubic(x, [7, 8], align_corners=True),
           [(u(1, 4, 5, 1), f32)])
    b.case("ResizeBicubic_align_down", lambda x: bicubic(x, [3, 4], align_corners=True),
           [(u(1, 6, 7, 2), f32)])
    b.case("ResizeBicubic_half_up", lambda x: bicubic(x, [8, 11], half_pixel_centers=True),
           [(u(2, 4, 5, 3), f32)])
    b.case("ResizeBicubic_half_down", lambda x: bicubic(x, [3, 2], half_pixel_centers=True),
           [(u(1, 8, 7, 2), f32)])
    b.case("ResizeBicubic_3ch", lambda x: bicubic(x, [5, 6]), [(u(1, 3, 4, 3), f32)])
    b.case("ResizeBicubic_1x1_in", lambda x: bicubic(x, [3, 4], half_pixel_centers=True),
           [(u(1, 1, 1, 2), f32)])
    b.case("ResizeBicubic_1x1_out", lambda x: bicubic(x, [1, 1]), [(u(1, 4, 5, 1), f32)])
    b.case("ResizeBicubic_same", lambda x: bicubic(x, [4, 5]), [(u(1, 4, 5, 2), f32)])
    b.case("ResizeBicubic_f64", lambda x: bicubic(x, [6, 7], half_pixel_centers=True),
           [(u(1, 4, 5, 2), f64)])
    b.case("ResizeBicubic_int32", lambda x: bicubic(x, [5, 7]), [(ints(1, 3, 4, 2), i32)])
    b.case("ResizeBicubic_int64", lambda x: bicubic(x, [5, 3], half_pixel_centers=True),
           [(ints(1, 3, 4, 2), i64)])
    b.case("ResizeBicubic_uint8", lambda x: bicubic(x, [6, 6], align_corners=True),
           [(ints(2, 3, 4, 3), u8)])
    b.case("ResizeBicubic_bf16", lambda x: bicubic(x, [5, 6]), [(u(1, 3, 4, 2), bf16)],
           grad=False)
    b.case("ResizeBicubic_empty_batch", lambda x: bicubic(x, [5, 6]),
           [(np.zeros((0, 3, 4, 2)), f32)])
    b.case("ResizeBicubicGrad_raw",
           lambda g, x: R.ResizeBicubicGrad(grads=g, original_image=x, half_pixel_centers=True),
           [(u(1, 6, 7, 2), f32), (u(1, 4, 5, 2), f64)], grad=False)

    # ResizeArea: down by whole and fractional factors, up, align_corners, 3 channels, the
    # integer dtypes; TensorFlow registers no gradient.
    b.case("ResizeArea_down2", lambda x: area(x, [2, 3]), [(u(2, 4, 6, 2), f32)], grad=False)
    b.case("ResizeArea_down_frac", lambda x: area(x, [3, 4]), [(u(1, 7, 9, 1), f32)],
           grad=False)
    b.case("ResizeArea_up", lambda x: area(x, [7, 5]), [(u(1, 3, 2, 3), f32)], grad=False)
    b.case("ResizeArea_align", lambda x: area(x, [3, 4], align_corners=True),
           [(u(1, 6, 7, 2), f32)], grad=False)
    b.case("ResizeArea_3ch", lambda x: area(x, [3, 5]), [(u(1, 5, 7, 3), f32)], grad=False)
    b.case("ResizeArea_f64", lambda x: area(x, [3, 2]), [(u(1, 5, 5, 2), f64)], grad=False)
    b.case("ResizeArea_int32", lambda x: area(x, [2, 3]), [(ints(1, 5, 7, 2), i32)])
    b.case("ResizeArea_uint8", lambda x: area(x, [4, 3]), [(ints(1, 5, 7, 3), u8)])
    b.case("ResizeArea_bf16", lambda x: area(x, [2, 2]), [(u(1, 3, 5, 2), bf16)], grad=False)

    # CropAndResize: boxes inside, flipped (y1 > y2), partly outside the image (extrapolated),
    # a 1x1 crop (the box's centre) and a 1-wide crop; bilinear and nearest; float64 and
    # integer images (then only the boxes get a gradient).
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.2, 0.1], [-0.3, 0.4, 0.6, 1.4],
                      [0.0, 0.0, 1.0, 1.0]])
    box_ind = np.array([0, 1, 1, 0])
    crop = tf.image.crop_and_resize
    b.case("CropAndResize_bilinear", lambda x, bx, bi: crop(x, bx, bi, [3, 4]),
           [(u(2, 5, 6, 2), f32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_nearest",
           lambda x, bx, bi: crop(x, bx, bi, [4, 3], method="nearest"),
           [(u(2, 5, 6, 2), f32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_extrapolate",
           lambda x, bx, bi: crop(x, bx, bi, [5, 5], extrapolation_value=-2.5),
           [(u(2, 4, 4, 1), f32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_1x1", lambda x, bx, bi: crop(x, bx, bi, [1, 1]),
           [(u(2, 5, 6, 3), f32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_1xN", lambda x, bx, bi: crop(x, bx, bi, [1, 4]),
           [(u(2, 5, 6, 1), f32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_nearest_1x1",
           lambda x, bx, bi: crop(x, bx, bi, [1, 1], method="nearest"),
           [(u(2, 5, 6, 1), f32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_f64", lambda x, bx, bi: crop(x, bx, bi, [3, 3]),
           [(u(2, 4, 5, 2), f64), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_int32", lambda x, bx, bi: crop(x, bx, bi, [3, 2]),
           [(ints(2, 4, 5, 2), i32), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_uint8", lambda x, bx, bi: crop(x, bx, bi, [2, 3], method="nearest"),
           [(ints(2, 4, 5, 3), u8), (boxes, f32), (box_ind, i32)])
    b.case("CropAndResize_no_boxes", lambda x, bx, bi: crop(x, bx, bi, [2, 3]),
           [(u(1, 4, 5, 2), f32), (np.zeros((0, 4)), f32), (np.zeros((0,)), i32)])
    b.case("CropAndResizeGradImage_raw",
           lambda g, bx, bi: R.CropAndResizeGradImage(grads=g, boxes=bx, box_ind=bi,
                                                      image_size=[2, 4, 5, 2], T=tf.float64,
                                                      method="nearest"),
           [(u(4, 3, 3, 2), f32), (boxes, f32), (box_ind, i32)], grad=False)

    # NonMaxSuppression V1 to V5: ties broken by the lower index, corners in either order,
    # boxes without area, score thresholds, max_output_size 0 and above the count, padding,
    # Soft NMS, no boxes.
    nms_boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                          [1, 10.1, 0, 11.1], [0, 100, 1, 101], [0.5, 0.5, 0.5, 0.9],
                          [0, 0, 1, 1]])
    nms_scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.99, 0.9])
    nms = tf.image.non_max_suppression
    b.case("NonMaxSuppressionV3_default", lambda bx, s: nms(bx, s, 10),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV3_iou", lambda bx, s: nms(bx, s, 10, iou_threshold=0.8),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV3_score", lambda bx, s: nms(bx, s, 3, 0.5, score_threshold=0.55),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV3_zero", lambda bx, s: nms(bx, s, 0),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV3_empty", lambda bx, s: nms(bx, s, 5),
           [(np.zeros((0, 4)), f32), (np.zeros((0,)), f32)], grad=False)
    b.case("NonMaxSuppressionV3_iou1", lambda bx, s: nms(bx, s, 10, iou_threshold=1.0),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppression_v1",
           lambda bx, s: R.NonMaxSuppression(boxes=bx, scores=s, max_output_size=4,
                                             iou_threshold=0.3),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppression_v2",
           lambda bx, s: R.NonMaxSuppressionV2(boxes=bx, scores=s, max_output_size=6,
                                               iou_threshold=0.5),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV4_pad",
           lambda bx, s: list(R.NonMaxSuppressionV4(boxes=bx, scores=s, max_output_size=7,
                                                    iou_threshold=0.5, score_threshold=0.4,
                                                    pad_to_max_output_size=True)),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV4_nopad",
           lambda bx, s: list(R.NonMaxSuppressionV4(boxes=bx, scores=s, max_output_size=7,
                                                    iou_threshold=0.5, score_threshold=0.4)),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV5_hard",
           lambda bx, s: list(tf.image.non_max_suppression_with_scores(bx, s, 10)),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV5_soft",
           lambda bx, s: list(tf.image.non_max_suppression_with_scores(
               bx, s, 10, score_threshold=0.1, soft_nms_sigma=0.5)),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV5_soft_pad",
           lambda bx, s: list(R.NonMaxSuppressionV5(boxes=bx, scores=s, max_output_size=9,
                                                    iou_threshold=0.5, score_threshold=0.2,
                                                    soft_nms_sigma=0.3,
                                                    pad_to_max_output_size=True)),
           [(nms_boxes, f32), (nms_scores, f32)], grad=False)
    rand_boxes = b.rng.uniform(0, 1, size=(30, 4))
    rand_scores = np.round(b.rng.uniform(0, 1, size=(30,)), 1)  # many ties
    b.case("NonMaxSuppressionV3_random", lambda bx, s: nms(bx, s, 20, 0.3),
           [(rand_boxes, f32), (rand_scores, f32)], grad=False)
    b.case("NonMaxSuppressionV5_random_soft",
           lambda bx, s: list(tf.image.non_max_suppression_with_scores(
               bx, s, 25, 0.5, 0.05, soft_nms_sigma=0.2)),
           [(rand_boxes, f32), (rand_scores, f32)], grad=False)
