"""docs/tutorial.md runs as written: its Python blocks in order in one namespace, then each
command of its bash blocks (`softmech ...`, run as `python -m softmech.cli ...`), in a scratch
folder. A block that raises or a command that exits non-zero fails the test."""
import os
import re
import shlex
import subprocess
import sys
import warnings


import softmech

TUTORIAL = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "tutorial.md")
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def blocks(language):
    with open(TUTORIAL, encoding="utf-8") as f:
        return [code for lang, code in FENCE.findall(f.read()) if lang == language]


def test_the_tutorial_has_code_to_run():
    assert len(blocks("python")) >= 5 and blocks("bash")


def test_python_blocks_run_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__tutorial__"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # e.g. a time step above the limit
        for i, code in enumerate(blocks("python")):
            exec(compile(code, f"tutorial.md python block {i + 1}", "exec"), namespace)
    assert os.path.getsize(tmp_path / "sag.png") > 0
    assert (tmp_path / "sag.npz").exists() and (tmp_path / "sag_state.npz").exists()


def commands():
    for code in blocks("bash"):
        for line in code.splitlines():
            line = line.split("#")[0].strip()
            if line:
                yield line


def test_bash_commands_run_in_order(tmp_path):
    """The tutorial's commands, in order, in one folder (later ones read what earlier ones
    wrote, as they would for a reader)."""
    env = dict(os.environ)
    src = os.path.dirname(os.path.dirname(softmech.__file__))   # the softmech under test
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    lines = list(commands())
    assert len(lines) >= 5
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "softmech", f"tutorial command {line!r}: only softmech commands are tested"
        done = subprocess.run([sys.executable, "-m", "softmech.cli", *argv[1:]], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line!r} exited {done.returncode}:\n{done.stderr[-2000:]}"
