"""The scanner gateway's own settings (`TP_*` variables) on top of the shared infrastructure."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class ScannerSettings(InfrastructureSettings):
    scanner_database: str = Field(
        default="tp_scanner",
        description="The gateway's database; also read by `teenpatti migrate scanner-gateway`"
        " and `teenpatti audit` (unless given `--scanner-db`).",
    )
    duplicate_window_seconds: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="The same card from the same device this soon after its last read is"
        " scanner bounce, absorbed; `0`: nothing is absorbed.",
    )
    verdict_timeout_seconds: float = Field(
        default=1.0,
        gt=0,
        le=30,
        description="How long a read waits for the table's verdict before answering `pending`"
        " (202).",
    )
    verdict_ttl_seconds: int = Field(
        default=60,
        ge=1,
        le=3600,
        description="How long a verdict stays in Redis (`scan:<scan_id>`) for a late"
        " `GET /scans/{id}`; the `scans` table keeps it for good.",
    )
