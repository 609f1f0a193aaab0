"""Retrieval strength: how easily a memory comes to mind, fading while it goes unused.

A stretched exponential, ``s(t) = exp(-(t / tau) ** beta)``, where ``t`` is the time since
the memory was last useful. With ``beta < 1`` the curve falls quickly at first and then
flattens, so a long gap costs less than a linear fade would. ``tau`` (the time scale)
grows with importance and doubles for verified memories, so those fade more slowly.

Strength only moves ranking a little and decides nothing else: decay never changes
confidence, trust, status or what a memory says. Pure functions; ``now`` is an argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from veramem_desktop.core.storage.ids import parse_iso


@dataclass(frozen=True)
class DecayConfig:
    #: time scale in days of an unimportant, unverified memory (its strength is 1/e after it)
    base_days: float = 30.0
    #: stretching exponent; below 1 forgives long gaps
    beta: float = 0.8
    #: how much longer the time scale of a memory of importance 1 is than one of importance 0
    importance_gain: float = 3.0
    #: time-scale multiplier for memories a person verified
    verified_factor: float = 2.0


def time_scale(importance: float, verified: bool, config: DecayConfig = DecayConfig()) -> float:
    """``tau`` in days: longer for important and verified memories."""
    imp = min(max(importance, 0.0), 1.0)
    tau = config.base_days * (1.0 + config.importance_gain * imp)
    return tau * (config.verified_factor if verified else 1.0)


def strength(
    idle_days: float, importance: float, verified: bool, config: DecayConfig = DecayConfig()
) -> float:
    """Retrieval strength in [0, 1] after ``idle_days`` without use."""
    t = max(idle_days, 0.0)
    return math.exp(-((t / time_scale(importance, verified, config)) ** config.beta))


def idle_days(last_used_at: str | None, created_at: str, now: datetime) -> float:
    """Days since the memory was last useful (or since it was stored, if never)."""
    since = parse_iso(last_used_at or created_at)
    return max((now - since).total_seconds() / 86400.0, 0.0)
