"""Progress bars of long jobs (tqdm on stderr): count, elapsed and remaining time, rate."""


def progress_bar(total=None, enabled=True, *, unit="step", **options):
    """A tqdm bar over `total` units, or None when not enabled (--quiet). Step counts are shown
    with SI prefixes (12.3k step); options go to tqdm (desc, leave, position, ...)."""
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, unit_scale=unit == "step", dynamic_ncols=True, **options)
