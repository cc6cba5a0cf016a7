"""The scanner-gateway service."""
