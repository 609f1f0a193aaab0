"""End-to-end encrypted sync between one person's devices."""
