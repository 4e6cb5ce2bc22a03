//! A trained network as an ONNX model, so that onnxruntime (Python, C++,
//! or onnxruntime-web in a browser), TensorRT or another engine can run a
//! bundle without lokizero.
//!
//! The graph is the network of [`crate::net`] written out layer by layer
//! (ONNX opset 17, IR version 8): `Conv` + `BatchNormalization` (+ `Relu`)
//! for every convolution, `Add` for the skips, `Flatten` + `Gemm` in the
//! value head, `Softmax` for the WDL probabilities. Weights are stored as
//! float32 initializers under their bundle names (`blocks.0.first.conv.weight`, ...).
//!
//! | name | direction | shape | meaning |
//! |---|---|---|---|
//! | `planes` | input | `[batch, C, H, W]` float32 | the position from the side to move's view, as `encoding::Encode::encode` writes it |
//! | `policy_logits` | output | `[batch, P*H*W]` | one logit per action index `plane * H * W + square`; mask the illegal ones, then softmax |
//! | `wdl_logits` | output | `[batch, 3]` | win, draw, loss logits for the side to move |
//! | `wdl` | output | `[batch, 3]` | `softmax(wdl_logits)`: win, draw, loss probabilities |
//!
//! `batch` is dynamic. The model's metadata (`metadata_props`) names the
//! variant, generation, encoding version, weights sha256 and `C, P, H, W`.
//! Networks with the moves-left head are refused ([`OnnxError`]).
//!
//! The protobuf messages below are the subset of `onnx.proto`
//! (<https://github.com/onnx/onnx/blob/main/onnx/onnx.proto>) this writer
//! needs, with that file's field numbers; `prost` does the wire format.

use prost::Message;

use crate::bundle::BundleMeta;
use crate::net::Net;
use crate::weights::{ConvBnWeights, NetWeights, Values};

/// The ONNX operator set the graph uses (every operator in it is
/// unchanged since opset 13 or earlier).
pub const OPSET: i64 = 17;

/// The ONNX IR version written (the one that goes with opset 17).
pub const IR_VERSION: i64 = 8;

/// Batch norm's epsilon in burn's `BatchNorm` (its default, which the
/// network uses).
const BN_EPSILON: f32 = 1e-5;

/// Why a network could not be written as ONNX.
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// The network has the moves-left head, which the export does not
    /// write.
    #[error("the network has a moves-left head; ONNX export writes policy and WDL networks only")]
    MovesLeftHead,
}

/// The network `net` of a bundle described by `meta` as the bytes of an
/// ONNX model file (see the module docs for its inputs and outputs).
///
/// # Errors
/// [`OnnxError::MovesLeftHead`] for a network with the moves-left head.
pub fn onnx_model(net: &Net, meta: &BundleMeta) -> Result<Vec<u8>, OnnxError> {
    let s = &meta.shape;
    let board = [s.input_planes, s.policy_planes, s.height, s.width];
    let weights = net
        .read_weights(board, &mut Values)
        .ok_or(OnnxError::MovesLeftHead)?;
    let graph = Graph::build(&weights);
    let props = [
        ("variant", meta.variant.to_string()),
        ("generation", meta.generation.to_string()),
        ("encoding_version", meta.encoding_version.to_string()),
        ("weights_sha256", meta.weights_sha256.clone()),
        (
            "input_shape_chw",
            format!("{},{},{}", s.input_planes, s.height, s.width),
        ),
        ("policy_planes", s.policy_planes.to_string()),
        (
            "policy_index",
            "plane * H * W + square; squares rank * W + file in the side to move's frame".into(),
        ),
    ];
    let model = proto::Model {
        ir_version: IR_VERSION,
        producer_name: "lokizero".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        model_version: i64::from(meta.generation),
        doc_string: format!(
            "lokizero {} network, generation {}: inputs `planes` [batch, {}, {}, {}], \
             outputs `policy_logits` [batch, {}], `wdl_logits` and `wdl` [batch, 3]",
            meta.variant,
            meta.generation,
            s.input_planes,
            s.height,
            s.width,
            s.policy_len()
        ),
        graph: Some(graph.finish(&weights)),
        opset_import: vec![proto::OperatorSetId {
            domain: String::new(),
            version: OPSET,
        }],
        metadata_props: props
            .into_iter()
            .map(|(key, value)| proto::StringStringEntry {
                key: key.into(),
                value,
            })
            .collect(),
    };
    Ok(model.encode_to_vec())
}

/// The graph under construction: nodes and initializers in order.
#[derive(Default)]
struct Graph {
    nodes: Vec<proto::Node>,
    initializers: Vec<proto::Tensor>,
}

impl Graph {
    fn build(w: &NetWeights) -> Self {
        let s = &w.shape;
        let (f, c) = (s.filters, s.input_planes);
        let mut g = Graph::default();
        let mut x = g.conv_bn("stem", "planes", &w.stem, [f, c, 3], true);
        for (i, (first, second)) in w.blocks.iter().enumerate() {
            let p = format!("blocks.{i}");
            let y = g.conv_bn(&format!("{p}.first"), &x, first, [f, f, 3], true);
            let y = g.conv_bn(&format!("{p}.second"), &y, second, [f, f, 3], false);
            let sum = format!("{p}.sum");
            g.node("Add", &[&y, &x], &sum, vec![]);
            x = format!("{p}.out");
            g.node("Relu", &[&sum], &x, vec![]);
        }
        let ph = g.conv_bn("policy_hidden", &x, &w.policy_hidden, [f, f, 3], true);
        let p = s.policy_planes;
        let pw = g.init("policy_out.weight", &[p, f, 1, 1], &w.policy_out.weight);
        let pb = g.init("policy_out.bias", &[p], &w.policy_out.bias);
        g.node("Conv", &[&ph, &pw, &pb], "policy_planes", vec![]);
        g.node(
            "Flatten",
            &["policy_planes"],
            "policy_logits",
            vec![int("axis", 1)],
        );
        let v = g.conv_bn("value_conv", &x, &w.value_conv, [2, f, 1], true);
        g.node("Flatten", &[&v], "value_flat", vec![int("axis", 1)]);
        let hw2 = 2 * s.height * s.width;
        let fc_w = g.init(
            "value_fc.weight",
            &[hw2, s.value_hidden],
            &w.value_fc.weight,
        );
        let fc_b = g.init("value_fc.bias", &[s.value_hidden], &w.value_fc.bias);
        g.node("Gemm", &["value_flat", &fc_w, &fc_b], "value_fc", vec![]);
        g.node("Relu", &["value_fc"], "value_hidden", vec![]);
        let out_w = g.init(
            "value_out.weight",
            &[s.value_hidden, 3],
            &w.value_out.weight,
        );
        let out_b = g.init("value_out.bias", &[3], &w.value_out.bias);
        g.node(
            "Gemm",
            &["value_hidden", &out_w, &out_b],
            "wdl_logits",
            vec![],
        );
        g.node("Softmax", &["wdl_logits"], "wdl", vec![int("axis", 1)]);
        g
    }

    /// `relu?(bn(conv(x)))` for a `[out, in, k, k]` convolution with
    /// "same" padding; returns the output's name.
    fn conv_bn(
        &mut self,
        prefix: &str,
        x: &str,
        w: &ConvBnWeights,
        [out, inp, k]: [usize; 3],
        relu: bool,
    ) -> String {
        let weight = self.init(
            &format!("{prefix}.conv.weight"),
            &[out, inp, k, k],
            &w.weight,
        );
        let conv = format!("{prefix}.conv");
        let pad = i64::try_from(k / 2).unwrap_or(0);
        self.node(
            "Conv",
            &[x, &weight],
            &conv,
            vec![
                ints("pads", &[pad; 4]),
                ints("kernel_shape", &[k as i64; 2]),
            ],
        );
        let bn: Vec<String> = [
            ("gamma", &w.gamma),
            ("beta", &w.beta),
            ("running_mean", &w.running_mean),
            ("running_var", &w.running_var),
        ]
        .into_iter()
        .map(|(name, values)| self.init(&format!("{prefix}.bn.{name}"), &[out], values))
        .collect();
        let normed = format!("{prefix}.bn");
        let inputs = [conv.as_str(), &bn[0], &bn[1], &bn[2], &bn[3]];
        self.node(
            "BatchNormalization",
            &inputs,
            &normed,
            vec![float("epsilon", BN_EPSILON)],
        );
        if !relu {
            return normed;
        }
        let out_name = format!("{prefix}.relu");
        self.node("Relu", &[&normed], &out_name, vec![]);
        out_name
    }

    /// A float32 initializer `name` of shape `dims`; returns its name.
    fn init(&mut self, name: &str, dims: &[usize], values: &[f32]) -> String {
        debug_assert_eq!(dims.iter().product::<usize>(), values.len(), "{name}");
        self.initializers.push(proto::Tensor {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: proto::FLOAT,
            name: name.into(),
            raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        });
        name.into()
    }

    fn node(&mut self, op: &str, inputs: &[&str], output: &str, attribute: Vec<proto::Attribute>) {
        self.nodes.push(proto::Node {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.into()],
            name: output.into(),
            op_type: op.into(),
            attribute,
        });
    }

    fn finish(self, w: &NetWeights) -> proto::Graph {
        let s = &w.shape;
        let dims = |d: &[usize]| -> Vec<proto::Dimension> {
            std::iter::once(proto::Dimension::param("batch"))
                .chain(d.iter().map(|&n| proto::Dimension::value(n)))
                .collect()
        };
        proto::Graph {
            node: self.nodes,
            name: "lokizero".into(),
            initializer: self.initializers,
            input: vec![proto::ValueInfo::float(
                "planes",
                dims(&[s.input_planes, s.height, s.width]),
            )],
            output: vec![
                proto::ValueInfo::float("policy_logits", dims(&[s.policy_len()])),
                proto::ValueInfo::float("wdl_logits", dims(&[3])),
                proto::ValueInfo::float("wdl", dims(&[3])),
            ],
        }
    }
}

fn int(name: &str, i: i64) -> proto::Attribute {
    proto::Attribute {
        name: name.into(),
        r#type: proto::ATTR_INT,
        i,
        ..Default::default()
    }
}

fn ints(name: &str, values: &[i64]) -> proto::Attribute {
    proto::Attribute {
        name: name.into(),
        r#type: proto::ATTR_INTS,
        ints: values.to_vec(),
        ..Default::default()
    }
}

fn float(name: &str, f: f32) -> proto::Attribute {
    proto::Attribute {
        name: name.into(),
        r#type: proto::ATTR_FLOAT,
        f,
        ..Default::default()
    }
}

/// The messages of `onnx.proto` that the writer uses, with its field
/// numbers (fields it does not set are left out).
mod proto {
    /// `TensorProto.DataType.FLOAT`.
    pub const FLOAT: i32 = 1;
    /// `AttributeProto.AttributeType.FLOAT`.
    pub const ATTR_FLOAT: i32 = 1;
    /// `AttributeProto.AttributeType.INT`.
    pub const ATTR_INT: i32 = 2;
    /// `AttributeProto.AttributeType.INTS`.
    pub const ATTR_INTS: i32 = 7;

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Model {
        #[prost(int64, tag = "1")]
        pub ir_version: i64,
        #[prost(string, tag = "2")]
        pub producer_name: String,
        #[prost(string, tag = "3")]
        pub producer_version: String,
        #[prost(int64, tag = "5")]
        pub model_version: i64,
        #[prost(string, tag = "6")]
        pub doc_string: String,
        #[prost(message, optional, tag = "7")]
        pub graph: Option<Graph>,
        #[prost(message, repeated, tag = "8")]
        pub opset_import: Vec<OperatorSetId>,
        #[prost(message, repeated, tag = "14")]
        pub metadata_props: Vec<StringStringEntry>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct OperatorSetId {
        #[prost(string, tag = "1")]
        pub domain: String,
        #[prost(int64, tag = "2")]
        pub version: i64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StringStringEntry {
        #[prost(string, tag = "1")]
        pub key: String,
        #[prost(string, tag = "2")]
        pub value: String,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Graph {
        #[prost(message, repeated, tag = "1")]
        pub node: Vec<Node>,
        #[prost(string, tag = "2")]
        pub name: String,
        #[prost(message, repeated, tag = "5")]
        pub initializer: Vec<Tensor>,
        #[prost(message, repeated, tag = "11")]
        pub input: Vec<ValueInfo>,
        #[prost(message, repeated, tag = "12")]
        pub output: Vec<ValueInfo>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Node {
        #[prost(string, repeated, tag = "1")]
        pub input: Vec<String>,
        #[prost(string, repeated, tag = "2")]
        pub output: Vec<String>,
        #[prost(string, tag = "3")]
        pub name: String,
        #[prost(string, tag = "4")]
        pub op_type: String,
        #[prost(message, repeated, tag = "5")]
        pub attribute: Vec<Attribute>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Attribute {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(float, tag = "2")]
        pub f: f32,
        #[prost(int64, tag = "3")]
        pub i: i64,
        #[prost(int64, repeated, tag = "8")]
        pub ints: Vec<i64>,
        #[prost(int32, tag = "20")]
        pub r#type: i32,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Tensor {
        #[prost(int64, repeated, tag = "1")]
        pub dims: Vec<i64>,
        #[prost(int32, tag = "2")]
        pub data_type: i32,
        #[prost(string, tag = "8")]
        pub name: String,
        #[prost(bytes = "vec", tag = "9")]
        pub raw_data: Vec<u8>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueInfo {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<Type>,
    }

    impl ValueInfo {
        /// A float32 tensor `name` of shape `dim`.
        pub fn float(name: &str, dim: Vec<Dimension>) -> Self {
            ValueInfo {
                name: name.into(),
                r#type: Some(Type {
                    tensor_type: Some(TensorType {
                        elem_type: FLOAT,
                        shape: Some(Shape { dim }),
                    }),
                }),
            }
        }
    }

    /// `TypeProto` with its `tensor_type` case (field 1 of the oneof).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Type {
        #[prost(message, optional, tag = "1")]
        pub tensor_type: Option<TensorType>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorType {
        #[prost(int32, tag = "1")]
        pub elem_type: i32,
        #[prost(message, optional, tag = "2")]
        pub shape: Option<Shape>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Shape {
        #[prost(message, repeated, tag = "1")]
        pub dim: Vec<Dimension>,
    }

    /// `TensorShapeProto.Dimension`: a size or a named (dynamic) size.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Dimension {
        #[prost(oneof = "DimensionValue", tags = "1, 2")]
        pub value: Option<DimensionValue>,
    }

    impl Dimension {
        pub fn value(n: usize) -> Self {
            Dimension {
                value: Some(DimensionValue::DimValue(n as i64)),
            }
        }

        pub fn param(name: &str) -> Self {
            Dimension {
                value: Some(DimensionValue::DimParam(name.into())),
            }
        }
    }

    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum DimensionValue {
        #[prost(int64, tag = "1")]
        DimValue(i64),
        #[prost(string, tag = "2")]
        DimParam(String),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written bytes parse back as the same model, and the graph's
    /// initializers hold every tensor of the network once.
    #[test]
    fn the_model_round_trips_and_holds_every_tensor() {
        let device = burn::tensor::Device::flex();
        let shape = crate::NetShape {
            input_planes: 5,
            policy_planes: 4,
            height: 3,
            width: 4,
            blocks: 2,
            filters: 8,
            value_hidden: 6,
            moves_left: false,
        };
        let net = Net::new(&shape, &device);
        let weights = net
            .read_weights([5, 4, 3, 4], &mut Values)
            .expect("no moves-left head");
        let graph = Graph::build(&weights).finish(&weights);
        // stem 5 + 2 blocks * 10 + policy hidden 5 + policy out 2 + value conv 5 + 4 dense.
        assert_eq!(graph.initializer.len(), 5 + 20 + 5 + 2 + 5 + 4);
        let floats: usize = graph.initializer.iter().map(|t| t.raw_data.len() / 4).sum();
        let expected = 8 * 5 * 9 + 4 * 8 // stem
            + 2 * 2 * (8 * 8 * 9 + 4 * 8) // blocks
            + (8 * 8 * 9 + 4 * 8) // policy hidden
            + 4 * 8 + 4 // policy out
            + 2 * 8 + 4 * 2 // value conv
            + 2 * 12 * 6 + 6 + 6 * 3 + 3; // value fc, value out
        assert_eq!(floats, expected);
        let bytes = proto::Graph::encode_to_vec(&graph);
        let back = proto::Graph::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(back, graph);
        assert_eq!(back.output.len(), 3);
    }
}
