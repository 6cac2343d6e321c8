#!/usr/bin/env python3
"""Compares the dtypes actorflow's CPU kernels take with TensorFlow's, op by op: for every op
type actorflow knows (`actorflow-graph ops --kernels`), the dtypes TensorFlow's registered CPU
kernels allow for each type attribute (its kernel registry, limited to what its OpDef
allows) against actorflow's. Prints one line per op that differs, "OP attr: missing ... |
extra ...", and a count; a checker for people, never a dependency of the build or tests.

  scripts/peers/kernel_dtypes_peers.py [--graph build/apps/graph/actorflow-graph] [OP ...]

Runs in the peers' venv (scripts/peers/setup_venv.sh) or any Python with tensorflow. Only
the dtypes actorflow has are compared (not the quantized ones, float8, int4, resource or
variant); kernels with a label, or TensorFlow's kernels of an op with no type attribute,
are left out.
"""
import argparse
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402,F401
from tensorflow.core.framework import types_pb2  # noqa: E402
from tensorflow.python.framework import kernels, op_def_registry  # noqa: E402

# TensorFlow's DataType names -> actorflow's dtype names (dtype_name()).
NAMES = {"DT_FLOAT": "float32", "DT_DOUBLE": "float64", "DT_HALF": "float16",
         "DT_BFLOAT16": "bfloat16", "DT_INT8": "int8", "DT_INT16": "int16",
         "DT_INT32": "int32", "DT_INT64": "int64", "DT_UINT8": "uint8", "DT_UINT16": "uint16",
         "DT_UINT32": "uint32", "DT_UINT64": "uint64", "DT_BOOL": "bool", "DT_STRING": "string",
         "DT_COMPLEX64": "complex64", "DT_COMPLEX128": "complex128"}


def ours(graph, ops):
    """{op: {attr: set(dtypes)}} of actorflow's CPU kernels (None: no CPU kernel)."""
    out = subprocess.run([graph, "ops", "--kernels"], check=True, capture_output=True,
                         text=True).stdout
    table = {}
    for line in out.splitlines():
        op, _, spec = line.partition("\t")
        if ops and op not in ops:
            continue
        if spec == "-":
            table[op] = None
            continue
        attrs = table.setdefault(op, {})
        for part in filter(None, spec.split(";")):
            attr, _, types = part.partition("=")
            attrs.setdefault(attr, set()).update(types.split(","))
    return table


def theirs(op):
    """{attr: set(dtypes)} of TensorFlow's unlabelled CPU kernels of `op`, within its OpDef;
    None when TensorFlow has no such op."""
    op_def = op_def_registry.get(op)
    if op_def is None:
        return None
    allowed = {}
    for a in op_def.attr:
        if a.type == "type":
            vals = a.allowed_values.list.type if a.HasField("allowed_values") else None
            allowed[a.name] = (None if vals is None else
                               {NAMES.get(types_pb2.DataType.Name(t)) for t in vals})
    table = {}
    for k in kernels.get_registered_kernels_for_op(op).kernel:
        if k.device_type != "CPU" or k.label:
            continue
        for c in k.constraint:
            if c.name not in allowed:
                continue
            types = {NAMES.get(types_pb2.DataType.Name(t)) for t in c.allowed_values.list.type}
            if allowed[c.name] is not None:
                types &= allowed[c.name]
            table.setdefault(c.name, set()).update(types - {None})
    return table


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graph", default="build/apps/graph/actorflow-graph")
    p.add_argument("ops", nargs="*")
    args = p.parse_args()
    mine = ours(args.graph, set(args.ops))
    differ = 0
    for op in sorted(mine):
        tf_types = theirs(op)
        if tf_types is None:
            continue  # actorflow's own op
        for attr in sorted(set(tf_types) | set(mine[op] or {})):
            want = tf_types.get(attr)
            have = (mine[op] or {}).get(attr)
            if want is None or have is None:
                continue  # an attribute one side does not constrain
            missing, extra = sorted(want - have), sorted(have - want)
            if missing or extra:
                differ += 1
                print("%s %s: missing %s | extra %s" % (op, attr, " ".join(missing) or "-",
                                                         " ".join(extra) or "-"))
    print("%d op attributes differ from TensorFlow %s's CPU kernels" % (differ, tf.__version__))


if __name__ == "__main__":
    sys.exit(main())
