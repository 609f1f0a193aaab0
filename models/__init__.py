"""Model adapters: the ONNX embedder and the LLM backends."""
