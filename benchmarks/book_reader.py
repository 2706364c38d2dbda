"""The book reader at scale: chapter detection and the ``canon build --dry-run`` it feeds.

Prints figures; not a test. Generates synthetic books (a fixed paragraph under ``Chapter N``
headings) of 2,000 to 20,000 headings (default) and, for each, times:

- ``detect``: :func:`incanon.ingest.chapters.scan_chapters` on the text (the reader's work);
- ``read``: :func:`incanon.ingest.reader.read_book` on the file (decoding, title page, notes);
- ``outline``: the dry run up to its first outline line (what a user waits for before seeing
  anything; it used to be the whole estimate, 621 s for 20,000 headings);
- ``dry run``: the whole ``incanon canon build BOOK --dry-run`` in a child process (its token
  counting is the embedded model's tokenizer, one pass over the text per step that sizes it).

Then a book over the size limit is refused before it is read (the time to say so).

    .venv/bin/python benchmarks/book_reader.py [--headings 2000 20000] [--words 60]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from incanon import __version__
from incanon.errors import InputError
from incanon.ingest.chapters import scan_chapters
from incanon.ingest.encoding import MAX_BOOK_MB
from incanon.ingest.reader import read_book

PARAGRAPH = "The keeper trimmed the lamp, and wrote the names of the ships that passed the point in the long book."


def synthetic(headings: int, words: int) -> str:
    """A book of ``headings`` chapters of about ``words`` words each."""
    body = " ".join([PARAGRAPH] * max(1, words // len(PARAGRAPH.split())))
    return "THE SYNTHETIC LAMP\n\nby A. Bench\n\n\n" + "\n\n".join(f"Chapter {n}\n\n{body}" for n in range(1, headings + 1))


def _dry_run(path: Path) -> tuple[float, float, str]:
    """(seconds to the first outline line, seconds in all, last line) of the dry run of ``path``."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "incanon", "canon", "build", str(path), "--dry-run", "--helper",
                             "openai:gpt-4o-mini"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "COLUMNS": "160"})
    first = 0.0
    last = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        if not first and line.startswith("  1-1 "):
            first = time.perf_counter() - started
        last = line.strip() or last
    proc.wait()
    return first, time.perf_counter() - started, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--headings", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--words", type=int, default=60, help="Words per chapter.")
    args = parser.parse_args()
    print(f"incanon {__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        for headings in args.headings:
            text = synthetic(headings, args.words)
            path = Path(tmp) / f"synthetic-{headings}.txt"
            path.write_text(text, encoding="utf-8")
            started = time.perf_counter()
            scan = scan_chapters(text)
            detect = time.perf_counter() - started
            started = time.perf_counter()
            book = read_book([path])
            read = time.perf_counter() - started
            first, total, _ = _dry_run(path)
            print(f"{headings:>7,} headings, {len(text) / 2**20:6.1f} MB: {len(scan.chapters):,} chapters; "
                  f"detect {detect:6.2f} s, read {read:6.2f} s ({book.title!r}), outline after {first:6.2f} s, "
                  f"dry run {total:6.2f} s")
        huge = Path(tmp) / "huge.txt"
        with huge.open("wb") as out:
            out.seek((MAX_BOOK_MB + 1) * 2**20)
            out.write(b"\n")
        started = time.perf_counter()
        try:
            read_book([huge])
        except InputError as exc:
            print(f"{MAX_BOOK_MB + 1} MB book refused in {time.perf_counter() - started:.3f} s: {exc}")


if __name__ == "__main__":
    main()
