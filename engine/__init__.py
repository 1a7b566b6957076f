"""jitfish.engine: typed API and the jitfish command."""
