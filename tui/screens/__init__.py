"""One screen per file."""
