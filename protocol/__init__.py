"""jitfish.protocol: XBoard/CECP v2 and UCI."""
