//! [`FusedNet`]: CPU inference of a trained [`Net`] with batch norm folded
//! into the convolutions, channels-last activations and one `gemm` call per
//! layer and chunk of positions.
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
//! - activations are `[rows, channels]` with `rows = positions * H * W`
//!   (NHWC), so a 1x1 convolution is one matrix product and a 3x3 one is an
//!   im2col copy (`[rows, 9 * C_in]`, zero rows outside the board = "same"
//!   padding) followed by one product with the `[9 * C_in, C_out]` weights;
//! - the bias enters the 3x3 products as one more weight row (im2col rows
//!   end in a constant 1), the residual as the product's starting value
//!   (one copy), so besides the product only the ReLU takes a pass over
//!   the output;
//! - a batch is cut into chunks of about [`TARGET_ROWS`] rows, one chunk
//!   per rayon task, each running the whole network with its thread's
//!   reusable scratch buffers (activations stay in cache; no allocation per
//!   position; single-threaded `gemm` inside a chunk).
//!
//! Matrix products use the `gemm` crate (the one burn's flex backend uses),
//! which picks AVX-512/AVX2/NEON kernels at run time.

use std::cell::RefCell;

use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::tensor::Tensor;
use rayon::prelude::*;

use crate::net::{ConvBn, Net, NetShape};

/// Rows (positions x squares) per chunk: a few hundred rows keep the im2col
/// buffer (`rows * 9 * F` floats, 0.6 MB for F = 32) in the L2 cache while
/// each matrix product is still large enough for the gemm kernels
/// (128..2048 measured alike within noise on the 2-core machine).
pub const TARGET_ROWS: usize = 512;

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

/// A convolution with batch norm folded in: `weight` is `[k*k*C_in, C_out]`
/// row-major with row index `(ky * k + kx) * C_in + c_in`, for 3x3 kernels
/// followed by the bias as one more row (the im2col rows end in a constant
/// 1, so the product adds the bias); `bias` `[C_out]`.
struct FusedConv {
    kernel: usize,
    cin: usize,
    cout: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
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
    stem: FusedConv,
    blocks: Vec<(FusedConv, FusedConv)>,
    policy_hidden: FusedConv,
    policy_out: FusedConv,
    value_conv: FusedConv,
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

/// Fold `bn` (if any) into `conv`: per output channel `o`,
/// `scale = gamma / sqrt(var + eps)`, `W' = W * scale`,
/// `b' = (b - mean) * scale + beta`.
fn fuse_conv(conv: &Conv2d, bn: Option<&BatchNorm>, layer: &str) -> Result<FusedConv, FusedError> {
    let [cout, cin, kh, kw] = conv.weight.val().dims();
    let kernel = kh;
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
    let taps = kernel * kernel;
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
    if kernel == 3 {
        weight.extend_from_slice(&bias);
    }
    Ok(FusedConv {
        kernel,
        cin,
        cout,
        weight,
        bias,
    })
}

fn fuse_conv_bn(layer: &ConvBn, name: &str) -> Result<FusedConv, FusedError> {
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

/// Reusable per-thread buffers for one chunk.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    /// im2col of the stem (C_in = input planes).
    stem_col: Im2col,
    /// im2col of the trunk and heads (C_in = filters).
    col: Im2col,
    head: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Board geometry of one chunk.
#[derive(Clone, Copy)]
struct Grid {
    positions: usize,
    height: usize,
    width: usize,
}

impl Grid {
    fn squares(&self) -> usize {
        self.height * self.width
    }
    fn rows(&self) -> usize {
        self.positions * self.squares()
    }
}

impl FusedConv {
    /// `dst [rows, cout] = act(conv(src [rows, cin]) + bias (+ residual))`
    /// where act is ReLU when `relu`. The product is accumulated onto the
    /// residual (one copy) or, for 1x1 kernels, onto the bias, so only the
    /// ReLU needs a second pass.
    fn forward(
        &self,
        grid: Grid,
        src: &[f32],
        col: &mut Im2col,
        dst: &mut Vec<f32>,
        residual: Option<&[f32]>,
        relu: bool,
    ) {
        let rows = grid.rows();
        let n = rows * self.cout;
        dst.resize(n, 0.0);
        let dst = &mut dst[..n];
        if let Some(skip) = residual {
            dst.copy_from_slice(&skip[..n]);
        }
        if self.kernel == 1 {
            if residual.is_none() {
                dst.fill(0.0);
            }
            for out in dst.chunks_exact_mut(self.cout) {
                out.iter_mut().zip(&self.bias).for_each(|(o, b)| *o += b);
            }
            matmul_add(dst, src, &self.weight, rows, self.cin, self.cout, true);
        } else {
            im2col3x3(grid, self.cin, src, col);
            let k = 9 * self.cin + 1;
            matmul_add(
                dst,
                &col.data,
                &self.weight,
                rows,
                k,
                self.cout,
                residual.is_some(),
            );
        }
        if relu {
            dst.iter_mut().for_each(|v| *v = v.max(0.0));
        }
    }
}

/// An im2col buffer and the `(positions, H, W, C_in)` its zero padding was
/// laid out for: off-board taps stay zero between calls of the same
/// geometry, so only on-board taps are copied.
#[derive(Default)]
struct Im2col {
    data: Vec<f32>,
    layout: (usize, usize, usize, usize),
}

/// im2col for a 3x3 "same" convolution: row `r` of `col` holds the 9
/// neighbours of square `r` (ky, kx row-major), `cin` values each, zeros
/// off the board, then a constant 1 (for the bias row of the weights). The on-board taps of one kernel row are neighbours in
/// `src` too, so each is one copy of up to `3 * cin` values.
fn im2col3x3(grid: Grid, cin: usize, src: &[f32], col: &mut Im2col) {
    let (h, w, sq) = (grid.height, grid.width, grid.squares());
    let stride = 9 * cin + 1;
    let layout = (grid.positions, h, w, cin);
    if col.layout != layout {
        col.data.clear();
        col.data.resize(grid.rows() * stride, 0.0);
        col.data
            .chunks_exact_mut(stride)
            .for_each(|row| row[9 * cin] = 1.0);
        col.layout = layout;
    }
    for b in 0..grid.positions {
        for y in 0..h {
            for x in 0..w {
                let row = b * sq + y * w + x;
                let out = &mut col.data[row * stride..(row + 1) * stride];
                // Kernel columns kx in lo..=hi are on the board.
                let (lo, hi) = (usize::from(x == 0), if x + 1 == w { 1 } else { 2 });
                let len = (hi + 1 - lo) * cin;
                for ky in 0..3 {
                    if (y == 0 && ky == 0) || (y + 1 == h && ky == 2) {
                        continue;
                    }
                    let s = b * sq + (y + ky - 1) * w + (x + lo - 1);
                    let d = (ky * 3 + lo) * cin;
                    out[d..d + len].copy_from_slice(&src[s * cin..s * cin + len]);
                }
            }
        }
    }
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
fn blocks_fit(blocks: &[(FusedConv, FusedConv)], filters: usize) -> bool {
    blocks.iter().all(|(a, b)| {
        a.cin == filters && a.cout == filters && b.cin == filters && b.cout == filters
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
                    fuse_conv_bn(&b.first, &format!("block {i} first"))?,
                    fuse_conv_bn(&b.second, &format!("block {i} second"))?,
                ))
            })
            .collect::<Result<Vec<_>, FusedError>>()?;
        let stem = fuse_conv_bn(&net.stem, "stem")?;
        let value_fc = fuse_dense(&net.value_fc, "value fc")?;
        let shape = NetShape {
            input_planes,
            policy_planes,
            height,
            width,
            blocks: net.blocks.len(),
            filters: stem.cout,
            value_hidden: value_fc.dout,
            moves_left: net.moves_left_out.is_some(),
        };
        let value_conv = fuse_conv_bn(&net.value_conv, "value conv")?;
        let policy_out = fuse_conv(&net.policy_out, None, "policy out")?;
        let policy_hidden = fuse_conv_bn(&net.policy_hidden, "policy hidden")?;
        let value_out = fuse_dense(&net.value_out, "value out")?;
        let moves_left_out = net
            .moves_left_out
            .as_ref()
            .map(|l| fuse_dense(l, "moves left"))
            .transpose()?;
        let f = stem.cout;
        let trunk_fits = blocks_fit(&blocks, f) && policy_hidden.cin == f && value_conv.cin == f;
        let heads_fit = policy_out.cin == policy_hidden.cout
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
        if stem.cin != input_planes
            || policy_out.cout != policy_planes
            || value_fc.din != value_conv.cout * height * width
        {
            return Err(FusedError::Weights {
                layer: "stem / value fc".to_string(),
                problem: format!("the network does not fit boards of {board:?} (C, P, H, W)"),
            });
        }
        Ok(FusedNet {
            shape,
            stem,
            blocks,
            policy_hidden,
            policy_out,
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
        let s = &self.shape;
        let (in_len, p_len) = (s.input_len(), s.policy_len());
        let batch = input.len() / in_len.max(1);
        let mut out = FusedOutput {
            policy: vec![0.0; batch * p_len],
            value: vec![0.0; batch * 3],
            moves_left: vec![
                0.0;
                if self.moves_left_out.is_some() {
                    batch
                } else {
                    0
                }
            ],
        };
        if batch == 0 {
            return out;
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
        input[..batch * in_len]
            .par_chunks(chunk * in_len)
            .zip(out.policy.par_chunks_mut(chunk * p_len))
            .zip(out.value.par_chunks_mut(chunk * 3))
            .zip(ml_chunks.par_iter_mut())
            .for_each(|(((x, p), v), m)| {
                SCRATCH.with(|cell| self.forward_chunk(x, p, v, m, &mut cell.borrow_mut()));
            });
        out
    }

    /// The whole network on one chunk of positions, single-threaded.
    fn forward_chunk(
        &self,
        input: &[f32],
        policy: &mut [f32],
        value: &mut [f32],
        moves_left: &mut [f32],
        sc: &mut Scratch,
    ) {
        let s = &self.shape;
        let grid = Grid {
            positions: input.len() / s.input_len(),
            height: s.height,
            width: s.width,
        };
        let sq = grid.squares();
        // NCHW input -> [rows, C].
        let c = s.input_planes;
        sc.y.resize(grid.rows() * c, 0.0);
        for b in 0..grid.positions {
            for plane in 0..c {
                let src = &input[(b * c + plane) * sq..(b * c + plane + 1) * sq];
                for (i, &v) in src.iter().enumerate() {
                    sc.y[(b * sq + i) * c + plane] = v;
                }
            }
        }
        self.stem
            .forward(grid, &sc.y, &mut sc.stem_col, &mut sc.x, None, true);
        for (first, second) in &self.blocks {
            first.forward(grid, &sc.x, &mut sc.col, &mut sc.y, None, true);
            second.forward(grid, &sc.y, &mut sc.col, &mut sc.z, Some(&sc.x), true);
            std::mem::swap(&mut sc.x, &mut sc.z);
        }
        // Policy head: [rows, P] -> plane-major [B, P*H*W].
        self.policy_hidden
            .forward(grid, &sc.x, &mut sc.col, &mut sc.y, None, true);
        self.policy_out
            .forward(grid, &sc.y, &mut sc.col, &mut sc.z, None, false);
        let planes = s.policy_planes;
        for b in 0..grid.positions {
            for i in 0..sq {
                let row = &sc.z[(b * sq + i) * planes..(b * sq + i + 1) * planes];
                for (plane, &v) in row.iter().enumerate() {
                    policy[b * planes * sq + plane * sq + i] = v;
                }
            }
        }
        // Value head: [rows, 2] -> channel-major [B, 2*H*W] -> dense layers.
        self.value_conv
            .forward(grid, &sc.x, &mut sc.col, &mut sc.y, None, true);
        let vc = self.value_conv.cout;
        sc.z.resize(grid.positions * vc * sq, 0.0);
        for b in 0..grid.positions {
            for i in 0..sq {
                for ch in 0..vc {
                    sc.z[b * vc * sq + ch * sq + i] = sc.y[(b * sq + i) * vc + ch];
                }
            }
        }
        self.value_fc
            .forward(grid.positions, &sc.z, &mut sc.head, true);
        self.value_out
            .forward(grid.positions, &sc.head, &mut sc.y, false);
        value.copy_from_slice(&sc.y[..grid.positions * 3]);
        if let Some(ml) = &self.moves_left_out {
            ml.forward(grid.positions, &sc.head, &mut sc.y, false);
            for (m, &v) in moves_left.iter_mut().zip(&sc.y) {
                *m = softplus(v);
            }
        }
    }
}
