"""The scanner gateway's own settings (`TP_*` variables) on top of the shared infrastructure."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class ScannerSettings(InfrastructureSettings):
    scanner_database: str = "tp_scanner"
    # the same card from the same device this soon after its last read is scanner bounce
    duplicate_window_seconds: float = Field(default=2.0, ge=0, le=60)
    # how long a read waits for the table's verdict before answering `pending`
    verdict_timeout_seconds: float = Field(default=1.0, gt=0, le=30)
    # how long a verdict stays in Redis for a late GET (the scans table keeps it for good)
    verdict_ttl_seconds: int = Field(default=60, ge=1, le=3600)
