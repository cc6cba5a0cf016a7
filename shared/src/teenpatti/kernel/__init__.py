"""The service kernel: a service declares itself (`Service`), the kernel runs it."""

from teenpatti.kernel.service import Consumption, Kernel, Refusal, Service, Wiring
from teenpatti.kernel.subscriptions import EVERY_EVENT, EventHandler, Received, Subscriptions

__all__ = [
    "EVERY_EVENT",
    "Consumption",
    "EventHandler",
    "Kernel",
    "Received",
    "Refusal",
    "Service",
    "Subscriptions",
    "Wiring",
]
