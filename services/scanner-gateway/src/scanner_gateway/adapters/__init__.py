"""Postgres projections and the Redis verdict broker."""
