"""jitfish.protocol.board: ``jitfish board``, a local web board to play, watch and replay every
variant (``server.py`` the web server, ``session.py`` one page's game and engine, ``game.py`` the
game and what the page is sent, ``pieces.py`` pictures and moves in words, ``publisher.py`` what
``jitfish match --board PORT`` calls, ``static/`` the page and the piece pictures)."""
from .publisher import BoardPublisher
from .server import main

__all__ = ["BoardPublisher", "main"]
