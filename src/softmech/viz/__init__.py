"""Plots and videos made from recorded arrays (softmech.viz.snake, softmech.viz.video)."""
from softmech.viz.figures import figure, save
from softmech.viz.video import figure_frames, write_gif, write_video

__all__ = ["figure", "save", "figure_frames", "write_video", "write_gif"]
