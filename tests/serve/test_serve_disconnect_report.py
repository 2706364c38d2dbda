"""Chats stopped because their clients went away are summarised on stderr: the first at once,
the rest of a burst in one line (before, a line each: 400 lines for two abandoned bursts)."""

from __future__ import annotations

import asyncio
import logging

from incanon.serve.disconnect import GoneReport


def test_a_burst_of_disconnects_is_two_lines(caplog):
    async def burst() -> None:
        report = GoneReport(window_s=0.1)
        for i in range(200):
            report.report(f"/v1 chat with 'Wren Callow@1-3' #{i}")
        await asyncio.sleep(0.3)
        report.report("/v1 chat with 'Ottilie Brand@1-3'")  # a new burst opens a new window
        await asyncio.sleep(0.3)

    with caplog.at_level(logging.DEBUG, logger="incanon"):
        asyncio.run(burst())
    lines = [r.getMessage() for r in caplog.records if r.name == "incanon.serve.disconnect"]
    assert len(lines) == 3, lines
    assert lines[0].startswith("/v1 chat with 'Wren Callow@1-3' #0: the client disconnected")
    assert lines[1].startswith("199 more chat(s) stopped") and "#199" in lines[1]
    assert lines[2].startswith("/v1 chat with 'Ottilie Brand@1-3': the client disconnected")
