"""Input and output: the spec language (all parsing), the command line, figures, reports and files.

Nothing below ``io`` imports from it; heavy libraries (matplotlib, typer, rich) load lazily here.
"""
