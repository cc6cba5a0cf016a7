"""Hostile-insider tests (issue 23): each case ends with nothing lost and nothing paid or
dealt that should not be."""
