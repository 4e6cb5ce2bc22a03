#!/usr/bin/env python3
"""Rebuild a lokizero bundle's network as an ONNX graph from its
model.safetensors, check it reproduces burn's outputs (reference JSON from
`lokizero bench --reference-out`), and time onnxruntime at the given batch
sizes with the given thread count. Benchmark-only: onnxruntime is not a
dependency of the product.

Usage: onnx_reference.py BUNDLE REFERENCE_JSON THREADS SECONDS BATCH...
"""
import json
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file


def build_graph(weights, meta):
    shape = meta["shape"]
    c, h, w = shape["input_planes"], shape["height"], shape["width"]
    nodes, inits = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def conv_bn(prefix, x, relu=True):
        wname = init(prefix + ".conv.weight", weights[prefix + ".conv.weight"])
        k = weights[prefix + ".conv.weight"].shape[-1]
        pad = k // 2
        y = prefix + ".conv.out"
        nodes.append(helper.make_node("Conv", [x, wname], [y], pads=[pad] * 4))
        bn = [init(prefix + ".bn." + p, weights[prefix + ".bn." + q]) for p, q in
              [("scale", "gamma"), ("bias", "beta"), ("mean", "running_mean"), ("var", "running_var")]]
        z = prefix + ".bn.out"
        nodes.append(helper.make_node("BatchNormalization", [y] + bn, [z], epsilon=1e-5))
        if relu:
            r = prefix + ".relu"
            nodes.append(helper.make_node("Relu", [z], [r]))
            return r
        return z

    x = conv_bn("stem", "input")
    for b in range(shape["blocks"]):
        p = f"blocks.{b}"
        y = conv_bn(p + ".first", x)
        y = conv_bn(p + ".second", y, relu=False)
        s = p + ".sum"
        nodes.append(helper.make_node("Add", [y, x], [s]))
        x = p + ".out"
        nodes.append(helper.make_node("Relu", [s], [x]))
    ph = conv_bn("policy_hidden", x)
    pw = init("policy_out.weight", weights["policy_out.weight"])
    pb = init("policy_out.bias", weights["policy_out.bias"])
    nodes.append(helper.make_node("Conv", [ph, pw, pb], ["policy_planes"]))
    nodes.append(helper.make_node("Flatten", ["policy_planes"], ["policy"], axis=1))
    v = conv_bn("value_conv", x)
    nodes.append(helper.make_node("Flatten", [v], ["v_flat"], axis=1))
    # burn's Linear stores its weight as [in, out]: y = x W + b.
    fc_w, fc_b = init("value_fc.weight", weights["value_fc.weight"]), init("value_fc.bias", weights["value_fc.bias"])
    nodes.append(helper.make_node("Gemm", ["v_flat", fc_w, fc_b], ["v_hidden_pre"]))
    nodes.append(helper.make_node("Relu", ["v_hidden_pre"], ["v_hidden"]))
    out_w, out_b = init("value_out.weight", weights["value_out.weight"]), init("value_out.bias", weights["value_out.bias"])
    nodes.append(helper.make_node("Gemm", ["v_hidden", out_w, out_b], ["wdl"]))
    graph = helper.make_graph(
        nodes, "lokizero",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["B", c, h, w])],
        [helper.make_tensor_value_info("policy", TensorProto.FLOAT, ["B", None]),
         helper.make_tensor_value_info("wdl", TensorProto.FLOAT, ["B", 3])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def main():
    bundle, ref_path, threads, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    batches = [int(b) for b in sys.argv[5:]]
    meta = json.load(open(f"{bundle}/model.json"))
    weights = load_file(f"{bundle}/model.safetensors")
    model = build_graph(weights, meta)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    ref = json.load(open(ref_path))
    x = np.asarray(ref["input"], dtype=np.float32).reshape(ref["shape"])
    policy, wdl = sess.run(["policy", "wdl"], {"input": x})
    dp = np.abs(policy.ravel() - np.asarray(ref["policy_logits"])).max()
    dv = np.abs(wdl.ravel() - np.asarray(ref["wdl_logits"])).max()
    print(f"onnxruntime vs burn max abs difference: policy {dp:.2e}, wdl {dv:.2e}")
    if max(dp, dv) > 1e-3:
        print("ERROR: the ONNX graph does not reproduce burn's outputs", file=sys.stderr)
        sys.exit(1)
    for b in batches:
        xb = np.resize(x, (b,) + x.shape[1:]).astype(np.float32)
        sess.run(None, {"input": xb})
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            sess.run(None, {"input": xb})
            n += b
        print(f"onnxruntime batch {b:>4}: {n / (time.perf_counter() - t0):>10.0f} positions/s")


if __name__ == "__main__":
    main()
