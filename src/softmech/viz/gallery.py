"""The gallery of built-in scenes: for every scene of softmech.scenarios.SCENES a short run, a
still (PNG) and a small video, and the page docs/gallery.md that shows them.

    python docs/gallery/build_gallery.py          # or: build_gallery("docs/gallery")

Pictures are POV-Ray renders when POV-Ray is installed, matplotlib tubes otherwise (the page
says which). Each video lasts a few seconds at modest resolution (well under 2 MB).
"""
import os
from dataclasses import dataclass, replace

import numpy as np

from softmech import _checks
from softmech.progress import progress_bar
from softmech.viz.geometry import RodBody, View, check_opacity

FPS = 15.0
STILL_SIZE = (768, 432)
VIDEO_SIZE = (512, 288)
VIDEO_SECONDS = 5.0
"""Length of each video [s]: the run is shown sped up or slowed down to last about this long."""


@dataclass(frozen=True)
class Shot:
    """How a scene is filmed: simulated duration [s] (None: the scene's, at most 5 s), the
    camera view, whether the POV-Ray camera follows the bodies (softmech.viz.povray), props: a
    function (RenderData) -> list of static bodies drawn in every frame (a clamp wall, the
    initial centreline; None: none), rod_opacity in (0, 1] (below 1: see-through rods),
    centrelines: also draw each rod's current centreline as a thin dark line (seen through
    see-through rods), note: a function (RenderData) -> text added to the page's caption
    (what the props show, measured values; None: nothing), and video_style: "tubes" to film
    the video with matplotlib even when the still is a POV-Ray render (see-through POV-Ray
    frames cost minutes each on 2 cores), None for the still's style."""
    duration: float = None
    view: View = View()
    follow: bool = False
    props: object = None
    rod_opacity: float = 1.0
    centrelines: bool = False
    note: object = None
    video_style: str = None

    def __post_init__(self):
        check_opacity("rod_opacity", self.rod_opacity)
        if self.video_style is not None:
            _checks.choice("video_style", self.video_style, {"povray", "tubes"})


LINE_RADIUS = 0.05
"""Radius of centreline lines (see lines) as a fraction of the rod's largest radius [-]."""
LINE_COLORS = {"current": (0.45, 0.08, 0.02), "initial": (0.12, 0.20, 0.45)}
"""Colours (RGB in [0, 1]) of the current and the initial centreline lines."""


def lines(bodies, color, suffix="centreline"):
    """Thin opaque tubes (RodBody, radius LINE_RADIUS x the rod's largest radius [m], colour
    `color`) along the centrelines of RodBody bodies (other bodies are skipped)."""
    return [RodBody.make(f"{b.name} {suffix}", b.positions, LINE_RADIUS * float(b.radius.max()),
                         closed=b.closed, color=color)
            for b in bodies if isinstance(b, RodBody)]


def dress(bodies, shot):
    """Bodies of one frame as `shot` shows them: rods at shot.rod_opacity, plus their
    centrelines when shot.centrelines."""
    out = [replace(b, opacity=shot.rod_opacity) if isinstance(b, RodBody) else b
           for b in bodies]
    return out + (lines(bodies, LINE_COLORS["current"]) if shot.centrelines else [])


def clamp_wall(data, rod, *, end="first", thickness=1.2, height=3.0, depth=2.4):
    """A wall (BoxBody) that end `end` ('first' or 'last') of rod `rod` is clamped in, at its
    initial position and normal to its initial end tangent (which must lie along a coordinate
    axis k): `thickness` x the end radius behind the end (so the rounded end is hidden), and
    `height` (along axis k + 1) and `depth` (along axis k + 2) x the end radius on each side of
    the rod (ratios, [-])."""
    from softmech.viz.geometry import BoxBody
    from softmech.viz.source import bodies_at

    _checks.choice("end", end, {"first", "last"})
    for name, value in (("thickness", thickness), ("height", height), ("depth", depth)):
        _checks.positive(name, value)
    body = next((b for b in bodies_at(data, 0) if b.name == rod), None)
    if body is None:
        raise ValueError(f"rod = {rod!r} is not allowed: no recorded positions of it")
    x, r = body.positions, body.radius
    tip, inner, radius = (x[0], x[1], r[0]) if end == "first" else (x[-1], x[-2], r[-1])
    outward = (tip - inner) / np.linalg.norm(tip - inner)
    k = int(np.argmax(np.abs(outward)))
    if abs(outward[k]) < 1.0 - 1e-6:
        raise ValueError(f"rod = {rod!r} is not allowed: its {end} end does not point along a "
                         f"coordinate axis (tangent {np.round(outward, 6).tolist()})")
    lo, hi = tip - height * radius, tip + height * radius
    lo[k], hi[k] = sorted((tip[k], tip[k] + np.sign(outward[k]) * thickness * radius))
    others = [i for i in range(3) if i != k]
    lo[others[1]], hi[others[1]] = (tip[others[1]] - depth * radius,
                                    tip[others[1]] + depth * radius)
    return BoxBody.make(f"{rod} clamp", lo, hi)


def _cantilever_props(data):
    from softmech.viz.source import bodies_at

    return [clamp_wall(data, "beam"),
            *lines(bodies_at(data, 0), LINE_COLORS["initial"], "initial centreline")]


def _cantilever_note(data):
    x = data.results["beam.positions"][0]
    sag = 100.0 * float(x[0, -1, 1] - x[-1, -1, 1])
    return (f"Side view at true scale (nothing exaggerated), the beam drawn see-through: its "
            f"centreline (dark red) bends away from the initial straight centreline (dark "
            f"blue) and the free end sags {sag:.1f} cm; the grey block is the clamp.")


SHOTS = {"cantilever": Shot(duration=20.0, view=View(up="y", elevation=0.0, azimuth=0.0),
                            props=_cantilever_props, rod_opacity=0.55, centrelines=True,
                            note=_cantilever_note, video_style="tubes"),
         "snake": Shot(duration=4.0, view=View(elevation=30.0), follow=True)}
"""Per-scene settings; scenes not listed get Shot()."""


def simulate(name, duration=None):
    """Run built-in scene `name` (world 0 only) for `duration` [s], recording node positions
    (and rigid bodies' poses) about FPS times per second of video; returns RenderData
    (softmech.viz.source) with the scene's rigid bodies and joints."""
    import softmech as sm
    from softmech.recording import rods_of
    from softmech.scenarios import SCENES
    from softmech.viz.source import from_simulation

    _checks.choice("scene", name, SCENES)
    scene, info = SCENES[name].build()
    duration = float(duration or min(info.duration, VIDEO_SECONDS))
    sim = scene.compile(worlds=1, dt=info.dt)
    every = max(info.dt, duration / (VIDEO_SECONDS * FPS))
    fields = tuple(f"{rod.name}.positions" for rod in rods_of(sim)) + tuple(
        f"{b.name}.{f}" for b in sim.rigid_bodies for f in ("positions", "directors"))
    out = sim.run(duration, record=sm.Every(seconds=every, fields=fields))
    return from_simulation(sim, out, attrs={"scene": name})


def render_scene(name, output_dir, *, style=None, progress=False):
    """Simulate scene `name` and write <name>.png (last sample) and <name>.mp4 (or .gif) into
    output_dir; returns (still, video, (still style, video style), simulated span [s], speed,
    note: caption text of the shot, or ""). style: 'povray' or 'tubes' (None: POV-Ray when
    available); a shot's video_style overrides it for the video."""
    from softmech.viz import povray, tubes
    from softmech.viz.source import bodies_at, frame_samples, ground_height
    from softmech.viz.video import write_video

    style = style or ("povray" if povray.povray_available() else "tubes")
    _checks.choice("style", style, {"povray", "tubes"})
    shot = SHOTS.get(name, Shot())
    video_style = shot.video_style or style
    data = simulate(name, shot.duration)
    floor = ground_height(data, 0, shot.view.up)
    span = float(data.time[-1] - data.time[0])
    speed = max(1.0, span / VIDEO_SECONDS)     # short runs in real time, long ones sped up
    samples = frame_samples(data.time, FPS, speed=speed)
    props = shot.props(data) if shot.props is not None else []
    frames = [props + dress(bodies_at(data, i), shot) for i in samples]
    note = shot.note(data) if shot.note is not None else ""
    still_path = os.path.join(output_dir, f"{name}.png")
    video_path = os.path.join(output_dir, f"{name}.mp4")
    bar = progress_bar(len(frames), progress, unit="frame", desc=name)
    tick = bar.update if bar is not None else None
    try:
        if style == "povray":
            still = povray.render_still(still_path, frames[-1], view=shot.view, floor=floor,
                                        width=STILL_SIZE[0], height=STILL_SIZE[1])
        else:
            still = tubes.plot_tubes(still_path, frames[-1], view=shot.view, floor=floor,
                                     size_px=STILL_SIZE, title=f"{name}, t = "
                                     f"{data.time[samples[-1]]:.2f} s")
        if video_style == "povray":
            video = povray.render_movie(video_path, frames, fps=FPS, view=shot.view,
                                        floor=floor, width=VIDEO_SIZE[0],
                                        height=VIDEO_SIZE[1], quality=9, antialias=0.3,
                                        follow=shot.follow, progress=tick)
        else:
            video = write_video(tubes.tube_frames(frames, times=data.time[samples],
                                                  view=shot.view, floor=floor, title=name,
                                                  size_px=VIDEO_SIZE, progress=tick),
                                video_path, fps=FPS)
    finally:
        if bar is not None:
            bar.close()
    return still, video, (style, video_style), span, speed, note


def page_sections(text):
    """The scene sections of a gallery page: {scene name: its lines, from its '## name'
    heading up to the next heading}."""
    sections, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            sections[name] = []
        if name is not None:
            sections[name].append(line)
    return sections


def build_gallery(output_dir, page=None, *, scenes=None, style=None, progress=True):
    """Pictures and videos of `scenes` (default: all of SCENES) in output_dir, and the Markdown
    page `page` (default: output_dir/../gallery.md) showing them; returns the files written.
    The page lists the scenes in SCENES order; a scene not rendered this time keeps its section
    of the existing page (if the page has one), so rendering a subset drops no entry."""
    from softmech.io import atomic_output
    from softmech.scenarios import SCENES

    scenes = list(scenes or SCENES)
    for name in scenes:
        _checks.choice("scene", name, SCENES)
    os.makedirs(output_dir, exist_ok=True)
    page = page or os.path.join(os.path.dirname(os.path.abspath(output_dir)), "gallery.md")
    rel = os.path.relpath(os.path.abspath(output_dir), os.path.dirname(os.path.abspath(page)))
    old = {}
    if os.path.exists(page):
        with open(page) as f:
            old = page_sections(f.read())
    sections, files = {}, []
    for name in scenes:
        still, video, style_used, span, speed, note = render_scene(
            name, output_dir, style=style, progress=progress)
        files += [still, video]
        names = {"povray": "POV-Ray", "tubes": "matplotlib tubes"}
        how = f"rendered with {names[style_used[0]]}" if style_used[0] == style_used[1] else \
            f"picture rendered with {names[style_used[0]]}, video with {names[style_used[1]]}"
        description = SCENES[name].description
        sections[name] = [
            f"## {name}", "", f"{description[0].upper()}{description[1:]}.", "",
            f"[![{name}]({rel}/{os.path.basename(still)})]({rel}/{os.path.basename(video)})",
            "", f"*{span:.3g} s simulated, played at {speed:.3g}x real time; "
            f"{how}.{' ' + note if note else ''}*", ""]
    lines = ["# Gallery", "",
             "The built-in scenes (`softmech run SCENE`), each simulated briefly and rendered "
             "by `softmech.viz.gallery` (regenerate with `python docs/gallery/build_gallery.py`"
             " [SCENE ...]). Click a picture for its video.", ""]
    for name in SCENES:
        section = sections.get(name) or old.get(name) or []
        lines += section + ([""] if section and section[-1].strip() else [])
    with atomic_output(page) as tmp:
        with open(tmp, "w") as f:
            f.write("\n".join(lines).rstrip("\n") + "\n")
    return files + [page]
