"""Integrations with training libraries (optional extras): :mod:`.opacus` (``pip install 'dpcompare[opacus]'``)."""
