"""A test-only shell scene shared by the sparse-solver tests (test_sparse_solve.py,
test_multigrid.py)."""
import numpy as np

import softmech as sm
from softmech.bodies import meshes


def pressed_plate(pressure=20.0, bending="hinge", divisions=5):
    """A clamped shell plate (0.1 m, `divisions` a side; hinge or mid-edge bending, the rim's
    edge angles held too for mid-edge) under a pressure [Pa], released from rest: it moves, so
    the Newton matrix changes from step to step."""
    scene = sm.Scene()
    mesh = meshes.rectangle(0.1, 0.1, divisions)
    v = mesh.vertices
    rim = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 0.1) | (v[:, 1] <= 0) | (v[:, 1] >= 0.1))
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e7,
                            density=1000.0, bending=bending)
    angles = (np.flatnonzero(np.all(np.isin(shell.edges, rim), axis=1))
              if bending == "midedge" else ())
    scene.add(sm.FixNodes("plate", rim, angles=angles))
    scene.add(sm.ShellPressure("plate", pressure))
    return scene
