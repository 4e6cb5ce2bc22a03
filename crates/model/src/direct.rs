//! Direct 3x3 and 1x1 convolutions over zero-padded channels-last
//! activations: the convolution kernel of [`crate::FusedNet`] (its heads'
//! 1x1 convolutions, and the matrix products of its Winograd trunk
//! convolutions, [`crate::winograd`]; the direct 3x3 path remains for
//! comparison, `FusedNet::without_winograd`).
//!
//! Why not im2col + gemm (what `FusedNet` did first): on 8x8 boards with
//! 32 filters the im2col copy (9 copies of every activation per layer)
//! and gemm's packing took about a quarter of inference time (`perf` on
//! `examples/fused_profile.rs`), which left the chess networks at 0.78x
//! onnxruntime (`docs/benchmarks.md`). onnxruntime's CPU
//! kernels (MLAS, NCHWc) convolve directly; so does this module.
//!
//! How: activations are `[positions, H + 2, W + 2, C]` with a zero border
//! ([`Padded`]), so a 3x3 tap of any square is the square's padded pixel
//! index plus a fixed offset — no bounds tests. The kernel computes `PX`
//! output squares x `OB` output channels at once (`PX * OB / lanes`
//! vector accumulators, e.g. 6 x 2 AVX-512 registers, the shape of gemm's
//! own micro-kernels): for each tap and input channel it loads `OB`
//! weights once and does one broadcast multiply-add per square. The
//! accumulators start at the bias and go to a caller's `store` (residual
//! add, ReLU, layout change), so each layer is one pass over its output.
//! Built three times — AVX-512, AVX2+FMA and portable — and picked at run
//! time (`is_x86_feature_detected!`), as the `gemm` crate does.

/// Which instruction sets the CPU kernels (`direct.rs`, `winograd.rs`,
/// `quant.rs`) may use, from the environment variable `LOKIZERO_MAX_ISA`
/// (read once): `portable` (no SIMD kernels), `avx2` (AVX2, FMA and
/// AVX-VNNI, no AVX-512), anything else or unset: all the CPU has. For
/// measuring what a CPU without AVX-512 gets (oneDNN's
/// `ONEDNN_MAX_CPU_ISA` does the same); `true` when `level` (0 portable,
/// 1 AVX2, 2 AVX-512) is allowed.
pub(crate) fn isa_allowed(level: u8) -> bool {
    static MAX: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    let max =
        *MAX.get_or_init(
            || match std::env::var("LOKIZERO_MAX_ISA").as_deref().map(str::trim) {
                Ok("portable") => 0,
                Ok("avx2") => 1,
                _ => 2,
            },
        );
    level <= max
}

/// Floats per weight block when the output channels allow: two AVX-512
/// vectors or four AVX2 vectors.
const WIDE: usize = 32;
/// Floats per weight block otherwise (output channels are padded to a
/// multiple of this).
const NARROW: usize = 16;

/// Geometry of padded channels-last activations: `positions` boards of
/// `(height + 2) x (width + 2)` pixels whose one-pixel border is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Padded {
    pub positions: usize,
    pub height: usize,
    pub width: usize,
}

impl Padded {
    /// Pixels of one padded board.
    fn board_pixels(&self) -> usize {
        (self.height + 2) * (self.width + 2)
    }

    /// Pixels of all boards (the buffer holds `pixels() * channels` floats).
    pub fn pixels(&self) -> usize {
        self.positions * self.board_pixels()
    }

    /// The padded pixel of square `(y, x)` of board `b`.
    pub fn pixel(&self, b: usize, y: usize, x: usize) -> usize {
        b * self.board_pixels() + (y + 1) * (self.width + 2) + x + 1
    }

    /// Padded pixel of every square, in row order `(b, y, x)` — the order
    /// of the unpadded `[positions * H * W, C]` rows.
    pub fn interior(self) -> Interior {
        let mut pixels = Vec::with_capacity(self.positions * self.height * self.width);
        for b in 0..self.positions {
            for y in 0..self.height {
                for x in 0..self.width {
                    pixels.push(self.pixel(b, y, x) as u32);
                }
            }
        }
        Interior { geom: self, pixels }
    }

    /// The kernel's input as contiguous runs `(pixel offset, floats,
    /// first weight row)`: a 3x3 kernel row `ky` reads the three pixels
    /// from `(ky - 1, -1)` on, which are neighbours in memory, so one run
    /// of `3 * cin` floats against weight rows `3 * ky * cin ..`; a 1x1
    /// kernel reads one run of `cin` floats.
    pub fn segments(&self, taps: usize, cin: usize) -> Vec<(isize, usize, usize)> {
        if taps == 1 {
            return vec![(0, cin, 0)];
        }
        let row = (self.width + 2) as isize;
        (0..3)
            .map(|ky| ((ky as isize - 1) * row - 1, 3 * cin, 3 * ky * cin))
            .collect()
    }
}

/// The interior pixels of a [`Padded`] geometry (only made by
/// [`Padded::interior`], so every pixel is inside the geometry and off its
/// border: the kernels' unchecked reads rely on it). Derefs to the pixel
/// list.
pub(crate) struct Interior {
    geom: Padded,
    pixels: Vec<u32>,
}

impl Interior {
    /// The geometry these pixels belong to.
    pub fn geom(&self) -> Padded {
        self.geom
    }
}

impl std::ops::Deref for Interior {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.pixels
    }
}

/// A zero-bordered activation buffer that remembers the board layout its
/// borders were cleared for (only interiors are written afterwards).
/// Boards lie one after another, so a buffer cleared for `n` boards of a
/// layout serves any smaller chunk as is and only a larger one is
/// extended (with zeros): batches of varying size do not clear it again.
#[derive(Default)]
pub(crate) struct PaddedBuf {
    pub data: Vec<f32>,
    /// `(height, width, channels)` of the boards cleared.
    layout: Option<(usize, usize, usize)>,
}

impl PaddedBuf {
    /// Make the buffer hold `geom` with `channels` channels, borders zero;
    /// returns exactly that many floats.
    pub fn prepare(&mut self, geom: Padded, channels: usize) -> &mut [f32] {
        let layout = Some((geom.height, geom.width, channels));
        if self.layout != layout {
            self.data.clear();
            self.layout = layout;
        }
        let len = geom.pixels() * channels;
        if self.data.len() < len {
            self.data.resize(len, 0.0);
        }
        &mut self.data[..len]
    }
}

/// A convolution ready for the kernel: `weight` `[taps, cin, cout_pad]`
/// (tap `(ky, kx)` row-major), `bias` `[cout_pad]`, the output channels
/// zero-padded to a multiple of 16.
pub(crate) struct DirectConv {
    pub taps: usize,
    pub cin: usize,
    pub cout: usize,
    cout_pad: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl DirectConv {
    /// From `weight` `[taps * cin, cout]` row-major (row `tap * cin + c`)
    /// and `bias` `[cout]`; `taps` is 9 (3x3) or 1 (1x1).
    pub fn new(taps: usize, cin: usize, cout: usize, weight: &[f32], bias: &[f32]) -> Self {
        let cout_pad = cout.div_ceil(NARROW) * NARROW;
        let mut padded = vec![0.0; taps * cin * cout_pad];
        for (row, dst) in weight
            .chunks_exact(cout)
            .zip(padded.chunks_exact_mut(cout_pad))
        {
            dst[..cout].copy_from_slice(row);
        }
        let mut b = vec![0.0; cout_pad];
        b[..cout].copy_from_slice(bias);
        DirectConv {
            taps,
            cin,
            cout,
            cout_pad,
            weight: padded,
            bias: b,
        }
    }

    /// Output channels as stored by the kernels: `cout` rounded up to a
    /// multiple of 16.
    pub fn cout_pad(&self) -> usize {
        self.cout_pad
    }

    /// The weights, `[taps * cin, cout_pad]` row-major (the padding
    /// columns zero).
    pub fn weight(&self) -> &[f32] {
        &self.weight
    }

    /// The bias, `[cout_pad]` (the padding zero).
    pub fn bias(&self) -> &[f32] {
        &self.bias
    }

    /// Convolve `src` (the interior's geometry, `cin` channels, zero
    /// border) at the pixels of `interior`. For every
    /// group of squares and block of output channels calls
    /// `store(row, valid, first_channel, width, acc)`: `acc` holds
    /// `valid` squares (rows `row..row + valid` of `interior`) x `width`
    /// channels from `first_channel` on, bias included, row stride
    /// `width`; channels at or past `cout` are padding and must be
    /// ignored.
    ///
    /// # Panics
    /// If `src` is shorter than the geometry with `cin` channels (a
    /// caller bug).
    pub fn run<F>(&self, src: &[f32], interior: &Interior, store: F)
    where
        F: FnMut(usize, usize, usize, usize, &[f32]),
    {
        self.job(src, interior, None, |job| job.run(Kernel::detect(), store));
    }

    /// A 1x1 convolution as a matrix product: for each entry `r` of
    /// `rows`, `dst[r * cout_pad ..][..cout_pad]` = `src[r * cin ..][..cin]`
    /// times the weights plus the bias (padding channels included, no
    /// ReLU). The Winograd convolution ([`crate::winograd`]) runs its 16
    /// products through this.
    ///
    /// # Panics
    /// If the convolution is not 1x1 or a row lies past the end of `src`
    /// or `dst` (caller bugs).
    pub fn run_rows(&self, src: &[f32], rows: &[u32], dst: &mut [f32]) {
        assert_eq!(self.taps, 1, "run_rows is for 1x1 convolutions");
        let last = rows.iter().map(|&r| r as usize + 1).max().unwrap_or(0);
        assert!(last * self.cin <= src.len() && last * self.cout_pad <= dst.len());
        let out = TrunkOut {
            dst: dst.as_mut_ptr(),
            residual: std::ptr::null(),
            cout: self.cout_pad,
            relu: false,
        };
        let job = Job {
            conv: self,
            src,
            segments: &[(0, self.cin, 0)],
            interior: rows,
            trunk: Some(out),
        };
        // Every block fits in `cout_pad`, so the kernels store them all.
        job.run(Kernel::detect(), |row, valid, ob, width, acc| {
            for (p, &r) in rows[row..row + valid].iter().enumerate() {
                let at = r as usize * self.cout_pad + ob;
                // SAFETY: `at + width <= last * cout_pad <= dst.len()`.
                unsafe {
                    std::ptr::copy_nonoverlapping(acc[p * width..].as_ptr(), out.dst.add(at), width)
                };
            }
        });
    }

    /// The trunk's convolution: `dst` (padded like `src`, `cout`
    /// channels) = ReLU(conv(`src`) + bias + `residual`) at every square of
    /// `interior`; the border of `dst` is left alone. The SIMD kernels add,
    /// clamp and store straight from their registers.
    ///
    /// # Panics
    /// If `src`, `dst` or `residual` is shorter than the geometry needs.
    pub fn run_trunk(
        &self,
        src: &[f32],
        interior: &Interior,
        dst: &mut [f32],
        residual: Option<&[f32]>,
    ) {
        self.trunk_with(Kernel::detect(), src, interior, dst, residual);
    }

    /// [`Self::run_trunk`] with `kernel`.
    fn trunk_with(
        &self,
        kernel: Kernel,
        src: &[f32],
        interior: &Interior,
        dst: &mut [f32],
        residual: Option<&[f32]>,
    ) {
        let n = interior.geom().pixels() * self.cout;
        assert!(dst.len() >= n && residual.is_none_or(|r| r.len() >= n));
        let out = TrunkOut {
            dst: dst.as_mut_ptr(),
            residual: residual.map_or(std::ptr::null(), <[f32]>::as_ptr),
            cout: self.cout,
            relu: true,
        };
        self.job(src, interior, Some(out), |job| {
            // Blocks past `cout % 16` (a filter count that is not a
            // multiple of 16) come back here.
            job.run(kernel, |row, valid, ob, width, acc| {
                let w = width.min(self.cout - ob);
                for (p, &pixel) in interior[row..row + valid].iter().enumerate() {
                    let at = pixel as usize * self.cout + ob;
                    for o in 0..w {
                        // SAFETY: `at + o < n`, checked above.
                        unsafe {
                            let r = if out.residual.is_null() {
                                0.0
                            } else {
                                *out.residual.add(at + o)
                            };
                            *out.dst.add(at + o) = (acc[p * width + o] + r).max(0.0);
                        }
                    }
                }
            })
        });
    }

    /// Check the inputs and run `body` on the [`Job`].
    fn job(
        &self,
        src: &[f32],
        interior: &Interior,
        trunk: Option<TrunkOut>,
        body: impl FnOnce(&Job<'_>),
    ) {
        let geom = interior.geom();
        assert!(src.len() >= geom.pixels() * self.cin);
        let segments = geom.segments(self.taps, self.cin);
        body(&Job {
            conv: self,
            src,
            segments: &segments,
            interior,
            trunk,
        });
    }
}

/// Where the kernels of [`DirectConv::run_trunk`] and
/// [`DirectConv::run_rows`] store: `dst` and `residual` (null: none) with
/// row stride `cout` (channels), long enough for every pixel or row of the
/// job (checked by those two).
#[derive(Clone, Copy)]
struct TrunkOut {
    dst: *mut f32,
    residual: *const f32,
    cout: usize,
    /// Clamp at zero (the trunk) or store as is ([`DirectConv::run_rows`]).
    relu: bool,
}

/// One convolution call's inputs.
struct Job<'a> {
    conv: &'a DirectConv,
    src: &'a [f32],
    segments: &'a [(isize, usize, usize)],
    interior: &'a [u32],
    /// Set by [`DirectConv::run_trunk`] and [`DirectConv::run_rows`]: the
    /// kernels store blocks that fit in `cout` themselves.
    trunk: Option<TrunkOut>,
}

/// `block(job, pixels, ob, out)`: `out[p * width + o]` = bias + the
/// convolution at square `pixels[p]`, output channel `ob + o`, for the
/// kernel's `px` squares and `width` channels. Returns `true` when it
/// stored the block itself (`job.trunk`, block within `cout`) and left
/// `out` alone.
///
/// # Safety
/// The CPU must have the kernel's instruction set, `pixels` must be `px`
/// interior pixels of `job.src` and `ob + width <= cout_pad`.
type BlockFn = unsafe fn(&Job<'_>, &[usize], usize, &mut [f32]) -> bool;

/// The squares per block and the block functions of one instruction set.
#[derive(Clone, Copy)]
struct Kernel {
    px: usize,
    wide: BlockFn,
    narrow: BlockFn,
}

/// Most squares per block of any kernel.
const MAX_PX: usize = 6;

impl Kernel {
    /// Every kernel this CPU runs, best last (the portable one always).
    fn available() -> Vec<(&'static str, Kernel)> {
        let mut out = vec![(
            "portable",
            Kernel {
                px: 4,
                wide: portable_block::<WIDE>,
                narrow: portable_block::<NARROW>,
            },
        )];
        #[cfg(target_arch = "x86_64")]
        {
            if isa_allowed(1)
                && std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
            {
                let (wide, narrow): (BlockFn, BlockFn) = (avx2::block::<4>, avx2::block::<2>);
                out.push((
                    "avx2",
                    Kernel {
                        px: 3,
                        wide,
                        narrow,
                    },
                ));
            }
            if isa_allowed(2) && std::is_x86_feature_detected!("avx512f") {
                let (wide, narrow): (BlockFn, BlockFn) = (avx512::block::<2>, avx512::block::<1>);
                out.push((
                    "avx512",
                    Kernel {
                        px: 6,
                        wide,
                        narrow,
                    },
                ));
            }
        }
        out
    }

    /// The best kernel this CPU runs, found once.
    fn detect() -> Kernel {
        static BEST: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| Kernel::available().pop().expect("the portable kernel").1)
    }
}

impl Job<'_> {
    /// All groups of `kernel.px` squares, all channel blocks.
    fn run<F>(&self, kernel: Kernel, mut store: F)
    where
        F: FnMut(usize, usize, usize, usize, &[f32]),
    {
        let (n, px) = (self.interior.len(), kernel.px);
        let mut acc = [0.0; MAX_PX * WIDE];
        let mut row = 0;
        while row < n {
            let valid = px.min(n - row);
            // A short last group repeats its last square (computed, not stored).
            let pixels: [usize; MAX_PX] =
                std::array::from_fn(|p| self.interior[row + p.min(valid - 1)] as usize);
            let mut ob = 0;
            while ob < self.conv.cout_pad {
                let (block, width) = if ob + WIDE <= self.conv.cout_pad {
                    (kernel.wide, WIDE)
                } else {
                    (kernel.narrow, NARROW)
                };
                // SAFETY: `detect` chose a kernel this CPU runs; `run`
                // checked the pixels; `ob + width <= cout_pad` above.
                if !unsafe { block(self, &pixels[..px], ob, &mut acc) } {
                    store(row, valid, ob, width, &acc[..px * width]);
                }
                ob += width;
            }
            row += valid;
        }
    }

    /// Pointers to each square's input run of `segment`: `len` floats
    /// starting `offset` pixels away.
    ///
    /// # Safety
    /// `pixels` are interior pixels of `src` (an [`Interior`] of its geometry),
    /// so the runs (one pixel around them at most) are inside `src`.
    #[inline(always)]
    unsafe fn runs<const PX: usize>(
        &self,
        pixels: &[usize],
        (offset, len, _): (isize, usize, usize),
    ) -> [*const f32; PX] {
        std::array::from_fn(|p| {
            let start = (pixels[p] as isize + offset) as usize * self.conv.cin;
            debug_assert!(start + len <= self.src.len());
            // SAFETY: the caller's contract puts the run inside `src`.
            unsafe { self.src.as_ptr().add(start) }
        })
    }
}

/// The block function of one x86 instruction set: `PX` squares x `NV`
/// vectors of `$lanes` output channels held in registers (e.g. AVX-512:
/// 6 x 2 zmm accumulators); per input channel `NV` weight loads and one
/// broadcast multiply-add per square and vector.
macro_rules! simd_kernel {
    ($module:ident, $feature:literal, $lanes:literal, $px:literal, $vec:ty,
     $load:ident, $splat:ident, $fma:ident, $store:ident, $add:ident, $max:ident) => {
        #[cfg(target_arch = "x86_64")]
        mod $module {
            use super::Job;
            use std::arch::x86_64::*;

            /// See [`super::BlockFn`]; the block is `NV * $lanes` channels.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn block<const NV: usize>(
                job: &Job<'_>,
                pixels: &[usize],
                ob: usize,
                out: &mut [f32],
            ) -> bool {
                // SAFETY: the caller upholds [`super::BlockFn`]: the CPU has
                // `$feature`, the runs of `pixels` lie inside `job.src` and
                // `ob + NV * $lanes <= cout_pad` bounds the bias, weight and
                // `out` accesses; a trunk block is within `t.cout` (checked
                // here) of an interior square's row of `t.dst`.
                unsafe {
                    let conv = job.conv;
                    let stride = conv.cout_pad;
                    let bias = conv.bias.as_ptr().add(ob);
                    let mut acc: [[$vec; NV]; $px] =
                        [std::array::from_fn(|v| $load(bias.add(v * $lanes))); $px];
                    for &segment in job.segments {
                        let runs = job.runs::<$px>(pixels, segment);
                        let (_, len, first_row) = segment;
                        let mut w = conv.weight.as_ptr().add(first_row * stride + ob);
                        for c in 0..len {
                            let wv: [$vec; NV] = std::array::from_fn(|v| $load(w.add(v * $lanes)));
                            for p in 0..$px {
                                let s = $splat(*runs[p].add(c));
                                for v in 0..NV {
                                    acc[p][v] = $fma(s, wv[v], acc[p][v]);
                                }
                            }
                            w = w.add(stride);
                        }
                    }
                    if let Some(t) = job.trunk.filter(|t| ob + NV * $lanes <= t.cout) {
                        // A repeated last square stores the same values twice.
                        let zero = $splat(0.0);
                        for p in 0..$px {
                            let at = pixels[p] * t.cout + ob;
                            for v in 0..NV {
                                let mut a = acc[p][v];
                                if !t.residual.is_null() {
                                    a = $add(a, $load(t.residual.add(at + v * $lanes)));
                                }
                                if t.relu {
                                    a = $max(a, zero);
                                }
                                $store(t.dst.add(at + v * $lanes), a);
                            }
                        }
                        return true;
                    }
                    for p in 0..$px {
                        for v in 0..NV {
                            $store(out.as_mut_ptr().add((p * NV + v) * $lanes), acc[p][v]);
                        }
                    }
                    false
                }
            }
        }
    };
}

simd_kernel!(
    avx512,
    "avx512f",
    16,
    6,
    __m512,
    _mm512_loadu_ps,
    _mm512_set1_ps,
    _mm512_fmadd_ps,
    _mm512_storeu_ps,
    _mm512_add_ps,
    _mm512_max_ps
);
simd_kernel!(
    avx2,
    "avx2,fma",
    8,
    3,
    __m256,
    _mm256_loadu_ps,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_storeu_ps,
    _mm256_add_ps,
    _mm256_max_ps
);

/// [`BlockFn`] without SIMD intrinsics (4 squares, `OB` channels), for
/// CPUs without AVX2 and other architectures.
unsafe fn portable_block<const OB: usize>(
    job: &Job<'_>,
    pixels: &[usize],
    ob: usize,
    out: &mut [f32],
) -> bool {
    const PX: usize = 4;
    let conv = job.conv;
    let stride = conv.cout_pad;
    for p in 0..PX {
        out[p * OB..(p + 1) * OB].copy_from_slice(&conv.bias[ob..ob + OB]);
    }
    for &segment in job.segments {
        // SAFETY: the caller's contract ([`BlockFn`]) is `runs`' contract.
        let runs = unsafe { job.runs::<PX>(pixels, segment) };
        let (_, len, first_row) = segment;
        for c in 0..len {
            let w = &conv.weight[(first_row + c) * stride + ob..][..OB];
            for p in 0..PX {
                // SAFETY: `c < len`, the length of the run inside `src`.
                let s = unsafe { *runs[p].add(c) };
                for (o, w) in out[p * OB..(p + 1) * OB].iter_mut().zip(w) {
                    *o += s * w;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference "same" convolution on unpadded NHWC `[B*H*W, cin]`.
    fn reference(
        geom: Padded,
        taps: usize,
        cin: usize,
        cout: usize,
        w: &[f32],
        b: &[f32],
        x: &[f32],
    ) -> Vec<f32> {
        let (h, wd) = (geom.height as isize, geom.width as isize);
        let k = if taps == 9 { 3 } else { 1 };
        let r = (k / 2) as isize;
        let mut out = vec![0.0; geom.positions * (h * wd) as usize * cout];
        for bi in 0..geom.positions {
            for y in 0..h {
                for xx in 0..wd {
                    let row = bi * (h * wd) as usize + (y * wd + xx) as usize;
                    for o in 0..cout {
                        let mut v = b[o];
                        for t in 0..taps {
                            let (yy, xs) = (y + (t / k) as isize - r, xx + (t % k) as isize - r);
                            if yy < 0 || yy >= h || xs < 0 || xs >= wd {
                                continue;
                            }
                            let src = bi * (h * wd) as usize + (yy * wd + xs) as usize;
                            for c in 0..cin {
                                v += x[src * cin + c] * w[(t * cin + c) * cout + o];
                            }
                        }
                        out[row * cout + o] = v;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn direct_matches_reference_convolution() {
        // Odd sizes: channel tails (cout 40 = 32 + 8), square tails (7x5).
        for (taps, cin, cout, h, w) in [(9, 5, 40, 7, 5), (9, 3, 16, 8, 8), (1, 6, 73, 4, 3)] {
            let geom = Padded {
                positions: 3,
                height: h,
                width: w,
            };
            let val = |i: usize, m: usize| ((i * 7919 + m) % 23) as f32 / 11.0 - 1.0;
            let wt: Vec<f32> = (0..taps * cin * cout).map(|i| val(i, 3)).collect();
            let bias: Vec<f32> = (0..cout).map(|i| val(i, 5)).collect();
            let x: Vec<f32> = (0..geom.positions * h * w * cin)
                .map(|i| val(i, 1))
                .collect();
            let interior = geom.interior();
            let mut src = PaddedBuf::default();
            let data = src.prepare(geom, cin);
            for (row, &p) in interior.iter().enumerate() {
                let p = p as usize;
                data[p * cin..(p + 1) * cin].copy_from_slice(&x[row * cin..(row + 1) * cin]);
            }
            let conv = DirectConv::new(taps, cin, cout, &wt, &bias);
            let want = reference(geom, taps, cin, cout, &wt, &bias, &x);
            let segments = geom.segments(taps, cin);
            for (name, kernel) in Kernel::available() {
                let job = Job {
                    conv: &conv,
                    src: &src.data,
                    segments: &segments,
                    interior: &interior,
                    trunk: None,
                };
                let mut got = vec![f32::NAN; interior.len() * cout];
                job.run(kernel, |row, valid, ob, width, acc| {
                    for p in 0..valid {
                        for o in ob..(ob + width).min(cout) {
                            got[(row + p) * cout + o] = acc[p * width + o - ob];
                        }
                    }
                });
                for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - e).abs() < 1e-4,
                        "{name} taps {taps} out {i}: {g} vs {e}"
                    );
                }
            }
        }
    }
}
