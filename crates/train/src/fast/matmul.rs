//! Matrix products on strided views, for the hand-written training step:
//! the `gemm` crate (the one burn's flex backend and `model::FusedNet`'s
//! dense layers use), single-threaded — the step parallelises over groups
//! of positions itself, so one rayon pool stays busy without nesting.

/// A read-only `rows x cols` matrix view: element `(i, j)` is
/// `data[i * row_stride + j * col_stride]`, so a transposed view of a
/// row-major matrix is the same slice with the strides swapped.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'a> View<'a> {
    /// A row-major `rows x cols` matrix.
    pub fn rows(data: &'a [f32], rows: usize, cols: usize) -> Self {
        View {
            data,
            rows,
            cols,
            row_stride: cols,
            col_stride: 1,
        }
    }

    /// The transpose of a row-major `cols x rows` matrix, seen as
    /// `rows x cols`.
    pub fn transposed(data: &'a [f32], rows: usize, cols: usize) -> Self {
        View {
            data,
            rows,
            cols,
            row_stride: 1,
            col_stride: rows,
        }
    }

    /// Whether every addressed element lies inside `data`.
    fn fits(&self) -> bool {
        self.rows == 0
            || self.cols == 0
            || (self.rows - 1) * self.row_stride + (self.cols - 1) * self.col_stride
                < self.data.len()
    }
}

/// `dst (m x n, row-major) = a (m x k) * b (k x n)`, plus the old `dst`
/// when `accumulate`.
///
/// # Panics
/// If the shapes disagree or a view does not fit its slice.
pub(crate) fn matmul(dst: &mut [f32], a: View<'_>, b: View<'_>, accumulate: bool) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert!(b.rows == k && dst.len() >= m * n && a.fits() && b.fits());
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            dst[..m * n].fill(0.0);
        }
        return;
    }
    // SAFETY: every element the product reads lies in `a.data` and
    // `b.data` and every element it writes in `dst` (checked above with
    // the same strides), and `dst` is a distinct `&mut`, so no alias.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.data.as_ptr(),
            a.col_stride as isize,
            a.row_stride as isize,
            b.data.as_ptr(),
            b.col_stride as isize,
            b.row_stride as isize,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_views_multiply_as_written() {
        // a = [[1, 2], [3, 4]] stored transposed; b = [[5], [6]].
        let at = [1.0, 3.0, 2.0, 4.0];
        let b = [5.0, 6.0];
        let mut dst = [1.0, 1.0];
        matmul(
            &mut dst,
            View::transposed(&at, 2, 2),
            View::rows(&b, 2, 1),
            true,
        );
        assert_eq!(dst, [18.0, 40.0]);
        matmul(&mut dst, View::rows(&at, 2, 2), View::rows(&b, 2, 1), false);
        assert_eq!(dst, [23.0, 34.0]);
    }
}
