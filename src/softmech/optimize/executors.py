"""Where a study's candidates are simulated: on this machine (LocalExecutor, default) or on a Ray
cluster (RayExecutor), in chunks, with a journal of finished chunks.

A batch of N candidates (a generation, a sweep) is split into consecutive chunks of `chunk`
candidates; each chunk is one batched simulation of `chunk` worlds (Study.evaluate). The split
depends only on N and `chunk`, never on the executor, and a world's result does not depend on
its batch-mates, so a local and a Ray run give the same numbers bit for bit.

Ray does the scheduling, the transport and the fault handling: each chunk is one Ray task
(`max_retries`: a task whose worker process or node dies is run again elsewhere); the study is
put into Ray's object store once and each worker keeps its compiled simulations between tasks.

The journal (EvaluationJournal, JSON lines, appended durably like the campaign log) records each
finished chunk with its exact candidates and values. A driver that is killed and started again
with the same journal takes finished chunks from it instead of simulating them again.
"""
import json
import math
import os

import numpy as np

from softmech import _checks
from softmech.optimize.campaign import append_line, read_jsonl
from softmech.text import plural

JOURNAL_FORMAT = "softmech.evaluations/1"
RAY_RETRIES = 5
"""Times Ray runs a chunk again after its worker died (node or process failure)."""


def chunks_of(n, chunk):
    """Row slices of consecutive chunks of at most `chunk` rows covering n rows."""
    return [slice(a, min(a + chunk, n)) for a in range(0, n, chunk)]


class LocalExecutor:
    """Chunks one after the other in this process; each chunk is one batched simulation over
    this machine's cores."""
    name = "local"

    def run(self, study, chunks, progress=None):
        """Yield (i, values) for each chunk params (k, n) in `chunks` as it finishes."""
        for i, params in enumerate(chunks):
            yield i, study.evaluate(params, progress=progress)

    def close(self):
        pass


_WORKER_STUDIES = {}
WORKER_STUDIES_KEPT = 4
"""Studies (with their compiled simulations) a Ray worker keeps between tasks."""


def _evaluate_on_worker(study, params, threads):
    """Body of the Ray task: one chunk on a worker (studies kept per worker by uid, so the
    compiled simulations are reused between tasks)."""
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    kept = _WORKER_STUDIES.setdefault(study.uid, study)
    while len(_WORKER_STUDIES) > WORKER_STUDIES_KEPT:      # oldest first (insertion order)
        del _WORKER_STUDIES[next(iter(_WORKER_STUDIES))]
    return kept.evaluate(params)


class RayExecutor:
    """Chunks as Ray tasks. address: "auto" (the cluster this machine belongs to, as started by
    `ray start`), "local" (start a Ray instance on this machine for this process) or a cluster
    address "HOST:PORT". threads: cores (numba threads) per chunk task. init: extra keyword
    arguments of ray.init."""
    name = "ray"

    def __init__(self, address="auto", *, threads=1, **init):
        ray = require_ray()
        self.threads = _checks.integer("threads", threads, 1)
        if not isinstance(address, str) or not address:
            raise ValueError(f"ray address = {address!r} is not allowed: auto, local or HOST:PORT")
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            options = dict(init)
            options.setdefault("logging_level", "warning")
            options.setdefault("log_to_driver", False)
            if address not in ("auto", "local"):
                _check_reachable(address)
            try:
                if address == "local":
                    options.setdefault("include_dashboard", False)
                    ray.init(**options)
                else:
                    ray.init(address=address, **options)
            except (ConnectionError, RuntimeError) as err:
                raise ValueError(f"--ray {address} is not allowed: no Ray cluster could be "
                                 f"reached there ({err}); start one with `ray start --head`, "
                                 "or use --ray local") from None
        self._task = ray.remote(num_cpus=self.threads, max_retries=RAY_RETRIES,
                                retry_exceptions=False)(_evaluate_on_worker)
        self._refs = {}

    def run(self, study, chunks, progress=None):
        ray = self._ray
        ref = self._refs.get(study.uid)
        if ref is None:
            ref = self._refs[study.uid] = ray.put(study)
        pending = {self._task.remote(ref, params, self.threads): i for i, params in enumerate(chunks)}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for r in done:
                yield pending.pop(r), ray.get(r)

    def close(self):
        self._refs.clear()
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()


def _check_reachable(address):
    """ValueError at once if HOST:PORT does not accept a connection (ray.init would retry for
    minutes)."""
    import socket

    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            pass
    except (OSError, ValueError) as err:
        raise ValueError(f"--ray {address} is not allowed: no Ray head answers there ({err}); "
                         "start one with `ray start --head`, or use --ray local") from None


def require_ray():
    """The ray package, or ValueError naming --ray and how to install it."""
    return _checks.optional_module("ray", "--ray", "pip install 'softmech[ray]'")


def make_executor(ray=None, threads=1):
    """LocalExecutor for ray=None, else a RayExecutor for that address (auto, local, HOST:PORT)."""
    return LocalExecutor() if ray is None else RayExecutor(ray, threads=threads)


def finished_chunks(path):
    """Number of finished chunks in the journal at `path` (0 for a journal holding only its
    header, an empty file, or a header torn by a kill before its end of line: no work was
    done); None if there is no file. Reads, never writes; ValueError if the file is not a
    journal."""
    path = os.fspath(path)
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        head = f.read(1 << 20)
    if b"\n" not in head:                     # no complete line: a header torn by a kill?
        start = b'{"kind":"header"'            # how append_line begins the header
        if head.startswith(start) or start.startswith(head):
            return 0
        raise ValueError(f"{path}: not a softmech evaluations journal (no complete line, and "
                         "not the start of a journal's header)")
    _, records = read_jsonl(path, JOURNAL_FORMAT)
    return len(records)


def check_journal(path, meta, resume=False):
    """The checks of EvaluationJournal(path, meta, resume) without writing anything: with
    resume=False the file must not hold a finished chunk (ValueError that says what to do);
    with resume=True its header must match `meta`. Returns the number of finished chunks
    (None: no file)."""
    path = os.fspath(path)
    done = finished_chunks(path)
    if resume and done:                  # (a journal of no finished chunk starts again)
        head, _ = read_jsonl(path, JOURNAL_FORMAT)
        if head.get("meta") != json.loads(json.dumps(meta)):
            raise ValueError(f"{path}: the journal was written for other settings "
                             "(study, candidates); cannot resume it (start without --resume in "
                             "another output folder)")
    elif done:
        raise ValueError(f"journal = {path!r} is not allowed: it already exists and holds "
                         f"{plural(done, 'finished chunk')} of an earlier run; continue that run "
                         "with --resume (its finished chunks are not simulated again), or choose "
                         "another output folder (--output DIR)")
    return done


class EvaluationJournal:
    """Append-only record of finished chunks (path: JSON lines; a header with the study's meta,
    then one line per chunk: its candidates `params` and their `values`). With resume=False the
    file must not exist yet, unless it holds no finished chunk (then it is started again);
    with resume=True its header must match `meta`.

    Counters of this process: `reused` rows found finished in the journal (get), `simulated`
    rows added to it (add)."""

    def __init__(self, path, meta, resume=False):
        self.path = os.fspath(path)
        self._done = {}
        self.reused = self.simulated = 0
        header = {"kind": "header", "format": JOURNAL_FORMAT, "meta": meta}
        header = json.loads(json.dumps(header))
        done = check_journal(self.path, meta, resume)
        if resume and done:
            _, records = read_jsonl(self.path, JOURNAL_FORMAT, repair=True)
            for rec in records:
                self._done[_key(rec["params"])] = rec["values"]
        else:
            if done is not None:             # a journal of no finished chunk: nothing was done
                os.remove(self.path)
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            append_line(self.path, header)

    def __len__(self):
        return len(self._done)

    def get(self, params):
        """{name: (k,)} of a finished chunk with exactly these candidates, or None."""
        rec = self._done.get(_key(params.tolist()))
        if rec is None:
            return None
        self.reused += len(params)
        return {k: np.array([math.nan if v is None else v for v in vs], dtype=float)
                for k, vs in rec.items()}

    def values_of(self, row):
        """{name: value} of one candidate row (n,) found in the journal, or None."""
        target = np.asarray(row, dtype=float).tolist()
        for key, rec in self._done.items():
            rows = json.loads(key)
            if target in rows:
                i = rows.index(target)
                return {k: vs[i] for k, vs in rec.items()}
        return None

    def add(self, params, values):
        rec = {k: [_json_float(v) for v in np.asarray(vs, dtype=float)] for k, vs in values.items()}
        append_line(self.path, {"kind": "chunk", "params": params.tolist(), "values": rec})
        self._done[_key(params.tolist())] = rec
        self.simulated += len(params)


def _key(rows):
    return json.dumps(rows, separators=(",", ":"))


def _json_float(v):
    v = float(v)
    return v if math.isfinite(v) else None


def evaluate_batch(study, params, *, executor=None, chunk=None, journal=None, progress=None):
    """Measured objectives {name: (N,)} of candidates params (N, n): chunks of `chunk` rows
    (default all N: one batched simulation) on `executor` (default local); chunks found in the
    journal are not simulated again, new ones are added to it as they finish."""
    params = study.check(params)
    executor = executor or LocalExecutor()
    n = len(params)
    chunk = n if chunk is None else _checks.integer("chunk", chunk, 1)
    slices = chunks_of(n, chunk)
    results = [None] * len(slices)
    todo = []
    for i, s in enumerate(slices):
        found = journal.get(params[s]) if journal is not None else None
        if found is not None:
            results[i] = found
        else:
            todo.append(i)
    chunk_progress = progress if len(todo) == 1 else None
    for j, values in executor.run(study, [params[slices[i]] for i in todo], chunk_progress):
        i = todo[j]
        results[i] = values
        if journal is not None:
            journal.add(params[slices[i]], values)
    return {name: np.concatenate([r[name] for r in results]) for name in results[0]}
