"""The published DialSim data, read from a local file, and its conversion to incanon's forms.

Layout: ``data[episode][session] = {"script", "date", "hard_q", "easy_q"}``; ``hard_q`` (TKG
questions) maps a type (``past``, ``cur``, ``fu``, ``past_cur``...) to a list of questions,
``easy_q`` (fan quizzes) maps a type (``ans_w_time``, ``dont_know_unans``...) to questions by
number; a question is ``{"questions": {asker or "default": text}, "answer", "options"}``. The
oracle files beside it give each question's evidence sessions (:mod:`incanon.bench.dialsim.oracle`).

The data ships as pickles. Unpickling runs code chosen by whoever wrote the file, so a pickle is
refused unless the caller passes ``trust_pickle=True``; even then only plain containers (dict,
list, str, numbers...) may be in it. ``export_json`` writes the same data as JSON, which is
then read without any trust.
"""

from __future__ import annotations

import io
import json
import pickle
import re
from pathlib import Path
from typing import Any

from incanon.bench.dialsim.dates import to_date
from incanon.bench.dialsim.oracle import OracleIndex
from incanon.bench.dialsim.questions import IDK, Question
from incanon.canon.names import norm
from incanon.canon.position import Axis
from incanon.canon.world import Character, Scene, Utterance, WorkInfo, World
from incanon.errors import InputError
from incanon.files import write_text_atomic
from incanon.reading import check_file, decode_text, parse_json

_PLAIN = {("builtins", n) for n in ("dict", "list", "set", "frozenset", "tuple", "str", "int", "float", "bool",
                                    "bytes", "complex")} | {("collections", "OrderedDict"), ("collections", "defaultdict")}
_SKIP = re.compile(r"^\s*(Teleplay|Story|Written by|Directed by)\s*:", re.IGNORECASE)
_TKG_PARTS = {"past", "cur", "fu"}


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PLAIN:
            return super().find_class(module, name)
        raise InputError(f"the pickle holds a {module}.{name} object; only plain data (dicts, lists, "
                         "strings, numbers) is read")


def _raw(p: Path, what: str) -> bytes:
    check_file(p, what)  # a folder, a FIFO (which would block), a symlink loop: one line
    raw = p.read_bytes()
    if not raw.strip():
        raise InputError(f"{what} is empty", source=str(p))
    return raw


def load_published(path: str | Path, *, trust_pickle: bool = False, what: str = "DialSim data file",
                   expect_episodes: bool = True) -> dict[str, Any]:
    """The published data (or an oracle file) from a JSON file, or from a pickle when ``trust_pickle``."""
    p = Path(path).expanduser()
    raw = _raw(p, what)
    if raw[:1] == b"\x80" or p.suffix.lower() in (".pkl", ".pickle"):
        if not trust_pickle:
            raise InputError(f"{p} is a pickle, and unpickling can run arbitrary code: pass the trust flag "
                             "(--trust-pickle) if you trust where it came from, and keep a JSON copy with --export-json")
        try:
            data = _PlainUnpickler(io.BytesIO(raw)).load()
        except (pickle.UnpicklingError, EOFError, ValueError, RecursionError, IndexError, KeyError,
                AttributeError, TypeError, MemoryError) as exc:
            raise InputError(f"{p} is not a readable pickle: {type(exc).__name__}") from None
    else:
        data = parse_json(decode_text(raw, str(p), what), str(p))
    if not isinstance(data, dict):
        raise InputError(f"{p}: expected episodes → sessions, got a {type(data).__name__}")
    if expect_episodes:
        for episode, sessions in data.items():
            if not isinstance(sessions, dict):
                raise InputError(f"expected sessions by number, got a {type(sessions).__name__}",
                                 source=str(p), where=f"episode {episode!r}")
    return plain(data)


def plain(value: Any) -> Any:
    """JSON-able copy: string keys, lists for tuples and sets."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    return value


def export_json(data: dict[str, Any], path: str | Path) -> Path:
    """Write ``data`` as JSON (atomically)."""
    return write_text_atomic(path, json.dumps(plain(data), ensure_ascii=False))


def parse_script(text: str) -> list[tuple[str, str]]:
    """(speaker, text) pairs; a line without a colon continues the utterance before it."""
    lines: list[tuple[str, str]] = []
    for raw in text.splitlines():
        if not raw.strip() or _SKIP.match(raw):
            continue
        if ":" in raw:
            speaker, said = raw.split(":", 1)
            if speaker.strip():
                lines.append((" ".join(speaker.split()), said.strip()))
                continue
        if lines:
            speaker, said = lines[-1]
            lines[-1] = (speaker, f"{said} {raw.strip()}".strip())
    return [(s, t) for s, t in lines if t]


def _session_id(episode: str, session: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", f"{episode}-{session}").strip("-")


def published_world(data: dict[str, Any], *, work_id: str, title: str,
                    oracle: OracleIndex | None = None) -> tuple[World, list[Question], dict[str, int]]:
    """The dialogue as a date-axis world, its candidate questions (with evidence sessions from
    ``oracle`` where it has them), and counts of what was skipped."""
    oracle = oracle if oracle is not None else OracleIndex()
    names: dict[str, str] = {}
    scenes: list[Scene] = []
    questions: list[Question] = []
    skipped: dict[str, int] = {}
    for episode, sessions in data.items():
        if not isinstance(sessions, dict):
            raise InputError(f"episode {episode!r}: expected sessions by number")
        for number, body in sessions.items():
            where = f"episode {episode}, session {number}"
            if not isinstance(body, dict) or "script" not in body or "date" not in body:
                raise InputError(f"{where}: expected an object with 'script' and 'date'")
            said = parse_script(str(body["script"]))
            if not said:
                skipped["sessions without dialogue"] = skipped.get("sessions without dialogue", 0) + 1
                continue
            for speaker, _ in said:
                names.setdefault(norm(speaker), speaker)
            speakers = list(dict.fromkeys(names[norm(s)] for s, _ in said))
            date = to_date(str(body["date"])).isoformat()
            if scenes and date < (scenes[-1].date or ""):
                date = scenes[-1].date or date  # keep story order; the published dates rarely step back
                skipped["dates moved forward to keep order"] = skipped.get("dates moved forward to keep order", 0) + 1
            sid = _session_id(str(episode), str(number))
            oracle.add_session(str(episode), sid, str(body["date"]))
            scenes.append(Scene(id=sid, position=date, date=date, title=where, participants=speakers, speakers=speakers,
                                messages=[Utterance(speaker=names[norm(s)], speech=t) for s, t in said]))
            questions.extend(_questions(body, sid, skipped, oracle, str(episode), str(number)))
    characters = [Character(name=n) for n in names.values()]
    world = World(work=WorkInfo(id=work_id, title=title, axis=Axis.DATE, description="Published DialSim data"),
                  characters=characters, scenes=scenes)
    return world, questions, skipped


def _questions(body: dict[str, Any], session: str, skipped: dict[str, int], oracle: OracleIndex,
               episode: str, number: str) -> list[Question]:
    made: list[Question] = []
    for field, fan in (("hard_q", False), ("easy_q", True)):
        groups = body.get(field) or {}
        if not isinstance(groups, dict):
            skipped["unreadable questions"] = skipped.get("unreadable questions", 0) + 1
            continue
        for type_, items in groups.items():
            entries = list(items.items()) if isinstance(items, dict) else list(enumerate(items or []))
            for key, item in entries:
                q = _question(item, session, str(type_), fan, f"{field}-{type_}-{key}")
                if isinstance(q, str):
                    skipped[q] = skipped.get(q, 0) + 1
                    continue
                first_text = str(next(iter(item["questions"].values())))
                evidence = oracle.evidence(episode, number, field, str(type_), key, first_text)
                gaps = oracle.unresolved(episode, number, field, str(type_), key, first_text)
                if evidence is None:
                    oracle.missing += 1
                else:
                    oracle.found += 1
                    q = q.model_copy(update={"evidence": evidence})
                if gaps:
                    q = q.model_copy(update={"unresolved_evidence": gaps})
                made.append(q)
    return made


UNREADABLE = "unreadable questions"
NO_GOLD_OPTION = "questions whose gold answer is none of their options (the reference drops them too)"


def _question(item: Any, session: str, type_: str, fan: bool, key: str) -> Question | str:
    """The question, or why it is left out."""
    if not isinstance(item, dict) or not isinstance(item.get("questions"), dict) or not item["questions"]:
        return UNREADABLE
    texts = {str(k): str(v) for k, v in item["questions"].items()}
    invented = "default" not in texts
    texts.setdefault("default", next(iter(texts.values())))
    answer = str(item.get("answer", ""))
    options = [str(o) for o in item.get("options") or []]
    parts = type_.split("_")
    hops = 0 if fan else (2 if len(parts) > 1 and set(parts) <= _TKG_PARTS else 1)
    unanswerable = "unans" in type_ or "fu" in parts or answer.strip().casefold().rstrip(".") == IDK.casefold().rstrip(".")
    try:
        return Question(id=f"pub-{key}@{session}", session=session, source="fan" if fan else "tkg", hops=hops,
                        type=type_, answerable=not unanswerable, texts=texts, answer=answer, options=options,
                        invented_default=invented)
    except ValueError as exc:
        return NO_GOLD_OPTION if "not among the options" in str(exc) else UNREADABLE
