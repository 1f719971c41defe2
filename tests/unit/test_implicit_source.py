"""The generated Newton module's text (softmech.integrators.implicit_source): the scene's
snippets spliced into implicit_block, one evaluation entry point."""
import pytest

from softmech.integrators.implicit_source import IMPLICIT_SOURCE, SPLICE, implicit_source, splice


def test_a_snippet_replaces_its_line_at_the_line_s_indentation():
    source = "def f(x):\n    y = 1\n    # @splice grow\n    return y\n"
    assert splice(source, {"grow": ["y += x", "if y > 2:", "    y = 2"]}) == (
        "def f(x):\n    y = 1\n    y += x\n    if y > 2:\n        y = 2\n    return y\n")
    assert splice(source, {"grow": []}) == "def f(x):\n    y = 1\n    return y\n"


def test_a_snippet_without_its_line_is_an_error_not_dropped_code():
    with pytest.raises(AssertionError, match="grow"):
        splice("def f(x):\n    return x\n", {"grow": ["x += 1"]})


@pytest.mark.parametrize("analytic", [False, True])
def test_the_module_has_one_evaluation_and_every_snippet_spliced(analytic):
    """With and without a term that has an analytic Jacobian (a discrete rod's elasticity):
    every SPLICE line of IMPLICIT_SOURCE is replaced, and the constraints, the residual and
    the finite differences' residual are modes of one compiled `evaluate` (each entry point is
    compiled on its own and again inside its callers: docs/benchmarks.md)."""
    import softmech as sm
    from softmech.integrators.implicit import ImplicitOptions

    scene = sm.Scene()
    scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                      length=0.05, n_elems=5, radius=1e-3, density=1000.0,
                      youngs_modulus=1e6, normal=(0.0, 0.0, 1.0))
    scene.add(sm.Gravity())
    sim = scene.compile(dt=1e-3, engine="unified",
                        newton=ImplicitOptions(analytic=analytic))
    ig = sim.implicit_integrator()
    text = implicit_source(ig._calls, ig.engine.kinds)
    assert SPLICE in IMPLICIT_SOURCE and SPLICE not in text
    assert text.count("\ndef evaluate(") == 1
    assert ("evaluate_fd" not in text) and ("def constrain(" not in text)
    assert ("forces_fd(T, bi, W, t)" in text) == analytic
