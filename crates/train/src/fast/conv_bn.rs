//! One convolution + batch norm (training mode) + optional residual and
//! ReLU, forward with the activations the backward pass needs, and its
//! backward pass. Activations are channels-last, `[B * H * W, channels]`.
//!
//! Forward (burn's `batch_norm_train`, PyTorch's `BatchNorm2d` in training
//! mode): `z = conv(x)`, batch mean `mu` and biased variance `var` of `z`
//! per channel over the `N = B * H * W` rows, `x_hat = (z - mu) /
//! sqrt(var + eps)`, `y = gamma * x_hat + beta (+ skip)`, `out = relu(y)`.
//! Running statistics: `r = (1 - m) r + m * stat` with momentum `m = 0.1`
//! (burn's `BatchNorm::forward_train`, biased variance).
//!
//! Backward (Ioffe & Szegedy 2015, section 3; burn's
//! `batch_norm_train_backward`): with `dy = dout * [out > 0]`,
//! `dbeta = sum dy`, `dgamma = sum dy * x_hat`,
//! `dz = gamma / sqrt(var + eps) * (dy - mean(dy) - x_hat * mean(dy * x_hat))`;
//! the convolution's `dW = im2col(x)^T dz` and `dx = im2col(dz) W_flip`,
//! where `W_flip` maps output channels back to input channels with the
//! taps mirrored (a 3x3 "same" convolution's input gradient is the
//! convolution of the output gradient with the transposed, rotated kernel).

use rayon::prelude::*;

use super::batch::{im2col, sized, sum_groups, Geometry, Scratch};
use super::matmul::{matmul, View};
use super::params::{ConvBnSlot, Running};

/// burn's `BatchNormConfig` defaults.
const EPSILON: f64 = 1e-5;
const MOMENTUM: f32 = 0.1;

/// A layer and what its forward pass saved.
pub(crate) struct ConvBn {
    /// Where its tensors are in the parameter vector.
    pub slot: ConvBnSlot,
    /// Whether a ReLU follows.
    pub relu: bool,
    /// Running mean `[cout]`.
    pub running_mean: Vec<f32>,
    /// Running variance `[cout]`.
    pub running_var: Vec<f32>,
    /// Normalised pre-activations `x_hat`, `[N, cout]`.
    xhat: Vec<f32>,
    /// Output, `[N, cout]`.
    pub out: Vec<f32>,
    /// `1 / sqrt(var + eps)` of the last batch, `[cout]`.
    inv_std: Vec<f32>,
    /// `W_flip`, `[taps * cout, cin]`.
    flipped: Vec<f32>,
}

/// Per-channel sums `(sum a, sum a * b)` over the groups' scratch
/// (`sums[..c]` and `sums[c..2c]`).
fn reduce_sums(scratch: &[Scratch], c: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut s1, mut s2) = (vec![0.0; c], vec![0.0; c]);
    for s in scratch {
        for o in 0..c {
            s1[o] += s.sums[o];
            s2[o] += s.sums[c + o];
        }
    }
    (s1, s2)
}

/// `d *= [y > 0]`, the ReLU's gradient, written as a select so it
/// vectorises (a conditional store was compiled to a branch per element:
/// 18 % of the step).
pub(crate) fn relu_grad(d: &mut [f32], y: &[f32]) {
    for (d, y) in d.iter_mut().zip(y) {
        *d = if *y > 0.0 { *d } else { 0.0 };
    }
}

/// Adds the per-channel sums of `(z - mean)^2` over the rows of `z`
/// (`[rows, c]`, one chunk) to `sums[..c]`, in `f32` within the chunk.
fn add_centred_squares(sums: &mut [f64], z: &[f32], mean: &[f32], part: &mut Vec<f32>) {
    let c = mean.len();
    let part = sized(part, c, true);
    for row in z.chunks_exact(c) {
        for ((p, v), m) in part.iter_mut().zip(row).zip(mean) {
            let d = v - m;
            *p += d * d;
        }
    }
    for (s, p) in sums.iter_mut().zip(part.iter()) {
        *s += *p as f64;
    }
}

/// Adds the per-channel sums of `a` (`[rows, c]`) to `sums[..c]`, and of
/// `a * b` (`b` given) to `sums[c..2c]`: in `f32` over the rows
/// of one chunk (`part`, a few hundred rows: vectorised), then in `f64`.
fn add_sums(sums: &mut [f64], a: &[f32], b: Option<&[f32]>, c: usize, part: &mut Vec<f32>) {
    let part = sized(part, 2 * c, true);
    let (p1, p2) = part.split_at_mut(c);
    match b {
        Some(b) => {
            for (a, b) in a.chunks_exact(c).zip(b.chunks_exact(c)) {
                for (((s1, s2), a), b) in p1.iter_mut().zip(p2.iter_mut()).zip(a).zip(b) {
                    *s1 += a;
                    *s2 += a * b;
                }
            }
        }
        None => {
            for a in a.chunks_exact(c) {
                p1.iter_mut().zip(a).for_each(|(s1, a)| *s1 += a);
            }
        }
    }
    for (s, p) in sums.iter_mut().zip(part.iter()) {
        *s += *p as f64;
    }
}

impl ConvBn {
    /// A layer at `slot` with the running statistics `(mean, var)`.
    pub fn new(slot: ConvBnSlot, relu: bool, running: Running) -> Self {
        ConvBn {
            slot,
            relu,
            running_mean: running.0,
            running_var: running.1,
            xhat: Vec::new(),
            out: Vec::new(),
            inv_std: Vec::new(),
            flipped: Vec::new(),
        }
    }

    /// Forward on `input` (`[N, cin]`), adding `skip` (`[N, cout]`) before
    /// the ReLU when given; the result is [`ConvBn::out`].
    pub fn forward(
        &mut self,
        params: &[f32],
        input: &[f32],
        skip: Option<&[f32]>,
        geo: &Geometry,
        scratch: &mut [Scratch],
    ) {
        let s = self.slot.clone();
        let (width, n) = (s.taps * s.cin, geo.rows());
        let weight = &params[s.weight.clone()];
        sized(&mut self.xhat, n * s.cout, false);
        sized(&mut self.out, n * s.cout, false);
        let sq = geo.squares();
        // Pass 1: z = conv(x) into `xhat`, with per-channel sums of z, z^2.
        let z = geo.split(&mut self.xhat, sq * s.cout);
        scratch
            .par_iter_mut()
            .zip(z)
            .zip(&geo.groups)
            .for_each(|((scr, z), g)| {
                let sums = sized(&mut scr.sums, 2 * s.cout, true);
                let input = &input[g.start * sq * s.cin..g.end * sq * s.cin];
                for (x, z) in input
                    .chunks(geo.chunk * sq * s.cin)
                    .zip(z.chunks_mut(geo.chunk * sq * s.cout))
                {
                    let rows = x.len() / s.cin;
                    let col: &[f32] = if s.taps == 1 {
                        x
                    } else {
                        im2col(x, geo, s.cin, s.taps, &mut scr.col);
                        &scr.col
                    };
                    matmul(
                        z,
                        View::rows(col, rows, width),
                        View::rows(weight, width, s.cout),
                        false,
                    );
                    add_sums(sums, z, None, s.cout, &mut scr.part);
                }
            });
        let (s1, _) = reduce_sums(scratch, s.cout);
        let mean: Vec<f32> = s1.iter().map(|v| (v / n as f64) as f32).collect();
        // Pass 1b: the variance from centred squares (E[z^2] - mu^2 loses
        // everything to cancellation where a constant input plane makes a
        // channel's mean large against its spread, as in the stem).
        let step = geo.chunk * sq * s.cout;
        let groups = geo
            .groups
            .iter()
            .map(|g| g.start * sq * s.cout..g.end * sq * s.cout);
        scratch
            .par_iter_mut()
            .zip(groups.collect::<Vec<_>>())
            .for_each(|(scr, rows)| {
                let sums = sized(&mut scr.sums, 2 * s.cout, true);
                for z in self.xhat[rows].chunks(step) {
                    add_centred_squares(sums, z, &mean, &mut scr.part);
                }
            });
        let (squares, _) = reduce_sums(scratch, s.cout);
        self.inv_std.clear();
        for o in 0..s.cout {
            let var = squares[o] / n as f64;
            self.inv_std.push((1.0 / (var + EPSILON).sqrt()) as f32);
            self.running_mean[o] = (1.0 - MOMENTUM) * self.running_mean[o] + MOMENTUM * mean[o];
            self.running_var[o] = (1.0 - MOMENTUM) * self.running_var[o] + MOMENTUM * var as f32;
        }
        // Pass 2: normalise, scale and shift, skip, ReLU.
        let (gamma, beta) = (&params[s.gamma.clone()], &params[s.beta.clone()]);
        let (inv, relu, c) = (&self.inv_std, self.relu, s.cout);
        self.xhat
            .par_chunks_mut(geo.chunk * sq * c)
            .zip(self.out.par_chunks_mut(geo.chunk * sq * c))
            .enumerate()
            .for_each(|(i, (xh, out))| {
                let skip = skip.map(|k| &k[i * geo.chunk * sq * c..][..out.len()]);
                for (xh, out) in xh.chunks_exact_mut(c).zip(out.chunks_exact_mut(c)) {
                    let per_channel = mean.iter().zip(inv).zip(gamma).zip(beta);
                    for ((x, y), (((m, i), g), b)) in
                        xh.iter_mut().zip(out.iter_mut()).zip(per_channel)
                    {
                        *x = (*x - m) * i;
                        *y = g * *x + b;
                    }
                }
                if let Some(k) = skip {
                    out.iter_mut().zip(k).for_each(|(y, k)| *y += k);
                }
                if relu {
                    out.iter_mut().for_each(|y| *y = y.max(0.0));
                }
            });
        self.flip(weight);
    }

    /// `W_flip[(taps - 1 - t) * cout + o, c] = W[t * cin + c, o]`.
    fn flip(&mut self, weight: &[f32]) {
        let s = &self.slot;
        let flipped = sized(&mut self.flipped, s.taps * s.cout * s.cin, false);
        for t in 0..s.taps {
            for c in 0..s.cin {
                for o in 0..s.cout {
                    flipped[((s.taps - 1 - t) * s.cout + o) * s.cin + c] =
                        weight[(t * s.cin + c) * s.cout + o];
                }
            }
        }
    }

    /// Backward: `dout` (`[N, cout]`, the gradient of [`ConvBn::out`]) is
    /// consumed (overwritten); the gradients of this layer's weight, gamma
    /// and beta are written into `grads`; `skip_grad`, when given,
    /// receives the gradient of the skip input (`[N, cout]`); `dinput`,
    /// when given, receives the gradient of `input` (`[N, cin]`), added
    /// to its contents when its flag is set.
    #[allow(
        clippy::too_many_arguments,
        reason = "the layer's inputs, its three gradient outputs and the batch split"
    )]
    pub fn backward(
        &self,
        params: &[f32],
        grads: &mut [f32],
        dout: &mut [f32],
        input: &[f32],
        skip_grad: Option<&mut [f32]>,
        dinput: Option<(&mut [f32], bool)>,
        geo: &Geometry,
        scratch: &mut [Scratch],
    ) {
        let s = &self.slot;
        let (c, sq, n) = (s.cout, geo.squares(), geo.rows() as f64);
        // Pass 1: dy = dout * relu'(y), with per-channel sums of dy and dy * x_hat.
        let relu = self.relu;
        scratch
            .par_iter_mut()
            .zip(geo.split(dout, sq * c))
            .zip(&geo.groups)
            .for_each(|((scr, dy), g)| {
                let sums = sized(&mut scr.sums, 2 * c, true);
                let rows = g.start * sq * c..g.end * sq * c;
                let (out, xhat) = (&self.out[rows.clone()], &self.xhat[rows]);
                if relu {
                    relu_grad(dy, out);
                }
                let step = geo.chunk * sq * c;
                for (dy, xh) in dy.chunks(step).zip(xhat.chunks(step)) {
                    add_sums(sums, dy, Some(xh), c, &mut scr.part);
                }
            });
        if let Some(skip) = skip_grad {
            skip.copy_from_slice(dout);
        }
        let (s1, s2) = reduce_sums(scratch, c);
        let gamma = &params[s.gamma.clone()];
        let mut coef = Vec::with_capacity(3 * c);
        for o in 0..c {
            grads[s.beta.start + o] = s1[o] as f32;
            grads[s.gamma.start + o] = s2[o] as f32;
            coef.push(gamma[o] * self.inv_std[o]);
        }
        coef.extend(s1.iter().chain(&s2).map(|v| (v / n) as f32));
        self.backward_conv(
            &mut grads[s.weight.clone()],
            dout,
            input,
            dinput,
            geo,
            scratch,
            &coef,
        );
    }

    /// Pass 2 of [`ConvBn::backward`]: `dz` from `dy` in place (`coef`:
    /// `gamma * inv_std`, `mean(dy)`, `mean(dy * x_hat)`, `[cout]` each),
    /// then the convolution's weight gradient into `dw` and its input
    /// gradient into `dinput`.
    #[allow(
        clippy::too_many_arguments,
        reason = "the layer's inputs, its gradient outputs and the batch split"
    )]
    fn backward_conv(
        &self,
        dw: &mut [f32],
        dz: &mut [f32],
        input: &[f32],
        dinput: Option<(&mut [f32], bool)>,
        geo: &Geometry,
        scratch: &mut [Scratch],
        coef: &[f32],
    ) {
        let s = &self.slot;
        let (c, sq, width) = (s.cout, geo.squares(), s.taps * s.cin);
        let (scale, mean_dy, mean_dyx) = (&coef[..c], &coef[c..2 * c], &coef[2 * c..]);
        let (accumulate, dinputs): (bool, Vec<Option<&mut [f32]>>) = match dinput {
            Some((d, acc)) => (
                acc,
                geo.split(d, sq * s.cin).into_iter().map(Some).collect(),
            ),
            None => (false, geo.groups.iter().map(|_| None).collect()),
        };
        scratch
            .par_iter_mut()
            .zip(geo.split(dz, sq * c))
            .zip(dinputs)
            .zip(&geo.groups)
            .for_each(|(((scr, dz), dx), g)| {
                let rows = g.start * sq..g.end * sq;
                let xhat = &self.xhat[rows.start * c..rows.end * c];
                for (dz, xh) in dz.chunks_exact_mut(c).zip(xhat.chunks_exact(c)) {
                    let per_channel = scale.iter().zip(mean_dy).zip(mean_dyx);
                    for ((d, x), ((k, my), mx)) in dz.iter_mut().zip(xh).zip(per_channel) {
                        *d = k * (*d - my - x * mx);
                    }
                }
                let gdw = sized(&mut scr.dw, width * c, true);
                let input = &input[rows.start * s.cin..rows.end * s.cin];
                let step = geo.chunk * sq;
                let mut dx = dx;
                for (k, (x, dz)) in input
                    .chunks(step * s.cin)
                    .zip(dz.chunks(step * c))
                    .enumerate()
                {
                    let r = x.len() / s.cin;
                    let col: &[f32] = if s.taps == 1 {
                        x
                    } else {
                        im2col(x, geo, s.cin, s.taps, &mut scr.col);
                        &scr.col
                    };
                    matmul(
                        gdw,
                        View::transposed(col, width, r),
                        View::rows(dz, r, c),
                        true,
                    );
                    if let Some(dx) = dx.as_deref_mut() {
                        let dcol: &[f32] = if s.taps == 1 {
                            dz
                        } else {
                            im2col(dz, geo, c, s.taps, &mut scr.col_grad);
                            &scr.col_grad
                        };
                        matmul(
                            &mut dx[k * step * s.cin..][..r * s.cin],
                            View::rows(dcol, r, s.taps * c),
                            View::rows(&self.flipped, s.taps * c, s.cin),
                            accumulate,
                        );
                    }
                }
            });
        sum_groups(dw, scratch, |scr| &scr.dw);
    }
}
