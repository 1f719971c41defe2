"""`softmech run snake` (the default demo): the files and the JSON summary, the video frames
subsampled from the recorded body positions, the video fallback, and the published gait's
mean forward speed against the course reference (ME498 handout, section 2.2.6 and Table 2)."""
import argparse
import json
import os

import numpy as np
import pytest

from softmech.commands import run
from softmech.resultsfile import load_results
from softmech.scenarios import DEFAULT_SCENE, SCENES
from softmech.scenarios.snake import (REFERENCE_SPEED, averaging_window, mean_velocities,
                                      travel_velocities)
from softmech.viz import snake as viz
from softmech.viz import video


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech run")
    run.add_arguments(parser)
    return parser.parse_args(argv)


def test_snake_is_the_default_scene():
    assert DEFAULT_SCENE == "snake" and "snake" in SCENES
    assert parse([]).scene == "snake"


def run_json(argv, capsys):
    assert run.execute(parse(argv)) == 0
    return json.loads(capsys.readouterr().out)     # --json: stdout is exactly one JSON object


def test_short_snake_run_writes_plots_video_and_json(tmp_path, capsys):
    out = tmp_path / "snake"
    summary = run_json(["snake", "--output", str(out), "--json", "--quiet", "--duration", "0.4"],
                       capsys)
    assert {"mean_forward_speed", "mean_lateral_speed", "output_dir", "files",
            "reference_speed"} <= set(summary)
    assert os.path.samefile(summary["output_dir"], out)
    assert summary["reference_speed"] == REFERENCE_SPEED
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "com_track.png", "velocities.png", "energy.png"} <= names
    assert names & {"snake.mp4", "snake.gif"}
    for f in summary["files"]:
        with open(f, "rb") as fh:
            head = fh.read(12)
        if f.endswith(".png"):
            assert head[:8] == b"\x89PNG\r\n\x1a\n"
        elif f.endswith(".mp4"):
            assert head[4:8] == b"ftyp"                 # ISO base media file
        elif f.endswith(".gif"):
            assert head[:6] == b"GIF89a"
    data = load_results(out / "results.h5")
    time, com = data["time"], data["snake.com"]
    # samples (centre of mass, body) every 0.01 s from t = 0 to the end
    np.testing.assert_allclose(np.diff(time), 0.01, rtol=1e-9)
    assert data["snake.positions"].shape == (1, len(time), 51, 3)
    assert data["snake.com_velocity"].shape == com.shape == (1, len(time), 3)
    # the summary's speeds are the mean velocities of the saved track over the window
    # (a run shorter than 6 periods averages over its second half)
    first, last = averaging_window(0.4, 1.0)
    assert list(data["averaging_window"]) == pytest.approx([first, last])
    forward, lateral = mean_velocities(time, com, 1.0, first, last)
    assert summary["mean_forward_speed"] == float(forward[0])
    assert summary["mean_lateral_speed"] == float(lateral[0])


def test_travel_frame_of_a_straight_wavy_track():
    # a track at 30 deg, 0.5 m/s, with a sideways oscillation of whole periods (the gait's): the
    # direction of travel is 30 deg, the forward speed 0.5 m/s and the lateral mean 0, exactly
    # up to the sampling (the oscillation averages out over whole periods)
    time = np.arange(0.0, 6.0 + 1e-9, 0.01)
    angle = np.radians(30.0)
    along, across = 0.5 * time, 0.05 * np.sin(2.0 * np.pi * time)
    com = np.zeros((1, len(time), 3))
    com[0, :, 0] = along * np.cos(angle) - across * np.sin(angle)
    com[0, :, 1] = along * np.sin(angle) + across * np.cos(angle)
    forward, lateral, heading = travel_velocities(time, com, 1.0)
    np.testing.assert_allclose([forward[0], lateral[0], heading[0]], [0.5, 0.0, 30.0], atol=1e-9)


def test_travel_frame_of_a_track_that_turns():
    # straight along +x at v = 1 m/s until t = 3 s, then along theta = 20 deg. The mean positions
    # over the second period and the sixth are (1.5, 0) and (3 + 2.5 cos theta, 2.5 sin theta),
    # so the heading is atan2(2.5 sin theta, 1.5 + 2.5 cos theta); over t = 3..6 s the snake moves
    # by 3 (cos theta, sin theta), whose components along and across that heading (h) are
    # cos(theta - h) and sin(theta - h) m/s.
    time = np.arange(0.0, 6.0 + 1e-9, 0.001)
    theta = np.radians(20.0)
    late = np.clip(time - 3.0, 0.0, None)
    com = np.zeros((2, len(time), 3))
    com[:, :, 0] = np.minimum(time, 3.0) + late * np.cos(theta)
    com[:, :, 1] = late * np.sin(theta)
    com[1, :, 1] *= -1.0                                # the mirror image turns the other way
    forward, lateral, heading = travel_velocities(time, com, 1.0)
    h = np.arctan2(2.5 * np.sin(theta), 1.5 + 2.5 * np.cos(theta))
    # the period means are sampled (1000 samples each, half-open): tolerance 1e-3
    np.testing.assert_allclose(heading, [np.degrees(h), -np.degrees(h)], atol=1e-3 * 180 / np.pi)
    np.testing.assert_allclose(forward, np.cos(theta - h), atol=1e-3)
    np.testing.assert_allclose(lateral, [np.sin(theta - h), -np.sin(theta - h)], atol=1e-3)
    # the lab-frame mean_velocities keeps the whole heading: (cos theta, sin theta)
    fx, fy = mean_velocities(time, com, 1.0)
    np.testing.assert_allclose(fy, [np.sin(theta), -np.sin(theta)], atol=1e-12)


def test_travel_frame_needs_three_whole_periods():
    time = np.arange(0.0, 2.5, 0.01)
    com = np.zeros((1, len(time), 3))
    com[0, :, 0] = time
    assert all(np.isnan(v[0]) for v in travel_velocities(time, com, 1.0, 1.25, 2.5))


def test_video_frames_every_fourth_sample_and_the_last():
    # samples every 0.01 s, frames every 0.04 s (25 frames/s of simulated time) and the end
    time = np.r_[np.arange(0.0, 0.5, 0.01), 0.5]
    positions = np.arange(len(time))[:, None] * np.ones((1, 3))
    frame_time, frames = run.video_frames(time, positions, 0.04)
    np.testing.assert_allclose(frame_time, np.r_[np.arange(0.0, 0.5, 0.04), 0.5], atol=1e-12)
    np.testing.assert_array_equal(frames[:, 0], np.r_[np.arange(0, 51, 4), 50])
    one, = run.video_frames(time[:1], positions[:1], 0.04)[0]
    assert one == 0.0


def test_averaging_window():
    assert averaging_window(6.0, 1.0) == (3.0, 6.0)         # the handout's periods 3-6
    assert averaging_window(12.0, 2.0) == (3.0, 6.0)
    assert averaging_window(2.0, 1.0) == (1.0, 2.0)         # shorter: the second half
    assert averaging_window(0.4, 1.0) == pytest.approx((0.2, 0.4))


def test_video_falls_back_to_gif(tmp_path, monkeypatch):
    frames = [np.full((32, 48, 3), 40 * i, dtype=np.uint8) for i in range(5)]

    def broken(*args, **kwargs):
        raise RuntimeError("no ffmpeg")

    monkeypatch.setattr(video, "_write_mp4", broken)
    with pytest.warns(RuntimeWarning, match="no ffmpeg"):
        path = video.write_video(iter(frames), str(tmp_path / "clip.mp4"), fps=10)
    assert path == str(tmp_path / "clip.gif") and not os.path.exists(tmp_path / "clip.mp4")
    import imageio.v2 as imageio
    back = imageio.mimread(path)
    assert len(back) == 5 and back[0].shape[:2] == (32, 48)
    with pytest.raises(ValueError, match="mp4"):
        video.write_video(frames, str(tmp_path / "clip.avi"))


def test_body_outline_has_the_body_width():
    # a straight body along x of radius r: the outline spans y in [-r, r] and x in [0, L]
    x = np.stack([np.linspace(0, 1, 11), np.zeros(11), np.zeros(11)], axis=1)
    outline = viz.body_outline(x, 0.025)
    assert outline.shape == (23, 2)
    np.testing.assert_allclose([outline[:, 1].min(), outline[:, 1].max()], [-0.025, 0.025])
    np.testing.assert_allclose([outline[:, 0].min(), outline[:, 0].max()], [0.0, 1.0])
    # the outlines of a video's frames at once are each frame's own, number for number
    rng = np.random.default_rng(1)
    frames = np.cumsum(rng.normal(size=(4, 11, 3)), axis=1)
    for radius in (0.025, rng.uniform(0.01, 0.03, (11, 1))):
        batch = viz.body_outline(frames, radius)
        assert batch.shape == (4, 23, 2)
        assert all(np.array_equal(b, viz.body_outline(f, radius)) for b, f in zip(batch, frames))


def test_default_demo_reproduces_the_reference_speed(tmp_path, capsys):
    # Issue 3 / ME498 handout 2.2.6: the published optimum (beta = 0, 17.4, 48.5, 5.4, 14.7, 0 N m,
    # lambda = 0.97 m) moves the Table 2 snake at a mean forward speed within +-10 % of the
    # course's 0.585 m/s over periods 3-6 (measured 0.579 m/s, docs/snake.md); the lateral mean
    # must stay small: below 20 % of the forward one (measured -0.064 m/s, a heading offset
    # from the start-up transient)
    summary = run_json(["--output", str(tmp_path), "--json", "--quiet"], capsys)
    assert summary["scene"] == "snake"
    assert abs(summary["mean_forward_speed"] - 0.585) <= 0.1 * 0.585
    assert abs(summary["mean_lateral_speed"]) < 0.2 * summary["mean_forward_speed"]
    # The course's lateral speed (optimized_snake.dat, about -0.004 m/s over periods 3-6) is
    # measured across the snake's direction of travel (travel_velocities: the reference
    # implementation's post-processing), not along the lab's y axis, so the start-up's heading
    # (-5.8 deg) drops out. The course gives no scatter; tolerance 0.01 m/s, 1.7 % of the forward
    # speed, i.e. a track that bends by about 1 deg away from a straight line over the window
    # (measured -0.0050 m/s; without the start ramp +0.0005 m/s; docs/snake.md). Along the
    # direction of travel the forward speed must also be within 10 % of 0.585 (measured 0.5821).
    assert abs(summary["travel_lateral_speed"] - (-0.004)) <= 0.01
    assert abs(summary["travel_forward_speed"] - 0.585) <= 0.1 * 0.585
    assert abs(summary["travel_heading"]) < 20.0
