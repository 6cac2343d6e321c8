"""What the session-run fixture scripts (make_barrier_fixtures.py, make_ref_queue_fixtures.py)
share: running a plan of (label, feeds) steps in a tf.compat.v1 session and recording each
step's values or error, and naming each label's fetch for the C++ replay
(tests/conformance/session_steps.hpp). Imported by those scripts only."""
import numpy as np
import tensorflow as tf

from make_op_fixtures import encode


def run_steps(sess, plan, ops, feeds_of):
    """Runs each (label, feeds) of `plan`: ops[label] is an Operation, a tensor or a list of
    tensors; feeds maps placeholder names (keys of `feeds_of`) to values. Returns the steps as
    JSON: the feeds, then "value" (None for an op) or "error" (TensorFlow's class) and
    "message" (the kernel's own words)."""
    steps = []
    for label, feeds in plan:
        fd = {feeds_of[k]: v for k, v in feeds.items()}
        fetch = ops[label]
        step = {"fetch": label, "feeds": {k: np.asarray(v).tolist() for k, v in feeds.items()}}
        try:
            value = sess.run(fetch, fd)
            if isinstance(fetch, tf.Operation):
                step["value"] = None
            else:
                value = value if isinstance(value, list) else [value]
                step["value"] = [encode(v) for v in value]
        except tf.errors.OpError as err:
            step["error"] = type(err).__name__
            # The last line that is not the "[[{{node ..}}]]" one.
            step["message"] = [line for line in err.message.split("\n")
                               if line and not line[0].isspace()][-1]
        steps.append(step)
    return steps


def fetch_names(ops):
    """Each label's op name, or the names of its tensors."""
    return {label: (op.name if isinstance(op, tf.Operation)
                    else [t.name for t in op] if isinstance(op, list) else [op.name])
            for label, op in ops.items()}


def write_fixture(out, g, ops, steps, graph="graph.pb", reference="reference.json"):
    """Writes the GraphDef of `g` to OUT/graph and OUT/reference: TensorFlow's version, each
    label's fetch names, the steps and the op types the graph holds (what
    tests/conformance/session_steps.hpp's replay_fixture reads)."""
    import json
    import os
    tf.io.write_graph(g.as_graph_def(), out, graph, as_text=False)
    with open(os.path.join(out, reference), "w") as fh:
        json.dump({"tensorflow": tf.__version__, "ops": fetch_names(ops), "steps": steps,
                   "node_ops": sorted({n.op for n in g.as_graph_def().node})}, fh, indent=1)
