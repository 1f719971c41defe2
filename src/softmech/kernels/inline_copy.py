"""A faster copy of the numba IR that @kernel(inline="always") inlines (compile time only).

numba inlines a function at the level of its IR (numba.core.inline_closurecall.InlineWorker
.inline_ir) by deep-copying the callee's IR twice, block by block, each block with a memo of its
own. Every block refers to the function's one variable scope, so each block's copy duplicates the
whole scope (every variable of the function): the cost of a copy is (blocks x variables), and it
grows with every level of nested inlining. The ground-contact kernel (softmech.kernels.contact:
contact_entries -> rod_plane_contact -> kinetic_pass -> kinetic_element) copies 121 blocks of a
3,968-variable scope at its top levels: 15 s of its 28 s cold compile was spent in inline_ir
(2026-12-02, a loaded 2-core machine).

install() replaces the `copy` module seen by numba.core.inline_closurecall with BlockCopier, which
deep-copies the consecutive blocks of one function IR with one shared memo: the scope is copied
once per IR copy, as the original IR has one scope for all its blocks. Everything else is passed
to copy.deepcopy unchanged. What numba does with the copy is unchanged: it renames the variables
of the first block's scope (callee_scopes[0]), replaces every variable of the blocks and gives
the inlined blocks the caller's scope, after which the callee's scope copies are dropped. The
compiled code is the same: the LLVM IR and machine code of the README snake's kernels are
identical byte for byte with and without it (tests/unit/test_inline_copy.py checks a kernel of
nested multi-block inlined helpers in two processes; docs/benchmarks_log.md has the snake's).

SOFTMECH_NUMBA_INLINE_COPY=0 turns it off (numba's own copy), e.g. to compare or where a numba
version copies differently; if numba's module has no `copy` to replace, install() does nothing.
"""
import copy as _copy
import os

from numba.core import inline_closurecall as _inline_closurecall
from numba.core import ir as _ir


class BlockCopier:
    """Stands for the `copy` module inside numba.core.inline_closurecall.

    deepcopy(block) without a memo reuses the memo of the previous call while the blocks come
    from the same scope and none repeats (the loop of one IR copy); a block of another scope, or
    one already copied with this memo (the same IR copied again), starts a fresh memo, so two
    copies never share an object. Other calls are copy.deepcopy's. numba inlines under its
    global compiler lock, so one instance serves every thread."""

    def __init__(self):
        self._scope = None
        self._memo = None
        self._seen = set()

    def __getattr__(self, name):
        return getattr(_copy, name)

    def deepcopy(self, x, memo=None):
        if memo is not None or type(x) is not _ir.Block:
            return _copy.deepcopy(x, memo)
        if x.scope is not self._scope or id(x) in self._seen:
            self._scope, self._memo, self._seen = x.scope, {}, set()
        self._seen.add(id(x))
        return _copy.deepcopy(x, self._memo)


def enabled():
    """False when SOFTMECH_NUMBA_INLINE_COPY is "0"."""
    return os.environ.get("SOFTMECH_NUMBA_INLINE_COPY", "1") != "0"


def install():
    """Give numba's inliner a BlockCopier (once; a no-op when disabled or when numba's module
    does not use the copy module). Returns whether it is installed."""
    current = getattr(_inline_closurecall, "copy", None)
    if isinstance(current, BlockCopier):
        return True
    if not enabled() or current is not _copy:
        return False
    _inline_closurecall.copy = BlockCopier()
    return True
