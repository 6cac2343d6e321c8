#!/usr/bin/env python3
"""Writes tests/data/tf_graph/functional: graphs of TensorFlow 2's functional control flow
as tf.compat.v1 builds them in TensorFlow 2 (only eager execution disabled, so control flow
v2 and resource variables): While/StatelessWhile, If/StatelessIf and
PartitionedCall/StatefulPartitionedCall nodes over a function library. Never a dependency
of the build or the tests: the fixtures are committed, and this script remakes them.

  python scripts/peers/make_functional_fixtures.py [OUT_DIR]  # default tests/data/tf_graph/functional

OUT_DIR/graph.pb   make-while's loops (make_graph_fixtures.build_loops: a counter with a
                   loop invariant, nested loops, a parallel_iterations=1 matrix loop, a loop
                   in a cond branch, a cond in a loop body, a resource variable assigned in
                   every iteration) as functional ops, a stateless and a stateful
                   tf.function called in the graph, a cond with no outputs (only a side
                   effect), a cond on a predicate fed as p and a tf.switch_case (Case) on
                   k, with indices in and out of range; the reference holds the
                   values for n = 0, 1, 3, 6.
OUT_DIR/train.pb   a model trained through a v2 cond and a v2 loop that writes a
                   tf.TensorArray, and a tf.map_fn: their gradients (tf.gradients, minimize)
                   keep the forward values in Optionals (cond) and TensorLists (loop); the
                   reference holds loss and gradients of four steps and the variables after.
OUT_DIR/lists.pb   TensorList and Optional ops one by one (tf.raw_ops), and ZerosLike and AddN
                   of lists; the reference holds each fetch's value or TensorFlow's error.
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_graph_fixtures import build_loops  # noqa: E402

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()  # graph mode; control flow v2 and resource variables stay on


CASE_INDICES = [-1, 0, 1, 2, 5]


def all_ops(graph_def):
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return sorted(ops)


def make_graph(out):
    g = tf1.Graph()
    with g.as_default():
        n, x, p, counter = build_loops(tf, tf1)
        tf.identity(counter.read_value(), name="counter_out")

        @tf.function
        def affine(a, b):
            return a * b + 1.0, a - b
        first, second = affine(x, x)
        tf.identity(first, name="call_out")
        tf.identity(second, name="call_out_1")

        calls = tf1.get_variable("calls", [], tf.float32, initializer=tf1.zeros_initializer())

        @tf.function
        def count_call(a):
            calls.assign_add(1.0)
            return tf.reduce_sum(a)
        tf.identity(count_call(x), name="stateful_call_out")

        # A cond with no outputs: only its side effect.
        flips = tf1.get_variable("flips", [], tf.int32, initializer=tf1.zeros_initializer())

        def flip_on():
            flips.assign_add(1)
            return tf.no_op()
        side = tf1.cond(p, flip_on, tf.no_op, name="side_effect")
        with tf1.control_dependencies([side]):
            tf.identity(flips.read_value(), name="flips_out")
        y = tf1.cond(p, lambda: tf.sin(x) * x, lambda: tf.square(x) - x, name="branch")
        tf.identity(y, name="branch_out")
        # tf.switch_case: a Case node; an index out of range runs the last branch.
        index = tf1.placeholder_with_default(1, [], name="k")
        picked = tf.switch_case(index, [lambda: x * 10.0, lambda: x + 1.0, lambda: -x], name="pick")
        tf.identity(picked, name="pick_out")
        tf1.global_variables_initializer()  # "init"
        tf.io.write_graph(g.as_graph_def(), out, "graph.pb", as_text=False)
        xs = [0.5, -1.0, 2.0]
        fetches = {"sum": "sum_out:0", "nested": "nested_out:0", "power": "power_out:0",
                   "in_cond": "loop_in_cond_out:0", "collatz": "collatz_out:0",
                   "count": "count_out:0", "call": "call_out:0", "call_1": "call_out_1:0",
                   "stateful_call": "stateful_call_out:0", "branch": "branch_out:0"}
        runs = []
        with tf1.Session(graph=g) as sess:
            sess.run("init")
            for nv in (0, 1, 3, 6):
                r = sess.run(fetches, {n: nv, x: xs})
                r["not_in_cond"] = sess.run("loop_in_cond_out:0", {n: nv, p: False})
                r["branch_false"] = sess.run("branch_out:0", {x: xs, p: False})
                r["counter"] = sess.run("counter_out:0")
                r["calls"] = sess.run(calls.read_value())
                r["flips"] = sess.run("flips_out:0", {p: nv % 2 == 1})
                runs.append({"n": nv, **{k: np.asarray(v).tolist() for k, v in r.items()}})
            picks = [sess.run("pick_out:0", {x: xs, index: kv}).tolist() for kv in CASE_INDICES]
        ops = all_ops(g.as_graph_def())
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump({"x": xs, "runs": runs, "case_indices": CASE_INDICES, "picks": picks, "ops": ops,
                   "tensorflow": tf.__version__}, f, indent=1)
    print("wrote", out, ops)


W0 = [[0.2, -0.4, 0.1, 0.5], [0.3, 0.2, -0.6, 0.1], [-0.2, 0.4, 0.3, -0.3]]
V0 = [[0.5, -0.2], [0.1, 0.3], [-0.4, 0.2], [0.3, 0.6]]
TRAIN_X = [[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [-1.0, 0.5, 0.25]]
TRAIN_Y = [[0.5, -0.5], [1.0, 0.25], [-0.25, 0.75]]


def make_train(out):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        y = tf1.placeholder(tf.float32, [None, 2], name="y")
        p = tf1.placeholder_with_default(True, [], name="p")
        n = tf1.placeholder_with_default(2, [], name="n")
        w = tf1.get_variable("w", initializer=np.array(W0, np.float32))
        v = tf1.get_variable("v", initializer=np.array(V0, np.float32))
        h = tf.matmul(x, w)
        h = tf1.cond(p, lambda: tf.nn.relu(h) * 1.5, lambda: tf.tanh(h), name="act")
        steps = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[None])

        def body(i, a, ta):
            a = a * 0.9 + tf.sin(a) * 0.1
            return i + 1, a, ta.write(i, tf.reduce_sum(a, axis=1))
        _, h2, steps = tf1.while_loop(lambda i, a, ta: i < n, body, [0, h, steps], name="loop")
        stacked = tf.identity(steps.stack(), name="steps_out")
        pred = tf.matmul(h2, v)
        loss = tf.add(tf.reduce_mean(tf.square(pred - y)), 0.01 * tf.reduce_mean(stacked),
                      name="loss_out")
        grad_w, grad_v = tf.gradients(loss, [w, v])
        tf.identity(grad_w, name="grad_w")
        tf.identity(grad_v, name="grad_v")
        tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf.identity(tf.map_fn(lambda r: tf.reduce_sum(r * r), x), name="mapped_out")
        tf1.global_variables_initializer()  # "init"
        tf.io.write_graph(g.as_graph_def(), out, "train.pb", as_text=False)
        steps_ref = []
        with tf1.Session(graph=g) as sess:
            sess.run("init")
            for step in range(4):
                feed = {x: TRAIN_X, y: TRAIN_Y, p: step % 2 == 0, n: 1 + step % 3}
                r = sess.run({"loss": "loss_out:0", "grad_w": "grad_w:0", "grad_v": "grad_v:0",
                              "steps": "steps_out:0", "mapped": "mapped_out:0"}, feed)
                sess.run("train", feed)
                steps_ref.append({"p": step % 2 == 0, "n": 1 + step % 3,
                                  **{k: np.asarray(val).tolist() for k, val in r.items()}})
            final = {"w": sess.run(w.read_value()).tolist(), "v": sess.run(v.read_value()).tolist()}
        ops = all_ops(g.as_graph_def())
    with open(os.path.join(out, "train_reference.json"), "w") as f:
        json.dump({"x": TRAIN_X, "y": TRAIN_Y, "steps": steps_ref, "final": final, "ops": ops,
                   "tensorflow": tf.__version__}, f, indent=1)
    print("wrote train.pb", ops)


def make_lists(out):
    raw = tf.raw_ops
    g = tf1.Graph()
    cases = {}
    with g.as_default():
        f32, i32 = tf.float32, tf.int32

        def empty(element_shape, max_n=-1, dtype=f32):
            return raw.EmptyTensorList(element_shape=tf.constant(element_shape, i32),
                                       max_num_elements=max_n, element_dtype=dtype)

        def push(l, value, dtype=f32):
            return raw.TensorListPushBack(input_handle=l, tensor=tf.constant(value, dtype))

        def stack(l, element_shape, dtype=f32):
            return raw.TensorListStack(input_handle=l, element_shape=tf.constant(element_shape, i32),
                                       element_dtype=dtype)

        def case(name, t):
            cases[name] = tf.identity(t, name=name).name

        two = push(push(empty([2]), [1.0, 2.0]), [3.0, 4.0])
        rest, item = raw.TensorListPopBack(input_handle=two, element_shape=tf.constant(-1, i32),
                                           element_dtype=f32)
        case("pop_item", item)
        case("pop_length", raw.TensorListLength(input_handle=rest))
        case("stack", stack(two, [2]))
        case("stack_ints", stack(push(push(empty([-1], dtype=i32), [7], i32), [8], i32), [1], i32))
        reserved = raw.TensorListReserve(element_shape=tf.constant([2], i32), num_elements=3,
                                         element_dtype=f32)
        set1 = raw.TensorListSetItem(input_handle=reserved, index=1, item=tf.constant([5.0, 6.0]))
        case("reserve_set_stack", stack(set1, [-1]))
        case("get_hole", raw.TensorListGetItem(input_handle=set1, index=0,
                                               element_shape=tf.constant(-1, i32), element_dtype=f32))
        rows = raw.TensorListFromTensor(tensor=tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                                        element_shape=tf.constant([2], i32))
        case("from_tensor_get", raw.TensorListGetItem(input_handle=rows, index=1,
                                                      element_shape=tf.constant([2], i32),
                                                      element_dtype=f32))
        case("gather", raw.TensorListGather(input_handle=rows, indices=tf.constant([2, 0]),
                                            element_shape=tf.constant([2], i32), element_dtype=f32))
        scattered = raw.TensorListScatterV2(tensor=tf.constant([[1.0, 1.0], [2.0, 2.0]]),
                                            indices=tf.constant([3, 1]),
                                            element_shape=tf.constant([2], i32),
                                            num_elements=tf.constant(5))
        case("scatter_stack", stack(scattered, [2]))
        case("scatter_length", raw.TensorListLength(input_handle=scattered))
        into = raw.TensorListScatterIntoExistingList(input_handle=rows,
                                                     tensor=tf.constant([[9.0, 9.0]]),
                                                     indices=tf.constant([3]))
        case("scatter_into_length", raw.TensorListLength(input_handle=into))
        case("scatter_into_stack", stack(into, [2]))
        split = raw.TensorListSplit(tensor=tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                                    element_shape=tf.constant([-1], i32),
                                    lengths=tf.constant([1, 2, 3], tf.int64))
        case("split_get", raw.TensorListGetItem(input_handle=split, index=2,
                                                element_shape=tf.constant([-1], i32),
                                                element_dtype=f32))
        concat, lengths = raw.TensorListConcatV2(input_handle=split,
                                                 element_shape=tf.constant([-1], i32),
                                                 leading_dims=tf.constant([], tf.int64),
                                                 element_dtype=f32)
        case("concat", concat)
        case("concat_lengths", lengths)
        case("element_shape", raw.TensorListElementShape(input_handle=empty([-1, 3]), shape_type=i32))
        case("element_shape_unknown", raw.TensorListElementShape(
            input_handle=raw.EmptyTensorList(element_shape=tf.constant(-1, i32), max_num_elements=-1,
                                             element_dtype=f32), shape_type=tf.int64))
        resized = raw.TensorListResize(input_handle=two, size=4)
        case("resize_stack", stack(resized, [2]))
        case("concat_lists", stack(raw.TensorListConcatLists(input_a=two, input_b=rows,
                                                             element_dtype=f32), [2]))
        case("zeros_like", stack(tf.zeros_like(set1), [2]))
        case("add_n", stack(raw.AddN(inputs=[two, two]), [2]))
        some = raw.OptionalFromValue(components=[tf.constant([1.0, 2.0]), tf.constant(3)])
        none = raw.OptionalNone()
        case("has_value", raw.OptionalHasValue(optional=some))
        case("has_no_value", raw.OptionalHasValue(optional=none))
        first, second = raw.OptionalGetValue(optional=some, output_types=[f32, i32],
                                             output_shapes=[[2], []])
        case("get_value_0", first)
        case("get_value_1", second)
        case("optional_zeros", raw.OptionalGetValue(optional=tf.zeros_like(some),
                                                    output_types=[f32, i32],
                                                    output_shapes=[[2], []])[0])
        # A hole read with a given element shape, a list of unknown element shape.
        unknown = raw.EmptyTensorList(element_shape=tf.constant(-1, i32), max_num_elements=-1,
                                      element_dtype=f32)
        holed = raw.TensorListResize(input_handle=push(unknown, [1.0, 2.0, 3.0, 4.0]), size=2)
        case("get_hole_given_shape", raw.TensorListGetItem(
            input_handle=holed, index=1, element_shape=tf.constant([2, 3], i32), element_dtype=f32))
        two_holes = raw.TensorListReserve(element_shape=tf.constant([-1], i32), num_elements=2,
                                          element_dtype=f32)
        first_set = raw.TensorListSetItem(input_handle=two_holes, index=0,
                                          item=tf.constant([1.0, 2.0]))
        concat_holes, concat_hole_lengths = raw.TensorListConcatV2(
            input_handle=first_set, element_shape=tf.constant([-1], i32),
            leading_dims=tf.constant([2, 3], tf.int64), element_dtype=f32)
        case("concat_leading_dims", concat_holes)
        case("concat_leading_dims_lengths", concat_hole_lengths)
        # ZerosLike of a bounded list is unbounded.
        bounded = push(empty([2], 1), [1.0, 2.0])
        case("zeros_like_unbounded", raw.TensorListLength(
            input_handle=push(tf.zeros_like(bounded), [3.0, 4.0])))
        # A batch of lists (TensorListPushBackBatch, pfor's vectorized push): built with
        # Pack, taken apart with Unpack.
        batch = tf.stack([two, rows])
        pushed = raw.TensorListPushBackBatch(input_handles=batch,
                                             tensor=tf.constant([[7.0, 8.0], [9.0, 10.0]]))
        pushed_0, pushed_1 = tf.unstack(pushed)
        case("push_batch_0", stack(pushed_0, [2]))
        case("push_batch_1", stack(pushed_1, [2]))
        one = raw.TensorListPushBackBatch(input_handles=tf.reshape(two, [1]),
                                          tensor=tf.constant([[5.0, 6.0]]))
        case("push_batch_one_length", raw.TensorListLength(input_handle=tf.unstack(one)[0]))
        # ExpandDims refuses variants. (So does tf.stack of one list in TensorFlow, whose
        # grappler turns a one-input Pack into an ExpandDims; here that Pack runs.)
        case("expand_dims_list", raw.TensorListPushBackBatch(
            input_handles=raw.ExpandDims(input=two, axis=0), tensor=tf.constant([[5.0, 6.0]])))
        # Errors.
        case("pop_empty", raw.TensorListPopBack(input_handle=empty([2]),
                                                element_shape=tf.constant([2], i32),
                                                element_dtype=f32)[1])
        case("get_out_of_range", raw.TensorListGetItem(input_handle=two, index=5,
                                                       element_shape=tf.constant([2], i32),
                                                       element_dtype=f32))
        case("push_bad_shape", raw.TensorListLength(input_handle=push(two, [1.0, 2.0, 3.0])))
        case("push_full", raw.TensorListLength(input_handle=push(push(empty([2], 1), [1.0, 2.0]),
                                                                 [3.0, 4.0])))
        case("stack_empty_unknown", stack(empty([-1]), [-1]))
        case("get_none", raw.OptionalGetValue(optional=none, output_types=[f32],
                                              output_shapes=[[]])[0])
        # Rows of unknown count: TensorFlow's shape function would refuse the mismatch while
        # building the graph; this way its kernel's message is what the reference records.
        unknown_rows = tf1.placeholder_with_default(tf.constant([[1.0, 2.0]]), shape=[None, 2])
        case("push_batch_bad_rows", raw.TensorListPushBackBatch(input_handles=batch,
                                                                tensor=unknown_rows))
        case("push_batch_bad_shape", raw.TensorListPushBackBatch(
            input_handles=batch, tensor=tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])))
        tf.io.write_graph(g.as_graph_def(), out, "lists.pb", as_text=False)
        ref = {}
        with tf1.Session(graph=g) as sess:
            for name, tensor in cases.items():
                try:
                    value = np.asarray(sess.run(tensor))
                    ref[name] = {"tensor": tensor, "dtype": str(value.dtype),
                                 "shape": list(value.shape),
                                 "values": value.reshape(-1).tolist()}
                except tf.errors.OpError as e:
                    # The kernel's message: the line before the node it names.
                    lines = [ln.strip() for ln in e.message.split("\n") if ln.strip()]
                    at = next(i for i, ln in enumerate(lines) if ln.startswith("[[{{node"))
                    ref[name] = {"tensor": tensor, "error": type(e).__name__,
                                 "message": lines[at - 1]}
    with open(os.path.join(out, "lists_reference.json"), "w") as f:
        json.dump({"cases": ref, "tensorflow": tf.__version__}, f, indent=1)
    print("wrote lists.pb", sorted(ref))


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_graph/functional"
    os.makedirs(root, exist_ok=True)
    make_graph(root)
    make_train(root)
    make_lists(root)
