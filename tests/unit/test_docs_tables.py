"""Every Markdown table of the README and docs/ keeps its header's number of cells in each row.

A `|` inside a cell that is neither escaped (`\\|`) nor in a code span splits the row into more
cells than the header has; Python-Markdown (mkdocs) then drops the surplus cells silently, so the
page loses the end of the row without a warning (docs/reproductions.md's walker row lost its
status and command columns that way: |sin(2 pi f t)| written out in the cell)."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def cells(line):
    """The cells of a table row: split at the pipes that are not escaped and not inside a code
    span (`...`), the leading and trailing pipe dropped."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    out, current, in_code, i = [], "", False, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and text[i + 1:i + 2] == "|":
            current += "\\|"
            i += 2
            continue
        if c == "`":
            in_code = not in_code
        if c == "|" and not in_code:
            out.append(current)
            current = ""
        else:
            current += c
        i += 1
    return out + [current]


def ragged_rows(text):
    """(line number, header cells, row cells) of every table row outside fenced code blocks
    whose cell count differs from its table's header row."""
    bad, header, fenced = [], None, False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not line.strip().startswith("|"):
            header = None
            continue
        n = len(cells(line))
        if header is None:
            header = n
        elif n != header:
            bad.append((number, header, n))
    return bad


def test_the_parser_counts_escaped_and_code_pipes_as_text():
    assert cells("| a | b \\| c | `x | y` |") == [" a ", " b \\| c ", " `x | y` "]
    assert ragged_rows("| a | b |\n|---|---|\n| 1 | 2 |\n") == []
    assert ragged_rows("| a | b |\n|---|---|\n| 1 | |sin x| |\n") == [(3, 2, 4)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_row_has_its_headers_cells(page):
    assert ragged_rows(page.read_text()) == [], f"{page.name}: (line, header cells, row cells)"
