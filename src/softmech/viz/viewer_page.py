"""The page of `softmech view`: one self-contained HTML file (plotly.js embedded, no network
needed) holding the figure of softmech.viz.viewer, written atomically, and opened in the
user's browser when asked.

The page reads its address's fragment: `view.html#frame=K` shows frame K (0-based; the
slider's K-th step) when the page opens and whenever the fragment changes, so a frame can be
linked to, and the browser test can move the slider without clicking. When a frame is drawn,
the page's title ends with " [frame K]".
"""
import os
import webbrowser

from softmech.io import atomic_write_text

DIV_ID = "softmech-view"

FRAGMENT_SCRIPT = """
var gd = document.getElementById('{plot_id}');
function softmechShowFrame() {
    var m = /frame=(\\d+)/.exec(window.location.hash);
    var k = m ? parseInt(m[1], 10) : 0;
    var n = gd._transitionData._frames.length;
    k = Math.max(0, Math.min(n - 1, k));
    var base = document.title.replace(/ \\[frame \\d+\\]$/, '');
    Plotly.animate(gd, [String(k)], {mode: 'immediate', frame: {duration: 0, redraw: true},
                                     transition: {duration: 0}})
        .then(function () {
            Plotly.relayout(gd, {'sliders[0].active': k});
            document.title = base + ' [frame ' + k + ']';
        });
}
window.addEventListener('hashchange', softmechShowFrame);
softmechShowFrame();
"""
"""JavaScript run after the figure is drawn: show the frame named in the fragment."""


def write_page(fig, path, *, title="softmech view"):
    """Write `fig` (a plotly figure with frames named '0', '1', ...) to `path` as one HTML file
    with plotly.js embedded, atomically; returns the absolute path."""
    html = fig.to_html(include_plotlyjs=True, full_html=True, div_id=DIV_ID,
                       post_script=FRAGMENT_SCRIPT, auto_play=False,
                       config={"displaylogo": False, "responsive": True})
    html = html.replace("<head>", f"<head><title>{_escape(title)}</title>", 1)
    path = os.path.abspath(os.fspath(path))
    atomic_write_text(path, html)
    return path


def open_page(path):
    """Open the page in the user's web browser (webbrowser); False if no browser was found."""
    return bool(webbrowser.open("file://" + os.path.abspath(path)))


def _escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
