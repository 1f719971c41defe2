"""Matplotlib figures without pyplot: a bare Figure on the Agg canvas (no global state, no
display needed, safe in worker processes)."""


def figure(rows=1, size=None, layout="constrained", sharex=True):
    """(fig, axes): one axes, or `rows` axes stacked with a shared x axis, or none (rows = 0:
    (fig, None), for axes of another kind). size (w, h) [inch]."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size or (7.0, 4.2 if rows == 1 else 6.0), layout=layout)
    FigureCanvasAgg(fig)
    if rows == 0:
        return fig, None
    if rows == 1:
        ax = fig.subplots()
        ax.grid(True, alpha=0.3)
        return fig, ax
    return fig, fig.subplots(rows, 1, sharex=sharex)


def save(fig, path, dpi=120):
    """Write fig to path (format from the extension) atomically; returns path."""
    from softmech.io import atomic_output

    with atomic_output(path) as tmp:
        fig.savefig(tmp, dpi=dpi)
    return path
