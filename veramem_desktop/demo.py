"""A small demonstration set: a few conversations worth exploring in the first minute.

They hold preferences, plain facts, a correction of an earlier fact, a claim made by a
tool, and an assistant statement that conflicts with what the user said (so the review
queue has something in it). Times are fixed so the demo looks the same everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veramem_desktop.core.write.results import AddResult
    from veramem_desktop.memory import Memory

#: (session id, messages) in the order they happened
DEMO_CONVERSATIONS: tuple[tuple[str, tuple[dict[str, Any], ...]], ...] = (
    (
        "demo-kitchen",
        (
            {
                "role": "user",
                "time": "2024-03-02T18:05:00Z",
                "content": "I'm vegetarian, so please never suggest recipes with meat or fish.",
            },
            {
                "role": "assistant",
                "time": "2024-03-02T18:05:20Z",
                "content": "Noted: vegetarian recipes only from now on.",
            },
            {
                "role": "user",
                "time": "2024-03-02T18:07:00Z",
                "content": "My sister Ana is visiting on Saturday. She is allergic to peanuts.",
            },
        ),
    ),
    (
        "demo-moving",
        (
            {
                "role": "user",
                "time": "2024-03-20T09:12:00Z",
                "content": "I moved to Lisbon in March and I work as a data engineer at Tessera.",
            },
            {
                "role": "assistant",
                "time": "2024-03-20T09:12:30Z",
                "content": "Congratulations on the move to Lisbon!",
            },
        ),
    ),
    (
        "demo-work",
        (
            {
                "role": "user",
                "time": "2024-05-06T10:00:00Z",
                "content": "I prefer short answers with code examples in Python.",
            },
            {
                "role": "user",
                "time": "2024-05-06T10:02:00Z",
                "content": "My favourite editor is Vim, and I use it for everything, including email.",
            },
            {
                "role": "assistant",
                "time": "2024-05-06T10:03:00Z",
                "content": "Understood. Your favourite editor is Emacs, so I will give Emacs key bindings.",
            },
        ),
    ),
    (
        "demo-calendar",
        (
            {
                "role": "tool",
                "name": "calendar",
                "time": "2024-09-30T08:00:00Z",
                "content": "Dentist appointment on 2024-10-14 at 09:30 with Dr. Sousa.",
            },
        ),
    ),
    (
        "demo-correction",
        (
            {
                "role": "user",
                "time": "2024-10-02T20:30:00Z",
                "content": "Correction: I live in Porto now, not Lisbon. I moved again in September.",
            },
            {
                "role": "assistant",
                "time": "2024-10-02T20:30:15Z",
                "content": "Thanks, I have updated that: you live in Porto.",
            },
        ),
    ),
)


def load_demo(memory: Memory, *, user_id: str | None = None) -> list[AddResult]:
    """Add the demo conversations through ``memory.adding.add``, one call per conversation."""
    return [
        memory.adding.add(list(messages), user_id=user_id, session_id=session_id)
        for session_id, messages in DEMO_CONVERSATIONS
    ]
