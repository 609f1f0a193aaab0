"""The task-level LLM interface the engine calls, and the values that cross it.

The engine asks for a task (extract, reconcile, answer, summarise, abstract, link,
hypothesise) and receives a :class:`Reply`: the validated value and the notices of that
call. A backend (``models/``) turns each task into a prompt and a JSON schema, calls its
model and validates the reply; the rule-based backend computes the same values
deterministically. Any failure of a backend is a
:class:`~veramem_desktop.core.errors.ModelError`; the facade wraps a real model
with the rule-based one so the engine always gets an answer, plus a notice. What a
backend is and can do is declared in its :class:`Capabilities`, never probed.

Nothing here decides authority: roles, authority and trust are set by the engine
from the episodes, never from a model's reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar, runtime_checkable

from veramem_desktop.core.attributes import is_multi_valued
from veramem_desktop.core.vocabulary import Kind, State

Op = Literal["ADD", "UPDATE", "DELETE", "NOOP"]
LinkType = Literal["supports", "extends", "contrasts", "related", "prerequisite", "none"]


@dataclass(frozen=True)
class Message:
    """A stored episode as shown to a model: its id, role and words."""

    id: str
    role: str
    content: str
    time: str  # ISO 8601, the message's own time (relative dates resolve against it)
    name: str | None = None  # speaker or source name (tool name, file name)
    #: ``content`` with the names typed in lower case spelt as the person's history spells them
    #: (core/write/casing.py): only letters' case differs, so its offsets are the content's. The rule-based
    #: extractor parses it to key a statement and words the memory from it (names read as names on every
    #: surface); what it quotes is ``content``, word for word. None: as typed.
    cased: str | None = None


@dataclass(frozen=True)
class Candidate:
    """A proposed memory, citing the message it comes from and its exact words."""

    message_id: str
    quote: str
    text: str
    kind: Kind = Kind.FACT
    subject: str | None = None
    predicate: str | None = None
    value: str | None = None
    importance: float = 0.5
    #: the statement says the value stopped holding ("I quit the climbing gym", "handed in my notice"):
    #: the write path retracts the current memory of that key (core/write/derive.py)
    ends: bool = False


def multi_valued(predicate: str) -> bool:
    """Whether a second value of ``predicate`` sits beside the first instead of replacing it (the
    rule-based reconciler, the writer's batch guard and recall's truth stage go by this); the
    inventory of attributes (core/attributes.py) says which are."""
    return is_multi_valued(predicate)


@dataclass(frozen=True)
class Neighbour:
    """An existing memory in the candidate's scope, offered for reconciliation."""

    id: str
    text: str
    cosine: float
    authority: str
    kind: str
    subject: str | None = None
    predicate: str | None = None
    value: str | None = None


@dataclass(frozen=True)
class Decision:
    """What to do with a candidate. ``target_id`` names a neighbour for UPDATE/DELETE/NOOP."""

    op: Op
    target_id: str | None = None
    text: str | None = None  # the new wording for ADD/UPDATE (defaults to the candidate's)
    reason: str = ""


@dataclass(frozen=True)
class ContextItem:
    """A retrieved memory or episode placed in an answer's context."""

    id: str
    text: str
    kind: str
    authority: str
    time: str | None = None
    #: what recall's truth stage knows (core/recall/truth.py): current, in_conflict, raw, superseded …
    state: str = State.CURRENT
    superseded_by: str | None = None
    conflicts_with: tuple[str, ...] = ()
    #: items about one subject share a group; an episode lists the memories derived from it
    group: str | None = None
    derived: tuple[str, ...] = ()
    value: str | None = None
    #: who said it, for attribution ("assistant", a tool's or a document's name)
    source: str | None = None
    #: the attribute it states ("lives_in", "relation:partner"), when known
    subject: str | None = None
    #: for a retracted item: the message (episode id) whose statement retired it
    retracted_by: str | None = None
    #: for a version that corrects a mistake: the value the correction said was wrong
    corrects: str | None = None
    #: how close recall found its words to the question (core/recall/relevance.py), when measured
    closeness: float | None = None
    #: whether it states the attribute recall read the question as asking by its meaning, when the question's
    #: words name none (core/recall/meaning.py: "who does my hair now?" asks the hairdresser)
    meant: bool = False
    #: the conversation it was said in, when it came in one (an import's chats; an add has none)
    session: str | None = None


@dataclass(frozen=True)
class AnswerDraft:
    """A model's answer: the ids it relied on, the text, and whether it abstained."""

    text: str
    cited_ids: tuple[str, ...] = ()
    abstained: bool = False
    sufficient: bool = True


@dataclass(frozen=True)
class LinkVerdict:
    type: LinkType
    reason: str = ""


@dataclass(frozen=True)
class Notice:
    """Something a user should know about one model call (a fallback, a retry, what was skipped)."""

    backend: str
    task: str
    message: str

    def line(self) -> str:
        """The notice as one line of a result's ``notices``: backend, task, then what happened."""
        return f"{self.backend} {self.task}: {self.message}"


T = TypeVar("T")


@dataclass(frozen=True)
class Reply(Generic[T]):
    """What one task call returns: the validated value and the notices of that call only.

    Notices travel with the reply, never on the backend, so two callers (an add and the
    background linker) can never see each other's.
    """

    value: T
    notices: tuple[Notice, ...] = ()

    def lines(self) -> list[str]:
        """The notices as lines for a result's ``notices``."""
        return [n.line() for n in self.notices]

    def unwrap(self, notices: list[str]) -> T:
        """The value, after appending this call's notices (as lines) to ``notices``."""
        notices += self.lines()
        return self.value


#: tokens of a session's earlier turns given to an extraction model as context by default
DEFAULT_CONTEXT_TOKENS = 1000


@dataclass(frozen=True)
class Capabilities:
    """What a backend is and can do, declared once instead of probed."""

    name: str  # e.g. "ollama:llama3.2", "rule-based"
    #: computed by deterministic rules (no model): links and the like are left to the engine's own rules
    rule_based: bool = False
    #: one extraction call reads several messages well, so a bulk import sends them in batches
    batch_extraction: bool = False
    #: tokens of a session's earlier turns given to extraction as context (0: none are fetched)
    context_tokens: int = 0


@runtime_checkable
class LLM(Protocol):
    """One backend. Every task returns a :class:`Reply` or raises ``ModelError`` when the model fails."""

    @property
    def capabilities(self) -> Capabilities: ...

    def without_fallback(self) -> LLM:
        """This backend with no fallback behind it, whose failures raise ``ModelError`` (a backend
        without a fallback is itself)."""
        ...

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        """Propose memories from ``messages``. ``context`` holds earlier turns of the session, for
        understanding references only: no candidate may cite or quote them."""
        ...

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Reply[Decision]:
        """Choose ADD / UPDATE / DELETE / NOOP for one candidate against its neighbours."""
        ...

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> Reply[AnswerDraft]:
        """Answer from ``items`` only (``fenced_context`` is their prompt block)."""
        ...

    def summarise(self, texts: Sequence[str]) -> Reply[str]:
        """A short summary keeping the time order and every distinct fact."""
        ...

    def abstract_experience(self, text: str) -> Reply[str]:
        """Rewrite into the slot template with every user value replaced by a ``{slot}``."""
        ...

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        """How memory ``b`` relates to memory ``a``."""
        ...

    def hypothesise(self, question: str) -> Reply[str | None]:
        """One declarative sentence that would answer ``question``, as a memory would state it, for
        the hypothetical-answer search channel; None when the backend writes none (rule-based)."""
        ...
