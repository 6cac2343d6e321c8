#!/usr/bin/env python3
"""Writes tests/data/tf_complex_optimizers/values.json: one update of each optimizer op whose
CPU kernel TensorFlow registers for complex64 and complex128 (ResourceApply* and
ResourceSparseApply* of GradientDescent, Momentum, KerasMomentum, Adagrad, AdagradV2,
Adadelta, RMSProp, CenteredRMSProp and Adam), run by TensorFlow 2.21 on resource variables,
for tests/conformance/complex_optimizer_test.cpp. Never a dependency of the build or tests.

    /root/.cache/af-tf/bin/python scripts/peers/make_complex_optimizer_fixtures.py \
        tests/data/tf_complex_optimizers

Each case: the op, its dtype and attrs, its inputs in the op's order ({"var": values} for a
resource variable, {"tensor": values, "shape": ...} for the rest; complex numbers as
[re, im]; indices int32) and the variables' values after the update, by input name.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_def_registry

VAR = [1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.75 + 0.5j]
SLOTS = [[0.5 + 0.1j, 0.25 - 0.2j, 1 + 0.3j, 0.4 + 0j],
         [0.3 - 0.05j, 0.6 + 0.1j, 0.2 + 0.2j, 1.5 - 0.4j],
         [0.1 + 0.02j, -0.05 + 0.03j, 0.04 - 0.01j, 0.02 + 0.0j]]
GRAD = [0.2 - 0.1j, -1 + 0.5j, 0.05 + 0.3j, 0.4 - 0.2j]
SCALARS = {"lr": 0.1 + 0.02j, "alpha": 0.05 - 0.01j, "momentum": 0.9 + 0.05j,
           "rho": 0.9 - 0.02j, "epsilon": 1e-3 + 1e-4j, "beta1_power": 0.81 + 0.01j,
           "beta2_power": 0.998 - 0.001j, "beta1": 0.9 + 0.01j, "beta2": 0.999 + 0j}
OPS = [("ResourceApplyGradientDescent", {}), ("ResourceApplyMomentum", {"use_nesterov": False}),
       ("ResourceApplyMomentum", {"use_nesterov": True}), ("ResourceApplyKerasMomentum", {}),
       ("ResourceApplyAdagrad", {"update_slots": True}), ("ResourceApplyAdagradV2", {}),
       ("ResourceApplyAdadelta", {}), ("ResourceApplyRMSProp", {}),
       ("ResourceApplyCenteredRMSProp", {}), ("ResourceApplyAdam", {"use_nesterov": False}),
       ("ResourceApplyAdam", {"use_nesterov": True}), ("ResourceSparseApplyMomentum", {}),
       ("ResourceSparseApplyKerasMomentum", {}), ("ResourceSparseApplyAdagrad", {}),
       ("ResourceSparseApplyAdagradV2", {}), ("ResourceSparseApplyAdadelta", {}),
       ("ResourceSparseApplyRMSProp", {}), ("ResourceSparseApplyCenteredRMSProp", {})]
INDICES = [2, 0]


def pairs(values):
    return [[float(np.real(v)), float(np.imag(v))] for v in np.asarray(values).ravel()]


def case(op, attrs, dtype):
    op_def = op_def_registry.get(op)
    sparse = "Sparse" in op
    inputs, kwargs, variables, slot = [], {}, {}, 0
    for arg in op_def.input_arg:
        if arg.type == tf.resource.as_datatype_enum:
            values = VAR if not variables else SLOTS[slot]
            if variables:
                slot += 1
            v = tf.Variable(np.array(values, dtype=dtype.as_numpy_dtype))
            variables[arg.name] = v
            kwargs[arg.name] = v.handle
            inputs.append({"name": arg.name, "var": pairs(values)})
        elif arg.name == "indices":
            kwargs[arg.name] = tf.constant(INDICES, tf.int32)
            inputs.append({"name": arg.name, "indices": INDICES})
        elif arg.name in ("grad", "delta"):
            values = GRAD[:len(INDICES)] if sparse else GRAD
            kwargs[arg.name] = tf.constant(np.array(values, dtype=dtype.as_numpy_dtype))
            inputs.append({"name": arg.name, "tensor": pairs(values), "shape": [len(values)]})
        else:
            value = SCALARS[arg.name]
            kwargs[arg.name] = tf.constant(value, dtype)
            inputs.append({"name": arg.name, "tensor": pairs([value]), "shape": []})
    getattr(tf.raw_ops, op)(**kwargs, **attrs)
    return {"op": op, "dtype": dtype.name, "attrs": attrs, "inputs": inputs,
            "after": {name: pairs(v.numpy()) for name, v in variables.items()}}


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = [case(op, attrs, dtype) for dtype in (tf.complex64, tf.complex128)
             for op, attrs in OPS]
    with open(os.path.join(out, "values.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_complex_optimizers")
