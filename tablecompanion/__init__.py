"""TableCompanion: a referee and record keeper for backgammon played on a real board."""

__version__ = "0.1.0"
