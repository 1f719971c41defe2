"""A video's clock stamped into its frames from glyph sprites, instead of drawn by matplotlib.

    stamp = TextStamp(clock)            # clock: a right-aligned Text of a drawn Agg figure
    stamp.draw(rgba, "  1.23 s")         # rgba: uint8 (height, width, 4), changed in place

matplotlib lays out and renders a text glyph by glyph through FreeType each time it is drawn:
~1-2 ms for the 8 characters of a clock ("  1.23 s"), as much as the bodies of a small scene.
A TextStamp renders each character once, with matplotlib itself (the clock's font, size and
sub-pixel position, black on white on a scratch canvas: the glyph's coverage), and each frame
pastes the characters' coverages right to left from the clock's right edge, each moved left by
the advances of the characters after it, and blends the clock's colour over the frame with
them (~0.05 ms). With matplotlib >= 3.11 (glyphs placed at whole-pixel advances: hinted
fonts), the stamped clock is matplotlib's own to within the rounding of the blend
(tests/unit/test_viz_painter.py); earlier versions may place glyphs at fractional advances,
which the sprites round to whole pixels (not measured: matplotlib 3.11 is installed here)."""
import numpy as np

CLOCK_CHARACTERS = "0123456789.-+ s"
"""The characters rendered when the stamp is made (one scratch drawing); others are rendered
when first met."""


class TextStamp:
    """The changing text of one right-aligned, unrotated, single-line matplotlib Text (its
    font, colour and place), stamped into RGBA frames of its figure's size. The Text's figure
    must be on an Agg canvas and must not change size, dpi or the Text's place afterwards."""

    def __init__(self, text):
        if text.get_ha() != "right" or text.get_rotation() != 0:
            raise ValueError(f"text (ha = {text.get_ha()!r}, rotation = "
                             f"{text.get_rotation()!r}) is not allowed: a TextStamp takes a "
                             "right-aligned, unrotated text (painter.split_clock makes one)")
        fig = text.figure
        self.text, self.dpi = text, fig.dpi
        self.renderer = fig.canvas.get_renderer()
        # the right edge [px] in display coordinates (y up), kept with its fraction: glyphs
        # are rendered at their sub-pixel place
        self.anchor = text.get_transform().transform(text.get_unitless_position())
        self.rows = int(self.renderer.height)
        from matplotlib.colors import to_rgba

        rgba = to_rgba(text.get_color(), text.get_alpha())
        self.color = np.array(rgba[:3], np.float32) * 255.0
        self.opacity = np.float32(rgba[3])
        self.sprites, self.advances = {}, {}
        self._render(CLOCK_CHARACTERS)

    def draw(self, rgba, s):
        """Blend the text `s` (one line) into the frame `rgba` (uint8 (height, width, 4) of the
        figure's size, its alpha left as it is), right-aligned where the Text is."""
        s = str(s)
        if "\n" in s:
            raise ValueError(f"s = {s!r} is not allowed: a TextStamp draws one line")
        new = {c for c in s if c not in self.sprites}
        if new:
            self._render("".join(sorted(new)))
        placed, shift = [], 0.0
        for c in reversed(s):           # right to left: each glyph moved by those after it
            coverage, row, col = self.sprites[c]
            if coverage is not None:
                placed.append((coverage, row, col - int(round(shift))))
            shift += self.advances[c]
        if not placed:                  # spaces only
            return
        top = min(r for _, r, _ in placed)
        left = min(c for _, _, c in placed)
        bottom = max(r + a.shape[0] for a, r, _ in placed)
        right = max(c + a.shape[1] for a, _, c in placed)
        mask = np.zeros((bottom - top, right - left), np.float32)
        for coverage, row, col in placed:
            # glyphs that overlap blend one over the other, as the renderer draws them
            part = mask[row - top:row - top + coverage.shape[0],
                        col - left:col - left + coverage.shape[1]]
            part += coverage * (1.0 - part)
        mask *= self.opacity
        # what lies outside the frame is cut off, as the renderer does
        height, width = rgba.shape[:2]
        y0, y1, x0, x1 = max(top, 0), min(bottom, height), max(left, 0), min(right, width)
        if y0 >= y1 or x0 >= x1:
            return
        mask = mask[y0 - top:y1 - top, x0 - left:x1 - left, None]
        region = rgba[y0:y1, x0:x1, :3]
        under = region.astype(np.float32)
        under += (self.color - under) * mask
        np.rint(under, out=under)
        region[...] = under

    def _render(self, characters):
        """Render `characters` once each, in black on white on a scratch canvas, and keep
        each one's coverage (0..1, trimmed to its ink), its row and column in the frame when
        it is the last character of the text, and its advance [px].

        One line of text draws them all (matplotlib's cost is per text drawn): the characters
        half an em apart, left-aligned at the anchor's sub-pixel fractions, so
        that each glyph is rendered at the place it takes in the frame up to whole pixels."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.transforms import IdentityTransform

        prop = self.text.get_fontproperties()
        width = lambda s: self.renderer.get_text_width_height_descent(s, prop, ismath=False)[0]
        base = width("00")
        for c in characters + " ":
            # its advance: how much longer "0c0" is than "00" (the renderer's own layout)
            self.advances.setdefault(c, width("0" + c + "0") - base)
        em = int(np.ceil(prop.get_size_in_points() * self.dpi / 72.0))   # the font's em [px]
        # spaces between the characters: >= em / 2 (a glyph's ink rarely leaves its advance
        # by more than a tenth of an em; each space is a glyph to render)
        gap = max(1, int(np.ceil(0.5 * em / max(self.advances[" "], 1.0))))
        line = (" " * gap).join(characters)
        pens = np.cumsum([0.0] + [self.advances[c] + gap * self.advances[" "]
                                  for c in characters[:-1]])
        fraction = self.anchor - np.floor(self.anchor)
        columns = int(np.ceil(pens[-1])) + 4 * em
        # the anchor 2.5 em above the bottom of a 5 em tall canvas: room for the line above
        # and below it whatever its vertical alignment
        scratch = Figure(figsize=(columns / self.dpi, 5 * em / self.dpi), dpi=self.dpi,
                         facecolor="white")
        FigureCanvasAgg(scratch)
        lift = int(2.5 * em)
        scratch.text(em + fraction[0], lift + fraction[1], line, ha="left",
                     va=self.text.get_va(), fontproperties=prop, color="black",
                     transform=IdentityTransform())
        scratch.canvas.draw()
        picture = np.asarray(scratch.canvas.buffer_rgba())
        ink = (255.0 - picture[..., 0].astype(np.float32)) / 255.0   # rows from the top
        rows = ink.shape[0]
        # the frame's anchor is the right end of the last character's advance: the scratch
        # anchor (column em, row rows - lift from the top, + the same fractions) moved by
        # whole pixels
        right, down = int(np.floor(self.anchor[0])), self.rows - int(np.floor(self.anchor[1]))
        for c, pen in zip(characters, pens):
            half = 0.5 * gap * self.advances[" "]               # half the gap either side
            lo = int(np.floor(em + pen - half))
            hi = int(np.ceil(em + pen + self.advances[c] + half))
            cover = ink[:, lo:hi]
            used_rows = np.flatnonzero(cover.any(axis=1))
            used_cols = np.flatnonzero(cover.any(axis=0))
            if used_rows.size == 0:
                self.sprites[c] = (None, 0, 0)                     # a space: no ink
                continue
            r0, r1, c0, c1 = used_rows[0], used_rows[-1] + 1, used_cols[0], used_cols[-1] + 1
            shift = int(round(pen + self.advances[c]))            # its pen's end, whole px
            self.sprites[c] = (np.ascontiguousarray(cover[r0:r1, c0:c1]),
                               r0 + down - (rows - lift), lo + c0 + right - (em + shift))
