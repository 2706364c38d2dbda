"""The npm package ``character-card-utils`` (the V2 spec's validator, by its author's
reference implementation of the spec) as a test's judge of the cards incanon writes.

It is installed once per machine under ``~/.cache/incanon/character-card-utils/<lock hash>``
(never into the checkout) from the lock in ``tests/cards/character-card-utils/``, by
``./dev.sh test`` or by the first test that needs it, under a file lock so parallel workers
install it once. Without ``npm`` (or ``node``) the tests that need it are skipped, saying so.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LOCK_DIR = Path(__file__).parent / "character-card-utils"

# safeParseToV2 is what a V2 reader uses: V2 first, then the V1 fallback of the spec.
_SCRIPT = """
const cards = require('character-card-utils');
const fs = require('fs');
const out = process.argv.slice(1).map((file) => {
  const got = cards.safeParseToV2(JSON.parse(fs.readFileSync(file, 'utf8')));
  return { file, ok: got.success, error: got.success ? null : JSON.stringify(got.error.issues.slice(0, 3)) };
});
console.log(JSON.stringify(out));
"""


def _install_dir() -> Path:
    digest = hashlib.sha256(b"".join((LOCK_DIR / n).read_bytes() for n in ("package.json", "package-lock.json")))
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "incanon" / "character-card-utils" / digest.hexdigest()[:12]


def card_utils() -> Path:
    """The folder holding ``node_modules/character-card-utils`` (installed now if it is not);
    skips the test without npm and node."""
    given = os.environ.get("INCANON_CARD_UTILS")
    if given and (Path(given) / "node_modules" / "character-card-utils").is_dir():
        return Path(given)
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm and node are needed to validate cards with character-card-utils (apt-get install npm)")
    target = _install_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install, whatever the number of workers
        if not (target / ".complete").is_file():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            for name in ("package.json", "package-lock.json"):
                shutil.copy(LOCK_DIR / name, target / name)
            done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=target,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"npm ci of character-card-utils failed:\n{done.stderr[-3000:]}"
            (target / ".complete").touch()
    return target


def validate(*files: Path) -> dict[str, str | None]:
    """Each file's verdict: None when ``safeParseToV2`` accepts it, else the first issues."""
    root = card_utils()
    done = subprocess.run([shutil.which("node") or "node", "-e", _SCRIPT, *map(str, files)], cwd=root,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NODE_PATH": str(root / "node_modules")})
    assert done.returncode == 0, done.stderr[-3000:]
    return {row["file"]: (None if row["ok"] else row["error"]) for row in json.loads(done.stdout)}
