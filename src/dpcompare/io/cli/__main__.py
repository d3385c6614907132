"""``python -m dpcompare.io.cli`` runs the command line."""

from . import main

raise SystemExit(main())
