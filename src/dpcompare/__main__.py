"""``python -m dpcompare`` runs the command line."""

from .io.cli import main

raise SystemExit(main())
