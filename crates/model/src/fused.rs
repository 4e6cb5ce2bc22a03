//! [`FusedNet`]: CPU inference of a trained [`Net`] with batch norm folded
//! into the convolutions, zero-padded channels-last activations and direct
//! convolution kernels (`direct.rs`).
//!
//! Why: burn's flex backend runs this network's 3x3 convolutions as many
//! small tiled im2col + gemm calls, and packing the small tiles costs more
//! than the arithmetic; on the 2-core machine of `docs/benchmarks.md`
//! onnxruntime ran the same network 4-5x faster. Inference only needs the
//! forward pass with fixed weights, so the evaluator uses this path on the
//! CPU; training stays on burn (autodiff, optimiser). The outputs equal
//! burn's within float rounding (`tests/fused_matches_burn.rs`).
//!
//! How (the standard inference-time rewrite, e.g. onnxruntime's
//! Conv+BatchNormalization fusion):
//! - batch norm in inference mode is an affine map per channel,
//!   `y = (x - mean) / sqrt(var + eps) * gamma + beta`, so it is folded into
//!   the preceding convolution's weights (scaled per output channel) and a
//!   bias;
//! - activations are channels-last with a zero border,
//!   `[positions, H + 2, W + 2, C]`; the trunk's 3x3 convolutions (stem,
//!   residual blocks, policy hidden layer) go through Winograd F(4x4, 3x3)
//!   (`winograd.rs`, 4x fewer multiply-adds), whose 36 matrix
//!   products, like the heads' 1x1 convolutions, run on the direct
//!   kernels (`direct.rs`); outputs are stored once with the
//!   residual and ReLU applied, or straight into the heads' layouts;
//! - a batch is cut into chunks of about [`TARGET_ROWS`] rows, one chunk
//!   per rayon task, each running the whole network with its thread's
//!   reusable scratch buffers (activations stay in cache; no allocation per
//!   position).
//!
//! [`FusedNet::with_precision`] runs the trunk's 3x3 convolutions on int8
//! instead ([`crate::quant`]; `f32` stays the default and the reference).
//!
//! The value head's dense layers use the `gemm` crate (the one burn's flex
//! backend uses), which picks AVX-512/AVX2/NEON kernels at run time.

use std::cell::RefCell;

use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::Tensor;
use rayon::prelude::*;

use crate::direct::{DirectConv, Interior, Padded, PaddedBuf};
use crate::net::{ConvBn, Net, NetShape};
use crate::quant::{Precision, QuantBuf, QuantConv};
use crate::winograd::{Winograd, WinogradBuf};

/// Rows (positions x squares) per chunk: about 256 rows keep a chunk's
/// activations (`rows * F` floats per buffer, 32 KiB for F = 32) in the
/// L1/L2 caches; best of three 2-second runs per shape on the 2-core
/// machine, batch 64, 3x32 net (`examples/fused_profile.rs`): 256 rows
/// were 5-6 % faster than 512 on 7x7, 8x8 and 11x11 boards.
pub const TARGET_ROWS: usize = 256;

/// Why a [`Net`] could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum FusedError {
    /// A weight tensor was not readable as `f32` or had an unexpected size.
    #[error("layer {layer}: {problem}")]
    Weights {
        /// The layer, e.g. `stem` or `block 2 second`.
        layer: String,
        /// What was wrong.
        problem: String,
    },
}

/// A dense layer: `weight` `[d_in, d_out]` row-major (burn's `Linear`
/// layout), `bias` `[d_out]`.
struct FusedDense {
    din: usize,
    dout: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// The network of [`Net`] in inference form (see the module docs).
pub struct FusedNet {
    shape: NetShape,
    stem: TrunkConv,
    blocks: Vec<(TrunkConv, TrunkConv)>,
    policy_hidden: TrunkConv,
    policy_out: DirectConv,
    /// The policy head's 1x1 weights transposed, `[P, F]` (row `plane`:
    /// its weights over the `F` hidden channels), for [`Self::forward_legal`].
    policy_rows_w: Vec<f32>,
    value_conv: DirectConv,
    value_fc: FusedDense,
    value_out: FusedDense,
    moves_left_out: Option<FusedDense>,
    target_rows: usize,
}

/// Outputs of [`FusedNet::forward`] for `B` positions.
#[derive(Debug, Default, Clone)]
pub struct FusedOutput {
    /// Policy logits `[B, P*H*W]` in the network's plane-major order.
    pub policy: Vec<f32>,
    /// WDL logits `[B, 3]`.
    pub value: Vec<f32>,
    /// Predicted plies left / `MOVES_LEFT_SCALE` `[B]`; empty without the
    /// moves-left head.
    pub moves_left: Vec<f32>,
}

fn floats<const D: usize>(t: Tensor<D>, layer: &str, len: usize) -> Result<Vec<f32>, FusedError> {
    let v = t
        .into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| FusedError::Weights {
            layer: layer.to_string(),
            problem: format!("{e:?}"),
        })?;
    if v.len() != len {
        return Err(FusedError::Weights {
            layer: layer.to_string(),
            problem: format!("{} values, expected {len}", v.len()),
        });
    }
    Ok(v)
}

/// A convolution with batch norm folded in: `weight` `[taps * cin, cout]`
/// row-major (row `tap * cin + c`), `bias` `[cout]`.
struct Folded {
    taps: usize,
    cin: usize,
    cout: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Folded {
    fn direct(&self) -> DirectConv {
        DirectConv::new(self.taps, self.cin, self.cout, &self.weight, &self.bias)
    }

    /// As a trunk convolution (ReLU after): Winograd for 3x3 kernels.
    fn trunk(&self) -> TrunkConv {
        TrunkConv {
            direct: self.direct(),
            winograd: (self.taps == 9)
                .then(|| Winograd::new(self.cin, self.cout, &self.weight, &self.bias)),
            int8: None,
        }
    }
}

/// A trunk convolution (ReLU after, residual optional): int8
/// ([`crate::quant`]) when set, else Winograd F(4x4, 3x3)
/// ([`crate::winograd`]) when set, else the direct kernel; the last two
/// agree within float rounding.
struct TrunkConv {
    direct: DirectConv,
    winograd: Option<Winograd>,
    int8: Option<QuantConv>,
}

impl TrunkConv {
    /// [`DirectConv::run_trunk`] on whichever path is set; `src_max` and
    /// `dst_max` as in [`QuantConv::run_trunk`] (the `f32` paths leave
    /// `dst_max` empty: unknown).
    #[allow(
        clippy::too_many_arguments,
        reason = "the trunk contract's inputs plus the two maxima"
    )]
    fn run(
        &self,
        src: &[f32],
        src_max: &[u32],
        interior: &Interior,
        dst: &mut [f32],
        dst_max: &mut Vec<u32>,
        residual: Option<&[f32]>,
        buf: &mut ConvBufs,
    ) {
        let b = &mut buf.int8;
        match (&self.int8, &self.winograd) {
            (Some(q), _) => q.run_trunk(src, src_max, interior, dst, dst_max, residual, b),
            (None, Some(w)) => {
                dst_max.clear();
                w.run_trunk(src, interior, dst, residual, &mut buf.winograd);
            }
            (None, None) => {
                dst_max.clear();
                self.direct.run_trunk(src, interior, dst, residual);
            }
        }
    }

    fn cin(&self) -> usize {
        self.direct.cin
    }

    fn cout(&self) -> usize {
        self.direct.cout
    }
}

/// Fold `bn` (if any) into `conv`: per output channel `o`,
/// `scale = gamma / sqrt(var + eps)`, `W' = W * scale`,
/// `b' = (b - mean) * scale + beta`.
fn fuse_conv(conv: &Conv2d, bn: Option<&BatchNorm>, layer: &str) -> Result<Folded, FusedError> {
    let [cout, cin, kh, kw] = conv.weight.val().dims();
    if kh != kw || (kh != 1 && kh != 3) {
        return Err(FusedError::Weights {
            layer: layer.to_string(),
            problem: format!("kernel {kh}x{kw}; only 1x1 and 3x3 are supported"),
        });
    }
    let w = floats(conv.weight.val(), layer, cout * cin * kh * kw)?;
    let conv_bias = match &conv.bias {
        Some(b) => floats(b.val(), layer, cout)?,
        None => vec![0.0; cout],
    };
    let (scale, shift) = match bn {
        Some(bn) => {
            let gamma = floats(bn.gamma.val(), layer, cout)?;
            let beta = floats(bn.beta.val(), layer, cout)?;
            let mean = floats(bn.running_mean.value(), layer, cout)?;
            let var = floats(bn.running_var.value(), layer, cout)?;
            let scale: Vec<f32> = (0..cout)
                .map(|o| gamma[o] / (var[o] + bn.epsilon as f32).sqrt())
                .collect();
            let shift = (0..cout).map(|o| beta[o] - mean[o] * scale[o]).collect();
            (scale, shift)
        }
        None => (vec![1.0; cout], vec![0.0; cout]),
    };
    let taps = kh * kw;
    let mut weight = vec![0.0; taps * cin * cout];
    for o in 0..cout {
        for c in 0..cin {
            for t in 0..taps {
                weight[(t * cin + c) * cout + o] = w[(o * cin + c) * taps + t] * scale[o];
            }
        }
    }
    let bias: Vec<f32> = (0..cout)
        .map(|o| conv_bias[o] * scale[o] + shift[o])
        .collect();
    Ok(Folded {
        taps,
        cin,
        cout,
        weight,
        bias,
    })
}

fn fuse_conv_bn(layer: &ConvBn, name: &str) -> Result<Folded, FusedError> {
    fuse_conv(&layer.conv, Some(&layer.bn), name)
}

fn fuse_dense(linear: &Linear, layer: &str) -> Result<FusedDense, FusedError> {
    let [din, dout] = linear.weight.val().dims();
    let weight = floats(linear.weight.val(), layer, din * dout)?;
    let bias = match &linear.bias {
        Some(b) => floats(b.val(), layer, dout)?,
        None => vec![0.0; dout],
    };
    Ok(FusedDense {
        din,
        dout,
        weight,
        bias,
    })
}

/// `dst[m x n] = a[m x k] * b[k x n]`, plus the old `dst` when
/// `accumulate`; all row-major and contiguous, single-threaded (the caller
/// parallelises over chunks).
fn matmul_add(
    dst: &mut [f32],
    a: &[f32],
    b: &[f32],
    m: usize,
    k: usize,
    n: usize,
    accumulate: bool,
) {
    assert!(dst.len() >= m * n && a.len() >= m * k && b.len() >= k * n);
    // SAFETY: the three buffers hold at least the m x n, m x k and k x n
    // elements addressed with these strides (checked above) and `dst` does
    // not alias the inputs (it is a distinct `&mut`).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Reusable per-thread buffers for one chunk: padded activations
/// ([`PaddedBuf`]; `input` has the input planes as channels, the others the
/// filters), the value head's buffers and the chunk's square list.
#[derive(Default)]
struct Scratch {
    input: PaddedBuf,
    x: PaddedBuf,
    y: PaddedBuf,
    z: PaddedBuf,
    value_in: Vec<f32>,
    head: Vec<f32>,
    out: Vec<f32>,
    /// The chunk geometry's interior pixels (rebuilt when it changes).
    interior: Option<Interior>,
    /// The trunk convolutions' buffers.
    convs: ConvBufs,
}

/// The trunk convolutions' reusable buffers, and per position the largest
/// value of the activations in `x`, `y` and `z` where an int8
/// convolution wrote them ([`QuantConv::run_trunk`]; swapped with the
/// buffers).
#[derive(Default)]
struct ConvBufs {
    winograd: WinogradBuf,
    int8: QuantBuf,
    max_x: Vec<u32>,
    max_y: Vec<u32>,
    max_z: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A [`DirectConv::run`] store for a head: channel-major `[B, cout, H*W]`
/// (row `r` = square `r % squares` of board `r / squares`), ReLU when
/// `relu`.
fn head_store(
    dst: &mut [f32],
    squares: usize,
    cout: usize,
    relu: bool,
) -> impl FnMut(usize, usize, usize, usize, &[f32]) + '_ {
    move |row, valid, ob, width, acc| {
        for p in 0..valid {
            let (b, i) = ((row + p) / squares, (row + p) % squares);
            let base = b * cout * squares + i;
            for o in ob..(ob + width).min(cout) {
                let v = acc[p * width + o - ob];
                dst[base + o * squares] = if relu { v.max(0.0) } else { v };
            }
        }
    }
}

/// `a · b` over the shorter length, in eight partial sums (so the
/// compiler keeps them in vector registers).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut acc = [0.0f32; 8];
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Where [`FusedNet::forward_chunk`] writes a chunk's policy.
enum PolicyOut<'a> {
    /// Every logit, `[B, P*H*W]` plane-major.
    Dense(&'a mut [f32]),
    /// Only the logits at `indices` (policy indices into `P*H*W`),
    /// aligned with them: position `b`'s are
    /// `offsets[b] - offsets[0] .. offsets[b + 1] - offsets[0]`
    /// (`offsets` `[B + 1]`); an index past `P*H*W` gets 0.
    Legal {
        offsets: &'a [usize],
        indices: &'a [u32],
        logits: &'a mut [f32],
    },
}

impl FusedDense {
    /// `dst [n, dout] = src [n, din] * W + bias`, ReLU when `relu`.
    fn forward(&self, n: usize, src: &[f32], dst: &mut Vec<f32>, relu: bool) {
        dst.resize(n * self.dout, 0.0);
        let dst = &mut dst[..n * self.dout];
        dst.chunks_exact_mut(self.dout)
            .for_each(|out| out.copy_from_slice(&self.bias));
        matmul_add(dst, src, &self.weight, n, self.din, self.dout, true);
        if relu {
            dst.iter_mut().for_each(|v| *v = v.max(0.0));
        }
    }
}

/// Whether every block maps `filters` channels to `filters`.
fn blocks_fit(blocks: &[(TrunkConv, TrunkConv)], filters: usize) -> bool {
    blocks.iter().all(|(a, b)| {
        a.cin() == filters && a.cout() == filters && b.cin() == filters && b.cout() == filters
    })
}

/// Softplus `ln(1 + e^x)` (burn's with beta 1), stable for large `x`.
fn softplus(x: f32) -> f32 {
    if x > 20.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

impl FusedNet {
    /// Convert `net` for boards of `board = [C, P, H, W]` (input planes,
    /// policy planes, height, width; the variant's encoding). Its running
    /// batch-norm statistics are used, as in burn's inference mode.
    ///
    /// # Errors
    /// [`FusedError`] when a weight tensor cannot be read as `f32` or a
    /// kernel is not 1x1/3x3 (cannot happen for a [`Net`] built by this
    /// crate; the caller falls back to burn).
    pub fn from_net(net: &Net, board: [usize; 4]) -> Result<Self, FusedError> {
        let [input_planes, policy_planes, height, width] = board;
        let blocks = net
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                Ok((
                    fuse_conv_bn(&b.first, &format!("block {i} first"))?.trunk(),
                    fuse_conv_bn(&b.second, &format!("block {i} second"))?.trunk(),
                ))
            })
            .collect::<Result<Vec<_>, FusedError>>()?;
        let stem = fuse_conv_bn(&net.stem, "stem")?.trunk();
        let value_fc = fuse_dense(&net.value_fc, "value fc")?;
        let shape = NetShape {
            input_planes,
            policy_planes,
            height,
            width,
            blocks: net.blocks.len(),
            filters: stem.cout(),
            value_hidden: value_fc.dout,
            moves_left: net.moves_left_out.is_some(),
        };
        let value_conv = fuse_conv_bn(&net.value_conv, "value conv")?.direct();
        let policy_out = fuse_conv(&net.policy_out, None, "policy out")?.direct();
        let policy_hidden = fuse_conv_bn(&net.policy_hidden, "policy hidden")?.trunk();
        let value_out = fuse_dense(&net.value_out, "value out")?;
        let moves_left_out = net
            .moves_left_out
            .as_ref()
            .map(|l| fuse_dense(l, "moves left"))
            .transpose()?;
        let f = stem.cout();
        let trunk_fits = blocks_fit(&blocks, f) && policy_hidden.cin() == f && value_conv.cin == f;
        let heads_fit = policy_out.cin == policy_hidden.cout()
            && value_out.din == value_fc.dout
            && value_out.dout == 3
            && moves_left_out
                .as_ref()
                .is_none_or(|m| m.din == value_fc.dout && m.dout == 1);
        if !trunk_fits || !heads_fit || height * width == 0 {
            return Err(FusedError::Weights {
                layer: "trunk / heads".to_string(),
                problem: "the layers' channel counts do not chain".to_string(),
            });
        }
        if stem.cin() != input_planes
            || policy_out.cout != policy_planes
            || value_fc.din != value_conv.cout * height * width
        {
            return Err(FusedError::Weights {
                layer: "stem / value fc".to_string(),
                problem: format!("the network does not fit boards of {board:?} (C, P, H, W)"),
            });
        }
        let (pad, hidden) = (policy_out.cout_pad(), policy_out.cin);
        let policy_rows_w = (0..policy_planes)
            .flat_map(|plane| (0..hidden).map(move |c| (plane, c)))
            .map(|(plane, c)| policy_out.weight()[c * pad + plane])
            .collect();
        Ok(FusedNet {
            shape,
            stem,
            blocks,
            policy_hidden,
            policy_out,
            policy_rows_w,
            value_conv,
            value_fc,
            value_out,
            moves_left_out,
            target_rows: TARGET_ROWS,
        })
    }

    /// Use chunks of about `rows` rows instead of [`TARGET_ROWS`] (for
    /// tuning measurements).
    pub fn with_target_rows(mut self, rows: usize) -> Self {
        self.target_rows = rows.max(1);
        self
    }

    /// Run the 3x3 trunk convolutions on the direct kernel instead of
    /// Winograd F(2x2, 3x3) (for comparing the two; Winograd is the
    /// default).
    pub fn without_winograd(mut self) -> Self {
        for conv in self.trunk_convs() {
            conv.winograd = None;
        }
        self
    }

    /// Run the trunk's 3x3 convolutions (stem, residual blocks, policy
    /// hidden layer) in `precision`: [`Precision::Int8`] quantizes their
    /// folded weights once here ([`crate::quant`]) and runs them on the
    /// best int8 kernel of this CPU, the portable one included (the
    /// evaluator only asks for int8 where it is fast,
    /// [`crate::NetEvaluator::set_precision`]); [`Precision::Fp32`] goes
    /// back to the `f32` kernels.
    pub fn with_precision(mut self, precision: Precision) -> Self {
        for conv in self.trunk_convs() {
            conv.int8 = match precision {
                Precision::Fp32 => None,
                Precision::Int8 => QuantConv::new(&conv.direct),
            };
        }
        self
    }

    /// [`Self::with_precision`] int8 on the kernel named `kernel`
    /// ([`crate::quant::int8_kernels`]: to measure a slower one); `None`
    /// when this CPU does not run it.
    pub fn with_int8_kernel(mut self, kernel: &str) -> Option<Self> {
        for conv in self.trunk_convs() {
            conv.int8 = Some(QuantConv::on_kernel(&conv.direct, kernel)?);
        }
        Some(self)
    }

    /// The precision of the trunk's convolutions.
    pub fn precision(&self) -> Precision {
        if self.stem.int8.is_some() {
            Precision::Int8
        } else {
            Precision::Fp32
        }
    }

    /// The trunk's 3x3 convolutions.
    fn trunk_convs(&mut self) -> impl Iterator<Item = &mut TrunkConv> {
        std::iter::once(&mut self.stem)
            .chain(std::iter::once(&mut self.policy_hidden))
            .chain(self.blocks.iter_mut().flat_map(|(a, b)| [a, b]))
    }

    /// The network's shape.
    pub fn shape(&self) -> &NetShape {
        &self.shape
    }

    /// Positions per chunk for a batch of `batch`: about `target_rows`
    /// rows ([`TARGET_ROWS`] by default), and at most `batch / threads`
    /// (rounded up) so the threads share a small batch.
    fn chunk_positions(&self, batch: usize) -> usize {
        let by_rows = (self.target_rows / (self.shape.height * self.shape.width)).max(1);
        let per_thread = batch.div_ceil(rayon::current_num_threads().max(1));
        by_rows.min(per_thread).max(1)
    }

    /// Forward pass on `input` `[B, C, H, W]` (the encoder's NCHW layout),
    /// `B = input.len() / (C*H*W)`; see [`FusedOutput`] for the shapes.
    pub fn forward(&self, input: &[f32]) -> FusedOutput {
        let mut out = FusedOutput::default();
        self.forward_into(input, &mut out);
        out
    }

    /// [`Self::forward`] into `out`, reusing its buffers: no allocation
    /// once they are large enough (a fresh `[B, P*H*W]` policy buffer per
    /// call is megabytes on the chess boards: page faults and zeroing).
    pub fn forward_into(&self, input: &[f32], out: &mut FusedOutput) {
        self.forward_with(input, None, out);
    }

    /// [`Self::forward_into`] computing only the policy logits a search
    /// needs: `out.policy` becomes `[indices.len()]`, the logit of each
    /// policy index of `indices` (into `P*H*W`, an index past it gets 0),
    /// aligned with it. Position `b`'s indices are
    /// `indices[offsets[b]..offsets[b + 1]]`, `offsets` `[B + 1]`; value
    /// and moves-left as [`FusedOutput`]. Each logit is the policy head's
    /// 1x1 product at one square and plane, so a position with 30 legal
    /// moves costs 30 dot products instead of the whole `P*H*W` head (on
    /// losers' 73x8x8 plane-major layout the head and its scattered stores
    /// were 15-20 % of an int8 forward pass).
    ///
    /// # Panics
    /// If `offsets` is not `B + 1` non-decreasing entries from 0 to
    /// `indices.len()` (a caller bug).
    pub fn forward_legal(
        &self,
        input: &[f32],
        offsets: &[usize],
        indices: &[u32],
        out: &mut FusedOutput,
    ) {
        let batch = input.len() / self.shape.input_len().max(1);
        assert!(
            offsets.len() == batch + 1
                && offsets[0] == 0
                && offsets[batch] == indices.len()
                && offsets.windows(2).all(|w| w[0] <= w[1]),
            "forward_legal: offsets must run from 0 to indices.len() over B + 1 entries"
        );
        self.forward_with(input, Some((offsets, indices)), out);
    }

    /// The forward pass, with every logit (`legal` `None`) or only those
    /// of `legal` = (offsets, indices) as in [`Self::forward_legal`].
    fn forward_with(
        &self,
        input: &[f32],
        legal: Option<(&[usize], &[u32])>,
        out: &mut FusedOutput,
    ) {
        let s = &self.shape;
        let (in_len, p_len) = (s.input_len(), s.policy_len());
        let batch = input.len() / in_len.max(1);
        let ml = if self.moves_left_out.is_some() {
            batch
        } else {
            0
        };
        // Every element is overwritten below; `resize` only fills growth.
        let policy_len = legal.map_or(batch * p_len, |(_, indices)| indices.len());
        out.policy.resize(policy_len, 0.0);
        out.value.resize(batch * 3, 0.0);
        out.moves_left.resize(ml, 0.0);
        if batch == 0 {
            return;
        }
        let chunk = self.chunk_positions(batch);
        let ml_len = if self.moves_left_out.is_some() {
            chunk
        } else {
            0
        };
        let mut ml_chunks: Vec<&mut [f32]> = if ml_len > 0 {
            out.moves_left.chunks_mut(ml_len).collect()
        } else {
            (0..batch.div_ceil(chunk))
                .map(|_| Default::default())
                .collect()
        };
        let policies: Vec<PolicyOut<'_>> = match legal {
            None => out
                .policy
                .chunks_mut(chunk * p_len)
                .map(PolicyOut::Dense)
                .collect(),
            Some((offsets, indices)) => {
                let mut rest = out.policy.as_mut_slice();
                (0..batch)
                    .step_by(chunk)
                    .map(|first| {
                        let last = (first + chunk).min(batch);
                        let (lo, hi) = (offsets[first], offsets[last]);
                        let (logits, tail) = std::mem::take(&mut rest).split_at_mut(hi - lo);
                        rest = tail;
                        PolicyOut::Legal {
                            offsets: &offsets[first..=last],
                            indices: &indices[lo..hi],
                            logits,
                        }
                    })
                    .collect()
            }
        };
        input[..batch * in_len]
            .par_chunks(chunk * in_len)
            .zip(policies)
            .zip(out.value.par_chunks_mut(chunk * 3))
            .zip(ml_chunks.par_iter_mut())
            .for_each(|(((x, p), v), m)| {
                SCRATCH.with(|cell| self.forward_chunk(x, p, v, m, &mut cell.borrow_mut()));
            });
    }

    /// The whole network on one chunk of positions, single-threaded.
    fn forward_chunk(
        &self,
        input: &[f32],
        policy: PolicyOut<'_>,
        value: &mut [f32],
        moves_left: &mut [f32],
        sc: &mut Scratch,
    ) {
        let s = &self.shape;
        let geom = Padded {
            positions: input.len() / s.input_len(),
            height: s.height,
            width: s.width,
        };
        let (sq, f) = (s.height * s.width, s.filters);
        if sc.interior.as_ref().map(Interior::geom) != Some(geom) {
            sc.interior = Some(geom.interior());
        }
        let interior = sc.interior.as_ref().expect("set just above");
        // NCHW input -> padded channels-last.
        let c = s.input_planes;
        let x_in = sc.input.prepare(geom, c);
        for (row, &pixel) in interior.iter().enumerate() {
            let (b, i) = (row / sq, row % sq);
            let dst = &mut x_in[pixel as usize * c..(pixel as usize + 1) * c];
            for (plane, d) in dst.iter_mut().enumerate() {
                *d = input[(b * c + plane) * sq + i];
            }
        }
        let x = sc.x.prepare(geom, f);
        let bufs = &mut sc.convs;
        let (mut mx, mut my, mut mz) = (
            std::mem::take(&mut bufs.max_x),
            std::mem::take(&mut bufs.max_y),
            std::mem::take(&mut bufs.max_z),
        );
        self.stem
            .run(&sc.input.data, &[], interior, x, &mut mx, None, bufs);
        for (first, second) in &self.blocks {
            let y = sc.y.prepare(geom, f);
            first.run(&sc.x.data, &mx, interior, y, &mut my, None, bufs);
            let z = sc.z.prepare(geom, f);
            let x = Some(sc.x.data.as_slice());
            second.run(&sc.y.data, &my, interior, z, &mut mz, x, bufs);
            std::mem::swap(&mut sc.x, &mut sc.z);
            std::mem::swap(&mut mx, &mut mz);
        }
        // Policy head, written straight into plane-major [B, P*H*W].
        let y = sc.y.prepare(geom, f);
        self.policy_hidden
            .run(&sc.x.data, &mx, interior, y, &mut my, None, bufs);
        (bufs.max_x, bufs.max_y, bufs.max_z) = (mx, my, mz);
        let planes = s.policy_planes;
        match policy {
            PolicyOut::Dense(policy) => {
                self.policy_out
                    .run(&sc.y.data, interior, head_store(policy, sq, planes, false))
            }
            PolicyOut::Legal {
                offsets,
                indices,
                logits,
            } => {
                let (hidden, bias) = (self.policy_out.cin, self.policy_out.bias());
                let base = offsets[0];
                for (b, ends) in offsets.windows(2).enumerate() {
                    for k in ends[0] - base..ends[1] - base {
                        let index = indices[k] as usize;
                        logits[k] = if index < planes * sq {
                            let (plane, square) = (index / sq, index % sq);
                            let pixel = interior[b * sq + square] as usize;
                            let x = &sc.y.data[pixel * hidden..(pixel + 1) * hidden];
                            let w = &self.policy_rows_w[plane * hidden..(plane + 1) * hidden];
                            bias[plane] + dot(x, w)
                        } else {
                            0.0
                        };
                    }
                }
            }
        }
        // Value head: channel-major [B, 2*H*W] -> dense layers.
        let vc = self.value_conv.cout;
        sc.value_in.resize(geom.positions * vc * sq, 0.0);
        self.value_conv.run(
            &sc.x.data,
            interior,
            head_store(&mut sc.value_in, sq, vc, true),
        );
        self.value_fc
            .forward(geom.positions, &sc.value_in, &mut sc.head, true);
        self.value_out
            .forward(geom.positions, &sc.head, &mut sc.out, false);
        value.copy_from_slice(&sc.out[..geom.positions * 3]);
        if let Some(ml) = &self.moves_left_out {
            ml.forward(geom.positions, &sc.head, &mut sc.out, false);
            for (m, &v) in moves_left.iter_mut().zip(&sc.out) {
                *m = softplus(v);
            }
        }
    }
}
