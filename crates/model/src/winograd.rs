//! Winograd F(4x4, 3x3) convolution of the trunk: the same output as
//! [`DirectConv::run_trunk`] with 36 multiply-adds per input channel and
//! output channel for every 4x4 block of output squares instead of 144.
//!
//! Source: A. Lavin and S. Gray, "Fast Algorithms for Convolutional Neural
//! Networks", CVPR 2016 (the F(4x4, 3x3) matrices are its section 4.2).
//! For a 6x6 input tile `d` and a 3x3 kernel `g` the 4x4 output is
//! `Y = A^T [(G g G^T) ⊙ (B^T d B)] A`, with
//!
//! ```text
//! B^T = [4  0 -5  0  1  0      G = [ 1/4     0     0      A^T = [1  1  1  1  1  0
//!        0 -4 -4  1  1  0            -1/6  -1/6  -1/6            0  1 -1  2 -2  0
//!        0  4 -4 -1  1  0            -1/6   1/6  -1/6            0  1  1  4  4  0
//!        0 -2 -1  2  1  0             1/24  1/12  1/6            0  1 -1  8 -8  1]
//!        0  2 -1 -2  1  0             1/24 -1/12  1/6
//!        0  4  0 -5  0  1]            0     0     1  ]
//! ```
//!
//! (each 2-D transform is the 1-D one applied to the tile's columns, then
//! its rows). Summed over input channels, the element-wise product becomes
//! 36 independent matrix products `M[ξ] = V[ξ] U[ξ]` (`V[ξ]`: tiles x
//! `cin`, `U[ξ] = (G g G^T)[ξ]`: `cin` x `cout`), which run on the direct
//! convolution's 1x1 kernels ([`DirectConv::run_rows`]).
//!
//! Layouts (all channels-last, so every transform reads and writes
//! contiguous runs of channels): `V` is `[tiles, 36, cin]`, `M` is
//! `[tiles, 36, cout_pad]`; tile `(b, ty, tx)` covers output squares
//! `4ty..4ty+4` x `4tx..4tx+4` of board `b` and reads padded pixels
//! `4ty..4ty+6` x `4tx..4tx+6` (the one-pixel zero border is the
//! convolution's padding). Where the board's height or width is not a
//! multiple of 4 the last tile row or column hangs over the edge: its
//! missing input pixels read as zero and its outputs off the board are not
//! stored (7x7: 64 squares computed for 49; 11x11: 144 for 121).
//!
//! Why: the 3x3 convolutions are almost all of inference time, and the
//! direct kernel is bound by its multiply-adds (83 % of a `perf` profile,
//! `docs/benchmarks.md`); F(4x4, 3x3) does 4x fewer of them for the cost
//! of two cheap transforms. F(2x2, 3x3) (2.25x fewer) was tried first: no
//! faster than the direct kernel on 7x7 and 11x11 boards. The rounding
//! error of F(4x4, 3x3) is larger than the direct sum's (the transforms
//! scale by up to 8 and 1/24) but stays around 1e-6 relative per layer in
//! float32; checked against the direct convolution in the tests below and
//! against burn in `tests/fused_matches_burn.rs`.

use crate::direct::{isa_allowed, DirectConv, Interior};

/// Output squares per tile side.
const OUT: usize = 4;
/// Input pixels per tile side (`OUT + 2`).
const IN: usize = OUT + 2;
/// Winograd tile components (6x6).
const XI: usize = IN * IN;
/// Channels per step of the transforms: one AVX-512 vector (LLVM splits
/// it for narrower instruction sets). The direct kernels pad output
/// channels to a multiple of this too.
const LANES: usize = 16;
/// A step's channels.
type Lane = [f32; LANES];

/// A 3x3 convolution prepared for F(4x4, 3x3): the 36 transformed weight
/// matrices as 1x1 convolutions (zero bias) and the bias, added after the
/// output transform (padded with zeros to the products' `cout_pad`).
pub(crate) struct Winograd {
    cin: usize,
    cout: usize,
    gemms: Vec<DirectConv>,
    bias: Vec<f32>,
}

/// Reusable buffers of one thread: `V`, `M` and the row lists of the 36
/// products (see the module docs).
#[derive(Default)]
pub(crate) struct WinogradBuf {
    v: Vec<f32>,
    m: Vec<f32>,
    rows: Rows,
    /// Zeros for the input pixels past the board's edge.
    zero: Vec<f32>,
    /// The output transform's 16 squares x `cout_pad` channels.
    y: Vec<f32>,
}

/// `lists[ξ]`: `t * 36 + ξ` for every tile `t` of `tiles` tiles (the rows
/// of product `ξ` in `V` and `M`).
#[derive(Default)]
struct Rows {
    lists: Vec<Vec<u32>>,
    tiles: usize,
}

impl Rows {
    fn for_tiles(&mut self, tiles: usize) -> &[Vec<u32>] {
        if self.tiles != tiles || self.lists.len() != XI {
            self.lists = (0..XI as u32)
                .map(|xi| (0..tiles as u32).map(|t| t * XI as u32 + xi).collect())
                .collect();
            self.tiles = tiles;
        }
        &self.lists
    }
}

/// `G g` for one column `g` of a kernel (computed in f64: the weights are
/// transformed once).
fn kernel_1d(g: [f64; 3]) -> [f64; IN] {
    let [a, b, c] = g;
    [
        a / 4.0,
        -(a + b + c) / 6.0,
        -(a - b + c) / 6.0,
        a / 24.0 + b / 12.0 + c / 6.0,
        a / 24.0 - b / 12.0 + c / 6.0,
        c,
    ]
}

/// `G g G^T` for one 3x3 kernel `g` (row-major), as 36 values.
fn transform_kernel(g: [f32; 9]) -> [f32; XI] {
    let g = g.map(f64::from);
    // G g: 6x3, column by column.
    let cols: [[f64; IN]; 3] = std::array::from_fn(|c| kernel_1d([g[c], g[3 + c], g[6 + c]]));
    // (G g) G^T: each row of G g through the same 1-D transform.
    let mut u = [0.0f32; XI];
    for r in 0..IN {
        for (k, v) in kernel_1d([cols[0][r], cols[1][r], cols[2][r]])
            .into_iter()
            .enumerate()
        {
            u[r * IN + k] = v as f32;
        }
    }
    u
}

impl Winograd {
    /// From the same weights as [`DirectConv::new`] with 9 taps: `weight`
    /// `[9 * cin, cout]` row-major (row `tap * cin + c`, tap `(ky, kx)`
    /// row-major), `bias` `[cout]`.
    pub fn new(cin: usize, cout: usize, weight: &[f32], bias: &[f32]) -> Self {
        assert_eq!(weight.len(), 9 * cin * cout);
        let mut u = vec![vec![0.0; cin * cout]; XI];
        for c in 0..cin {
            for o in 0..cout {
                let g = std::array::from_fn(|t| weight[(t * cin + c) * cout + o]);
                for (xi, v) in transform_kernel(g).into_iter().enumerate() {
                    u[xi][c * cout + o] = v;
                }
            }
        }
        let zero = vec![0.0; cout];
        let cout_pad = cout.div_ceil(LANES) * LANES;
        let mut padded_bias = vec![0.0; cout_pad];
        padded_bias[..cout].copy_from_slice(bias);
        Winograd {
            cin,
            cout,
            gemms: u
                .iter()
                .map(|w| DirectConv::new(1, cin, cout, w, &zero))
                .collect(),
            bias: padded_bias,
        }
    }

    /// [`DirectConv::run_trunk`]'s contract: `dst` (padded like `src`,
    /// `cout` channels) = ReLU(conv(`src`) + bias + `residual`) at every
    /// square of `interior`; the border of `dst` is left alone.
    ///
    /// # Panics
    /// If `src`, `dst` or `residual` is shorter than the geometry needs.
    pub fn run_trunk(
        &self,
        src: &[f32],
        interior: &Interior,
        dst: &mut [f32],
        residual: Option<&[f32]>,
        buf: &mut WinogradBuf,
    ) {
        self.run_with(Isa::detect(), src, interior, dst, residual, buf);
    }

    /// [`Self::run_trunk`] with the transforms of `isa`.
    fn run_with(
        &self,
        isa: Isa,
        src: &[f32],
        interior: &Interior,
        dst: &mut [f32],
        residual: Option<&[f32]>,
        buf: &mut WinogradBuf,
    ) {
        let g = interior.geom();
        let n = g.pixels() * self.cout;
        assert!(src.len() >= g.pixels() * self.cin);
        assert!(dst.len() >= n && residual.is_none_or(|r| r.len() >= n));
        let tiles = Tiles::of(g.positions, g.height, g.width);
        let cout_pad = self.gemms[0].cout_pad();
        let WinogradBuf {
            v,
            m,
            rows,
            zero,
            y,
        } = buf;
        v.resize(tiles.count() * XI * self.cin, 0.0);
        m.resize(tiles.count() * XI * cout_pad, 0.0);
        zero.resize(self.cin.max(LANES), 0.0);
        y.resize(OUT * OUT * cout_pad, 0.0);
        isa.input(&tiles, src, self.cin, zero, v);
        for (gemm, rows) in self.gemms.iter().zip(rows.for_tiles(tiles.count())) {
            gemm.run_rows(v, rows, m);
        }
        let out = Output {
            bias: &self.bias,
            cout: self.cout,
            cout_pad,
        };
        isa.output(&tiles, &out, m, y, dst, residual);
    }
}

/// The tiles of a chunk of padded boards.
struct Tiles {
    positions: usize,
    height: usize,
    width: usize,
    ty: usize,
    tx: usize,
}

impl Tiles {
    fn of(positions: usize, height: usize, width: usize) -> Self {
        Tiles {
            positions,
            height,
            width,
            ty: height.div_ceil(OUT),
            tx: width.div_ceil(OUT),
        }
    }

    fn count(&self) -> usize {
        self.positions * self.ty * self.tx
    }

    /// Padded pixel `(py, px)` of board `b` (padded coordinates), or
    /// `None` past the padded board (the overhang of the last tiles).
    fn pixel(&self, b: usize, py: usize, px: usize) -> Option<usize> {
        let (h, w) = (self.height + 2, self.width + 2);
        (py < h && px < w).then(|| (b * h + py) * w + px)
    }
}

/// What the output transform adds and where it stores.
struct Output<'a> {
    bias: &'a [f32],
    cout: usize,
    cout_pad: usize,
}

#[inline(always)]
fn lane(src: &[f32], at: usize) -> Lane {
    src[at..at + LANES].try_into().expect("a full lane")
}

#[inline(always)]
fn add(a: Lane, b: Lane) -> Lane {
    std::array::from_fn(|l| a[l] + b[l])
}

/// `B^T d` for one column `d` of lanes (see the module docs).
#[inline(always)]
fn input_1d(d: [&Lane; IN]) -> [Lane; IN] {
    let mut o = [[0.0; LANES]; IN];
    for l in 0..LANES {
        let [d0, d1, d2, d3, d4, d5] = d.map(|x| x[l]);
        o[0][l] = 4.0 * d0 - 5.0 * d2 + d4;
        o[1][l] = -4.0 * (d1 + d2) + d3 + d4;
        o[2][l] = 4.0 * (d1 - d2) - d3 + d4;
        o[3][l] = 2.0 * (d3 - d1) - d2 + d4;
        o[4][l] = 2.0 * (d1 - d3) - d2 + d4;
        o[5][l] = 4.0 * d1 - 5.0 * d3 + d5;
    }
    o
}

/// `A^T m` for one column `m` of lanes (see the module docs).
#[inline(always)]
fn output_1d(m: [&Lane; IN]) -> [Lane; OUT] {
    let mut o = [[0.0; LANES]; OUT];
    for l in 0..LANES {
        let [m0, m1, m2, m3, m4, m5] = m.map(|x| x[l]);
        let (a, b) = (m1 + m2, m1 - m2);
        let (c, d) = (m3 + m4, m3 - m4);
        o[0][l] = m0 + a + c;
        o[1][l] = b + 2.0 * d;
        o[2][l] = a + 4.0 * c;
        o[3][l] = b + 8.0 * d + m5;
    }
    o
}

/// A separable 2-D transform of one 6x6 tile of lanes (row-major): the
/// 1-D transform `t` (6 -> `R` values) on every column, then on every row
/// of the result; `emit(k, lane)` receives output `k` of the `R x R`
/// result (row-major). `r` is scratch. Both Winograd transforms are this
/// with their own `t` (`B^T x B`: [`input_1d`]; `A^T m A`: [`output_1d`]).
#[inline(always)]
fn transform_2d<const R: usize>(
    x: &[Lane; XI],
    r: &mut [Lane; XI],
    t: impl Fn([&Lane; IN]) -> [Lane; R],
    mut emit: impl FnMut(usize, &Lane),
) {
    for c in 0..IN {
        let col = t(std::array::from_fn(|i| &x[i * IN + c]));
        for (i, v) in col.iter().enumerate() {
            r[i * IN + c] = *v;
        }
    }
    for i in 0..R {
        let row = t(std::array::from_fn(|j| &r[i * IN + j]));
        for (j, v) in row.iter().enumerate() {
            emit(i * R + j, v);
        }
    }
}

/// `B^T x B` of one tile into rows `xi * stride + at ..` of `out` (`n`
/// channels of each lane).
#[inline(always)]
fn input_tile(
    x: &[Lane; XI],
    r: &mut [Lane; XI],
    out: &mut [f32],
    stride: usize,
    at: usize,
    n: usize,
) {
    transform_2d(x, r, input_1d, |xi, v| {
        let o = xi * stride + at;
        // A fixed-size copy is a vector store; a variable one a call.
        if n == LANES {
            out[o..o + LANES].copy_from_slice(v);
        } else {
            out[o..o + n].copy_from_slice(&v[..n]);
        }
    });
}

/// `A^T m A` of one tile plus `bias`: the 4x4 outputs, row-major, into
/// rows `k * stride + at ..` of `y`.
#[inline(always)]
fn output_tile(
    m: &[Lane; XI],
    bias: &Lane,
    r: &mut [Lane; XI],
    y: &mut [f32],
    stride: usize,
    at: usize,
) {
    transform_2d(m, r, output_1d, |k, v| {
        let o = k * stride + at;
        y[o..o + LANES].copy_from_slice(&add(*v, *bias));
    });
}

/// `B^T d B` for every input channel of every tile into `v` (`[tiles, 36,
/// cin]`); `zero` is at least `max(cin, 16)` zeros. Channels go 16 at a
/// time; a tail of `cin % 16` (the stem's input planes) is read through a
/// zero-padded copy. Plain loops, no closures: the body must inline into
/// the target-feature wrappers below to be vectorised with their
/// instructions.
#[inline(always)]
fn input_body(tiles: &Tiles, src: &[f32], cin: usize, zero: &[f32], v: &mut [f32]) {
    let mut x = [[0.0f32; LANES]; XI];
    let mut r = [[0.0f32; LANES]; XI];
    let mut d: [&[f32]; XI] = [&zero[..cin]; XI];
    let mut t = 0;
    for b in 0..tiles.positions {
        for ty in 0..tiles.ty {
            for tx in 0..tiles.tx {
                for (k, dk) in d.iter_mut().enumerate() {
                    *dk = match tiles.pixel(b, OUT * ty + k / IN, OUT * tx + k % IN) {
                        Some(p) => &src[p * cin..(p + 1) * cin],
                        None => &zero[..cin],
                    };
                }
                let out = &mut v[t * XI * cin..(t + 1) * XI * cin];
                let mut c = 0;
                while c < cin {
                    let n = LANES.min(cin - c);
                    for (xk, dk) in x.iter_mut().zip(&d) {
                        if n == LANES {
                            *xk = lane(dk, c);
                        } else {
                            xk[..n].copy_from_slice(&dk[c..c + n]);
                        }
                    }
                    input_tile(&x, &mut r, out, cin, c, n);
                    c += n;
                }
                t += 1;
            }
        }
    }
}

/// `A^T M A` + bias (+ residual), ReLU, stored at the tile's squares on
/// the board; `y` holds `16 * cout_pad` floats of scratch. Plain loops, as
/// in [`input_body`].
#[inline(always)]
fn output_body(
    tiles: &Tiles,
    out: &Output<'_>,
    m: &[f32],
    y: &mut [f32],
    dst: &mut [f32],
    residual: Option<&[f32]>,
) {
    let (cout, stride) = (out.cout, out.cout_pad);
    let mut x = [[0.0f32; LANES]; XI];
    let mut r = [[0.0f32; LANES]; XI];
    let mut t = 0;
    for b in 0..tiles.positions {
        for ty in 0..tiles.ty {
            for tx in 0..tiles.tx {
                let block = &m[t * XI * stride..(t + 1) * XI * stride];
                for o in (0..stride).step_by(LANES) {
                    for (k, xk) in x.iter_mut().enumerate() {
                        *xk = lane(block, k * stride + o);
                    }
                    output_tile(&x, &lane(out.bias, o), &mut r, y, stride, o);
                }
                for (k, yk) in y[..OUT * OUT * stride].chunks_exact(stride).enumerate() {
                    let (sy, sx) = (OUT * ty + k / OUT, OUT * tx + k % OUT);
                    if sy >= tiles.height || sx >= tiles.width {
                        continue; // past the board's edge
                    }
                    let p = (b * (tiles.height + 2) + sy + 1) * (tiles.width + 2) + sx + 1;
                    store_relu(
                        &mut dst[p * cout..(p + 1) * cout],
                        yk,
                        residual.map(|r| &r[p * cout..(p + 1) * cout]),
                    );
                }
                t += 1;
            }
        }
    }
}

/// `dst = max(y + residual, 0)` over `dst`'s channels.
#[inline(always)]
fn store_relu(dst: &mut [f32], y: &[f32], residual: Option<&[f32]>) {
    match residual {
        Some(r) => {
            for ((d, &v), &r) in dst.iter_mut().zip(y).zip(r) {
                *d = (v + r).max(0.0);
            }
        }
        None => {
            for (d, &v) in dst.iter_mut().zip(y) {
                *d = v.max(0.0);
            }
        }
    }
}

/// An [`input_body`] compiled for one instruction set (unsafe only for
/// its target feature: the CPU must have it).
type InputFn = unsafe fn(&Tiles, &[f32], usize, &[f32], &mut [f32]);

/// An [`output_body`] compiled for one instruction set (unsafe only for
/// its target feature: the CPU must have it).
type OutputFn = unsafe fn(&Tiles, &Output<'_>, &[f32], &mut [f32], &mut [f32], Option<&[f32]>);

/// The transforms compiled for one instruction set (LLVM vectorises the
/// channel loops with the widest vectors the set has).
#[derive(Clone, Copy)]
struct Isa {
    input: InputFn,
    output: OutputFn,
}

macro_rules! isa_transforms {
    ($module:ident, $feature:literal) => {
        #[cfg(target_arch = "x86_64")]
        mod $module {
            use super::*;

            #[target_feature(enable = $feature)]
            pub(super) unsafe fn input(
                t: &Tiles,
                src: &[f32],
                cin: usize,
                zero: &[f32],
                v: &mut [f32],
            ) {
                input_body(t, src, cin, zero, v)
            }

            #[target_feature(enable = $feature)]
            pub(super) unsafe fn output(
                t: &Tiles,
                o: &Output<'_>,
                m: &[f32],
                y: &mut [f32],
                dst: &mut [f32],
                r: Option<&[f32]>,
            ) {
                output_body(t, o, m, y, dst, r)
            }
        }
    };
}

isa_transforms!(avx512, "avx512f");
isa_transforms!(avx2, "avx2,fma");

unsafe fn portable_input(t: &Tiles, src: &[f32], cin: usize, zero: &[f32], v: &mut [f32]) {
    input_body(t, src, cin, zero, v)
}

unsafe fn portable_output(
    t: &Tiles,
    o: &Output<'_>,
    m: &[f32],
    y: &mut [f32],
    dst: &mut [f32],
    r: Option<&[f32]>,
) {
    output_body(t, o, m, y, dst, r)
}

impl Isa {
    /// The transforms for every instruction set this CPU runs, widest
    /// last (the portable build always).
    fn available() -> Vec<(&'static str, Isa)> {
        let mut out: Vec<(&'static str, Isa)> = vec![(
            "portable",
            Isa {
                input: portable_input,
                output: portable_output,
            },
        )];
        #[cfg(target_arch = "x86_64")]
        {
            if isa_allowed(1)
                && std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
            {
                let isa = Isa {
                    input: avx2::input,
                    output: avx2::output,
                };
                out.push(("avx2", isa));
            }
            if isa_allowed(2) && std::is_x86_feature_detected!("avx512f") {
                let isa = Isa {
                    input: avx512::input,
                    output: avx512::output,
                };
                out.push(("avx512", isa));
            }
        }
        out
    }

    /// The widest instruction set this CPU runs, found once.
    fn detect() -> Isa {
        static BEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| Isa::available().pop().expect("the portable build").1)
    }

    fn input(&self, t: &Tiles, src: &[f32], cin: usize, zero: &[f32], v: &mut [f32]) {
        // SAFETY: `available` lists only functions this CPU runs; they
        // are safe code apart from the target feature.
        unsafe { (self.input)(t, src, cin, zero, v) }
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "the arguments of `output_body`, passed through unchanged"
    )]
    fn output(
        &self,
        t: &Tiles,
        o: &Output<'_>,
        m: &[f32],
        y: &mut [f32],
        dst: &mut [f32],
        r: Option<&[f32]>,
    ) {
        // SAFETY: as in `input`.
        unsafe { (self.output)(t, o, m, y, dst, r) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direct::{Padded, PaddedBuf};

    /// Winograd equals the direct convolution (with residual and ReLU) on
    /// boards whose sides are and are not multiples of 4, channel counts
    /// off the kernels' widths.
    #[test]
    fn winograd_matches_the_direct_convolution() {
        let shapes = [
            (32, 32, 8, 8),
            (5, 40, 7, 5),
            (23, 32, 11, 11),
            (8, 16, 12, 7),
            (4, 16, 2, 3),
        ];
        for (cin, cout, h, w) in shapes {
            let geom = Padded {
                positions: 3,
                height: h,
                width: w,
            };
            let val = |i: usize, m: usize| ((i * 7919 + m) % 23) as f32 / 11.0 - 1.0;
            let wt: Vec<f32> = (0..9 * cin * cout).map(|i| val(i, 3)).collect();
            let bias: Vec<f32> = (0..cout).map(|i| val(i, 5)).collect();
            let interior = geom.interior();
            let fill = |channels: usize, m: usize| {
                let mut buf = PaddedBuf::default();
                let data = buf.prepare(geom, channels);
                for &p in interior.iter() {
                    for c in 0..channels {
                        let i = p as usize * channels + c;
                        data[i] = val(i, m);
                    }
                }
                buf.data
            };
            let (src, residual) = (fill(cin, 1), fill(cout, 7));
            let direct = DirectConv::new(9, cin, cout, &wt, &bias);
            let wino = Winograd::new(cin, cout, &wt, &bias);
            let before = fill(cout, 9);
            let mut want = before.clone();
            direct.run_trunk(&src, &interior, &mut want, Some(&residual));
            let mut buf = WinogradBuf::default();
            for (name, isa) in Isa::available() {
                let mut got = before.clone();
                wino.run_with(isa, &src, &interior, &mut got, Some(&residual), &mut buf);
                for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - e).abs() < 1e-4 * (1.0 + e.abs()),
                        "{name}: {cin}->{cout} on {h}x{w}, float {i}: {g} vs {e}"
                    );
                }
            }
            // Without a residual, and the buffers reused at another size.
            let mut want = before.clone();
            direct.run_trunk(&src, &interior, &mut want, None);
            let mut got = before.clone();
            wino.run_trunk(&src, &interior, &mut got, None, &mut buf);
            for (g, e) in got.iter().zip(&want) {
                assert!(
                    (g - e).abs() < 1e-4 * (1.0 + e.abs()),
                    "no residual: {g} vs {e}"
                );
            }
        }
    }
}
