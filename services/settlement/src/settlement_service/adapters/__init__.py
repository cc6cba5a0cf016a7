"""Adapters of the settlement service: its Postgres projection."""
