"""The LU factor's symbolic pattern (softmech.integrators.sparse_pattern.factor_pattern): its
columns and the positions of the couplings in it, checked entry by entry against their
definitions on random patterns (the assembly and the lookup are vectorized: scipy's sparse sum
and its lookup of sparse entries)."""
import numpy as np
import pytest

from softmech.integrators.sparse_pattern import factor_pattern, symbolic_cholesky


@pytest.mark.parametrize("n, k, seed", [(1, 1, 0), (30, 120, 1), (300, 2500, 2)])
def test_every_coupling_sits_at_its_row_and_column_of_the_factor(n, k, seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n, k)
    cols = np.clip(rows + rng.integers(-15, 16, k), 0, n - 1)
    extra = (rng.integers(0, n, 40), rng.integers(0, n, 40))
    fp = factor_pattern(n, rows, cols, extra=extra)
    inverse = np.empty(n, dtype=np.int64)
    inverse[fp.perm] = np.arange(n)
    column = _column_of_each_entry(fp)
    for j in range(n):
        # each column: its L rows (below j, ascending), its diagonal, its U rows (above j,
        # ascending) right after the diagonal
        below = fp.rows[fp.lptr[j]:fp.lptr[j + 1]]
        above = fp.rows[fp.uptr[j + 1] + 1:fp.uptr[j]]
        assert np.all(np.diff(below) > 0) and np.all(below > j)
        assert np.all(np.diff(above) > 0) and np.all(above < j)
        assert fp.rows[fp.uptr[j + 1]] == j
    for (r, c), pos in ((fp.coupling_rows, fp.coupling_cols), fp.entry_pos), \
            (extra, fp.extra_pos):
        assert np.array_equal(fp.rows[pos], inverse[r])
        assert np.array_equal(column[pos], inverse[c])


def _column_of_each_entry(fp):
    """The column of each factor position: L's entries first, column by column, then each
    column's diagonal and U entries from the last column to the first (the passes' order)."""
    column = np.empty(fp.nnz, dtype=np.int64)
    column[:fp.lptr[-1]] = np.repeat(np.arange(fp.n), np.diff(fp.lptr))
    for j in range(fp.n):
        column[fp.uptr[j + 1]:fp.uptr[j]] = j
    return column


@pytest.mark.parametrize("n, k, seed", [(1, 1, 0), (40, 200, 3), (300, 2500, 4)])
def test_the_factor_is_laid_out_in_the_order_of_the_solves_passes(n, k, seed):
    """Forward substitution reads L column by column and backward substitution each column's
    diagonal and U from the last column to the first: the layout puts them in those orders,
    every entry once (positions 0 .. nnz - 1, no gap), and columns_of gives back the columns
    whose layout it is (pass_layout of them: the positions of each column's entries)."""
    from softmech.integrators.sparse_pattern import columns_of, pass_layout
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n, k)
    fp = factor_pattern(n, rows, np.clip(rows + rng.integers(-15, 16, k), 0, n - 1))
    assert fp.lptr[0] == 0 and np.all(np.diff(fp.lptr) >= 0)
    assert fp.uptr[n] == fp.lptr[n] and fp.uptr[0] == fp.nnz and np.all(np.diff(fp.uptr) < 0)
    colptr, diag = columns_of(fp.lptr, fp.uptr)
    lptr, uptr, where = pass_layout(colptr, diag)
    np.testing.assert_array_equal(lptr, fp.lptr)
    np.testing.assert_array_equal(uptr, fp.uptr)
    np.testing.assert_array_equal(np.sort(where), np.arange(fp.nnz))
    by_column = fp.rows[where]                  # the rows in the columns' order
    for j in range(n):
        own = by_column[colptr[j]:colptr[j + 1]]
        assert np.all(np.diff(own) > 0) and own[diag[j] - colptr[j]] == j
        np.testing.assert_array_equal(np.sort(fp.rows[_column_of_each_entry(fp) == j]), own)


def test_an_arrow_fills_everything_below_its_head():
    """symbolic_cholesky, whose columns the factor's are built from: eliminating the arrow's
    head (row and column 0 full) first couples every later column with every other, so L is
    full below the diagonal (George & Liu 1981, the arrowhead example)."""
    import scipy.sparse
    n = 5
    arrow = np.zeros((n, n))
    arrow[0, :] = arrow[:, 0] = 1.0
    arrow[np.arange(n), np.arange(n)] = 1.0
    lower = symbolic_cholesky(scipy.sparse.csr_matrix(arrow))
    assert [c.tolist() for c in lower] == [[1, 2, 3, 4], [2, 3, 4], [3, 4], [4], []]


def test_an_ordering_that_fills_more_than_the_limit_is_not_finished():
    """symbolic_cholesky(limit): the arrow eliminated from its head fills 10 entries below the
    diagonal, so a limit of 9 stops it (None) and 10 lets it finish with the same columns;
    with the head among the last two it fills nothing: factor_pattern, which tries nested
    dissection first and then reverse Cuthill-McKee up to the first's fill (the lesser, RCM
    on a tie), keeps a fill-free order."""
    import scipy.sparse
    n = 5
    arrow = np.zeros((n, n))
    arrow[0, :] = arrow[:, 0] = 1.0
    arrow[np.arange(n), np.arange(n)] = 1.0
    graph = scipy.sparse.csr_matrix(arrow)
    assert symbolic_cholesky(graph, limit=9) is None
    assert [c.tolist() for c in symbolic_cholesky(graph, limit=10)] == \
        [c.tolist() for c in symbolic_cholesky(graph)]
    rows, cols = np.nonzero(arrow)
    fp = factor_pattern(n, rows, cols)
    assert fp.nnz == n + 2 * (n - 1)        # the diagonal and the arrow's two arms, no fill
