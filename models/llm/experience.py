"""The slot template an abstracted experience is written in, shared by every backend."""

from __future__ import annotations

from collections.abc import Sequence


def render_experience(
    name: str, applies_when: str, inputs: Sequence[str], procedure: Sequence[str], caution: str
) -> str:
    """``## name`` then one line each for Applies when, Inputs, Procedure and Caution."""
    steps = " ".join(f"{i}. {_sentence(step)}" for i, step in enumerate(procedure, 1)) or "(no steps)"
    return "\n".join(
        [
            f"## {_one_line(name)}",
            f"Applies when: {_one_line(applies_when)}",
            f"Inputs: {', '.join(_one_line(i) for i in inputs) or 'none'}",
            f"Procedure: {steps}",
            f"Caution: {_one_line(caution)}",
        ]
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _sentence(text: str) -> str:
    text = _one_line(text)
    return text if text[-1:] in ".!?" else f"{text}."
