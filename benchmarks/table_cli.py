"""The command line of the benchmarks that print one table of rows (snake_sensitivity.py,
swimmer_soft_cell.py): `--json` prints the rows, otherwise a heading and the Markdown table."""
import argparse
import json
import time

import softmech as sm


def table_main(argv, doc, rows, markdown, heading):
    """Parse argv (--json), compute rows() (a list of dicts), print them as JSON or as
    heading(seconds) (a str; seconds: the wall time of rows()) and markdown(rows); returns 0."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    table = rows()
    if args.json:
        print(json.dumps(table, indent=1))
    else:
        print(f"{heading(time.perf_counter() - started)} (softmech {sm.__version__})\n")
        print(markdown(table))
    return 0
