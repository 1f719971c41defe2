"""The gallery builder (softmech.viz.gallery) on a very short cantilever run, matplotlib style."""
import os

from softmech.viz import gallery
from softmech.viz.geometry import View


def test_gallery_writes_pictures_videos_and_the_page(tmp_path, monkeypatch):
    monkeypatch.setattr(gallery, "SHOTS", {"cantilever": gallery.Shot(
        duration=0.03, view=View(up="y"))})
    monkeypatch.setattr(gallery, "STILL_SIZE", (320, 176))
    monkeypatch.setattr(gallery, "VIDEO_SIZE", (160, 96))
    monkeypatch.setattr(gallery, "VIDEO_SECONDS", 0.2)
    folder, page = tmp_path / "gallery", tmp_path / "gallery.md"
    files = gallery.build_gallery(str(folder), str(page), scenes=["cantilever"], style="tubes",
                                  progress=False)
    names = sorted(os.path.basename(f) for f in files)
    assert names[0] == "cantilever.mp4" or names[0] == "cantilever.gif"
    assert names[1:] == ["cantilever.png", "gallery.md"]
    text = page.read_text()
    assert "## cantilever" in text and "(gallery/cantilever.png)" in text
    assert f"(gallery/{names[0]})" in text and "matplotlib tubes" in text
