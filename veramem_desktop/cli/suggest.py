"""'Did you mean …?' for a mistyped command, the way click already does it for a mistyped option.

click suggests close option names (difflib over the command's own options) but says only "No such
command" for a command. :class:`SuggestingGroup` adds the same suggestion for its commands, from the
names it lists (so lazily loaded commands count too): the close matches by difflib's ratio, or the
commands the typed name begins (``veramem sea`` -> search).
"""

from __future__ import annotations

import difflib

import click

#: how alike (difflib's ratio) a name must be to be offered; click uses the same cutoff for options
CUTOFF = 0.6


def did_you_mean(typed: str, names: list[str]) -> str:
    """'Did you mean 'search'?' (or two or three names) for ``typed``, or "" when nothing is close."""
    close = difflib.get_close_matches(typed, names, n=3, cutoff=CUTOFF)
    if not close and len(typed) >= 2:
        close = [name for name in names if name.startswith(typed)][:3]
    if not close:
        return ""
    return "Did you mean " + " or ".join(repr(name) for name in close) + "?"


class SuggestingGroup(click.Group):
    """A click group whose 'No such command' error names the close commands."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            typed = args[0] if args else ""
            hint = did_you_mean(typed, self.list_commands(ctx)) if typed and not typed.startswith("-") else ""
            if not hint or exc.ctx is None:
                raise
            raise click.UsageError(f"No such command {typed!r}. {hint}", exc.ctx) from None
