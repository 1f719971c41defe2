"""softmech.kernels.inline_copy: numba's IR inlining copies a function's scope once per copy of
its IR instead of once per block, and the compiled code does not change."""
import copy
import os
import subprocess
import sys
import textwrap

from numba.core import inline_closurecall, ir
from numba.core.compiler import run_frontend

from softmech.kernels.inline_copy import BlockCopier

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def branchy(x, n):
    """A function of several blocks (a loop and branches) for the IR copies below."""
    total = 0.0
    for i in range(n):
        if x[i] > 0.0:
            total += x[i]
        else:
            total -= 2.0 * x[i]
    return total


def copy_like_numba(copier, func_ir):
    """The blocks of func_ir copied as numba.core.inline_closurecall copies them (copy_ir)."""
    return {label: copier.deepcopy(block) for label, block in func_ir.blocks.items()}


def test_numba_inlines_with_the_block_copier():
    assert isinstance(inline_closurecall.copy, BlockCopier)


def test_one_copy_shares_one_new_scope_and_two_copies_share_nothing():
    func_ir = run_frontend(branchy)
    assert len(func_ir.blocks) >= 4
    copier = BlockCopier()
    first = copy_like_numba(copier, func_ir)
    second = copy_like_numba(copier, func_ir)              # the same IR copied again
    for blocks in (first, second):
        scopes = {id(b.scope) for b in blocks.values()}
        assert len(scopes) == 1                             # one scope, as in the original
        assert blocks[min(blocks)].scope is not func_ir.blocks[min(blocks)].scope
    assert first[min(first)].scope is not second[min(second)].scope
    # the same content as numba's own copy (block by block, a memo each)
    for label, block in func_ir.blocks.items():
        plain = copy.deepcopy(block)
        for copied in (first[label], second[label]):
            assert [str(s) for s in copied.body] == [str(s) for s in plain.body]
            assert copied.scope == plain.scope              # equal variables (EqualityCheckMixin)
            assert all(a is not b for a, b in zip(copied.body, block.body))


def test_other_objects_and_given_memos_are_plain_deep_copies():
    copier = BlockCopier()
    block = next(iter(run_frontend(branchy).blocks.values()))
    memo = {}
    assert copier.deepcopy(block, memo).scope is memo[id(block.scope)]
    data = {"a": [1, 2]}
    assert copier.deepcopy(data) == data and copier.deepcopy(data)["a"] is not data["a"]
    assert copier.copy is copy.copy
    assert isinstance(copier.deepcopy(ir.Loc("f", 1)), ir.Loc)


CHILD = textwrap.dedent('''
    import hashlib
    import numba
    import softmech.kernels  # installs the block copier unless SOFTMECH_NUMBA_INLINE_COPY=0

    @numba.njit(inline="always")
    def clip(v, lo, hi):
        if v < lo:
            return lo
        if v > hi:
            return hi
        return v

    @numba.njit(inline="always")
    def accumulate(x, out, lo, hi):
        s = 0.0
        for i in range(x.shape[0]):
            c = clip(x[i], lo, hi)
            if c > 0.0:
                s += c
            else:
                s -= clip(-c, lo, hi)
            out[i] = s
        return s

    @numba.njit
    def outer(x, out):
        a = accumulate(x, out, -1.0, 1.0)
        b = accumulate(out, x, -0.5, 2.0)
        return a + b

    sig = (numba.float64[:], numba.float64[:])
    outer.compile(sig)
    print(type(numba.core.inline_closurecall.copy).__name__)
    print(hashlib.sha1(outer.inspect_llvm(sig).encode()).hexdigest())
    print(hashlib.sha1(outer.inspect_asm(sig).encode()).hexdigest())
''')


def test_nested_inlined_helpers_compile_to_the_same_code_with_and_without_it(tmp_path):
    """The same program compiled in two fresh processes, numba's copy (SOFTMECH_NUMBA_INLINE_COPY
    = 0) and the block copier: identical LLVM IR and machine code (tolerance: none)."""
    outputs = {}
    for setting in ("0", "1"):
        env = dict(os.environ, PYTHONPATH=SRC, SOFTMECH_NUMBA_INLINE_COPY=setting,
                   NUMBA_CACHE_DIR=str(tmp_path / setting))
        run = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        outputs[setting] = run.stdout.split()
    assert outputs["0"][0] == "module" and outputs["1"][0] == "BlockCopier"
    assert outputs["0"][1:] == outputs["1"][1:]
