"""The settlement service."""
