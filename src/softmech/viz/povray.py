"""Photorealistic stills and movies with POV-Ray (https://www.povray.org), scenes built with
vapory (pip package `vapory`) from the same bodies as the matplotlib views
(softmech.viz.geometry):

    if povray_available():
        render_still("snake.png", [RodBody.make("snake", x, r)], floor=0.0)
        render_movie("snake.mp4", frames, fps=25, floor=0.0)     # frames: lists of bodies

Rods are chains of spheres at the nodes joined by truncated cones (exact per-node radius, smooth
joints); boxes (BoxBody) as boxes; rigid bodies (SolidBody) as their mesh with smooth normals
where the shape is round; other bodies as their triangle mesh (mesh2). Bodies with
opacity < 1 are see-through (transmit) and cast no shadow. Lights: a soft key light above
and beside the camera (area light: soft shadows), a shadowless fill light, and sky light. The
camera frames the bounding box of all frames (geometry.frame_camera). POV-Ray is left-handed;
the camera's negative `right` vector shows our right-handed coordinates unmirrored.

The `povray` program is an operating-system package (Debian/Ubuntu: `apt-get install povray`),
not a Python one; every entry point checks for it first and raises PovrayNotAvailable saying
what is missing and how to install it.
"""
import os
import shutil
import subprocess
import tempfile

import numpy as np

from softmech import _checks
from softmech.io import atomic_output
from softmech.viz.geometry import BoxBody, RodBody, View, bounds_of, frame_camera, refine_centerline
from softmech.viz.solids import SolidBody
from softmech.viz.tubes import FLOOR_COLORS, floor_extent

EXECUTABLE = "povray"
MAX_PIXELS = 8192
"""Largest width or height [px] accepted."""
INSTALL_HINT = ("install POV-Ray with `sudo apt-get install povray` (Debian/Ubuntu), "
                "`brew install povray` (macOS) or from https://www.povray.org/download/, or use "
                "the matplotlib tubes (style 'tubes') instead")


class PovrayNotAvailable(RuntimeError):
    """POV-Ray (the program) or vapory (the Python package) is missing."""


def _missing(executable=EXECUTABLE):
    """What is missing for POV-Ray renders (a message), or None."""
    try:
        import vapory  # noqa: F401
    except ImportError:
        return ("the Python package 'vapory' is not installed: `pip install vapory` (or "
                "`pip install softmech[render]`)")
    if shutil.which(executable) is None:
        return (f"the POV-Ray program {executable!r} was not found on the PATH: "
                + INSTALL_HINT)
    return None


def povray_available(executable=EXECUTABLE):
    """True when POV-Ray renders can run: vapory imports and `executable` is on the PATH."""
    return _missing(executable) is None


def require_povray(executable=EXECUTABLE):
    """Raise PovrayNotAvailable with what is missing and how to install it; returns the full
    path of the POV-Ray program otherwise."""
    problem = _missing(executable)
    if problem is not None:
        raise PovrayNotAvailable(f"POV-Ray rendering is not available: {problem}")
    return shutil.which(executable)


def check_settings(width, height, quality, antialias):
    """Validated (width, height) [px] in [16, MAX_PIXELS], quality 0..11 (POV-Ray +Q: 9 =
    full, 4 = no shadows), antialias threshold in [0, 3] (0 = off; smaller = finer)."""
    width = _checks.integer("width", width, 16)
    height = _checks.integer("height", height, 16)
    for name, value in (("width", width), ("height", height)):
        if value > MAX_PIXELS:
            raise ValueError(f"{name} = {value} is not allowed: must be <= {MAX_PIXELS} pixels")
    quality = _checks.integer("quality", quality, 0)
    if quality > 11:
        raise ValueError(f"quality = {quality} is not allowed: must be an integer in 0..11")
    antialias = float(_checks.nonnegative("antialias", antialias))
    if antialias > 3.0:
        raise ValueError(f"antialias = {antialias} is not allowed: must be in [0, 3] (0 = off)")
    return width, height, quality, antialias


# ------------------------------------------------------------------------------------ the scene
def _finish(vapory):
    return vapory.Finish("ambient", 0.08, "diffuse", 0.75, "specular", 0.35, "roughness", 0.02,
                         "phong", 0.25, "phong_size", 60)


def linear_rgb(color):
    """sRGB colour (in [0, 1]) -> linear RGB, the space POV-Ray computes in (assumed_gamma 1)."""
    c = np.asarray(color, dtype=float)
    return list(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4))


def _texture(vapory, color, opacity=1.0):
    """Texture of colour `color` (sRGB in [0, 1]); opacity < 1: see-through (POV-Ray transmit
    1 - opacity)."""
    if opacity >= 1.0:
        return vapory.Texture(vapory.Pigment("color", "rgb", linear_rgb(color)), _finish(vapory))
    return vapory.Texture(vapory.Pigment("color", "rgbt", linear_rgb(color) + [1.0 - opacity]),
                          _finish(vapory))


def _material(vapory, body):
    """Texture of a body, and no_shadow for see-through ones (a ghost casts no shadow)."""
    opacity = getattr(body, "opacity", 1.0)
    texture = _texture(vapory, body.color, opacity)
    return [texture] if opacity >= 1.0 else [texture, "no_shadow"]


REFINE = 4
"""Points per element of the spline through the nodes that rods are drawn along (smooth
highlights where the centreline bends)."""


def rod_objects(vapory, body):
    """POV-Ray objects of a RodBody: a union (a merge when see-through) of spheres and cones
    along a cubic spline through the nodes (REFINE points per element; radius interpolated
    between the nodes)."""
    x, r = refine_centerline(body.positions, body.radius, REFINE, body.closed)
    parts = [vapory.Sphere(list(p), float(ri)) for p, ri in zip(x, r)]
    pairs = list(zip(range(len(x) - 1), range(1, len(x))))
    if body.closed:
        pairs.append((len(x) - 1, 0))
    for i, j in pairs:
        if np.linalg.norm(x[j] - x[i]) > 1e-9 * max(r[i], r[j]):
            parts.append(vapory.Cone(list(x[i]), float(r[i]), list(x[j]), float(r[j])))
    # a see-through rod is a merge (no inner surfaces between the overlapping pieces)
    group = vapory.Union if getattr(body, "opacity", 1.0) >= 1.0 else vapory.Merge
    return group(*parts, *_material(vapory, body))


def mesh_objects(vapory, body):
    """Any body with a triangle mesh (vertices, faces): a POV-Ray mesh2."""
    vertices, faces = body.mesh()
    return vapory.Mesh2(vapory.VertexVectors(len(vertices), *[list(v) for v in vertices]),
                        vapory.FaceIndices(len(faces), *[list(map(int, f)) for f in faces]),
                        *_material(vapory, body))


def solid_objects(vapory, body):
    """A rigid body (softmech.viz.solids.SolidBody): its mesh as a mesh2, with vertex normals
    where the shape is smooth (sphere, cylinder side) so it shades round."""
    from softmech.viz.solids import SIDES

    vertices, faces, normals = body.smooth_mesh(2 * SIDES)
    parts = [vapory.VertexVectors(len(vertices), *[list(v) for v in vertices])]
    if normals is not None:
        parts.append(vapory.NormalVectors(len(normals), *[list(n) for n in normals]))
    parts.append(vapory.FaceIndices(len(faces), *[list(map(int, f)) for f in faces]))
    return vapory.Mesh2(*parts, *_material(vapory, body))


def box_objects(vapory, body):
    """A BoxBody: a POV-Ray box."""
    return vapory.Box(list(body.lo), list(body.hi), *_material(vapory, body))


BUILDERS = {RodBody: rod_objects, BoxBody: box_objects, SolidBody: solid_objects}
"""Body type -> function (vapory, body) -> POV-Ray object; other types use mesh_objects. A new
body type (a shell) registers its own builder here or relies on its mesh."""


def pov_scene(bodies, camera, *, floor=None, view=View(), bounds=None):
    """vapory.Scene of bodies seen by `camera` (geometry.Camera): lights placed from the
    camera's side, sky light, a checker floor at height `floor` [m] along view.up (None: none);
    bounds (lo, hi) [m]: the box that sets the lights' distance and the checker size."""
    require_povray()
    import vapory

    lo, hi = bounds if bounds is not None else bounds_of([bodies])
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    _, _, up = view.basis()
    centre = 0.5 * (lo + hi)
    to_camera = camera.location - camera.look_at
    distance = float(np.linalg.norm(to_camera))
    eye = to_camera / distance
    right = np.cross(-eye, up)
    right /= np.linalg.norm(right)
    key_dir = 0.5 * eye + 0.9 * up - 0.8 * right       # shadows fall beside the bodies
    key_dir /= np.linalg.norm(key_dir)
    size = max(float(np.linalg.norm(hi - lo)), 1e-6)
    key = vapory.LightSource(list(centre + 2.5 * distance * key_dir), "color", "rgb",
                             [1.0, 0.98, 0.95],
                             "area_light", list(0.4 * size * right), list(0.4 * size * eye),
                             5, 5, "adaptive", 1, "jitter", "orient", "circular")
    fill = vapory.LightSource(list(centre + 2.0 * distance * (eye + 0.6 * right + 0.3 * up)),
                              "color", "rgb", [0.35, 0.37, 0.42], "shadowless")
    objects = [key, fill]
    # pale at the horizon, blue towards the zenith, mirrored below (no seam at the horizon):
    # the gradient runs over [-1, 1] along up
    horizon, zenith = ("<%.4f, %.4f, %.4f>" % tuple(linear_rgb(c))
                       for c in ([0.99, 0.99, 1.0], [0.72, 0.80, 0.92]))
    objects.append(vapory.SkySphere(vapory.Pigment(
        "gradient", list(up), "color_map",
        "{ [0.0 color rgb %s] [0.5 color rgb %s] [1.0 color rgb %s] }" % (zenith, horizon, zenith),
        "scale", 2.0, "translate", list(-np.asarray(up, float)))))
    if floor is not None:
        floor = float(_checks.finite("floor", floor))
        _, square = floor_extent(lo, hi, view)
        objects.append(vapory.Plane(list(up), floor, vapory.Texture(
            vapory.Pigment("checker", "color", "rgb", linear_rgb(FLOOR_COLORS[0]), "color", "rgb",
                           linear_rgb(FLOOR_COLORS[1]), "scale", square),
            vapory.Finish("ambient", 0.12, "diffuse", 0.8, "reflection", 0.04))))
    for body in bodies:
        objects.append(BUILDERS.get(type(body), mesh_objects)(vapory, body))
    pov_camera = vapory.Camera("perspective", "location", list(camera.location),
                               "sky", list(camera.sky), "up", list(camera.sky),
                               "right", [-camera.aspect, 0, 0], "angle", camera.angle,
                               "look_at", list(camera.look_at))
    settings = ["assumed_gamma", 1.0, "ambient_light", "rgb <0.9, 0.9, 0.9>"]
    return vapory.Scene(pov_camera, objects=objects, included=["colors.inc"],
                        global_settings=settings)


def run_povray(scene, path, *, width, height, quality=9, antialias=0.3, timeout=600.0,
               executable=EXECUTABLE):
    """Render a vapory.Scene (or POV-Ray scene text) to `path` (PNG) atomically; returns path.
    Raises RuntimeError with POV-Ray's last messages when it fails."""
    program = require_povray(executable)
    width, height, quality, antialias = check_settings(width, height, quality, antialias)
    with tempfile.TemporaryDirectory(prefix="softmech-povray-") as work, \
            atomic_output(path) as tmp:
        source = os.path.join(work, "scene.pov")
        with open(source, "w") as f:
            f.write(str(scene))
        command = [program, f"+I{source}", f"+O{tmp}", f"+W{width}", f"+H{height}",
                   f"+Q{quality}", "+FN", "-D", "-V", "+WL0"]
        command += [f"+A{antialias:g}", "+AM2", "+R3"] if antialias > 0 else ["-A"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0 or not os.path.getsize(tmp):
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-12:])
            raise RuntimeError(f"POV-Ray failed (exit code {done.returncode}) rendering "
                               f"{path}:\n{tail}")
    return path


def render_still(path, bodies, *, view=View(), floor=None, width=960, height=540, quality=9,
                 antialias=0.3, bounds=None, angle=35.0):
    """Photorealistic still (PNG) of bodies (a list of RodBody, ...), camera framed on `bounds`
    (lo, hi) [m] (default the bodies' box); floor: checker floor height [m] along view.up, or
    None. Returns path. Raises PovrayNotAvailable when POV-Ray is missing."""
    require_povray()
    width, height, quality, antialias = check_settings(width, height, quality, antialias)
    lo, hi = bounds if bounds is not None else bounds_of([bodies])
    camera = frame_camera(lo, hi, view, aspect=width / height, angle=angle)
    scene = pov_scene(bodies, camera, floor=floor, view=view, bounds=(lo, hi))
    return run_povray(scene, path, width=width, height=height, quality=quality,
                      antialias=antialias)


def render_movie(path, frames, *, fps=25.0, view=View(), floor=None, width=640, height=368,
                 quality=9, antialias=0.3, angle=35.0, follow=False, progress=None):
    """Movie (.mp4; GIF fallback, see video.write_video) of frames (a list, one per picture, of
    lists of bodies) rendered with POV-Ray, one camera framed on all frames, or with
    follow=True a camera that keeps its distance (set by the largest frame) and moves with the
    centre of each frame's box (for bodies that travel far). progress: a callable called once
    per rendered frame. Returns the path written."""
    from softmech.viz.video import write_video

    require_povray()
    width, height, quality, antialias = check_settings(width, height, quality, antialias)
    fps = float(_checks.positive("fps", fps))
    frames = list(frames)
    boxes = [bounds_of([bodies]) for bodies in frames]
    if follow:
        half = 0.5 * np.max([hi - lo for lo, hi in boxes], axis=0)
        boxes = [(0.5 * (lo + hi) - half, 0.5 * (lo + hi) + half) for lo, hi in boxes]
    else:
        boxes = [bounds_of(frames)] * len(frames)
    cameras = [frame_camera(lo, hi, view, aspect=width / height, angle=angle)
               for lo, hi in boxes]

    def pictures():
        import imageio.v2 as imageio

        with tempfile.TemporaryDirectory(prefix="softmech-movie-") as work:
            for i, bodies in enumerate(frames):
                png = os.path.join(work, f"frame{i:05d}.png")
                run_povray(pov_scene(bodies, cameras[i], floor=floor, view=view,
                                     bounds=boxes[i]),
                           png, width=width, height=height, quality=quality,
                           antialias=antialias)
                yield np.asarray(imageio.imread(png))[..., :3]
                if progress is not None:
                    progress()

    # seconds a frame: the encoder's pace does not matter, the file's size does
    return write_video(pictures(), path, fps=fps, encoder="compact")
