"""The gallery of built-in scenes: for every scene of softmech.scenarios.SCENES a short run, a
still (PNG) and a small video, and the page docs/gallery.md that shows them.

    python docs/gallery/build_gallery.py          # or: build_gallery("docs/gallery")

Pictures are POV-Ray renders when POV-Ray is installed, matplotlib tubes otherwise (the page
says which). Each video lasts a few seconds at modest resolution (well under 2 MB).
"""
import os
import sys
from dataclasses import dataclass

from softmech import _checks
from softmech.viz.geometry import View

FPS = 15.0
STILL_SIZE = (768, 432)
VIDEO_SIZE = (512, 288)
VIDEO_SECONDS = 5.0
"""Length of each video [s]: the run is shown sped up or slowed down to last about this long."""


@dataclass(frozen=True)
class Shot:
    """How a scene is filmed: simulated duration [s] (None: the scene's, at most 5 s), the
    camera view, and whether the POV-Ray camera follows the bodies (softmech.viz.povray)."""
    duration: float = None
    view: View = View()
    follow: bool = False


SHOTS = {"cantilever": Shot(duration=20.0, view=View(up="y", elevation=12.0, azimuth=-25.0)),
         "snake": Shot(duration=4.0, view=View(elevation=30.0), follow=True)}
"""Per-scene settings; scenes not listed get Shot()."""


def simulate(name, duration=None):
    """Run built-in scene `name` (world 0 only) for `duration` [s], recording node positions
    about FPS times per second of video; returns RenderData (softmech.viz.source)."""
    import softmech as sm
    from softmech.scenarios import SCENES
    from softmech.viz.source import from_results

    _checks.choice("scene", name, SCENES)
    scene, info = SCENES[name].build()
    duration = float(duration or min(info.duration, VIDEO_SECONDS))
    sim = scene.compile(worlds=1, dt=info.dt)
    every = max(info.dt, duration / (VIDEO_SECONDS * FPS))
    fields = tuple(f"{rod.name}.positions" for rod in sim.rods)
    out = sim.run(duration, record=sm.Every(seconds=every, fields=fields))
    return from_results(out, {r.name: sim.rod_params(r.name)["radius"] for r in sim.rods},
                        closed={r.name: r.closed for r in sim.rods}, attrs={"scene": name})


def render_scene(name, output_dir, *, style=None, progress=False):
    """Simulate scene `name` and write <name>.png (last sample) and <name>.mp4 (or .gif) into
    output_dir; returns (still, video, style used, simulated span [s], speed). style: 'povray' or 'tubes' (None: POV-Ray when
    available)."""
    from softmech.viz import povray, tubes
    from softmech.viz.source import bodies_at, frame_samples, ground_height
    from softmech.viz.video import write_video

    style = style or ("povray" if povray.povray_available() else "tubes")
    _checks.choice("style", style, {"povray", "tubes"})
    shot = SHOTS.get(name, Shot())
    data = simulate(name, shot.duration)
    floor = ground_height(data, 0, shot.view.up)
    span = float(data.time[-1] - data.time[0])
    speed = max(1.0, span / VIDEO_SECONDS)     # short runs in real time, long ones sped up
    samples = frame_samples(data.time, FPS, speed=speed)
    frames = [bodies_at(data, i) for i in samples]
    still_path = os.path.join(output_dir, f"{name}.png")
    video_path = os.path.join(output_dir, f"{name}.mp4")
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(frames), unit="frame", desc=name, file=sys.stderr)
    tick = bar.update if bar is not None else None
    try:
        if style == "povray":
            still = povray.render_still(still_path, frames[-1], view=shot.view, floor=floor,
                                        width=STILL_SIZE[0], height=STILL_SIZE[1])
            video = povray.render_movie(video_path, frames, fps=FPS, view=shot.view,
                                        floor=floor, width=VIDEO_SIZE[0],
                                        height=VIDEO_SIZE[1], quality=9, antialias=0.3,
                                        follow=shot.follow, progress=tick)
        else:
            still = tubes.plot_tubes(still_path, frames[-1], view=shot.view, floor=floor,
                                     size_px=STILL_SIZE, title=f"{name}, t = "
                                     f"{data.time[samples[-1]]:.2f} s")
            video = write_video(tubes.tube_frames(frames, times=data.time[samples],
                                                  view=shot.view, floor=floor, title=name,
                                                  size_px=VIDEO_SIZE, progress=tick),
                                video_path, fps=FPS)
    finally:
        if bar is not None:
            bar.close()
    return still, video, style, span, speed


def build_gallery(output_dir, page=None, *, scenes=None, style=None, progress=True):
    """Pictures and videos of `scenes` (default: all of SCENES) in output_dir, and the Markdown
    page `page` (default: output_dir/../gallery.md) showing them; returns the files written."""
    from softmech.io import atomic_output
    from softmech.scenarios import SCENES

    scenes = list(scenes or SCENES)
    for name in scenes:
        _checks.choice("scene", name, SCENES)
    os.makedirs(output_dir, exist_ok=True)
    page = page or os.path.join(os.path.dirname(os.path.abspath(output_dir)), "gallery.md")
    rel = os.path.relpath(os.path.abspath(output_dir), os.path.dirname(os.path.abspath(page)))
    lines = ["# Gallery", "",
             "The built-in scenes (`softmech run SCENE`), each simulated briefly and rendered "
             "by `softmech.viz.gallery` (regenerate with `python docs/gallery/build_gallery.py`"
             "). Click a picture for its video.", ""]
    files = []
    for name in scenes:
        still, video, style_used, span, speed = render_scene(name, output_dir, style=style,
                                                      progress=progress)
        files += [still, video]
        how = "POV-Ray" if style_used == "povray" else "matplotlib tubes"
        description = SCENES[name].description
        lines += [f"## {name}", "", f"{description[0].upper()}{description[1:]}.", "",
                  f"[![{name}]({rel}/{os.path.basename(still)})]"
                  f"({rel}/{os.path.basename(video)})", "",
                  f"*{span:.3g} s simulated, played at {speed:.3g}x real time; rendered with "
                  f"{how}.*", ""]
    with atomic_output(page) as tmp:
        with open(tmp, "w") as f:
            f.write("\n".join(lines))
    return files + [page]
