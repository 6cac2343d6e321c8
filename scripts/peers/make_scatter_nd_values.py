"""Values and messages of TensorFlow's N-d variable updates for
tests/conformance/scatter_nd_variable_test.cpp: ScatterNd{Update,Add,Sub,Max,Min} on reference
variables and ResourceScatterNd* on resource variables (tf.compat.v1, graph mode), each kind
on whole rows and on single elements with a slice named twice, int32 / uint8 / bool / string
variables, and the errors: shapes checked before anything is written, rows out of range
skipped with the last one reported after the others are written, bad_indices_policy IGNORE.

Run: /root/.cache/af-tf/bin/python scripts/peers/make_scatter_nd_values.py"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
R = tf.raw_ops

INIT = (np.arange(12, dtype=np.float32).reshape(4, 3) / 4 - 1)
ROW_IDX = [[3], [1], [3]]  # rows, row 3 twice
ROW_UPD = np.array([[2, -1, 4], [0.5, 3, 3], [-2, 8, 1]], np.float32)
ELEM_IDX = [[0, 2], [2, 1], [0, 2]]  # elements, [0, 2] twice
ELEM_UPD = np.array([1.5, -3, 0.25], np.float32)


def message(e):
    lines = str(e).split("\n")
    for k, line in enumerate(lines):
        if "[[{{node" in line:
            return lines[k - 1]
    return lines[0]


def fmt(values):
    return "{" + ", ".join(repr(float(v)) if isinstance(v, (float, np.floating)) else
                           repr(v) for v in np.asarray(values).reshape(-1).tolist()) + "}"


def run_kind(kind, resource):
    g = tf.Graph()
    with g.as_default():
        v = tf1.Variable(INIT, use_resource=resource, name="v")
        out = []
        for idx, upd in ((ROW_IDX, ROW_UPD), (ELEM_IDX, ELEM_UPD)):
            if resource:
                op = getattr(R, "ResourceScatterNd" + kind)(ref=v.handle, indices=idx, updates=upd)
            else:
                op = getattr(R, "ScatterNd" + kind)(ref=v, indices=idx, updates=upd)
            out.append(op)
        with tf1.Session() as s:
            s.run(v.initializer)
            after = []
            for op in out:
                s.run(op)
                after.append(s.run(v.value()))
    return after


def main():
    print("// float32 [4,3], init arange(12)/4-1: rows", ROW_IDX, "then elements", ELEM_IDX)
    for kind in ("Update", "Add", "Sub", "Max", "Min"):
        ref = run_kind(kind, False)
        res = run_kind(kind, True)
        assert all(np.array_equal(a, b) for a, b in zip(ref, res)), kind
        print('{"%s", %s, %s},' % (kind, fmt(ref[0]), fmt(ref[1])))

    g = tf.Graph()
    with g.as_default():
        a = tf1.Variable(np.array([[7, -7], [9, 20]], np.int32), use_resource=False, name="a")
        b = tf1.Variable(np.array([250, 1, 2], np.uint8), use_resource=False, name="b")
        c = tf1.Variable(np.array([True, False, True]), use_resource=False, name="c")
        d = tf1.Variable(np.array([b"x", b"y", b"z"]), use_resource=False, name="d")
        e = tf1.Variable(np.array([[7, -7], [9, 20]], np.int32), use_resource=True, name="e")
        i64 = tf.constant([[1, 1], [0, 0], [1, 1]], tf.int64)
        ops = {
            "int32 max": R.ScatterNdMax(ref=a, indices=i64, updates=[30, -9, 4]),
            "int32 min": R.ScatterNdMin(ref=a, indices=[[0, 1], [1, 0]], updates=[-8, 12]),
            "uint8 add": R.ScatterNdAdd(ref=b, indices=[[0], [2]],
                                        updates=np.array([10, 3], np.uint8)),
            "uint8 sub": R.ScatterNdSub(ref=b, indices=[[1]], updates=np.array([3], np.uint8)),
            "bool update": R.ScatterNdUpdate(ref=c, indices=[[1], [0]], updates=[True, False]),
            "string update": R.ScatterNdUpdate(ref=d, indices=[[2], [2]], updates=[b"p", b"q"]),
            "resource int32 add": R.ResourceScatterNdAdd(ref=e.handle, indices=i64,
                                                         updates=[1, 2, 3]),
        }
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            for name, op in ops.items():
                s.run(op)
                var = {"int32": a, "uint8": b, "bool": c, "string": d, "resource": e}[
                    name.split()[0]]
                print("// %s -> %s" % (name, s.run(var.value()).tolist()))

    # Errors. The variable after each, from a fresh copy of INIT.
    def fed(op_name, idx, upd, resource=False, **attrs):
        g = tf.Graph()
        with g.as_default():
            v = tf1.Variable(INIT, use_resource=resource, name="v")
            pi = tf1.placeholder(tf.int32)
            pu = tf1.placeholder(tf.float32)
            if resource:
                op = getattr(R, "Resource" + op_name)(ref=v.handle, indices=pi, updates=pu,
                                                      **attrs)
            else:
                op = getattr(R, op_name)(ref=v, indices=pi, updates=pu, **attrs)
            with tf1.Session() as s:
                s.run(v.initializer)
                try:
                    s.run(op, {pi: idx, pu: upd})
                    msg = "<no error>"
                except tf.errors.OpError as e:
                    msg = message(e)
                return msg, s.run(v.value())

    cases = [
        ("bad rows", "ScatterNdUpdate", [[0], [4], [1]], np.full([3, 3], 9, np.float32), {}),
        ("two bad rows", "ScatterNdAdd", [[5], [0], [4], [1]], np.ones([4, 3], np.float32), {}),
        ("bad element", "ScatterNdSub", [[0, 1], [1, 3]], [1, 1], {}),
        ("negative", "ScatterNdMax", [[-1, 0], [2, 2]], [100, 100], {}),
        ("ignore", "ScatterNdAdd", [[0], [4], [1]], np.ones([3, 3], np.float32),
         {"bad_indices_policy": "IGNORE"}),
        ("outer mismatch", "ScatterNdUpdate", [[0], [1]], np.ones([3, 3], np.float32), {}),
        ("inner mismatch", "ScatterNdUpdate", [[0], [1]], np.ones([2, 2], np.float32), {}),
        ("batch prefix", "ScatterNdUpdate", [[[0]]], np.ones([1, 3], np.float32), {}),
        ("too deep", "ScatterNdAdd", [[0, 1, 0]], [1.0], {}),
        ("empty updates", "ScatterNdAdd", np.zeros([0, 1], np.int32), np.zeros([0, 3]), {}),
        ("vector indices", "ScatterNdAdd", [2, 0], np.ones([2, 3], np.float32), {}),
        ("vector indices bad", "ScatterNdAdd", [7, 0], np.ones([2, 3], np.float32), {}),
    ]
    for name, op, idx, upd, attrs in cases:
        for resource in (False, True):
            msg, after = fed(op, idx, upd, resource, **attrs)
            print("// %s%s: %r -> %s" % ("resource " if resource else "", name, msg, fmt(after)))

    g = tf.Graph()
    with g.as_default():
        v = tf1.Variable(np.array([[1.0, 2.0]], np.float32), use_resource=False, name="w")
        r = tf1.Variable(np.array([[1.0, 2.0]], np.float32), use_resource=True, name="r")
        ops = [R.ScatterNdAdd(ref=v, indices=[[0]], updates=[[1.0, 1.0]]),
               R.ResourceScatterNdAdd(ref=r.handle, indices=[[0]], updates=[[1.0, 1.0]])]
        with tf1.Session() as s:
            for op in ops:
                try:
                    s.run(op)
                except tf.errors.OpError as e:
                    print("// uninitialized: %s %r" % (type(e).__name__, message(e)))


if __name__ == "__main__":
    main()
