"""The page of `softmech view` in a real browser: headless Chromium (the Debian package, which
.ci/run installs) opens the page of the snake demo's run, the scene is drawn (pixels of the snake's
colour in the 3D view), and moving the slider (the page's #frame=K) changes the picture.

Skipped only where no chromium is installed, unless SOFTMECH_REQUIRE_BROWSER=1 (as in .ci/run),
which makes a missing browser a failure."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from softmech.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("SOFTMECH_REQUIRE_BROWSER") == "1":
    raise RuntimeError("SOFTMECH_REQUIRE_BROWSER=1 but chromium is not installed "
                       "(apt-get install chromium)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

SIZE = (1280, 800)


def chromium(tmp_path, *args):
    """Run headless Chromium (WebGL by SwiftShader, no GPU needed) with its own profile."""
    profile = tmp_path / "profile"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--use-angle=swiftshader",
               "--enable-unsafe-swiftshader", "--hide-scrollbars", "--no-first-run",
               f"--user-data-dir={profile}", f"--window-size={SIZE[0]},{SIZE[1]}",
               "--virtual-time-budget=30000", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def screenshot(tmp_path, page, frame, name):
    """RGB pixels (H, W, 3) of the page showing frame `frame`."""
    import imageio.v3 as iio

    png = tmp_path / name
    chromium(tmp_path, f"--screenshot={png}", f"file://{page}#frame={frame}")
    assert png.exists(), f"chromium wrote no screenshot of frame {frame}"
    return iio.imread(png)[..., :3].astype(int)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page of the 6 s snake demo (softmech run snake, then softmech view --html): 601
    samples shown as 151 frames (25 per simulated second), well under 20 MB."""
    folder = tmp_path_factory.mktemp("snake")
    assert main(["run", "snake", "--output", str(folder / "run"), "--quiet"]) == 0
    html = folder / "snake.html"
    assert main(["view", str(folder / "run" / "results.h5"), "--html", str(html),
                 "--quiet"]) == 0
    assert os.path.getsize(html) < 20e6
    return html


def snake_pixels(rgb):
    """Mask of the pixels of the 3D view (the left 60 % of the page, below the title) that have
    the snake's orange (softmech.viz.geometry.PALETTE[0], shaded): red well above green and
    blue; the floor, the axes and the background are grey or white."""
    view = np.zeros(rgb.shape[:2], bool)
    view[150:650, : int(0.6 * rgb.shape[1])] = True
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return view & (r > g + 40) & (g > b + 20) & (r > 120)


def test_page_draws_the_snake_and_the_slider_moves_it(page, tmp_path):
    dom = chromium(tmp_path, "--dump-dom", f"file://{page}#frame=100").stdout
    title = re.search(r"<title>(.*?)</title>", dom).group(1)
    assert title == "softmech view: snake [frame 100]"     # the page's script showed frame 100
    first = screenshot(tmp_path, page, 0, "first.png")
    last = screenshot(tmp_path, page, 100, "last.png")     # t = 4 s: the snake has moved 1.7 m
    assert first.shape[:2] == (SIZE[1], SIZE[0])
    at_first, at_last = snake_pixels(first), snake_pixels(last)
    assert at_first.sum() > 100 and at_last.sum() > 100     # the snake is drawn, in colour
    rows, cols = np.nonzero(at_first)
    rows2, cols2 = np.nonzero(at_last)
    moved = np.hypot(rows.mean() - rows2.mean(), cols.mean() - cols2.mean())
    assert moved > 30, f"the snake's pixels moved {moved:.1f} px between frames 0 and 100"
    assert np.abs(first - last).sum(axis=-1).astype(bool)[150:650].sum() > 1000
