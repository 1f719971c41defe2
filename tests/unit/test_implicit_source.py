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


def test_only_a_scene_with_blocks_of_eight_lanes_links_the_eight_lane_lu():
    """The eight-lane LU (lu_factor_eight, lu_solve_eight through lu_solve_block) is compiled
    where a block has eight lanes (Lanes.W == 8: 16 worlds on two threads); a scene of one world
    links the generic lu_factor and lu_solve under those names and does not compile them (~5.6 s
    of a cold start, docs/benchmarks.md). The results do not change: for W != 8 the eight-lane
    names ran the generic kernels before too, and a world's steps are the same bit for bit at
    B = 1 and 16 (test_der_kind.py: test_full_lanes_of_moving_twisting_worlds_equal_single_runs
    compares them)."""
    import softmech as sm
    from softmech.kernels.sparse_lu_eight import lu_factor_eight, lu_solve_block

    scene = sm.Scene()
    scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                      length=0.05, n_elems=5, radius=1e-3, density=1000.0,
                      youngs_modulus=1e6, normal=(0.0, 0.0, 1.0))
    scene.add(sm.Gravity())
    sims = {B: scene.compile(dt=1e-3, engine="unified", worlds=B) for B in (1, 16)}
    for B, sim in sims.items():
        module = sim.implicit_integrator().module
        assert (module.lu_factor_eight is lu_factor_eight) == (B == 16), B
        assert (module.lu_solve_block is lu_solve_block) == (B == 16), B
