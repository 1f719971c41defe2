"""The LU factor's symbolic pattern (softmech.integrators.sparse_pattern.factor_pattern): its
columns and the positions of the couplings in it, checked entry by entry against their
definitions on random patterns (the assembly and the lookup are vectorized: scipy's sparse sum
and its lookup of sparse entries)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert _columns(lower) == [[1, 2, 3, 4], [2, 3, 4], [3, 4], [4], []]


def _columns(lower):
    """symbolic_cholesky's (colptr, rows) as a list of each column's rows."""
    colptr, rows = lower
    return [rows[colptr[j]:colptr[j + 1]].tolist() for j in range(colptr.size - 1)]


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
    assert _columns(symbolic_cholesky(graph, limit=10)) == _columns(symbolic_cholesky(graph))
    rows, cols = np.nonzero(arrow)
    fp = factor_pattern(n, rows, cols)
    assert fp.nnz == n + 2 * (n - 1)        # the diagonal and the arrow's two arms, no fill


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), density=st.floats(0.0, 0.3), seed=st.integers(0, 2**31 - 1))
def test_the_symbolic_factor_is_the_pattern_of_gaussian_elimination(n, density, seed):
    """symbolic_cholesky (the elimination tree and its row subtrees) against the definition:
    eliminating column k of a symmetric pattern joins every two of its rows below k
    (George & Liu 1981, ch. 5: the filled graph), computed densely on booleans. Every
    column's rows, in ascending order; and the limit stops exactly above the fill."""
    import scipy.sparse
    rng = np.random.default_rng(seed)
    A = rng.random((n, n)) < density
    A = A | A.T | np.eye(n, dtype=bool)
    filled = A.copy()
    for k in range(n):
        below = np.flatnonzero(filled[k + 1:, k]) + k + 1
        filled[np.ix_(below, below)] = True
    expected = [np.flatnonzero(filled[j + 1:, j]) + j + 1 for j in range(n)]
    lower = symbolic_cholesky(scipy.sparse.csr_matrix(A.astype(float)))
    assert _columns(lower) == [c.tolist() for c in expected]
    fill = sum(c.size for c in expected)
    assert symbolic_cholesky(scipy.sparse.csr_matrix(A.astype(float)), limit=fill) is not None
    if fill:
        assert symbolic_cholesky(scipy.sparse.csr_matrix(A.astype(float)),
                                 limit=fill - 1) is None


def test_an_entry_outside_the_factor_is_reported_missing():
    """entry_positions finds each entry of the factor's pattern at its position and answers
    -1 (and counts it) for an entry the pattern does not hold: factor_pattern's check that
    every coupling was placed rests on it."""
    from softmech.kernels.symbolic_factor import entry_positions
    fp = factor_pattern(3, np.array([0, 1]), np.array([1, 2]))     # a chain: no (0, 2) entry
    inverse = np.empty(3, dtype=np.int64)
    inverse[fp.perm] = np.arange(3)
    pi, pj = inverse[[0, 1, 0, 2]], inverse[[1, 2, 2, 2]]
    out = np.empty(4, np.int64)
    missing = entry_positions(fp.lptr, fp.uptr, fp.rows, pi, pj, np.empty(4, np.int64),
                              np.empty(4, np.int64), np.empty(3, np.int64), out)
    assert missing == 1 and out[2] == -1
    column = _column_of_each_entry(fp)
    for q in (0, 1, 3):
        assert fp.rows[out[q]] == pi[q] and column[out[q]] == pj[q]
