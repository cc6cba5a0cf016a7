"""A deliberately broken Hub88 operator wallet, for the tests of `teenpatti operator-check`.

With no break switched on it is a small correct operator (in memory, an ASGI app); each break
is one bug an operator's wallet really could have, and one case of the check must catch it.
Like `hub88_operator.py` it is written from the protocol text and imports nothing from the
product: the signing, the header name and the amounts are its own.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

SIGNATURE_HEADER = b"x-hub88-signature"
BALANCE, BET, WIN, ROLLBACK = (
    "/user/balance",
    "/transaction/bet",
    "/transaction/win",
    "/transaction/rollback",
)

# each break and the bug it is
BREAKS = {
    "balance_in_other_currency": "/user/balance answers the balance labelled in another currency",
    "bet_debits_twice": "a bet debits twice its amount",
    "replay_applied_again": "a bet or win sent again with the same data is applied again",
    "replay_refused_as_duplicate": "a bet or win sent again is refused as a duplicate",
    "duplicate_accepted": "a transaction_uuid sent with other data is answered as a repeat",
    "win_paid_only_on_round_close": "a win with round_closed false credits nothing",
    "zero_win_refused": "a win of 0 is refused RS_ERROR_WRONG_TYPES",
    "closing_win_refused_with_open_bets": "a closing win is refused while the round has another"
    " open bet",
    "rollback_credits_nothing": "a rollback answers RS_OK and credits nothing",
    "no_tombstone": "a rollback of an unknown bet is forgotten: the late bet is taken",
    "unknown_rollback_refused": "a rollback of an unknown bet is refused",
    "signature_not_checked": "requests are applied whatever their signature",
    "currency_not_checked": "a bet in another currency is debited from the session's wallet",
    "overdraft_allowed": "a bet above the balance is taken",
    "answers_signed_badly": "answers are signed with a key the game side does not know",
    "refusals_unsigned": "refusals carry no signature",
    "wrong_request_uuid": "answers carry a request_uuid of their own",
}

_Message = MutableMapping[str, Any]


@dataclass
class _Bet:
    user: str
    round: str
    amount: int
    state: str = "open"  # won, closed, rolled_back


class _Refused(Exception):
    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class BrokenOperator:
    """An ASGI app; `add_player` gives a session token; `breaks` are keys of BREAKS."""

    def __init__(
        self,
        game_public_key_pem: bytes,
        breaks: frozenset[str] = frozenset(),
        private_key: rsa.RSAPrivateKey | None = None,
    ) -> None:
        unknown = breaks - BREAKS.keys()
        if unknown:
            raise ValueError(f"no such break: {', '.join(sorted(unknown))}")
        key = serialization.load_pem_public_key(game_public_key_pem)
        assert isinstance(key, rsa.RSAPublicKey)
        self._game_key = key
        self._key = private_key or rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._wrong_key = (
            rsa.generate_private_key(public_exponent=65537, key_size=2048)
            if "answers_signed_badly" in breaks
            else self._key
        )
        self.breaks = breaks
        self.public_key_pem = self._key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self._sessions: dict[str, tuple[str, str]] = {}
        self._wallets: dict[tuple[str, str], int] = {}
        self._done: dict[str, tuple[object, ...]] = {}
        self._bets: dict[str, _Bet] = {}
        self._tombstones: set[str] = set()

    def add_player(self, user: str, currency: str, balance: int) -> str:
        token = secrets.token_urlsafe(24)
        self._sessions[token] = (user, currency)
        self._wallets[(user, currency)] = balance
        return token

    def balance(self, user: str, currency: str) -> int:
        return self._wallets[(user, currency)]

    async def __call__(
        self,
        scope: _Message,
        receive: Callable[[], Awaitable[_Message]],
        send: Callable[[_Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if scope["method"] != "POST" or scope["path"] not in (BALANCE, BET, WIN, ROLLBACK):
            await self._send(send, 404, b'{"error":"not found"}', signed=False)
            return
        signatures = [v for k, v in scope["headers"] if k.lower() == SIGNATURE_HEADER]
        answer = self._answer(scope["path"], body, signatures[0] if signatures else None)
        content = json.dumps(answer, separators=(",", ":")).encode()
        unsigned = "refusals_unsigned" in self.breaks and answer["status"] != "RS_OK"
        await self._send(send, 200, content, signed=not unsigned)

    async def _send(
        self, send: Callable[[_Message], Awaitable[None]], status: int, body: bytes, signed: bool
    ) -> None:
        headers = [(b"content-type", b"application/json")]
        if signed:
            signature = self._wrong_key.sign(body, padding.PKCS1v15(), hashes.SHA256())
            headers.append((SIGNATURE_HEADER, base64.b64encode(signature)))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _verified(self, body: bytes, signature: bytes | None) -> bool:
        if signature is None:
            return False
        try:
            raw = base64.b64decode(signature, validate=True)
            self._game_key.verify(raw, body, padding.PKCS1v15(), hashes.SHA256())
        except (binascii.Error, ValueError, InvalidSignature):
            return False
        return True

    def _answer(self, path: str, body: bytes, signature: bytes | None) -> dict[str, Any]:
        try:
            fields = json.loads(body)
        except ValueError:
            fields = {}
        fields = fields if isinstance(fields, dict) else {}
        session = self._sessions.get(str(fields.get("token")))
        wallet = session if session is not None and session[0] == fields.get("user") else None
        requested = fields.get("currency")
        currency = requested if isinstance(requested, str) else wallet[1] if wallet else "EUR"
        try:
            if not self._verified(body, signature) and "signature_not_checked" not in self.breaks:
                raise _Refused("RS_ERROR_INVALID_SIGNATURE")
            if wallet is None:
                raise _Refused("RS_ERROR_INVALID_TOKEN")
            currency = self._apply(path, fields, wallet)
            status = "RS_OK"
        except _Refused as refused:
            status = refused.status
            currency = wallet[1] if wallet is not None else currency
        request_uuid = fields.get("request_uuid", "")
        if "wrong_request_uuid" in self.breaks:
            request_uuid = str(uuid4())
        return {
            "user": fields.get("user", ""),
            "status": status,
            "request_uuid": request_uuid,
            "currency": currency,
            "balance": self._wallets[wallet] if wallet is not None else 0,
        }

    def _apply(self, path: str, fields: dict[str, Any], wallet: tuple[str, str]) -> str:
        """Applies one call; the currency its answer names."""
        if path == BALANCE:
            if "balance_in_other_currency" in self.breaks:
                return "USD" if wallet[1] == "EUR" else "EUR"
            return wallet[1]
        currency = fields.get("currency", wallet[1])
        if currency != wallet[1] and "currency_not_checked" not in self.breaks:
            raise _Refused("RS_ERROR_WRONG_CURRENCY")
        uuid = fields["transaction_uuid"]
        identity = tuple(
            json.dumps(fields.get(name))
            for name in ("user", "round", "amount", "currency", "reference_transaction_uuid")
        )
        identity = (path, *identity)
        if uuid in self._done:
            if self._done[uuid] != identity:
                if "duplicate_accepted" in self.breaks:
                    return str(currency)
                raise _Refused("RS_ERROR_DUPLICATE_TRANSACTION")
            if "replay_refused_as_duplicate" in self.breaks and path in (BET, WIN):
                raise _Refused("RS_ERROR_DUPLICATE_TRANSACTION")
            if "replay_applied_again" in self.breaks and path in (BET, WIN):
                self._wallets[wallet] += fields["amount"] if path == WIN else -fields["amount"]
            elif path == BET and self._bets[uuid].state == "rolled_back":
                raise _Refused("RS_ERROR_TRANSACTION_ROLLED_BACK")
            return str(currency)
        if path == BET:
            self._bet(uuid, fields, wallet)
        elif path == WIN:
            self._win(fields, wallet)
        else:
            self._rollback(fields, wallet)
        self._done[uuid] = identity
        return str(currency)

    def _bet(self, uuid: str, fields: dict[str, Any], wallet: tuple[str, str]) -> None:
        if uuid in self._tombstones:
            raise _Refused("RS_ERROR_TRANSACTION_ROLLED_BACK")
        amount = fields["amount"]
        if self._wallets[wallet] < amount and "overdraft_allowed" not in self.breaks:
            raise _Refused("RS_ERROR_NOT_ENOUGH_MONEY")
        self._wallets[wallet] -= 2 * amount if "bet_debits_twice" in self.breaks else amount
        self._bets[uuid] = _Bet(wallet[0], fields["round"], amount)

    def _win(self, fields: dict[str, Any], wallet: tuple[str, str]) -> None:
        bet = self._bets.get(fields["reference_transaction_uuid"])
        if bet is None or bet.user != wallet[0]:
            raise _Refused("RS_ERROR_TRANSACTION_DOES_NOT_EXIST")
        if bet.state == "rolled_back":
            raise _Refused("RS_ERROR_TRANSACTION_ROLLED_BACK")
        if bet.state != "open":
            raise _Refused("RS_ERROR_UNKNOWN")
        amount, closing = fields["amount"], fields["round_closed"]
        if amount == 0 and "zero_win_refused" in self.breaks:
            raise _Refused("RS_ERROR_WRONG_TYPES")
        others = [
            other
            for other in self._bets.values()
            if other is not bet
            and other.state == "open"
            and (other.user, other.round) == (bet.user, bet.round)
        ]
        if closing and others and "closing_win_refused_with_open_bets" in self.breaks:
            raise _Refused("RS_ERROR_UNKNOWN")
        if closing or "win_paid_only_on_round_close" not in self.breaks:
            self._wallets[wallet] += amount
        bet.state = "won"
        for other in others if closing else []:
            other.state = "closed"

    def _rollback(self, fields: dict[str, Any], wallet: tuple[str, str]) -> None:
        reference = fields["reference_transaction_uuid"]
        bet = self._bets.get(reference)
        if bet is None:
            if "unknown_rollback_refused" in self.breaks:
                raise _Refused("RS_ERROR_TRANSACTION_DOES_NOT_EXIST")
            if "no_tombstone" not in self.breaks:
                self._tombstones.add(reference)
            return
        if bet.user != wallet[0] or bet.state in ("won", "closed"):
            raise _Refused("RS_ERROR_TRANSACTION_DOES_NOT_EXIST")
        if bet.state == "rolled_back":
            raise _Refused("RS_ERROR_TRANSACTION_ROLLED_BACK")
        if "rollback_credits_nothing" not in self.breaks:
            self._wallets[wallet] += bet.amount
        bet.state = "rolled_back"
