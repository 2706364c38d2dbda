"""Whether the main character can know something when asked: the canon decides.

The paper's rule: the character must have been present at the evidence session, and the
question must be asked after it. Presence comes from the canon store's knowledge scope (the
same filter every benchmark uses); "after" is strict session order, so evidence from the very
session being played never counts (the answer might come after the question).
"""

from __future__ import annotations

from incanon.bench.dialsim.script import DialScript
from incanon.canon.scope import KnowledgeScope
from incanon.canon.store import CanonStore


class Knowledge:
    """Answers "has the main character heard session E when asked in session N?"."""

    def __init__(self, store: CanonStore, script: DialScript) -> None:
        self.store = store
        self.script = script
        self._order = {s.id: s.order for s in script.sessions}
        self._scopes: dict[str, KnowledgeScope] = {}
        self._witnessed: dict[tuple[str, str], bool] = {}

    def before(self, evidence: str, asked_in: str) -> bool:
        """True when ``evidence`` comes strictly before ``asked_in``."""
        return self._order[evidence] < self._order[asked_in]

    def after(self, evidence: str, asked_in: str) -> bool:
        """True when ``evidence`` comes strictly after ``asked_in``."""
        return self._order[evidence] > self._order[asked_in]

    def _scope(self, asked_in: str) -> KnowledgeScope:
        if asked_in not in self._scopes:
            session = self.script.session(asked_in)
            self._scopes[asked_in] = self.store.scope(self.script.work, self.script.main, session.date)
        return self._scopes[asked_in]

    def heard(self, evidence: str, asked_in: str) -> bool:
        """Present at ``evidence`` (per the canon) and asked strictly after it."""
        if not self.before(evidence, asked_in):
            return False
        key = (evidence, asked_in)
        if key not in self._witnessed:
            self._witnessed[key] = self._scope(asked_in).witnessed(evidence)
        return self._witnessed[key]
