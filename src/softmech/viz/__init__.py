"""Plots, 3D views, renders and videos made from recorded arrays: softmech.viz.plots (any
recorded field against time), geometry (bodies, tube meshes, camera), solids (rigid bodies and
joints), tubes (matplotlib 3D),
povray (POV-Ray stills and movies), source (results files -> bodies), gallery, snake, video."""
from softmech.viz.figures import figure, save
from softmech.viz.video import figure_frames, write_gif, write_video

__all__ = ["figure", "save", "figure_frames", "write_video", "write_gif"]
