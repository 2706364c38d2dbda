"""``python -m incanon``."""

from incanon.cli.main import main

main()
