"""The table service's own SQL (stream reads, the `tables` projection) and Redis."""
