//! How a training batch is split for the step's parallel passes: groups of
//! whole positions (one rayon job each, with its own scratch buffers), cut
//! into chunks of a few positions for the im2col products (so a chunk's
//! im2col buffer stays in cache).

use std::ops::Range;

/// Rows of an im2col chunk to aim for (the fused inference path's
/// `model::fused::TARGET_ROWS`).
const CHUNK_ROWS: usize = model::fused::TARGET_ROWS;

/// Groups per rayon thread: more than one, so a thread that finishes early
/// takes another group (load balance on a shared machine).
const GROUPS_PER_THREAD: usize = 4;

/// The batch's board and its split.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    /// Positions `B`.
    pub batch: usize,
    /// Board height.
    pub height: usize,
    /// Board width.
    pub width: usize,
    /// Position ranges, one per parallel job.
    pub groups: Vec<Range<usize>>,
    /// Positions per im2col chunk.
    pub chunk: usize,
}

impl Geometry {
    /// The split of a batch of `batch` positions on an `height x width`
    /// board over `threads` threads.
    pub fn new(batch: usize, height: usize, width: usize, threads: usize) -> Self {
        let n = (threads.max(1) * GROUPS_PER_THREAD).clamp(1, batch.max(1));
        let groups = (0..n).map(|g| g * batch / n..(g + 1) * batch / n).collect();
        Geometry {
            batch,
            height,
            width,
            groups,
            chunk: (CHUNK_ROWS / (height * width)).max(1),
        }
    }

    /// Squares per position.
    pub fn squares(&self) -> usize {
        self.height * self.width
    }

    /// Rows (position x square) of the batch.
    pub fn rows(&self) -> usize {
        self.batch * self.squares()
    }

    /// `buf` (`[B, ..]` with `per_position` floats per position) cut into
    /// one slice per group.
    pub fn split<'a>(&self, mut buf: &'a mut [f32], per_position: usize) -> Vec<&'a mut [f32]> {
        let mut out = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            let (head, tail) = buf.split_at_mut(g.len() * per_position);
            out.push(head);
            buf = tail;
        }
        out
    }
}

/// Per-group buffers, kept across steps.
#[derive(Default)]
pub(crate) struct Scratch {
    /// im2col of a chunk's input.
    pub col: Vec<f32>,
    /// im2col of a chunk's output gradient.
    pub col_grad: Vec<f32>,
    /// The group's share of a weight gradient.
    pub dw: Vec<f32>,
    /// The group's share of a bias gradient.
    pub db: Vec<f32>,
    /// Per-channel sums of a batch-norm pass (f64: sums over thousands of
    /// rows).
    pub sums: Vec<f64>,
    /// A chunk's share of those sums, in f32.
    pub part: Vec<f32>,
}

/// `buf` resized to `len` (contents unspecified unless `zero`).
pub(crate) fn sized<T: Clone + Default>(buf: &mut Vec<T>, len: usize, zero: bool) -> &mut [T] {
    if zero {
        buf.clear();
    }
    buf.resize(len, T::default());
    &mut buf[..len]
}

/// `dst` = the sum over the groups of their `pick` buffers.
pub(crate) fn sum_groups(dst: &mut [f32], scratch: &[Scratch], pick: impl Fn(&Scratch) -> &[f32]) {
    dst.fill(0.0);
    for s in scratch {
        for (d, v) in dst.iter_mut().zip(pick(s)) {
            *d += v;
        }
    }
}

/// The im2col rows of `positions` positions of `src` (`[positions * H *
/// W, cin]`, channels last) for a `taps`-tap convolution with zero
/// padding 1 (3x3) or none (1x1): row `(b, y, x)`, column `tap * cin + c`
/// holds `src[b, y + ky - 1, x + kx - 1, c]` (0 off the board). A kernel
/// row's on-board taps are adjacent squares, so they are copied together
/// (as `model::FusedNet`'s im2col does).
pub(crate) fn im2col(src: &[f32], geo: &Geometry, cin: usize, taps: usize, col: &mut Vec<f32>) {
    let (h, w) = (geo.height, geo.width);
    let positions = src.len() / (h * w * cin);
    let width = taps * cin;
    let col = sized(col, positions * h * w * width, false);
    if taps == 1 {
        col.copy_from_slice(&src[..col.len()]);
        return;
    }
    for (board, rows) in src
        .chunks_exact(h * w * cin)
        .zip(col.chunks_exact_mut(h * w * width))
    {
        for (sq, row) in rows.chunks_exact_mut(width).enumerate() {
            let (y, x) = (sq / w, sq % w);
            // The kernel columns on the board: kx in first..last.
            let first = usize::from(x == 0);
            let last = if x + 1 == w { 2 } else { 3 };
            for (ky, dst) in row.chunks_exact_mut(3 * cin).enumerate() {
                let sy = (y + ky).wrapping_sub(1);
                if sy >= h || first >= last {
                    dst.fill(0.0);
                    continue;
                }
                let at = (sy * w + x + first - 1) * cin;
                dst[..first * cin].fill(0.0);
                dst[first * cin..last * cin].copy_from_slice(&board[at..at + (last - first) * cin]);
                dst[last * cin..].fill(0.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_the_batch_in_order() {
        let geo = Geometry::new(10, 3, 3, 2);
        let flat: Vec<usize> = geo.groups.iter().flat_map(|g| g.clone()).collect();
        assert_eq!(flat, (0..10).collect::<Vec<_>>());
        let mut buf = vec![0.0; 10 * 4];
        let parts = geo.split(&mut buf, 4);
        assert_eq!(parts.iter().map(|p| p.len()).sum::<usize>(), 40);
    }

    #[test]
    fn im2col_pads_with_zeros() {
        // One 2x2 board, one channel: 1 2 / 3 4.
        let geo = Geometry::new(1, 2, 2, 1);
        let mut col = Vec::new();
        im2col(&[1.0, 2.0, 3.0, 4.0], &geo, 1, 9, &mut col);
        // Square (0, 0): taps (-1,-1) .. (1,1) -> 0 0 0 / 0 1 2 / 0 3 4.
        assert_eq!(&col[..9], &[0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 3.0, 4.0]);
    }
}
