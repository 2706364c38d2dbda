"""The package's public names load on first use, each with a docstring, and importing the package
loads none of them (the command line stays fast)."""

from __future__ import annotations

import subprocess
import sys

import incanon


def test_every_public_name_loads_and_is_documented() -> None:
    for name in incanon.__all__:
        if name == "__version__":
            continue
        value = getattr(incanon, name)
        assert value.__doc__, name
    assert set(dir(incanon)) >= set(incanon.__all__)


def test_importing_the_package_loads_no_heavy_module() -> None:
    # A fresh interpreter: the test session itself has everything loaded already.
    code = "import sys, incanon; print(sorted(m for m in ('numpy', 'openai', 'incanon.canon.store') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
