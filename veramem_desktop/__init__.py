"""VeraMem Desktop: a private, verifiable long-term memory for one person's AI agents."""

__version__ = "0.1.0"
