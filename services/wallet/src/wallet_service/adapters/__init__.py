"""The wallet's adapters: the SQL of its projection tables."""
