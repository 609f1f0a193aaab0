"""The VeraMem memory engine.

Plain functions and small classes over one SQLCipher connection. The engine never
imports the TUI, the CLI, the network or a concrete model: it receives an
:class:`~veramem_desktop.core.protocols.Embedder` and an
:class:`~veramem_desktop.core.llm.LLM` from the facade.
"""
