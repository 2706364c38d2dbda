"""The ``slow:`` backend is one of the built-in kinds: any command accepts it."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dialsim" / "slow.json"


def test_slow_spec_loads_without_the_dialsim_commands():
    # A fresh interpreter: nothing imported the DialSim command group first.
    code = ("from incanon.models import load_chat_model; "
            f"m = load_chat_model('slow:{EXAMPLE}?seconds=0', cache=False); print(m.name)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "slow:" in res.stdout
