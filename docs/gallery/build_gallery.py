"""Regenerate the gallery: a picture and a short video of every built-in scene in this folder,
and docs/gallery.md. Run from the repository root:

    python docs/gallery/build_gallery.py [SCENE ...] [--style povray|tubes]
"""
import argparse
import os

from softmech.viz.gallery import build_gallery

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help="scenes to render (default: all)")
    parser.add_argument("--style", choices=("povray", "tubes"), default=None,
                        help="default: POV-Ray when installed, else matplotlib tubes")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    for path in build_gallery(here, os.path.join(os.path.dirname(here), "gallery.md"),
                              scenes=args.scenes or None, style=args.style):
        print(f"{path}  ({os.path.getsize(path) / 1e6:.2f} MB)")
