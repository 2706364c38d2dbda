"""docs/sharp.md: the Python example runs and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "sharp.md"


def test_python_example_prints_what_the_page_shows():
    text = DOC.read_text(encoding="utf-8")
    (match,) = re.finditer(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S)
    code, expected = match.group(1), match.group(2)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "__doc_example__"})
    assert out.getvalue() == expected


def test_documented_formulas_match_the_metrics_module():
    text = DOC.read_text(encoding="utf-8")
    for formula in ("SR = #{a ∈ C : sycophancy} / #C", "AR = #{a ∈ F : adversary} / #F",
                    "CRF = w1·SR + w2·AR, (w1, w2) = (+1, −1) for high affection, (−1, +1) for low"):
        assert formula in text
