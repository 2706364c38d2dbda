"""The authors' oracle files: which earlier sessions answer each published question.

Next to ``<show>_dialsim.pickle`` the authors publish ``<show>_oracle_tkg.pickle`` and
``<show>_oracle_fan.pickle``, read by their simulator as:

* ``oracle_tkg[episode][session][type][i]``: the evidence *dates* of the i-th question of
  ``hard_q[type]`` (a list, or a mapping by position or by the question's first wording);
  dates containing ``fu`` (future) are not evidence;
* ``oracle_fan[episode][session][type][number]``: the evidence dates of a dated fan-quiz
  question (types ``ans_w_time`` and ``dont_know_unans_time``; the first date counts).

A date stands for every session of that date heard so far (the current one included), as in the
reference's ``extract_gt_sessions_bm25_date``; the undated fan-quiz types (``ans_wo_time``,
``before_event_unans``, ``dont_know_unans``) take the episode's sessions so far, which needs no
oracle file. ``find_oracle_files`` looks for the files beside the published script.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from incanon.bench.dialsim.dates import to_date

ORACLE_KINDS = ("tkg", "fan")
DATED_FAN = ("ans_w_time", "dont_know_unans_time")
EPISODE_FAN = ("ans_wo_time", "before_event_unans", "dont_know_unans")


def _prefix(path: Path) -> str:
    stem = path.stem
    return stem[: -len("_dialsim")] if stem.endswith("_dialsim") else stem


def oracle_path(script: Path, kind: str, suffix: str | None = None) -> Path:
    """``<show>_oracle_<kind><suffix>`` beside ``script`` (``<show>_dialsim.*``)."""
    return script.with_name(f"{_prefix(script)}_oracle_{kind}{suffix if suffix is not None else script.suffix}")


def find_oracle_files(script: Path) -> dict[str, Path]:
    """The oracle files beside the published ``script`` (same suffix first, then JSON, then pickle)."""
    found: dict[str, Path] = {}
    for kind in ORACLE_KINDS:
        for suffix in dict.fromkeys((script.suffix, ".json", ".pickle", ".pkl")):
            candidate = oracle_path(script, kind, suffix)
            if candidate.is_file():
                found[kind] = candidate
                break
    return found


def _get(mapping: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(mapping, dict):
            mapping = mapping.get(str(key))
        elif isinstance(mapping, list) and isinstance(key, int) and 0 <= key < len(mapping):
            mapping = mapping[key]
        else:
            return None
    return mapping


@dataclass
class OracleIndex:
    """Evidence sessions of published questions, built while the sessions are read in order."""

    tkg: dict[str, Any] | None = None
    fan: dict[str, Any] | None = None
    by_date: dict[str, list[str]] = field(default_factory=dict)
    """ISO date → session ids read so far."""
    by_episode: dict[str, list[str]] = field(default_factory=dict)
    found: int = 0
    """Questions given evidence."""
    missing: int = 0
    """Questions whose oracle entry is absent (no file, or no entry for them)."""

    def add_session(self, episode: str, session_id: str, raw_date: str) -> None:
        self.by_date.setdefault(_iso(raw_date), []).append(session_id)
        self.by_episode.setdefault(episode, []).append(session_id)

    def _sessions(self, dates: Sequence[Any]) -> list[str]:
        out: list[str] = []
        for d in dates:
            if not isinstance(d, str) or "fu" in d:
                continue
            out += [s for s in self.by_date.get(_iso(d), []) if s not in out]
        return out

    def _unresolved(self, dates: Sequence[Any]) -> list[str]:
        # The reference looks each date up among the sessions heard so far and gives up on the
        # question when one is not there (a KeyError caught around its evidence builder).
        return [str(d) for d in dates
                if not isinstance(d, str) or ("fu" not in d and _iso(d) not in self.by_date)]

    def _dates(self, episode: str, session: str, field_name: str, type_: str, key: Any,
               first_text: str) -> list[Any] | None:
        if field_name == "easy_q":
            dates = _get(self.fan, episode, session, type_, key) if self.fan is not None else None
            return dates[:1] if isinstance(dates, list) else None
        if self.tkg is None:
            return None
        entry = _get(self.tkg, episode, session, type_)
        dates = _get(entry, key) if isinstance(entry, list) else None
        if dates is None and isinstance(entry, dict):
            dates = entry.get(str(key), entry.get(first_text))
        return dates if isinstance(dates, list) else None

    def evidence(self, episode: str, session: str, field_name: str, type_: str, key: Any,
                 first_text: str) -> list[str] | None:
        """Evidence session ids of one question, or None when the oracle does not say."""
        if field_name == "easy_q" and type_ in EPISODE_FAN:
            return list(self.by_episode.get(episode, []))
        dates = self._dates(episode, session, field_name, type_, key, first_text)
        return None if dates is None else self._sessions(dates)

    def unresolved(self, episode: str, session: str, field_name: str, type_: str, key: Any,
                   first_text: str) -> list[str]:
        """The question's oracle dates that name no session heard so far (see ``_unresolved``)."""
        if field_name == "easy_q" and type_ in EPISODE_FAN:
            return []
        dates = self._dates(episode, session, field_name, type_, key, first_text)
        return [] if dates is None else self._unresolved(dates)


def _iso(raw: str) -> str:
    try:
        return to_date(raw).isoformat()
    except Exception:  # noqa: BLE001 - a date the parser cannot read matches only itself
        return raw
