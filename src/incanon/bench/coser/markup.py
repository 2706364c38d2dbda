"""CoSER message markup: a message mixes three channels, ``[thought]`` (seen by no one else),
``(action)`` (visible) and speech (everything else), e.g. ``[I must hide it] (steps back) "Never."``.
Full-width brackets (【】, （）) and the usual quote marks are read too.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Channel = Literal["speech", "action", "thought"]
_OPEN = {"[": ("]", "thought"), "(": (")", "action"), "【": ("】", "thought"), "（": ("）", "action")}
_QUOTES = [('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’"), ("「", "」")]


class Segment(BaseModel):
    """A run of one channel inside a message."""

    model_config = ConfigDict(frozen=True)
    channel: Channel
    text: str


class ParsedMessage(BaseModel):
    """A message split into channel segments, in order."""

    segments: list[Segment] = Field(default_factory=list)

    def _join(self, channel: Channel) -> str:
        return " ".join(s.text for s in self.segments if s.channel == channel and s.text)

    @property
    def thought(self) -> str:
        return self._join("thought")

    @property
    def action(self) -> str:
        return self._join("action")

    @property
    def speech(self) -> str:
        return " ".join(_unquote(s.text) for s in self.segments if s.channel == "speech" and s.text)

    def format(self, *, thoughts: bool = True) -> str:
        return format_segments(self.segments, thoughts=thoughts)


def _unquote(text: str) -> str:
    for left, right in _QUOTES:
        if len(text) >= 2 and text.startswith(left) and text.endswith(right) and text.count(left) <= 2:
            return text[1:-1].strip()
    return text


def parse_message(message: str) -> ParsedMessage:
    """Split ``[thought] (action) speech`` markup; an unclosed bracket runs to the end."""
    segments: list[Segment] = []
    speech: list[str] = []

    def flush() -> None:
        text = " ".join("".join(speech).split())
        if text:
            segments.append(Segment(channel="speech", text=text))
        speech.clear()

    i = 0
    while i < len(message):
        char = message[i]
        if char in _OPEN:
            close, channel = _OPEN[char]
            depth, j = 1, i + 1
            while j < len(message) and depth:
                depth += (message[j] == char) - (message[j] == close)
                j += 1
            inner = message[i + 1 : j - 1] if depth == 0 else message[i + 1 :]
            flush()
            text = " ".join(inner.split())
            if text:
                segments.append(Segment(channel=channel, text=text))  # type: ignore[arg-type]
            i = j
        else:
            speech.append(char)
            i += 1
    flush()
    return ParsedMessage(segments=segments)


def format_segments(segments: list[Segment], *, thoughts: bool = True) -> str:
    parts = []
    for seg in segments:
        if seg.channel == "thought":
            if thoughts:
                parts.append(f"[{seg.text}]")
        elif seg.channel == "action":
            parts.append(f"({seg.text})")
        else:
            parts.append(seg.text)
    return " ".join(parts)


def format_message(*, speech: str = "", action: str = "", thought: str = "") -> str:
    """``[thought] (action) speech`` — CoSER's order: the thought first, then what others see."""
    segs = [Segment(channel=c, text=t.strip()) for c, t in (("thought", thought), ("action", action), ("speech", speech)) if t.strip()]
    return format_segments(segs)  # type: ignore[arg-type]


def remove_thoughts(message: str) -> str:
    """The message as others see it: every ``[thought]`` removed, spacing tidied."""
    return parse_message(message).format(thoughts=False)
