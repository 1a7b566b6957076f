"""jitfish.bench: benchmarks against the peers."""
