#!/usr/bin/env python3
"""Writes tests/data/tf_saved_model: SavedModel export directories TensorFlow 2.21 wrote, and
what TensorFlow's own loader computes from them. Never a dependency of the build or the
tests: the fixtures are committed, and this script remakes them.

  python scripts/peers/make_saved_model_fixtures.py [OUT_DIR]   # default tests/data/tf_saved_model
  python scripts/peers/make_saved_model_fixtures.py --only MODEL [OUT_DIR]   # remake one
  python scripts/peers/make_saved_model_fixtures.py --fingerprints [OUT_DIR]
      adds TensorFlow's read_fingerprint of each model with a fingerprint.pb to the reference
  python scripts/peers/make_saved_model_fixtures.py --check DIR REFERENCE_JSON
      loads DIR (a SavedModel actorflow wrote) with tf.compat.v1.saved_model.load, runs the
      signature the JSON names on its inputs and compares with its outputs
  python scripts/peers/make_saved_model_fixtures.py --peer build/apps/graph/actorflow-graph
      TensorFlow writes a Saver's .meta and checkpoint (a dense layer, a vocabulary table),
      `actorflow-graph export-saved-model --strip-default-attrs` makes a SavedModel of them
      (the attributes at their defaults left out), and TensorFlow loads it
      with its TensorFlow 1 loader (tf.compat.v1.saved_model.load) and its TensorFlow 2 one
      (tf.saved_model.load, the signature as a function): both must give TensorFlow's outputs

OUT_DIR/simple_save/   tf.compat.v1.saved_model.simple_save of a dense layer and a vocabulary
                       lookup (a TextFileInitializer's table: an asset, tables_initializer as the
                       legacy init op); the vocabulary's source file is gone after the save
OUT_DIR/builder/       a SavedModelBuilder's two MetaGraphDefs, in text format: {"serve"} with a
                       regression signature over serialized Examples and a predict signature,
                       a main op setting a local variable; {"train", "eval"} added after
OUT_DIR/sparse/        a Builder's SavedModel with a SparseTensor input (a sparse_placeholder,
                       `coo_sparse` in its signature), a dense output (its product with a
                       variable) and a SparseTensor output (its values doubled)
OUT_DIR/tf2_module/    tf.saved_model.save of a tf.Module: resource variables, a
                       serving_default signature over a tf.function
OUT_DIR/tf2_table/     tf.saved_model.save of a tf.Module holding a StaticHashTable of a
                       vocabulary file (an asset its init function reads; the source is gone)
OUT_DIR/keras_export/  a Keras 3 Sequential model's `model.export` (two dense layers, softmax)
OUT_DIR/reference.json {<model>: {tags, signature, inputs: {key: value}, outputs: {key:
                       value}}}, a value a tensor {dtype, shape, values | b64_values} or a
                       SparseTensor {sparse: {indices, values, dense_shape}}; and for the
                       models TensorFlow 2 saved, fingerprint: what read_fingerprint gives
Needs tensorflow (a venv: python3 -m venv V; V/bin/pip install tensorflow-cpu).
"""
import base64
import json
import os
import shutil
import sys
import tempfile

import numpy as np

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1


def tensor_json(value):
    value = np.asarray(value)
    out = {"shape": list(value.shape)}
    flat = value.reshape(-1).tolist()
    if value.dtype.kind in "OSU":
        out["dtype"] = "string"
        out["b64_values"] = [base64.b64encode(v if isinstance(v, bytes) else v.encode()).decode()
                             for v in flat]
    else:
        out["dtype"] = {"float32": "float32", "float64": "float64", "int32": "int32",
                        "int64": "int64", "bool": "bool"}[value.dtype.name]
        out["values"] = [float(v) if value.dtype.kind == "f" else v for v in flat]
    return out


def value_json(value):
    """A tensor's JSON, or {"sparse": {indices, values, dense_shape}} for a SparseTensorValue."""
    if isinstance(value, tf1.SparseTensorValue):
        return {"sparse": {"indices": tensor_json(value.indices),
                           "values": tensor_json(value.values),
                           "dense_shape": tensor_json(value.dense_shape)}}
    return tensor_json(value)


def tensor_value(j):
    if "sparse" in j:
        return tf1.SparseTensorValue(*(tensor_value(j["sparse"][k])
                                       for k in ("indices", "values", "dense_shape")))
    if j["dtype"] == "string":
        return np.array([base64.b64decode(v) for v in j["b64_values"]],
                        object).reshape(j["shape"])
    return np.array(j["values"], j["dtype"]).reshape(j["shape"])


def run_signature(export_dir, tags, key, inputs):
    """TensorFlow 1's loader and a session run of signature `key`."""
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        meta = tf1.saved_model.load(sess, tags, export_dir)
        sig = meta.signature_def[key]
        tensor = tf1.saved_model.utils.get_tensor_from_tensor_info  # SparseTensors too
        feeds = {tensor(sig.inputs[k], g): v for k, v in inputs.items()}
        keys = sorted(sig.outputs)
        values = sess.run([tensor(sig.outputs[k], g) for k in keys], feeds)
        return dict(zip(keys, values))


def reference(export_dir, tags, key, inputs):
    outputs = run_signature(export_dir, tags, key, inputs)
    return {"tags": tags, "signature": key,
            "inputs": {k: value_json(v) for k, v in inputs.items()},
            "outputs": {k: value_json(v) for k, v in outputs.items()}}


def example(xs):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=xs))})).SerializeToString()


def make_simple_save(out):
    export_dir = os.path.join(out, "simple_save")
    vocab_dir = tempfile.mkdtemp()
    vocab = os.path.join(vocab_dir, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("apple\nbanana\ncherry\n")
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        tf1.set_random_seed(7)
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        words = tf1.placeholder(tf.string, [None], name="words")
        w = tf1.get_variable("w", [3, 2], initializer=tf1.random_normal_initializer(seed=1))
        b = tf1.get_variable("b", [2], initializer=tf1.constant_initializer([0.5, -1.0]))
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        table = tf1.lookup.StaticHashTable(tf1.lookup.TextFileInitializer(
            vocab, tf.string, tf1.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
            tf1.lookup.TextFileIndex.LINE_NUMBER), -1)
        ids = tf.identity(table.lookup(words), name="ids")
        sess.run(tf1.global_variables_initializer())
        tf1.saved_model.simple_save(sess, export_dir, {"x": x, "words": words},
                                    {"y": y, "ids": ids},
                                    legacy_init_op=tf1.tables_initializer())
    shutil.rmtree(vocab_dir)  # the loader must feed the copy under assets/
    return reference(export_dir, ["serve"], "serving_default",
                     {"x": np.array([[1, 2, 3], [-4, 0.5, 6]], np.float32),
                      "words": np.array([b"banana", b"zzz", b"apple"], object)})


def make_builder(out):
    export_dir = os.path.join(out, "builder")
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        examples = tf1.placeholder(tf.string, [None], name="examples")
        parsed = tf1.parse_example(examples, {"x": tf1.FixedLenFeature([3], tf.float32)})
        w = tf1.get_variable("w", initializer=tf.constant([[1.0], [-2.0], [0.25]]))
        flag = tf1.get_variable("flag", initializer=tf.constant(0.0),
                                collections=[tf1.GraphKeys.LOCAL_VARIABLES])
        scores = tf.reshape(tf.matmul(parsed["x"], w), [-1], name="scores")
        flagged = tf.identity(scores + flag, name="flagged")
        main_op = tf.group(tf1.assign(flag, 100.0), name="main_op")
        sess.run(tf1.global_variables_initializer())
        b = tf1.saved_model.Builder(export_dir)
        b.add_meta_graph_and_variables(
            sess, ["serve"],
            signature_def_map={
                "regress": tf1.saved_model.regression_signature_def(examples, scores),
                "flagged": tf1.saved_model.predict_signature_def({"examples": examples},
                                                                 {"flagged": flagged}),
            },
            main_op=main_op)
        b.add_meta_graph(["train", "eval"])
        b.save(as_text=True)
    return reference(export_dir, ["serve"], "flagged",
                     {"examples": np.array([example([1, 2, 3]), example([0.5, 0, -4])], object)})


def make_sparse(out):
    export_dir = os.path.join(out, "sparse")
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        ids = tf1.sparse_placeholder(tf.float32, [None, 4], name="ids")
        w = tf1.get_variable("w", initializer=tf.constant([[1.0], [2.0], [3.0], [4.0]]))
        dense = tf.identity(tf1.sparse_tensor_dense_matmul(ids, w), name="dense")
        scaled = tf.SparseTensor(ids.indices, ids.values * 2.0, ids.dense_shape)
        sess.run(tf1.global_variables_initializer())
        b = tf1.saved_model.Builder(export_dir)
        b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={
            "serving_default": tf1.saved_model.predict_signature_def(
                {"ids": ids}, {"dense": dense, "scaled": scaled})})
        b.save()
    return reference(export_dir, ["serve"], "serving_default", {"ids": tf1.SparseTensorValue(
        np.array([[0, 1], [0, 3], [2, 0]], np.int64), np.array([0.5, -1.0, 2.0], np.float32),
        np.array([3, 4], np.int64))})


def make_tf2_module(out):
    export_dir = os.path.join(out, "tf2_module")
    eager_save(
        "class Dense(tf.Module):\n"
        "  def __init__(self):\n"
        "    self.w = tf.Variable([[1.5, -1.0], [0.5, 2.0]], name='w')\n"
        "    self.b = tf.Variable([0.25, -0.75], name='b')\n"
        "  @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name='x')])\n"
        "  def __call__(self, x):\n"
        "    return {'y': tf.matmul(x, self.w) + self.b}\n"
        "m = Dense()\n"
        "tf.saved_model.save(m, %r, signatures=m.__call__)\n" % export_dir)
    return reference(export_dir, ["serve"], "serving_default",
                     {"x": np.array([[1, 2], [3, -1], [0, 0]], np.float32)})


def eager_save(code):
    """Runs `code` in an eager process of its own (this one runs graph mode)."""
    import subprocess
    subprocess.run([sys.executable, "-c",
                    "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']='2'\n"
                    "import numpy as np, tensorflow as tf\n" + code], check=True)


def make_tf2_table(out):
    export_dir = os.path.join(out, "tf2_table")
    vocab_dir = tempfile.mkdtemp()
    vocab = os.path.join(vocab_dir, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("red\ngreen\nblue\n")
    eager_save(
        "class T(tf.Module):\n"
        "  def __init__(self):\n"
        "    init = tf.lookup.TextFileInitializer(%r, tf.string,\n"
        "        tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)\n"
        "    self.table = tf.lookup.StaticHashTable(init, -1)\n"
        "  @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name='w')])\n"
        "  def __call__(self, w):\n"
        "    return {'ids': self.table.lookup(w)}\n"
        "t = T()\n"
        "tf.saved_model.save(t, %r, signatures=t.__call__)\n" % (vocab, export_dir))
    shutil.rmtree(vocab_dir)
    return reference(export_dir, ["serve"], "serving_default",
                     {"w": np.array([b"blue", b"pink", b"red"], object)})


def make_keras_export(out):
    export_dir = os.path.join(out, "keras_export")
    eager_save(
        "import keras\n"
        "keras.utils.set_random_seed(5)\n"
        "m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'),\n"
        "                      keras.layers.Dense(3, activation='softmax')])\n"
        "m.export(%r)\n" % export_dir)
    return reference(export_dir, ["serve"], "serving_default",
                     {"keras_tensor": np.arange(8, dtype=np.float32).reshape(2, 4) / 10})


def fingerprints(out, ref):
    """TensorFlow's read_fingerprint of each model that has a fingerprint.pb."""
    for name in ref:
        path = os.path.join(out, name)
        if not os.path.exists(os.path.join(path, "fingerprint.pb")):
            continue
        fp = tf.saved_model.experimental.read_fingerprint(path)
        ref[name]["fingerprint"] = {
            "saved_model_checksum": str(fp.saved_model_checksum),
            "graph_def_program_hash": str(fp.graph_def_program_hash),
            "signature_def_hash": str(fp.signature_def_hash),
            "saved_object_graph_hash": str(fp.saved_object_graph_hash),
            "checkpoint_hash": str(fp.checkpoint_hash),
            "producer": fp.version.producer, "singleprint": fp.singleprint()}


def main(out, only=None):
    tf1.disable_eager_execution()
    models = {"simple_save": make_simple_save, "builder": make_builder,
              "sparse": make_sparse, "tf2_module": make_tf2_module, "tf2_table": make_tf2_table,
              "keras_export": make_keras_export}
    ref = {}
    if only:  # remake one model, keep the others and their references
        with open(os.path.join(out, "reference.json")) as f:
            ref = json.load(f)
        models = {only: models[only]}
    for d in models:
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    ref.update({name: make(out) for name, make in models.items()})
    fingerprints(out, {k: v for k, v in ref.items() if isinstance(v, dict)})
    ref["tensorflow"] = tf.__version__
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")
    for name in models:
        print(name, ref[name]["outputs"])


def check(export_dir, reference_json):
    tf1.disable_eager_execution()
    with open(reference_json) as f:
        ref = json.load(f)
    got = run_signature(export_dir, ref["tags"], ref["signature"],
                        {k: tensor_value(v) for k, v in ref["inputs"].items()})
    ok = True
    for k, want in ref["outputs"].items():
        if "sparse" in want:
            w = tensor_value(want)
            same = (np.array_equal(got[k].indices, w.indices) and
                    np.allclose(got[k].values, w.values, rtol=1e-6, atol=1e-6) and
                    np.array_equal(got[k].dense_shape, w.dense_shape))
        else:
            same = np.array_equal(np.asarray(got[k]), tensor_value(want)) if want["dtype"] in (
                "string", "int32", "int64", "bool") else np.allclose(
                    got[k], tensor_value(want), rtol=1e-6, atol=1e-6)
        print(k, "ok" if same else "DIFFERS: %s vs %s" % (got[k], tensor_value(want)))
        ok = ok and same
    return 0 if ok else 1


def peer(actorflow_graph):
    import subprocess
    work = tempfile.mkdtemp()
    vocab = os.path.join(work, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("apple\nbanana\ncherry\n")
    x_value = np.array([[1, 2, 3], [-4, 0.5, 6]], np.float32)
    words_value = np.array([b"cherry", b"kiwi"], object)
    tf1.disable_eager_execution()
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        words = tf1.placeholder(tf.string, [None], name="words")
        w = tf1.get_variable("w", [3, 2], initializer=tf1.random_normal_initializer(seed=3))
        y = tf.identity(tf.matmul(x, w), name="y")
        table = tf1.lookup.StaticHashTable(tf1.lookup.TextFileInitializer(
            vocab, tf.string, tf1.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
            tf1.lookup.TextFileIndex.LINE_NUMBER), -1)
        ids = tf.identity(table.lookup(words), name="ids")
        sess.run([tf1.global_variables_initializer(), tf1.tables_initializer()])
        want = dict(zip(["ids", "y"], sess.run([ids, y], {x: x_value, words: words_value})))
        prefix = tf1.train.Saver().save(sess, os.path.join(work, "model"))
    export_dir = os.path.join(work, "export")
    subprocess.run([actorflow_graph, "export-saved-model", prefix + ".meta", prefix, export_dir,
                    "--input", "x=x:0", "--input", "words=words:0",
                    "--output", "y=y:0", "--output", "ids=ids:0", "--strip-default-attrs"],
                   check=True)
    os.remove(vocab)  # the loaders must find the copy under assets/
    ref = {"tags": ["serve"], "signature": "serving_default",
           "inputs": {"x": tensor_json(x_value), "words": tensor_json(words_value)},
           "outputs": {k: tensor_json(v) for k, v in want.items()}}
    ref_path = os.path.join(work, "reference.json")
    with open(ref_path, "w") as f:
        json.dump(ref, f)
    print("TensorFlow 1 loader:")
    code = check(export_dir, ref_path)
    print("TensorFlow 2 loader:")
    code |= subprocess.run([sys.executable, "-c", (
        "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']='2'\n"
        "import numpy as np, tensorflow as tf\n"
        f"m = tf.saved_model.load({export_dir!r})\n"
        "out = m.signatures['serving_default'](x=tf.constant(%r, tf.float32), "
        "words=tf.constant(%r))\n"
        "y, ids = out['y'].numpy(), out['ids'].numpy()\n"
        "ok = np.allclose(y, %r, rtol=1e-6, atol=1e-6) and ids.tolist() == %r\n"
        "print('y', y.tolist(), 'ids', ids.tolist(), 'ok' if ok else 'DIFFERS')\n"
        "raise SystemExit(0 if ok else 1)\n") % (
            x_value.tolist(), [w.decode() for w in words_value], want["y"].tolist(),
            want["ids"].tolist())]).returncode
    shutil.rmtree(work)
    return code


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        sys.exit(peer(os.path.abspath(sys.argv[2])))
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    if len(sys.argv) > 1 and sys.argv[1] == "--fingerprints":  # add them to the reference
        out = sys.argv[2] if len(sys.argv) > 2 else "tests/data/tf_saved_model"
        with open(os.path.join(out, "reference.json")) as f:
            ref = json.load(f)
        fingerprints(out, {k: v for k, v in ref.items() if isinstance(v, dict)})
        with open(os.path.join(out, "reference.json"), "w") as f:
            json.dump(ref, f, indent=1, sort_keys=True)
            f.write("\n")
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--only":
        main(sys.argv[3] if len(sys.argv) > 3 else "tests/data/tf_saved_model", sys.argv[2])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_saved_model")
