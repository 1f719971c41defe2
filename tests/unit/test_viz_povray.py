"""POV-Ray renders (softmech.viz.povray): settings validation, the message when POV-Ray is
missing (simulated), the scene text, and tiny renders where POV-Ray is installed."""
import numpy as np
import pytest

from softmech.viz import povray
from softmech.viz.geometry import RodBody, View, frame_camera

needs_povray = pytest.mark.skipif(not povray.povray_available(),
                                  reason="POV-Ray (povray program and vapory) not installed")


def bodies():
    s = np.linspace(0.0, 1.0, 11)
    x = np.stack([s, 0.1 * np.sin(6 * s), np.full_like(s, 0.03)], axis=1)
    return [RodBody.make("a", x, 0.03), RodBody.make("b", x + [0, 0.3, 0.1], 0.02, index=1)]


@pytest.mark.parametrize("kwargs, match", [
    (dict(width=8), "width = 8"), (dict(height=10_000), "height = 10000"),
    (dict(quality=12), "quality = 12"), (dict(antialias=-1), "antialias"),
    (dict(antialias=4.0), "antialias = 4.0")])
def test_settings_are_validated(kwargs, match):
    settings = dict(width=64, height=48, quality=9, antialias=0.3) | kwargs
    with pytest.raises(ValueError, match=match):
        povray.check_settings(**settings)


def test_missing_povray_says_what_and_how(monkeypatch, tmp_path):
    monkeypatch.setattr(povray.shutil, "which", lambda name: None)
    assert not povray.povray_available()
    with pytest.raises(povray.PovrayNotAvailable, match="apt-get install povray") as err:
        povray.render_still(str(tmp_path / "x.png"), bodies())
    assert "'povray' was not found on the PATH" in str(err.value)
    assert not (tmp_path / "x.png").exists()


def test_missing_vapory_says_pip_install(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_vapory(name, *args, **kwargs):
        if name == "vapory":
            raise ImportError("simulated")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_vapory)
    with pytest.raises(povray.PovrayNotAvailable, match="pip install vapory"):
        povray.require_povray()


@pytest.mark.skipif(not povray.povray_available(), reason="vapory or povray missing")
def test_scene_text_has_camera_lights_floor_and_one_object_per_rod():
    cam = frame_camera(*bodies()[0].bounds(), View())
    text = str(povray.pov_scene(bodies(), cam, floor=0.0))
    assert text.count("light_source") == 2 and "checker" in text and "camera" in text
    assert text.count("union") == 2
    assert "plane" not in str(povray.pov_scene(bodies(), cam, floor=None))


def image(path):
    import imageio.v2 as imageio
    return np.asarray(imageio.imread(path))[..., :3].astype(int)


@needs_povray
def test_tiny_still_shows_the_rod_colours(tmp_path):
    path = povray.render_still(str(tmp_path / "s.png"), bodies(), floor=0.0, width=96,
                               height=64, quality=4, antialias=0)
    img = image(path)
    assert img.shape == (64, 96, 3)
    # orange-ish (red > blue) and blue-ish pixels: both rods are in the picture
    assert np.sum(img[..., 0] - img[..., 2] > 80) > 20
    assert np.sum(img[..., 2] - img[..., 0] > 60) > 5


@needs_povray
def test_tiny_movie(tmp_path):
    frames = [[RodBody.make("a", b.positions + [0.1 * k, 0, 0], 0.03)] for k, b in
              enumerate(bodies())]
    ticks = []
    path = povray.render_movie(str(tmp_path / "m.mp4"), frames, fps=5, width=64, height=48,
                               quality=2, antialias=0, progress=lambda: ticks.append(1))
    assert path.endswith((".mp4", ".gif")) and len(ticks) == 2
    assert count_frames(path) == 2


def count_frames(path):
    """Frames in an .mp4 (ffmpeg's count) or .gif."""
    import imageio.v2 as imageio
    if path.endswith(".gif"):
        return len(imageio.mimread(path))
    with imageio.get_reader(path, format="FFMPEG") as reader:
        return reader.count_frames()


@needs_povray
def test_povray_errors_are_reported(tmp_path):
    with pytest.raises(RuntimeError, match="POV-Ray failed"):
        povray.run_povray("this is not a scene {", str(tmp_path / "bad.png"), width=32,
                          height=32)
    assert not (tmp_path / "bad.png").exists()
