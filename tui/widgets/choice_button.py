"""A radio button whose mark says its state without colour: ● chosen, blank not chosen.

Textual's RadioButton draws ● for every option and shows the choice by colour only, so a
disabled option and the chosen one look alike in a plain or low-colour terminal.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton

CHOSEN, NOT_CHOSEN = "●", " "


class ChoiceButton(RadioButton):
    """A RadioButton that draws its mark only when it is the chosen option."""

    def render(self) -> Content:
        self.BUTTON_INNER = CHOSEN if self.value else NOT_CHOSEN
        return super().render()
