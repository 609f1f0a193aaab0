"""The rule-based tasks, one module each, used by :class:`~veramem_desktop.models.llm.rule_based.RuleBasedLLM`."""
