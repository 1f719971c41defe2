"""Generated modules call compiled kernels through an address slot, not a linked copy (compile
time only).

numba compiles a call from one jitted function to another by linking the callee's optimized IR
(and every function it calls) into the caller's module, where LLVM optimizes and compiles all
of it again. A generated module (softmech.integrators.driver.load_generated: a scene's explicit
step, the implicit engine's Newton loop) calls dozens of large kernels, each already compiled
and cached on its own, so most of its compile went to recompiling them: with slots, the README
snake's compile and first step 26.7 -> 20.8 s from empty caches, and adding a term to a discrete
rod scene on the unified engine 31.1 -> 22.9 s with cached kernels (2026-12-07,
benchmarks/external_calls.py, docs/benchmarks.md).

install() changes how numba lowers a call *from a function of a generated module* (its mangled
name holds the module's name, softmech_<prefix>_<digest>) *to a softmech function* (a kernel, or
another function of a generated module): the call loads the callee's address from a global
variable, the slot SLOT_PREFIX + the callee's mangled name, and calls it with numba's calling
convention, the same arguments and status handling as numba's direct call; the callee's library
is not linked. Each slot is a pointer-sized cell in this process (ctypes), registered with
LLVM's symbol table (llvmlite.binding.add_symbol) before the caller's machine code is loaded,
which resolves the caller's reference to the slot's global.

The caller's machine code is cached by numba like any function's; in another process it is
loaded from the cache without being compiled again, so the slots it refers to must be filled
first: the callee's module, name and argument types' names are written to a registry file (JSON,
registry_folder(), one file per slot) when the call is first compiled, before numba caches the
caller, and install() wraps numba's loading of a cached library (CPUCodeLibrary._unserialize) so
that each slot named in it is filled before its code is loaded: with the callee's overload for
those argument types, compiled in this process already or loaded from numba's cache (the
signature of those type names in numba's index: a kernel called by many scenes has many; not
by mangled name, which holds a per-process counter).
Where a slot cannot be filled (its registry file removed, its callee's cache cleared), the
cached function is not loaded: install() also wraps numba's Cache.load_overload, which then
reports no cached overload, and numba compiles the function afresh.

The compiled code is the same except that these calls are not inlined: the kernels are large
(the rods' elasticity, a contact, a sparse LU), called once per step or Newton iteration.
Results are the same bit for bit (tests/unit/test_external_calls.py: a generated function
calling a kernel, compiled, loaded from the cache and linked; benchmarks/external_calls.py:
the snake and falling_rod on both engines), and the snake's step takes the same time.
Off by default: SOFTMECH_EXTERNAL_CALLS=1 turns the slots on (else numba links as it always
does; so it does with a numba without the internals used here). Fresh-clone CI runs of the
test suite with them on went ~3x slower, and one with them off as slow (a slow hour of the
machine, most likely: docs/benchmarks.md); they stay opt-in until an A/B says otherwise.
"""
import ctypes
import hashlib
import importlib
import json
import os
import re
import sys
import threading

SLOT_PREFIX = "softmech.external$"
"""The name of a slot's global variable: this, then the callee's mangled name."""

GENERATED = re.compile(r"softmech_[a-z_]+?_[0-9a-f]{20}")
"""A generated module's name inside a mangled function name (load_generated's naming)."""

_slots = {}     # slot name -> ctypes.c_void_p holding the callee's address (kept alive)
_lock = threading.RLock()
_linking = threading.local()    # the libs of the call being lowered through a slot
_installed = {"wrappers": False, "slots": False}    # what install() patched in this process


class Unresolved(LookupError):
    """A slot of a cached library cannot be filled (its registry file is gone, or its callee's
    overload is neither compiled nor in numba's cache): numba's loading of that cached function
    is abandoned and it is compiled afresh."""


def registry_folder():
    """The folder of the registry files: softmech.cache.cache_dir()/steps/external, beside the
    generated modules whose cached code refers to the slots."""
    from softmech.cache import cache_dir
    folder = cache_dir() / "steps" / "external"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _registry_file(mangled):
    return registry_folder() / (hashlib.sha256(mangled.encode()).hexdigest()[:24] + ".json")


def install():
    """Patch numba's call lowering (with SOFTMECH_EXTERNAL_CALLS=1) and its loading of cached
    libraries (always: a cached function that calls through slots gets them filled whatever
    the setting), once per process; nothing where this numba lacks the functions patched."""
    if _installed["wrappers"]:
        return
    try:
        from numba.core import base, caching, codegen, imputils
        original_user_function = imputils.user_function
        original_add_linking_libs = base.BaseContext.add_linking_libs
        original_unserialize = codegen.CPUCodeLibrary._unserialize.__func__
        original_load_overload = caching.Cache.load_overload
    except (ImportError, AttributeError):    # pragma: no cover - other numba versions
        return

    def user_function(fndesc, libs):
        linked = original_user_function(fndesc, libs)
        if not fndesc.modname.startswith("softmech") or len(libs) != 1:
            return linked

        def imp(context, builder, sig, args):
            if not GENERATED.search(builder.function.name):
                return linked(context, builder, sig, args)
            result = _call_through_slot(context, builder, sig, fndesc, libs[0], args)
            # numba links an implementation's libs right after it returns (_wrap_impl):
            # flagged only once the call is lowered, so that a failure leaves nothing flagged
            _linking.libs = linked.libs
            return result
        imp.signature = linked.signature
        imp.libs = linked.libs
        return imp

    def add_linking_libs(self, libs):
        if libs is getattr(_linking, "libs", None):    # a call through a slot: not linked
            _linking.libs = None
            return None
        return original_add_linking_libs(self, libs)

    def _unserialize(cls, codegen_, state):
        _, kind, data = state
        if kind == "object" and SLOT_PREFIX.encode() in data[0]:
            _fill_slots_of(data[1])
        return original_unserialize(cls, codegen_, state)

    def load_overload(self, sig, target_context):
        try:
            return original_load_overload(self, sig, target_context)
        except Unresolved:     # numba then compiles the function afresh (and caches it)
            return None

    codegen.CPUCodeLibrary._unserialize = classmethod(_unserialize)
    caching.Cache.load_overload = load_overload
    if os.environ.get("SOFTMECH_EXTERNAL_CALLS", "0") == "1":
        imputils.user_function = user_function
        base.user_function = user_function
        base.BaseContext.add_linking_libs = add_linking_libs
        _installed["slots"] = True
    _installed["wrappers"] = True


def enabled():
    """Whether generated modules compile their calls through slots in this process
    (SOFTMECH_EXTERNAL_CALLS was "1" when softmech.kernels was imported, and this numba has
    what install() patches). Part of a generated module's name
    (softmech.integrators.driver.load_generated), so the two never share cached code."""
    return _installed["slots"]


def _call_through_slot(context, builder, sig, fndesc, library, args):
    """Lower a call of the function `fndesc` (compiled into `library`) through its slot, as
    numba.core.imputils.user_function lowers a direct call."""
    from llvmlite import ir
    from numba.core import cgutils
    from numba.core.imputils import fix_returning_optional, impl_ret_new_ref

    name = SLOT_PREFIX + fndesc.mangled_name
    with _lock:
        _record(fndesc)
        if not _filled(name):
            _set_slot(name, library.get_pointer_to_function(fndesc.mangled_name))
    module = builder.module
    try:
        slot = module.get_global(name)
    except KeyError:
        slot = ir.GlobalVariable(module, ir.IntType(8).as_pointer(), name=name)
        slot.linkage = "external"
    fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
    callee = builder.bitcast(builder.load(slot), fnty.as_pointer())
    status, retval = context.call_conv.call_function(builder, callee, fndesc.restype,
                                                     fndesc.argtypes, args)
    with cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    retval = fix_returning_optional(context, builder, sig, status, retval)
    return impl_ret_new_ref(context, builder, fndesc.restype, retval)


def _record(fndesc):
    """Write the registry file of fndesc's slot (JSON: the function's mangled name, module and
    name) unless it exists: atomically, before the caller is cached."""
    from softmech.io import atomic_write_text

    path = _registry_file(fndesc.mangled_name)
    if not path.exists():
        atomic_write_text(path, json.dumps({
            "function": fndesc.mangled_name, "module": fndesc.modname, "name": fndesc.qualname,
            "types": _type_names(fndesc.argtypes)}))


def _filled(name):
    """Whether slot `name` points at a function in this process."""
    return name in _slots and bool(_slots[name].value)


def _set_slot(name, address):
    """Point slot `name` at `address`, registering it with LLVM's symbol table the first
    time (later: the same cell, so code already loaded follows)."""
    import llvmlite.binding as ll

    cell = _slots.get(name)
    if cell is None:
        cell = _slots[name] = ctypes.c_void_p(address)
        ll.add_symbol(name, ctypes.addressof(cell))
    else:
        cell.value = address


def _fill_slots_of(shared_bitcode):
    """Fill every slot that a cached library's code refers to (its globals named SLOT_PREFIX...,
    read from its bitcode) and that this process has not filled yet."""
    import llvmlite.binding as ll

    names = [gv.name for gv in ll.parse_bitcode(shared_bitcode).global_variables
             if gv.name.startswith(SLOT_PREFIX)]
    with _lock:
        for name in names:
            if not _filled(name):
                _set_slot(name, _resolve(name[len(SLOT_PREFIX):]))


def _resolve(mangled):
    """The address of the function a slot was compiled for: from its registry file, the
    dispatcher (module and name) and its overload for the recorded argument types, compiled in
    this process already or loaded from numba's cache (numba's index, matched by the types'
    names). Not by the mangled name: numba puts a per-process counter in it, so the same
    overload has another one in another process. Unresolved if that fails."""
    try:
        entry = json.loads(_registry_file(mangled).read_text())
        if entry.get("function") != mangled:
            raise LookupError(f"the registry file names {str(entry.get('function'))[:120]}")
        module = sys.modules.get(entry["module"]) or importlib.import_module(entry["module"])
        dispatcher = getattr(module, entry["name"])
        cres = _overload(dispatcher, entry["types"])
        if cres is None:
            for signature in _cached_signatures(dispatcher):
                if _type_names(signature) == entry["types"]:
                    dispatcher.compile(signature)
                    cres = _overload(dispatcher, entry["types"])
                    break
        if cres is None:
            raise LookupError("no compiled or cached overload for the recorded types")
        return cres.library.get_pointer_to_function(cres.fndesc.mangled_name)
    except Exception as error:    # noqa: BLE001 - any failure: compile the caller afresh
        raise Unresolved(f"{mangled[:120]}: {type(error).__name__}: {error}") from error


def _overload(dispatcher, type_names):
    """The dispatcher's overload compiled (or loaded) in this process for arguments of these
    type names, or None."""
    for args, cres in list(dispatcher.overloads.items()):
        if _type_names(args) == type_names:
            return cres
    return None


def _type_names(types):
    """numba's names of argument types (which identify them: numba interns a type by its name),
    to pick the one overload of a cached kernel to load among the many a cache may hold."""
    return [str(t) for t in types]


def _cached_signatures(dispatcher):
    """The argument types of the dispatcher's overloads in numba's cache index (read by numba)."""
    cache = getattr(dispatcher, "_cache", None)
    index = cache._cache_file._load_index() if cache is not None else {}
    return [key[0] for key in index]
