"""jitfish.eval: per-variant evaluation."""
