//! Int8 inference of the trunk's 3x3 convolutions (stem, residual blocks,
//! policy hidden layer): a direct convolution on 8-bit activations and
//! weights with exact `i32` sums, chosen by [`Precision::Int8`]
//! ([`crate::FusedNet::with_precision`],
//! [`crate::NetEvaluator::with_precision`]). The heads' 1x1 convolutions
//! and the value head's dense layers stay `f32`.
//!
//! Why direct and not in the Winograd domain: F(4x4, 3x3) does 4x fewer
//! multiply-adds than a direct 3x3 convolution, but quantizing its 36
//! products to int8 was measured too inaccurate on the shipped nets (the
//! output transform's coefficients up to 8 x 8 amplify the products'
//! rounding: WDL off by up to 0.2, the best move changed in 12-19 % of
//! positions, with per-row activation and per-channel weight scales) and
//! no faster (the quantize and dequantize passes cost what the integer
//! products saved); `docs/benchmarks.md` has the figures. A direct int8
//! convolution has no such amplification, and `vpdpbusd` does 4x the
//! multiply-adds of an `f32` FMA per instruction, which pays for the 4x
//! multiply-adds.
//!
//! Method (the usual post-training scheme of inference engines, e.g.
//! FBGEMM / oneDNN: B. Jacob et al., "Quantization and Training of Neural
//! Networks for Efficient Integer-Arithmetic-Only Inference", CVPR 2018,
//! with symmetric per-channel weights):
//! - weights: per output channel `o`, `w_q = round(w / s_w[o])` in
//!   `[-127, 127]`, `s_w[o] = max |w[.., o]| / 127`;
//! - activations: the trunk's inputs are non-negative (ReLU outputs; the
//!   encoders' planes are in `[0, 1]`), so they are stored unsigned,
//!   `a_q = round(a / s_a)` in `[0, 127]` (7 bits: see below) with zero
//!   point 0 (the padded border stays 0), one scale per position and
//!   layer computed at run time, `s_a = max a / 127` over the position's
//!   squares and channels (no calibration data, and a position's result
//!   does not depend on the rest of its batch); a negative input would be
//!   clamped to 0;
//! - output: `ReLU(Σ a_q w_q * s_a * s_w[o] + bias[o] (+ residual))` in
//!   `f32`, stored like the `f32` trunk convolutions do.
//!
//! 7-bit activations keep AVX2's `vpmaddubsw` exact (it adds two
//! `u8 x i8` products into a saturating `i16`; `2 * 127 * 127 = 32258`
//! fits), so the AVX2, AVX-VNNI, AVX-512 VNNI and portable kernels give
//! the same integers (tested below) and so the same floats. Measured on
//! the shipped bundles, activations in `[0, 127]` with 8-bit weights were
//! as accurate as `[0, 255]` with 8-bit weights, and twice as accurate as
//! `[0, 255]` with 7-bit weights (the other exact choice).
//!
//! Kernels: as the `f32` direct kernels (`direct.rs`), `PX` squares x a block of output
//! channels in vector registers; per group of 4 input channels one 32-bit
//! broadcast of the square's 4 bytes and one `vpdpbusd` (VNNI) or
//! `vpmaddubsw` + `vpmaddwd` + `vpaddd` (AVX2) per vector. Weights are
//! `[9 * cin4 / 4][cout_pad][4]` (row `tap * cin4 + c`, 4 rows
//! interleaved), so one vector load gives 4 input channels of 16
//! (AVX-512) or 8 (AVX2) output channels, and a kernel row's three taps
//! are one contiguous run of `3 * cin4` bytes, as in the `f32` kernel.

use std::fmt;

use crate::direct::{isa_allowed, DirectConv, Interior, Padded};

/// Numeric precision of the CPU forward pass ([`crate::FusedNet`]).
///
/// The default, [`Precision::Int8`], is the play default: a bot loaded
/// from a bundle ([`crate::NetEvaluator`] inside `bot::GameBot`) plays
/// int8 where the CPU has a fast int8 kernel and `fp32` elsewhere. At
/// equal nodes the two score alike (400-game matches on five shipped
/// bundles, `docs/experiments.md`); at equal time int8 searches 1.5-2.1x
/// the nodes (`docs/benchmarks.md`). A bare [`crate::NetEvaluator`]
/// starts in `fp32` (the tests' reference); self-play sets its run's
/// `[network] precision`, int8 by default.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// `fp32`: everything in `f32` (the reference).
    Fp32,
    /// `int8`: the trunk's 3x3 convolutions on 8-bit integers (module
    /// docs); the 1x1 heads and the dense layers stay `f32`. Used by the
    /// evaluator only where the CPU has a fast int8 kernel
    /// ([`int8_accelerated`]); elsewhere it keeps `fp32`. The play default.
    #[default]
    Int8,
}

/// A precision name that is neither `fp32` nor `int8`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown precision {0:?}; expected fp32 or int8")]
pub struct PrecisionError(pub String);

impl std::str::FromStr for Precision {
    type Err = PrecisionError;

    /// `fp32` (or `f32`) and `int8` (or `i8`), case-insensitive.
    fn from_str(name: &str) -> Result<Self, PrecisionError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "fp32" | "f32" => Ok(Precision::Fp32),
            "int8" | "i8" => Ok(Precision::Int8),
            other => Err(PrecisionError(other.to_string())),
        }
    }
}

impl Precision {
    /// The precision a CPU forward pass asked for `self` runs in on this
    /// machine: [`Precision::Int8`] only where the CPU has a fast int8
    /// kernel ([`int8_accelerated`]), [`Precision::Fp32`] otherwise.
    pub fn on_this_cpu(self) -> Precision {
        match self {
            Precision::Int8 if int8_accelerated() => Precision::Int8,
            _ => Precision::Fp32,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Fp32 => "fp32",
            Precision::Int8 => "int8",
        })
    }
}

/// Whether this CPU has a SIMD int8 kernel: AVX2 (`vpmaddubsw` +
/// `vpmaddwd`), AVX-VNNI or AVX-512 VNNI (`vpdpbusd`). Each was measured
/// faster than the `f32` path of the same instruction sets
/// (`docs/benchmarks.md`); the portable kernel is far slower than `f32`,
/// so without one of them [`crate::NetEvaluator::set_precision`] keeps
/// `fp32`.
pub fn int8_accelerated() -> bool {
    int8_kernel() != "portable"
}

/// The name of the int8 kernel this CPU runs: `avx512vnni`, `avxvnni`,
/// `avx2` or `portable`.
pub fn int8_kernel() -> &'static str {
    Kernel::detect().0
}

/// The names of every int8 kernel this CPU runs, fastest last (for
/// [`crate::FusedNet::with_int8_kernel`]).
pub fn int8_kernels() -> Vec<&'static str> {
    Kernel::available().into_iter().map(|(n, _)| n).collect()
}

/// Largest weight magnitude (8 bits).
const W_MAX: f32 = 127.0;
/// Largest activation (7 bits; module docs).
const A_MAX: f32 = 127.0;
/// `2^23`: added to a float in `[0, 127]` it rounds it to the nearest
/// integer (ties to even; the spacing of floats is 1 there) and leaves
/// that integer in the low bits (the classic float-to-int trick: plain
/// float and bit operations vectorise, a saturating `as` cast does not).
const MAGIC: f32 = 8_388_608.0;

/// A 3x3 convolution (batch norm folded) in int8: see the module docs.
pub(crate) struct QuantConv {
    /// Input channels, and rounded up to a multiple of 4.
    cin: usize,
    cin4: usize,
    cout: usize,
    /// Output channels padded to a multiple of 16.
    cout_pad: usize,
    /// `[9 * cin4 / 4][cout_pad][4]` (module docs).
    weight: Vec<i8>,
    /// `[cout_pad]`: the weight scales `s_w`.
    scale: Vec<f32>,
    /// `[cout_pad]`.
    bias: Vec<f32>,
    /// The kernel it runs on.
    kernel: Kernel,
}

/// Reusable buffers: the quantized padded activations (`[pixels, cin4]`)
/// of each layout `(height, width, cin4)` met (the stem's and the other
/// layers': only interiors are written, so borders and padding channels
/// stay 0, as in [`crate::direct::PaddedBuf`]), the current one's index,
/// and the scale of each position.
#[derive(Default)]
pub(crate) struct QuantBuf {
    layouts: Vec<((usize, usize, usize), Vec<u8>)>,
    current: usize,
    scale: Vec<f32>,
}

impl QuantBuf {
    /// Make the buffer of `geom` with `cin4` channels current, at least
    /// that long (grown with zeros).
    fn prepare(&mut self, geom: Padded, cin4: usize) {
        let key = (geom.height, geom.width, cin4);
        self.current = match self.layouts.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.layouts.push((key, Vec::new()));
                self.layouts.len() - 1
            }
        };
        let q = &mut self.layouts[self.current].1;
        if q.len() < geom.pixels() * cin4 {
            q.resize(geom.pixels() * cin4, 0);
        }
    }

    /// The current layout's bytes.
    fn q(&self) -> &[u8] {
        &self.layouts[self.current].1
    }
}

/// What a kernel stores to: `dst` and `residual` (null: none), row stride
/// `cout`, long enough for every interior pixel (checked by
/// [`QuantConv::run_trunk`]).
#[derive(Clone, Copy)]
struct Store {
    dst: *mut f32,
    residual: *const f32,
    /// Per position, the bits of the largest value stored (updated).
    max: *mut u32,
}

impl QuantConv {
    /// The int8 form of a 3x3 [`DirectConv`] (its folded `f32` weights
    /// and bias) on the best kernel of this CPU; `None` for a 1x1
    /// convolution.
    pub fn new(conv: &DirectConv) -> Option<Self> {
        Self::with_kernel(conv, Kernel::detect().1)
    }

    /// [`Self::new`] on the kernel named `name` ([`int8_kernels`]);
    /// `None` if this CPU does not run it.
    pub fn on_kernel(conv: &DirectConv, name: &str) -> Option<Self> {
        Self::with_kernel(conv, Kernel::named(name)?)
    }

    fn with_kernel(conv: &DirectConv, kernel: Kernel) -> Option<Self> {
        if conv.taps != 9 {
            return None;
        }
        let (cin, cout, cout_pad) = (conv.cin, conv.cout, conv.cout_pad());
        let cin4 = cin.div_ceil(4) * 4;
        let w = conv.weight();
        let mut weight = vec![0i8; 9 * cin4 * cout_pad];
        let mut scale = vec![0f32; cout_pad];
        for o in 0..cout {
            let max = (0..9 * cin)
                .map(|r| w[r * cout_pad + o].abs())
                .fold(0.0, f32::max);
            let s = if max.is_finite() { max / W_MAX } else { 0.0 };
            let inv = if s > 0.0 { 1.0 / s } else { 0.0 };
            for t in 0..9 {
                for c in 0..cin {
                    let q = (w[(t * cin + c) * cout_pad + o] * inv)
                        .round_ties_even()
                        .clamp(-W_MAX, W_MAX) as i8;
                    let k = t * cin4 + c;
                    weight[((k / 4) * cout_pad + o) * 4 + k % 4] = q;
                }
            }
            scale[o] = s;
        }
        Some(QuantConv {
            cin,
            cin4,
            cout,
            cout_pad,
            weight,
            scale,
            bias: conv.bias().to_vec(),
            kernel,
        })
    }

    /// [`DirectConv::run_trunk`]'s contract in int8: `dst` (padded like
    /// `src`, `cout` channels) = ReLU(conv(`src`) + bias + `residual`) at
    /// every square of `interior`; the border of `dst` is left alone.
    /// `dst_max` receives, per position, the bits of the largest value
    /// stored in `dst` (`f32::to_bits`; the values are non-negative); a
    /// later int8 convolution of `dst` takes them as its `src_max` and
    /// skips its own pass over `src` for them (empty or of another length:
    /// unknown, measured here).
    ///
    /// # Panics
    /// If `src`, `dst` or `residual` is shorter than the geometry needs
    /// (caller bugs).
    #[allow(
        clippy::too_many_arguments,
        reason = "the trunk contract's inputs plus the two maxima"
    )]
    pub fn run_trunk(
        &self,
        src: &[f32],
        src_max: &[u32],
        interior: &Interior,
        dst: &mut [f32],
        dst_max: &mut Vec<u32>,
        residual: Option<&[f32]>,
        buf: &mut QuantBuf,
    ) {
        self.run_with(
            self.kernel,
            src,
            src_max,
            interior,
            dst,
            dst_max,
            residual,
            buf,
        );
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "`run_trunk`'s arguments and the kernel"
    )]
    fn run_with(
        &self,
        kernel: Kernel,
        src: &[f32],
        src_max: &[u32],
        interior: &Interior,
        dst: &mut [f32],
        dst_max: &mut Vec<u32>,
        residual: Option<&[f32]>,
        buf: &mut QuantBuf,
    ) {
        let g = interior.geom();
        let n = g.pixels() * self.cout;
        assert!(src.len() >= g.pixels() * self.cin);
        assert!(dst.len() >= n && residual.is_none_or(|r| r.len() >= n));
        self.quantize(kernel, src, src_max, interior, buf);
        dst_max.clear();
        dst_max.resize(g.positions, 0);
        let store = Store {
            dst: dst.as_mut_ptr(),
            residual: residual.map_or(std::ptr::null(), <[f32]>::as_ptr),
            max: dst_max.as_mut_ptr(),
        };
        let squares = g.height * g.width;
        // SAFETY: `available` / `detect` only hand out kernels this CPU
        // runs; `quantize` sized `buf.q` for the geometry with `cin4`
        // channels, so every 3x3 run around an interior pixel is inside
        // it; `dst` and `residual` hold every pixel's `cout` values
        // (checked above), `dst_max` one value per position.
        unsafe { (kernel.run)(self, buf.q(), &buf.scale, interior, squares, store) }
    }

    /// `buf.q` = `src` quantized per position, border 0; `buf.scale` the
    /// positions' scales (from `src_max` when it has one per position).
    fn quantize(
        &self,
        kernel: Kernel,
        src: &[f32],
        src_max: &[u32],
        interior: &Interior,
        buf: &mut QuantBuf,
    ) {
        let g = interior.geom();
        buf.prepare(g, self.cin4);
        buf.scale.resize(g.positions, 0.0);
        let known = if src_max.len() == g.positions {
            src_max
        } else {
            &[]
        };
        // SAFETY: as in `run_with`; `quantize_body` only indexes slices.
        unsafe { (kernel.quantize)(self, src, known, interior, buf) }
    }
}

/// [`QuantConv::quantize`]'s body (inlined into each kernel's
/// target-feature wrapper to be vectorised with its instructions); the
/// positions' largest magnitudes are `known` unless it is empty. The
/// squares of a board row are neighbours in memory, so when `cin` is a
/// multiple of 4 each row is one flat run in `src` and `q` alike and both
/// passes run over it whole; otherwise (the stem's input planes) pixel by
/// pixel. Borders and padding channels are not written (they stay 0).
#[inline(always)]
fn quantize_body(
    conv: &QuantConv,
    src: &[f32],
    known: &[u32],
    interior: &Interior,
    buf: &mut QuantBuf,
) {
    let g = interior.geom();
    let (cin, cin4, w) = (conv.cin, conv.cin4, g.width);
    let flat = cin == cin4;
    let q = &mut buf.layouts[buf.current].1;
    // Plain loops, no closures: the body must inline into the
    // target-feature wrappers to be vectorised with their instructions.
    for b in 0..g.positions {
        // The largest value: known, or measured (`known` is empty).
        let mut bits = known.get(b).copied().unwrap_or(0);
        let rows = if known.is_empty() { g.height } else { 0 };
        for y in 0..rows {
            let p = g.pixel(b, y, 0);
            if flat {
                bits = bits.max(max_bits(&src[p * cin..(p + w) * cin]));
            } else {
                for p in p..p + w {
                    bits = bits.max(max_bits(&src[p * cin..(p + 1) * cin]));
                }
            }
        }
        let max = f32::from_bits(bits);
        let inv = if max > 0.0 && max.is_finite() {
            A_MAX / max
        } else {
            0.0
        };
        buf.scale[b] = if inv > 0.0 { max / A_MAX } else { 0.0 };
        for y in 0..g.height {
            let p = g.pixel(b, y, 0);
            if flat {
                quantize_run(
                    &src[p * cin..(p + w) * cin],
                    inv,
                    &mut q[p * cin4..(p + w) * cin4],
                );
            } else {
                for p in p..p + w {
                    let out = &mut q[p * cin4..p * cin4 + cin];
                    quantize_run(&src[p * cin..(p + 1) * cin], inv, out);
                }
            }
        }
    }
}

/// The largest magnitude in `x`, as its bits (an integer max vectorises,
/// in 16 lanes here; non-negative floats order as their bits; a NaN is
/// larger than every number).
#[inline(always)]
fn max_bits(x: &[f32]) -> u32 {
    const ABS: u32 = 0x7FFF_FFFF;
    let mut lanes = [0u32; 16];
    let mut chunks = x.chunks_exact(16);
    for c in &mut chunks {
        for (l, v) in lanes.iter_mut().zip(c) {
            *l = (*l).max(v.to_bits() & ABS);
        }
    }
    let mut max = 0;
    for v in chunks.remainder() {
        max = max.max(v.to_bits() & ABS);
    }
    for l in lanes {
        max = max.max(l);
    }
    max
}

/// `out[i] = round(x[i] * inv)` clamped to `[0, A_MAX]` (a NaN to 0).
#[inline(always)]
fn quantize_run(x: &[f32], inv: f32, out: &mut [u8]) {
    for (o, &v) in out.iter_mut().zip(x) {
        // `max(0)` first: a NaN becomes 0 (`clamp` keeps it).
        #[allow(clippy::manual_clamp, reason = "NaN must become 0")]
        let y = (v * inv).max(0.0).min(A_MAX) + MAGIC;
        *o = y.to_bits() as u8;
    }
}

/// The dequantizing store of one block: `acc[k * width + j]` is square
/// `pixels[k]` (of position `boards[k]`, scale `scales[boards[k]]`),
/// output channel `ob + j`; each position's largest stored value goes to
/// `store.max`.
///
/// # Safety
/// `store` holds every pixel's `cout` values and every position's max.
#[inline(always)]
#[allow(
    clippy::too_many_arguments,
    reason = "a kernel's block, passed through to be inlined"
)]
unsafe fn store_block(
    conv: &QuantConv,
    acc: &[i32],
    width: usize,
    pixels: &[usize],
    boards: &[usize],
    scales: &[f32],
    valid: usize,
    ob: usize,
    store: Store,
) {
    let w = width.min(conv.cout - ob);
    let ws = &conv.scale[ob..ob + w];
    let bias = &conv.bias[ob..ob + w];
    for k in 0..valid {
        let at = pixels[k] * conv.cout + ob;
        let s = scales[boards[k]];
        let a = &acc[k * width..k * width + w];
        // SAFETY: `at + w <= pixels * cout`, the caller's contract.
        let dst = unsafe { std::slice::from_raw_parts_mut(store.dst.add(at), w) };
        if store.residual.is_null() {
            for j in 0..w {
                dst[j] = (a[j] as f32 * (s * ws[j]) + bias[j]).max(0.0);
            }
        } else {
            // SAFETY: as `dst`.
            let r = unsafe { std::slice::from_raw_parts(store.residual.add(at), w) };
            for j in 0..w {
                dst[j] = (a[j] as f32 * (s * ws[j]) + bias[j] + r[j]).max(0.0);
            }
        }
        // The largest value (`-0.0`'s sign bit masked, as the quantize pass
        // does).
        let mut m = 0u32;
        for v in dst.iter() {
            m = m.max(v.to_bits() & 0x7FFF_FFFF);
        }
        // SAFETY: `boards[k]` is a position of the geometry, and `max`
        // holds one value per position (the caller's contract).
        unsafe {
            let slot = store.max.add(boards[k]);
            *slot = (*slot).max(m);
        }
    }
}

/// `acc[k * width + j]` = the integer sum of square `pixels[k]`, output
/// channel `ob + j` (`j < width`), for `pixels.len()` squares (the
/// portable kernel).
fn portable_block(
    conv: &QuantConv,
    q: &[u8],
    segments: &[(isize, usize, usize)],
    pixels: &[usize],
    ob: usize,
    width: usize,
    acc: &mut [i32],
) {
    let (cin4, cp) = (conv.cin4, conv.cout_pad);
    acc[..pixels.len() * width].fill(0);
    for (k, &p) in pixels.iter().enumerate() {
        let out = &mut acc[k * width..(k + 1) * width];
        for &(offset, len, first) in segments {
            let start = (p as isize + offset) as usize * cin4;
            let run = &q[start..start + len];
            for (g, a4) in run.chunks_exact(4).enumerate() {
                let wg = &conv.weight[((first / 4 + g) * cp + ob) * 4..][..width * 4];
                for (o, w4) in out.iter_mut().zip(wg.chunks_exact(4)) {
                    *o += (0..4)
                        .map(|i| i32::from(a4[i]) * i32::from(w4[i]))
                        .sum::<i32>();
                }
            }
        }
    }
}

/// Squares per block of the portable kernel.
const PORTABLE_PX: usize = 4;
/// Output channels per block (all kernels; `cout_pad` is a multiple of 16,
/// a last block of 16 when it is not one of 32).
const WIDE: usize = 32;
const NARROW: usize = 16;

/// The whole convolution with one kernel's `block` (inlined into the
/// target-feature wrappers below).
///
/// # Safety
/// As [`RunFn`].
#[inline(always)]
unsafe fn run_body<const PX: usize>(
    conv: &QuantConv,
    scales: &[f32],
    interior: &Interior,
    squares: usize,
    store: Store,
    block: impl Fn(&[usize; PX], usize, usize, &mut [i32]),
) {
    let n = interior.len();
    let mut acc = [0i32; 8 * WIDE];
    let mut row = 0;
    while row < n {
        let valid = PX.min(n - row);
        // A short last group repeats its last square (computed, not stored).
        let pixels: [usize; PX] =
            std::array::from_fn(|k| interior[row + k.min(valid - 1)] as usize);
        let boards: [usize; PX] =
            std::array::from_fn(|k| (row + k.min(valid - 1)) / squares.max(1));
        let mut ob = 0;
        while ob < conv.cout {
            let width = if ob + WIDE <= conv.cout_pad {
                WIDE
            } else {
                NARROW
            };
            block(&pixels, ob, width, &mut acc);
            // SAFETY: the caller's contract.
            unsafe {
                store_block(
                    conv, &acc, width, &pixels, &boards, scales, valid, ob, store,
                )
            };
            ob += width;
        }
        row += valid;
    }
}

/// The portable [`RunFn`].
///
/// # Safety
/// As [`RunFn`].
unsafe fn portable_run(
    conv: &QuantConv,
    q: &[u8],
    scales: &[f32],
    interior: &Interior,
    squares: usize,
    store: Store,
) {
    let segments = interior.geom().segments(9, conv.cin4);
    // SAFETY: the caller's contract.
    unsafe {
        run_body::<PORTABLE_PX>(
            conv,
            scales,
            interior,
            squares,
            store,
            |px, ob, width, acc| portable_block(conv, q, &segments, px, ob, width, acc),
        )
    }
}

/// The portable [`QuantizeFn`].
///
/// # Safety
/// None beyond the type's (no target feature).
unsafe fn portable_quantize(
    conv: &QuantConv,
    src: &[f32],
    known: &[u32],
    interior: &Interior,
    buf: &mut QuantBuf,
) {
    quantize_body(conv, src, known, interior, buf)
}

/// One kernel's convolution (unsafe for its target feature, and relying
/// on [`QuantConv::run_with`]'s checks: `q` holds the geometry's pixels
/// with `cin4` channels, `store` every pixel's `cout` values).
type RunFn = unsafe fn(&QuantConv, &[u8], &[f32], &Interior, usize, Store);

/// One kernel's quantize pass (unsafe only for its target feature).
type QuantizeFn = unsafe fn(&QuantConv, &[f32], &[u32], &Interior, &mut QuantBuf);

/// One block of integer sums (for the tests): `acc` for `pixels` squares
/// x `width` channels from `ob`.
#[cfg(test)]
type BlockFn =
    unsafe fn(&QuantConv, &[u8], &[(isize, usize, usize)], &[usize], usize, usize, &mut [i32]);

/// One instruction set's int8 convolution.
#[derive(Clone, Copy)]
struct Kernel {
    run: RunFn,
    quantize: QuantizeFn,
    /// Squares per block and the block function (for the tests).
    #[cfg(test)]
    px: usize,
    #[cfg(test)]
    block: BlockFn,
}

#[cfg(test)]
unsafe fn portable_block_fn(
    conv: &QuantConv,
    q: &[u8],
    segments: &[(isize, usize, usize)],
    pixels: &[usize],
    ob: usize,
    width: usize,
    acc: &mut [i32],
) {
    portable_block(conv, q, segments, pixels, ob, width, acc)
}

/// An x86 kernel: `$px` squares x `NV` vectors of `$lanes` `i32`
/// accumulators (`$wide` vectors make [`WIDE`] channels); `$dot4` (with
/// `acc`, `a`, `w` bound to three vectors) adds the four `u8 x i8`
/// products of each 32-bit lane of `a` and `w` to `acc`.
macro_rules! simd_int8 {
    ($module:ident, $feature:literal, $lanes:literal, $px:literal, $wide:literal, $vec:ty,
     $zero:expr, $set1:ident, $load:ident, $store:ident,
     |$acc:ident, $a:ident, $w:ident| $dot4:expr) => {
        #[cfg(target_arch = "x86_64")]
        mod $module {
            use super::*;
            #[allow(unused_imports, reason = "not every kernel uses every intrinsic")]
            use std::arch::x86_64::*;

            /// [`portable_block`] for `$px` squares with this instruction
            /// set (`width` is [`WIDE`] or [`NARROW`]).
            ///
            /// # Safety
            /// The CPU has `$feature`; the runs of `segments` around
            /// `pixels` lie inside `q`; `ob + width <= cout_pad`; `acc`
            /// holds `$px * width` values.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn block(
                conv: &QuantConv,
                q: &[u8],
                segments: &[(isize, usize, usize)],
                pixels: &[usize],
                ob: usize,
                width: usize,
                acc: &mut [i32],
            ) {
                debug_assert!(pixels.len() >= $px && acc.len() >= $px * width);
                // SAFETY: the caller's contract.
                unsafe {
                    if width == WIDE {
                        block_nv::<$wide>(conv, q, segments, pixels, ob, acc)
                    } else {
                        block_nv::<{ $wide / 2 }>(conv, q, segments, pixels, ob, acc)
                    }
                }
            }

            /// [`block`] with `NV` vectors.
            ///
            /// # Safety
            /// As [`block`]'s.
            #[target_feature(enable = $feature)]
            #[inline]
            unsafe fn block_nv<const NV: usize>(
                conv: &QuantConv,
                q: &[u8],
                segments: &[(isize, usize, usize)],
                pixels: &[usize],
                ob: usize,
                out: &mut [i32],
            ) {
                let (cin4, cp) = (conv.cin4, conv.cout_pad);
                // SAFETY: the caller's contract bounds every access.
                unsafe {
                    let mut acc: [[$vec; NV]; $px] = [[$zero; NV]; $px];
                    for &(offset, len, first) in segments {
                        let runs: [*const u8; $px] = std::array::from_fn(|k| {
                            let start = (pixels[k] as isize + offset) as usize * cin4;
                            debug_assert!(start + len <= q.len());
                            q.as_ptr().add(start)
                        });
                        let mut w = conv.weight.as_ptr().add(((first / 4) * cp + ob) * 4);
                        for g in 0..len / 4 {
                            let wv: [$vec; NV] =
                                std::array::from_fn(|v| $load(w.add(v * $lanes * 4).cast()));
                            for k in 0..$px {
                                let a = $set1(runs[k].add(4 * g).cast::<i32>().read_unaligned());
                                for v in 0..NV {
                                    let ($acc, $a, $w) = (acc[k][v], a, wv[v]);
                                    acc[k][v] = $dot4;
                                }
                            }
                            w = w.add(cp * 4);
                        }
                    }
                    for k in 0..$px {
                        for v in 0..NV {
                            $store(
                                out.as_mut_ptr().add((k * NV + v) * $lanes).cast(),
                                acc[k][v],
                            );
                        }
                    }
                }
            }

            /// The [`RunFn`] of this instruction set.
            ///
            /// # Safety
            /// As [`RunFn`], and the CPU has `$feature`.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn run(
                conv: &QuantConv,
                q: &[u8],
                scales: &[f32],
                interior: &Interior,
                squares: usize,
                store: Store,
            ) {
                let segments = interior.geom().segments(9, conv.cin4);
                // SAFETY: the caller's contract; `block`'s is met by the
                // interior pixels and `run_body`'s channel blocks.
                unsafe {
                    run_body::<$px>(
                        conv,
                        scales,
                        interior,
                        squares,
                        store,
                        |px, ob, width, acc| block(conv, q, &segments, px, ob, width, acc),
                    )
                }
            }

            /// The [`QuantizeFn`] of this instruction set.
            ///
            /// # Safety
            /// The CPU has `$feature`.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn quantize(
                conv: &QuantConv,
                src: &[f32],
                known: &[u32],
                interior: &Interior,
                buf: &mut QuantBuf,
            ) {
                quantize_body(conv, src, known, interior, buf)
            }
        }
    };
}

simd_int8!(
    avx512vnni,
    "avx512f,avx512bw,avx512vnni",
    16,
    6,
    2,
    __m512i,
    _mm512_setzero_si512(),
    _mm512_set1_epi32,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    |acc, a, w| _mm512_dpbusd_epi32(acc, a, w)
);
simd_int8!(
    avxvnni,
    "avx2,fma,avxvnni",
    8,
    3,
    4,
    __m256i,
    _mm256_setzero_si256(),
    _mm256_set1_epi32,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    |acc, a, w| _mm256_dpbusd_avx_epi32(acc, a, w)
);
simd_int8!(
    avx2,
    "avx2,fma",
    8,
    3,
    4,
    __m256i,
    _mm256_setzero_si256(),
    _mm256_set1_epi32,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    |acc, a, w| _mm256_add_epi32(
        acc,
        _mm256_madd_epi16(_mm256_maddubs_epi16(a, w), _mm256_set1_epi16(1))
    )
);

macro_rules! kernel {
    ($module:ident, $px:literal) => {
        Kernel {
            run: $module::run,
            quantize: $module::quantize,
            #[cfg(test)]
            px: $px,
            #[cfg(test)]
            block: $module::block,
        }
    };
}

impl Kernel {
    /// Every kernel this CPU runs, best last (the portable one always).
    fn available() -> Vec<(&'static str, Kernel)> {
        let mut out = vec![(
            "portable",
            Kernel {
                run: portable_run,
                quantize: portable_quantize,
                #[cfg(test)]
                px: PORTABLE_PX,
                #[cfg(test)]
                block: portable_block_fn,
            },
        )];
        #[cfg(target_arch = "x86_64")]
        {
            use std::is_x86_feature_detected as has;
            if isa_allowed(1) && has!("avx2") && has!("fma") {
                out.push(("avx2", kernel!(avx2, 3)));
                if has!("avxvnni") {
                    out.push(("avxvnni", kernel!(avxvnni, 3)));
                }
            }
            if isa_allowed(2) && has!("avx512f") && has!("avx512bw") && has!("avx512vnni") {
                out.push(("avx512vnni", kernel!(avx512vnni, 6)));
            }
        }
        out
    }

    /// The best kernel this CPU runs, found once.
    fn detect() -> (&'static str, Kernel) {
        static BEST: std::sync::OnceLock<(&'static str, Kernel)> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| Kernel::available().pop().expect("the portable kernel"))
    }

    /// The kernel named `name` if this CPU runs it.
    fn named(name: &str) -> Option<Kernel> {
        Kernel::available()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direct::{Padded, PaddedBuf};

    fn val(i: usize, m: usize) -> f32 {
        ((i * 7919 + m * 104_729) % 251) as f32 / 125.0 - 1.0
    }

    fn setup(cin: usize, cout: usize, h: usize, w: usize) -> (Padded, DirectConv, QuantConv) {
        let geom = Padded {
            positions: 3,
            height: h,
            width: w,
        };
        let wt: Vec<f32> = (0..9 * cin * cout).map(|i| val(i, 3)).collect();
        let bias: Vec<f32> = (0..cout).map(|i| val(i, 5)).collect();
        let direct = DirectConv::new(9, cin, cout, &wt, &bias);
        let quant = QuantConv::new(&direct).expect("3x3");
        (geom, direct, quant)
    }

    /// Every kernel gives the portable kernel's integers: random bytes
    /// (activations in `[0, 127]`) with the extremes 0 and 127, weights at
    /// ±127, channel counts off
    /// the kernels' widths.
    #[test]
    fn every_kernel_gives_the_same_integers() {
        for (cin, cout, h, w) in [
            (32, 32, 8, 8),
            (23, 80, 7, 5),
            (5, 16, 11, 11),
            (64, 48, 3, 4),
        ] {
            let (geom, _, mut conv) = setup(cin, cout, h, w);
            for (i, x) in conv.weight.iter_mut().enumerate() {
                if i % 7 == 0 {
                    *x = if i % 2 == 0 { 127 } else { -127 };
                }
            }
            let interior = geom.interior();
            let mut q = vec![0u8; geom.pixels() * conv.cin4];
            for &p in interior.iter() {
                for c in 0..conv.cin4 {
                    let i = p as usize * conv.cin4 + c;
                    q[i] = match i % 5 {
                        0 => 127,
                        1 => 0,
                        _ => ((i * 37 + 11) % 128) as u8,
                    };
                }
            }
            let segments = geom.segments(9, conv.cin4);
            let kernels = Kernel::available();
            for start in (0..interior.len()).step_by(5) {
                let pixels: Vec<usize> = (0..8)
                    .map(|k| interior[(start + k) % interior.len()] as usize)
                    .collect();
                let mut ob = 0;
                while ob < conv.cout_pad {
                    let width = if ob + WIDE <= conv.cout_pad {
                        WIDE
                    } else {
                        NARROW
                    };
                    let mut want = vec![0; 8 * width];
                    portable_block(&conv, &q, &segments, &pixels, ob, width, &mut want);
                    for (name, kernel) in &kernels {
                        let mut got = vec![-1; 8 * width];
                        // SAFETY: `available` lists kernels this CPU runs;
                        // interior pixels, `ob + width <= cout_pad`.
                        unsafe {
                            (kernel.block)(&conv, &q, &segments, &pixels, ob, width, &mut got)
                        };
                        let n = kernel.px * width;
                        assert_eq!(
                            got[..n],
                            want[..n],
                            "{name}: {cin}->{cout} on {h}x{w}, block {ob}"
                        );
                    }
                    ob += width;
                }
            }
        }
    }

    /// The whole int8 convolution is within quantization error of the
    /// `f32` one and bitwise the same on every kernel.
    #[test]
    fn int8_convolution_approximates_f32() {
        for (cin, cout, h, w) in [(32, 32, 8, 8), (23, 40, 7, 5), (8, 32, 11, 11)] {
            let (geom, direct, quant) = setup(cin, cout, h, w);
            let interior = geom.interior();
            let fill = |channels: usize, m: usize, relu: bool| {
                let mut buf = PaddedBuf::default();
                let data = buf.prepare(geom, channels);
                for &p in interior.iter() {
                    for c in 0..channels {
                        let i = p as usize * channels + c;
                        let v = val(i, m);
                        data[i] = if relu { v.max(0.0) } else { v };
                    }
                }
                buf.data
            };
            let (src, residual) = (fill(cin, 1, true), fill(cout, 7, false));
            let mut want = fill(cout, 9, false);
            direct.run_trunk(&src, &interior, &mut want, Some(&residual));
            let mut first: Option<Vec<f32>> = None;
            for (name, kernel) in Kernel::available() {
                let mut got = fill(cout, 9, false);
                let (mut buf, mut got_max) = (QuantBuf::default(), Vec::new());
                let r = Some(residual.as_slice());
                quant.run_with(
                    kernel,
                    &src,
                    &[],
                    &interior,
                    &mut got,
                    &mut got_max,
                    r,
                    &mut buf,
                );
                // The maxima it reports are the outputs' own.
                let squares = h * w;
                for (b, &m) in got_max.iter().enumerate() {
                    let own = interior[b * squares..(b + 1) * squares]
                        .iter()
                        .flat_map(|&p| &got[p as usize * cout..(p as usize + 1) * cout])
                        .map(|v| v.to_bits() & 0x7FFF_FFFF)
                        .max();
                    assert_eq!(Some(m), own, "{name}: position {b}");
                }
                // Given the input's maxima it gives the same outputs.
                let src_max: Vec<u32> = (0..geom.positions)
                    .map(|b| {
                        let pixels = &interior[b * squares..(b + 1) * squares];
                        let mut m = 0;
                        for &p in pixels {
                            for v in &src[p as usize * cin..(p as usize + 1) * cin] {
                                m = m.max(v.to_bits() & 0x7FFF_FFFF);
                            }
                        }
                        m
                    })
                    .collect();
                let mut again = fill(cout, 9, false);
                let mut again_max = Vec::new();
                quant.run_with(
                    kernel,
                    &src,
                    &src_max,
                    &interior,
                    &mut again,
                    &mut again_max,
                    r,
                    &mut buf,
                );
                assert!(again
                    .iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
                assert_eq!(again_max, got_max);
                // Each of the 9 * cin terms is off by at most half a step
                // of either operand (inputs at most 1, weights at most 1).
                let bound = 9.0 * cin as f32 * (0.5 / A_MAX + 0.5 / W_MAX);
                for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - e).abs() <= bound,
                        "{name}: {cin}->{cout}, float {i}: {g} vs {e}"
                    );
                }
                match &first {
                    None => first = Some(got),
                    Some(f) => assert!(
                        f.iter().zip(&got).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{name} differs from the portable floats"
                    ),
                }
            }
        }
    }
}
