"""Per-chunk extraction of entities and relations: structured output, repair-and-retry,
gleaning, and an honest status for every chunk.

A chunk ends ``extracted`` (something found), ``empty`` (the model answered, readably, with
nothing: reported, because this is how graph RAG fails silently on a local model whose context
is too small) or ``failed`` (no readable answer after every attempt, or the prompt does not fit
the model). Every call goes through the model stack, so a response cache makes re-runs free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from incanon.graph.chunking import SourceChunk
from incanon.graph.config import GraphConfig
from incanon.graph.parse import ExtractionParseError, Extraction, extraction_schema, parse_extraction
from incanon.errors import ModelError
from incanon.models.faults import ContextOverflowError
from incanon.models.forget import forget_answers
from incanon.models.types import ChatModel, Completion, GenerationParams, Message
from incanon.templates import PromptLibrary, default_library


@dataclass
class ChunkResult:
    """What extraction did with one chunk."""

    chunk: SourceChunk
    extraction: Extraction
    status: str
    """``extracted``, ``empty`` or ``failed``."""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: list[str] = field(default_factory=list)

    def count(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens


class ChunkExtractor:
    """Extracts one chunk at a time with ``model``."""

    def __init__(self, model: ChatModel, config: GraphConfig | None = None, prompts: PromptLibrary | None = None,
                 axis: str = "chapter"):
        self.model = model
        self.config = config or GraphConfig()
        self.prompts = prompts or default_library()
        # The work's time axis, told to the model so the "when" of a biography is a calendar date.
        self.axis_hint = ("calendar dates: write a year, a date or a range of years, or an age"
                          if axis == "date" else "")
        types = self.config.entity_types
        # A reference's own extraction prompt (``--prompts-from``) asks for its tuple records, so
        # the reply is not constrained to incanon's JSON (the parser reads both).
        schema = None if "graph_extract" in self.prompts.exact else extraction_schema(types, self.config.description_chars)
        self.params = GenerationParams(max_tokens=self.config.extract_max_tokens, response_format=schema)

    async def _ask(self, messages: list[Message], result: ChunkResult) -> Completion:
        completion = await self.model.generate(messages, self.params)
        result.count(completion)
        if completion.finish_reason == "length":
            result.notes.append(f"reply cut at {self.config.extract_max_tokens} tokens (raise extract_max_tokens)")
        return completion

    async def _attempt(self, messages: list[Message], result: ChunkResult) -> tuple[Extraction, str]:
        """One extraction plus, if unreadable, one repair turn; raises the last parse error."""
        types = self.config.entity_types
        first = await self._ask(messages, result)
        try:
            return parse_extraction(first.text, types), first.text
        except ExtractionParseError as exc:
            repair = messages + [
                Message(role="assistant", content=first.text),
                Message(role="user", content=self.prompts.render(
                    "graph_extract_repair", error=str(exc), entity_types=list(types))),
            ]
            second = await self._ask(repair, result)
            try:
                return parse_extraction(second.text, types), second.text
            except ExtractionParseError:
                # Unusable twice: forgotten by the response cache, so the next attempt (and a
                # rerun of a failed chunk) asks the model again instead of reading them back.
                forget_answers(self.model, first, second)
                raise

    async def extract(self, chunk: SourceChunk) -> ChunkResult:
        """Extract, repair, retry and glean one chunk; never raises for a model's bad output."""
        types = list(self.config.entity_types)
        result = ChunkResult(chunk, Extraction(), "failed")
        messages = [Message(role="user", content=self.prompts.render(
            "graph_extract", text=chunk.text, entity_types=types, axis_hint=self.axis_hint))]
        reply: str | None = None
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                extraction, reply = await self._attempt(messages, result)
            except ExtractionParseError as exc:
                result.notes.append(f"attempt {attempt}: unreadable extraction ({exc})")
                continue
            except ContextOverflowError as exc:
                result.notes.append(f"the prompt does not fit the model's context ({exc}); use smaller chunks")
                return result
            except ModelError as exc:  # the backend failed for good (after its retries)
                result.notes.append(f"model error: {exc}")
                return result
            result.extraction = extraction
            break
        if reply is None:
            return result
        await self._glean(messages, reply, result)
        result.notes += result.extraction.notes
        if result.extraction.empty:
            result.status = "empty"
            result.notes.append(
                f"nothing extracted from {chunk.tokens} tokens: the model may not follow the extraction "
                "prompt, or its context may be too small for the chunk")
        else:
            result.status = "extracted"
        return result

    async def _glean(self, messages: list[Message], reply: str, result: ChunkResult) -> None:
        history = list(messages)
        for _ in range(self.config.gleanings):
            history += [Message(role="assistant", content=reply),
                        Message(role="user", content=self.prompts.render("graph_glean"))]
            try:
                completion = await self._ask(history, result)
            except ContextOverflowError:
                result.notes.append("gleaning stopped: the conversation outgrew the model's context")
                return
            reply = completion.text
            try:
                more = parse_extraction(reply, self.config.entity_types)
            except ExtractionParseError as exc:
                result.notes.append(f"gleaning reply unreadable ({exc}): ignored")
                return
            if result.extraction.add(more) == 0:
                return
