#!/usr/bin/env python3
"""Run an ONNX model written by `lokizero export --onnx` in onnxruntime on
the input planes of a reference JSON (written by tests/onnx_export.rs from
lokizero's own evaluation) and print the largest differences as JSON.

Usage: onnx_agrees.py MODEL.onnx REFERENCE.json
"""
import json
import sys

import numpy as np
import onnxruntime as ort


def main():
    model, ref_path = sys.argv[1], sys.argv[2]
    ref = json.load(open(ref_path))
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    planes = np.asarray(ref["planes"], dtype=np.float32).reshape(ref["shape"])
    policy, wdl_logits, wdl = sess.run(["policy_logits", "wdl_logits", "wdl"], {"planes": planes})
    meta = sess.get_modelmeta().custom_metadata_map
    print(json.dumps({
        "batch": int(planes.shape[0]),
        "policy_shape": list(policy.shape),
        "policy_max_diff": float(np.abs(policy.ravel() - np.asarray(ref["policy_logits"])).max()),
        "wdl_max_diff": float(np.abs(wdl.ravel() - np.asarray(ref["wdl"])).max()),
        "wdl_logits_softmax_diff": float(np.abs(
            np.exp(wdl_logits) / np.exp(wdl_logits).sum(axis=1, keepdims=True) - wdl).max()),
        "variant": meta.get("variant"),
    }))


if __name__ == "__main__":
    main()
